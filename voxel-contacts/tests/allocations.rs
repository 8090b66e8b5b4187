//! After warm-up, contact generation and shape casts allocate nothing: the generator's and the
//! caster's scratch and the candidate set are reused across queries, for every shape.

mod common;

use common::{gather_all, surface_nets_chunks};
use glam::{IVec3, Quat, Vec3};
use voxel_contacts::{
    Candidates, Capsule, CastOptions, ContactGenerator, ContactOptions, ConvexPolyhedron, Cuboid, Pose, Shape,
    ShapeCaster, Sphere,
};
use voxel_core::{Contact, VoxelBox};
use voxel_testdata::{CountingAllocator, Rng};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator::new();

#[test]
fn queries_allocate_nothing_after_warm_up() {
    let region = VoxelBox::new(IVec3::ZERO, IVec3::new(24, 16, 24));
    let meshes = surface_nets_chunks(region, 8, |p| p.y - 6.0 - 1.5 * (0.4 * p.x).sin() * (0.3 * p.z).cos());
    let cube: Vec<Vec3> =
        (0..8).map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32) - 0.5).collect();
    let faces = vec![
        vec![1, 3, 7, 5],
        vec![0, 4, 6, 2],
        vec![2, 6, 7, 3],
        vec![0, 1, 5, 4],
        vec![4, 5, 7, 6],
        vec![0, 2, 3, 1],
    ];
    let hull = ConvexPolyhedron::new(cube.iter().map(|&p| p * 0.6).collect(), &faces).unwrap();

    let mut rng = Rng(3);
    let queries: Vec<Vec3> =
        (0..400).map(|_| Vec3::new(rng.range(3.0, 21.0), rng.range(4.5, 7.5), rng.range(3.0, 21.0))).collect();
    let mut set = Candidates::new();
    let mut generator = ContactGenerator::new();
    let mut out: Vec<Contact> = Vec::with_capacity(4096);
    let run = |set: &mut Candidates, generator: &mut ContactGenerator, out: &mut Vec<Contact>| {
        let mut total = 0;
        for (i, &p) in queries.iter().enumerate() {
            let pose = Pose::new(Quat::from_rotation_y(i as f32), p);
            let shapes = [
                Shape::Sphere(Sphere { center: p, radius: 0.6 }),
                Shape::Capsule(Capsule { a: p, b: p + Vec3::new(0.8, 0.2, 0.3), radius: 0.4 }),
                Shape::Cuboid(Cuboid { half_extents: Vec3::new(0.5, 0.3, 0.4), pose }),
                Shape::Convex { hull: &hull, pose },
            ];
            for shape in &shapes {
                gather_all(&meshes, &shape.aabb().grow(0.05), set);
                for max_points in [0, 4] {
                    out.clear();
                    let options = ContactOptions { contact_distance: 0.05, max_points, ..ContactOptions::default() };
                    generator.generate(shape, set, &options, out).unwrap();
                    total += out.len();
                }
            }
        }
        total
    };
    // A wide box on a fine plane voids more triangles than the scanned set holds: the hashed
    // path runs too.
    let fine = common::plane(Vec3::new(0.0, 30.0, 0.0), 32, 0.125, 3);
    let wide = Shape::Cuboid(Cuboid {
        half_extents: Vec3::new(1.2, 0.3, 1.1),
        pose: Pose::from_translation(Vec3::new(2.0, 30.29, 2.0)),
    });
    let big = |set: &mut Candidates, generator: &mut ContactGenerator, out: &mut Vec<Contact>| {
        gather_all(std::slice::from_ref(&fine), &wide.aabb().grow(0.05), set);
        out.clear();
        let report = generator
            .generate(
                &wide,
                set,
                &ContactOptions { contact_distance: 0.05, max_points: 0, ..ContactOptions::default() },
                out,
            )
            .unwrap();
        assert!(report.faces > 24, "{report:?}");
        out.len()
    };
    let warm = run(&mut set, &mut generator, &mut out) + big(&mut set, &mut generator, &mut out);
    assert!(warm > 1000, "the queries must touch the terrain ({warm} contacts)");
    let before = ALLOCATOR.allocations();
    let again = run(&mut set, &mut generator, &mut out) + big(&mut set, &mut generator, &mut out);
    let after = ALLOCATOR.allocations();
    assert_eq!(warm, again);
    assert_eq!(after - before, 0, "allocations after warm-up");

    // Shape casts: down at a slant and sideways, with a skin, over the swept box's candidates.
    let mut caster = ShapeCaster::new();
    let casts = |set: &mut Candidates, caster: &mut ShapeCaster| {
        let mut landed = 0;
        for (i, &p) in queries.iter().enumerate() {
            let pose = Pose::new(Quat::from_rotation_y(i as f32), p + Vec3::Y * 3.0);
            let shapes = [
                Shape::Sphere(Sphere { center: p + Vec3::Y * 3.0, radius: 0.6 }),
                Shape::Capsule(Capsule { a: p + Vec3::Y * 3.0, b: p + Vec3::new(0.8, 3.2, 0.3), radius: 0.4 }),
                Shape::Cuboid(Cuboid { half_extents: Vec3::new(0.5, 0.3, 0.4), pose }),
                Shape::Convex { hull: &hull, pose },
            ];
            for shape in &shapes {
                for motion in [Vec3::new(0.4, -6.0, 0.2), Vec3::new(3.0, -0.5, -2.0)] {
                    let b = shape.aabb();
                    let swept = b.union(&voxel_core::Aabb::new(b.min + motion, b.max + motion)).grow(0.05);
                    gather_all(&meshes, &swept, set);
                    let options = CastOptions { max_t: 1.0, skin: 0.02, ..CastOptions::default() };
                    landed += usize::from(caster.cast(shape, motion, set, &options).unwrap().is_some());
                }
            }
        }
        landed
    };
    let warm = casts(&mut set, &mut caster);
    assert!(warm > 800, "the casts must reach the terrain ({warm} hits)");
    let before = ALLOCATOR.allocations();
    let again = casts(&mut set, &mut caster);
    let after = ALLOCATOR.allocations();
    assert_eq!(warm, again);
    assert_eq!(after - before, 0, "cast allocations after warm-up");
}
