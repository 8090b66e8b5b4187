//! Decomposes one mesh with the step recorder on and writes `final.obj`, one OBJ per collapse and
//! `steps.html` into a folder: `cargo run --release -p convex-hacd --example record_steps --
//! mesh.obj out_dir`.

use convex_hacd::{DecomposeOptions, decompose};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(dir)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: record_steps <mesh.obj|mesh.stl> <out_dir>");
        return;
    };
    let mesh = match voxel_testdata::load_mesh(std::path::Path::new(path)) {
        Ok(mesh) => mesh,
        Err(e) => {
            eprintln!("{e}");
            return;
        }
    };
    let options = DecomposeOptions { record: true, ..Default::default() };
    let result = decompose(&mesh, &options).map_err(|e| e.to_string()).and_then(|d| {
        let rec = d.recording.ok_or("nothing recorded")?;
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        rec.write_to(std::path::Path::new(dir)).map_err(|e| e.to_string())?;
        Ok((d.hulls.len(), rec.steps.len()))
    });
    match result {
        Ok((hulls, steps)) => println!("{hulls} hulls, {steps} collapses written to {dir}"),
        Err(e) => eprintln!("{e}"),
    }
}
