//! `voxel-core` benches: the robust slab test over a batch, beside parry3d's ray-AABB cast.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use parry3d::query::RayCast;
use voxel_bench::{config, figure, workloads};

const BATCH: usize = 4096;

fn slab(c: &mut Criterion) {
    let boxes = workloads::scattered_boxes(BATCH, 1);
    let rays = workloads::rays_towards(&boxes, 2);
    let parry_boxes: Vec<parry3d::bounding_volume::Aabb> =
        boxes.iter().map(|b| parry3d::bounding_volume::Aabb::new(b.min, b.max)).collect();
    let parry_rays: Vec<parry3d::query::Ray> = rays.iter().map(|r| parry3d::query::Ray::new(r.origin, r.dir)).collect();
    let t_max = 200.0;

    // Same input, same answers: count hits both ways once, outside the timing.
    let ours_hits = boxes.iter().zip(&rays).filter(|(b, r)| b.intersect_ray(r, 0.0, t_max).is_some()).count();
    let parry_hits =
        parry_boxes.iter().zip(&parry_rays).filter(|(b, r)| b.cast_local_ray(r, t_max, true).is_some()).count();
    figure("core/slab/hits-ours", ours_hits as f64, "of 4096");
    figure("core/slab/hits-parry3d", parry_hits as f64, "of 4096");

    let mut group = c.benchmark_group("core/slab");
    group.throughput(Throughput::Elements(BATCH as u64));
    let param = format!("{BATCH}-boxes");
    group.bench_with_input(BenchmarkId::new("ours", &param), &(), |bench, ()| {
        bench.iter(|| {
            let mut hits = 0u32;
            for (b, r) in boxes.iter().zip(&rays) {
                hits += u32::from(black_box(b).intersect_ray(r, 0.0, t_max).is_some());
            }
            hits
        });
    });
    group.bench_with_input(BenchmarkId::new("parry3d", &param), &(), |bench, ()| {
        bench.iter(|| {
            let mut hits = 0u32;
            for (b, r) in parry_boxes.iter().zip(&parry_rays) {
                hits += u32::from(black_box(b).cast_local_ray(r, t_max, true).is_some());
            }
            hits
        });
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = slab
}
criterion_main!(benches);
