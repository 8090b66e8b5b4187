#!/usr/bin/env python3
"""Runs CoACD (the Python package `coacd`, default parameters) on meshes for `cargo xtask coacd`.

usage: coacd_run.py OUT_DIR TIMEOUT_SECONDS MESH...

For each mesh (OBJ or STL) it writes OUT_DIR/<stem>.obj with one `o` group per hull and prints one
line `coacd: <mesh> <seconds> <hulls> <vertices>` (or `coacd: <mesh> timeout <seconds>` when the
run took longer than the timeout, or `coacd: <mesh> error <message>`). Each mesh runs in its own
process, so a timeout kills only that run. Exit status 3 when numpy or coacd is missing.
"""

import multiprocessing as mp
import os
import struct
import sys
import time


def load_obj(path):
    vertices, triangles = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] == "v":
                vertices.append([float(x) for x in words[1:4]])
            elif words[0] == "f":
                idx = []
                for w in words[1:]:
                    i = int(w.split("/")[0])
                    idx.append(i - 1 if i > 0 else len(vertices) + i)
                for k in range(1, len(idx) - 1):
                    triangles.append([idx[0], idx[k], idx[k + 1]])
    return vertices, triangles


def load_stl(path):
    data = open(path, "rb").read()
    points = []
    if data[:5] == b"solid" and b"facet" in data[:512]:
        for line in data.decode("utf-8", "replace").splitlines():
            words = line.split()
            if words and words[0] == "vertex":
                points.append(tuple(float(x) for x in words[1:4]))
    else:
        (count,) = struct.unpack("<I", data[80:84])
        for i in range(count):
            values = struct.unpack("<12f", data[84 + 50 * i : 84 + 50 * i + 48])
            points += [values[3:6], values[6:9], values[9:12]]
    index, vertices, triangles = {}, [], []
    for i in range(0, len(points) - 2, 3):
        tri = []
        for p in points[i : i + 3]:
            if p not in index:
                index[p] = len(vertices)
                vertices.append(list(p))
            tri.append(index[p])
        triangles.append(tri)
    return vertices, triangles


def run_one(path, out_path, queue):
    import numpy as np
    import coacd

    coacd.set_log_level("error")
    vertices, triangles = (load_stl if path.lower().endswith(".stl") else load_obj)(path)
    mesh = coacd.Mesh(np.array(vertices, dtype=np.float64), np.array(triangles, dtype=np.int32))
    start = time.perf_counter()
    parts = coacd.run_coacd(mesh)
    seconds = time.perf_counter() - start
    with open(out_path, "w") as f:
        base = 1
        for k, (v, t) in enumerate(parts):
            f.write(f"o hull_{k}\n")
            for p in v:
                f.write(f"v {p[0]:.9g} {p[1]:.9g} {p[2]:.9g}\n")
            for tri in t:
                f.write(f"f {tri[0] + base} {tri[1] + base} {tri[2] + base}\n")
            base += len(v)
    queue.put((seconds, len(parts), sum(len(v) for v, _ in parts)))


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import numpy  # noqa: F401
        import coacd  # noqa: F401
    except ImportError as e:
        print(f"coacd: missing Python package ({e}); install it with `pip install coacd`")
        return 3
    out_dir, timeout = sys.argv[1], float(sys.argv[2])
    os.makedirs(out_dir, exist_ok=True)
    for path in sys.argv[3:]:
        stem = os.path.splitext(os.path.basename(path))[0]
        out_path = os.path.join(out_dir, stem + ".obj")
        queue = mp.Queue()
        proc = mp.Process(target=run_one, args=(path, out_path, queue))
        start = time.perf_counter()
        proc.start()
        proc.join(timeout)
        if proc.is_alive():
            proc.kill()
            proc.join()
            print(f"coacd: {path} timeout {time.perf_counter() - start:.1f}", flush=True)
            continue
        if queue.empty():
            print(f"coacd: {path} error exit code {proc.exitcode}", flush=True)
            continue
        seconds, hulls, verts = queue.get()
        print(f"coacd: {path} {seconds:.3f} {hulls} {verts}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
