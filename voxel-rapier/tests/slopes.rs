//! Bodies sliding without friction down a tilted plane (slanted to the voxel grid, so its mesh
//! crosses chunk seams on every axis), and yawed boxes sliding fast across flat seams: once
//! landed, no body moves away from the surface.

mod common;

use common::*;
use glam::{IVec3, Quat, Vec3};
use parry3d::math::Pose;
use parry3d::shape::SharedShape;
use rapier3d::prelude::*;
use voxel_rapier::TerrainShape;

/// Adds a frictionless body (the pair takes the smaller friction: none).
fn add_slippery(sim: &mut Sim, shape: SharedShape, position: Vec3, rotation: Quat, linvel: Vec3) -> RigidBodyHandle {
    let body = RigidBodyBuilder::dynamic().pose(Pose::from_parts(position, rotation)).linvel(linvel).build();
    let h = sim.physics.bodies.insert(body);
    let collider = ColliderBuilder::new(shape).friction(0.0).friction_combine_rule(CoefficientCombineRule::Min).build();
    sim.physics.colliders.insert_with_parent(collider, h, &mut sim.physics.bodies);
    sim.bodies.push(h);
    h
}

fn shapes() -> [(SharedShape, f32); 4] {
    [
        (SharedShape::ball(0.5), 0.5),
        (SharedShape::cuboid(0.4, 0.3, 0.5), 0.3),
        (SharedShape::capsule_x(0.4, 0.3), 0.3),
        (mixed_shape(3, 1.0), 0.3),
    ]
}

/// What sliding down the plane did: steps moving off it faster than 0.05 m/s (a body riding the
/// facets' tilts of under a degree at 6 m/s gets near 0.1) and faster than 0.25 m/s (a bump), the
/// fastest such speed, the deepest any body got inside the surface, and the shortest slide.
#[derive(Debug, Default)]
struct Slid {
    kicks: usize,
    bumps: usize,
    fastest_off: f32,
    deepest: f32,
    shortest: f32,
    steps: usize,
}

/// Each shape at three yaws slides from rest down a plane falling 20 degrees along `dir`.
fn slide(make: impl Fn() -> Sim, plane: &SlantedPlane, stick: &SharedShape) -> Slid {
    let mut out = Slid { shortest: f32::INFINITY, ..Slid::default() };
    for (shape, h) in shapes() {
        for (start_z, yaw) in [(8.0, 0.0f32), (20.0, 30.0), (31.5, 45.0)] {
            let mut sim = make();
            let (x, z) = (6.0, start_z);
            let position = Vec3::new(x, plane.height(x, z), z) + plane.normal * (h + 0.002);
            let rotation = Quat::from_rotation_arc(Vec3::Y, plane.normal) * Quat::from_rotation_y(yaw.to_radians());
            let body = add_slippery(&mut sim, shape.clone(), position, rotation, Vec3::ZERO);
            for step in 0..150 {
                sim.step();
                let pose = sim.pose(body);
                if pose.translation.x > 88.0 || pose.translation.z > 58.0 {
                    break;
                }
                if step >= 10 {
                    let off = sim.linvel(body).dot(plane.normal);
                    out.kicks += usize::from(off > 0.05);
                    out.bumps += usize::from(off > 0.25);
                    out.fastest_off = out.fastest_off.max(off);
                    out.deepest = out.deepest.max(depth_inside(stick, &shape, &pose));
                    out.steps += 1;
                }
            }
            out.shortest = out.shortest.min((sim.pose(body).translation - position).dot(plane.dir));
        }
    }
    out
}

/// Down the slanted plane (its mesh crosses seams on every axis): balls, boxes, capsules and hulls slide down from rest. Ours never bumps,
/// moves off the plane no faster than on one stitched `TriMesh` with `FIX_INTERNAL_EDGES` (the
/// quantized distances tilt the facets by up to a degree), and sinks no deeper; `TriMesh` per
/// chunk without the flag, in the same scenes, shows the count sees seam bumps.
#[test]
fn sliding_down_a_slanted_plane_bumps_no_more_than_one_stitched_mesh() {
    use parry3d::shape::TriMeshFlags;
    use voxel_rapier::reference;
    let plane = SlantedPlane::new();
    let collider = plane.collider();
    let stick = stitched(&collider);
    let one = vec![reference::stitched_trimesh(&collider, TriMeshFlags::FIX_INTERNAL_EDGES).unwrap()];
    let per_chunk = reference::trimesh_per_chunk(&collider, TriMeshFlags::empty());
    let terrain = TerrainShape::new(collider);
    let ours = slide(|| Sim::ours(&terrain), &plane, &stick);
    let stitched = slide(|| Sim::meshes(&one), &plane, &stick);
    let bumpy = slide(|| Sim::meshes(&per_chunk), &plane, &stick);
    println!("ours {ours:?}\nstitched + flag {stitched:?}\nper chunk, no flag {bumpy:?}");
    assert!(ours.steps > 1000, "{ours:?}");
    assert!(ours.shortest > 8.0, "a body did not slide down: {ours:?}");
    assert!(bumpy.bumps > 20, "the count sees seam bumps: {bumpy:?}");
    assert_eq!(ours.bumps, 0, "{ours:?}");
    assert!(ours.fastest_off <= stitched.fastest_off + 0.01, "ours leaves the plane faster: {ours:?} vs {stitched:?}");
    assert!(ours.kicks <= 2 * stitched.kicks, "ours rides the facets more often: {ours:?} vs {stitched:?}");
    assert!(ours.deepest <= stitched.deepest.max(0.006), "{ours:?} vs {stitched:?}");
}

/// Boxes yawed across the grid sliding fast over flat ground: no upward velocity after landing.
#[test]
fn yawed_boxes_cross_flat_seams_smoothly() {
    let terrain = TerrainShape::new(flat(IVec3::new(96, 16, 96)));
    let surface = 7.5;
    let mut checked = 0;
    for yaw in [10.0f32, 30.0, 45.0, 70.0] {
        for speed in [2.0, 8.0] {
            let mut sim = Sim::ours(&terrain);
            let v = Quat::from_rotation_y(yaw.to_radians()) * Vec3::new(speed, 0.0, 0.0);
            let start = Vec3::new(8.0, surface + 0.302, 48.0 - 30.0 * (v.z / speed));
            let rotation = Quat::from_rotation_y((yaw * 1.7).to_radians());
            let body = add_slippery(&mut sim, SharedShape::cuboid(0.4, 0.3, 0.5), start, rotation, v);
            for step in 0..200 {
                sim.step();
                let p = sim.pose(body).translation;
                if !(4.0..92.0).contains(&p.x) || !(4.0..92.0).contains(&p.z) {
                    break;
                }
                if step >= 5 {
                    let up = sim.linvel(body).y;
                    assert!(up <= 0.05, "yaw {yaw} at {speed} m/s: step {step} moves up at {up} m/s");
                    checked += 1;
                }
            }
            let p = sim.pose(body).translation;
            assert!(p.y > surface, "yaw {yaw} at {speed} m/s ended below the surface");
            assert!((p - start).length() > 5.0, "yaw {yaw} at {speed} m/s stalled");
        }
    }
    assert!(checked > 500, "{checked}");
}
