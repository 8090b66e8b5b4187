//! rapier's `KinematicCharacterController` on the terrain (issue 30, test 5): its shape casts go
//! through the dispatcher's `cast_shapes` (voxel-contacts' sweep with position keys).

mod common;

use common::*;
use glam::{IVec3, Vec3};
use parry3d::math::Pose;
use parry3d::shape::SharedShape;
use rapier3d::control::{CharacterLength, KinematicCharacterController};
use rapier3d::prelude::*;
use voxel_rapier::{TerrainShape, snap_to_ground};

const DT: f32 = 1.0 / 60.0;
const GRAVITY: f32 = -9.81;

struct Walker {
    sim: Sim,
    controller: KinematicCharacterController,
    shape: SharedShape,
    pose: Pose,
    fall: f32,
    /// Snap down with the crate's `snap_to_ground` after each walk (rapier's own snapping works
    /// only on its built-in shapes).
    snap: bool,
}

impl Walker {
    fn new(terrain: &TerrainShape, start: Vec3) -> Self {
        Self::on(Sim::ours(terrain), start)
    }

    fn on(mut sim: Sim, start: Vec3) -> Self {
        // One step puts the terrain into the broad phase the queries read.
        sim.step();
        let controller = KinematicCharacterController {
            offset: CharacterLength::Absolute(0.02),
            snap_to_ground: Some(CharacterLength::Absolute(0.3)),
            max_slope_climb_angle: 45f32.to_radians(),
            min_slope_slide_angle: 40f32.to_radians(),
            ..KinematicCharacterController::default()
        };
        Self {
            sim,
            controller,
            shape: SharedShape::capsule_y(0.5, 0.3),
            pose: Pose::from_translation(start),
            fall: 0.0,
            snap: false,
        }
    }

    /// One frame: the horizontal move, then gravity as a separate move. Returns the horizontal
    /// move achieved.
    fn frame(&mut self, velocity: Vec3) -> Vec3 {
        let physics = &self.sim.physics;
        let queries = physics.broad_phase.as_query_pipeline(
            physics.narrow_phase.query_dispatcher(),
            &physics.bodies,
            &physics.colliders,
            QueryFilter::default(),
        );
        let walk = self.controller.move_shape(DT, &queries, self.shape.as_ref(), &self.pose, velocity * DT, |_| {});
        self.pose.translation += walk.translation;
        if self.snap
            && let Some(snap) = snap_to_ground(&queries, self.shape.as_ref(), &self.pose, Vec3::Y, 0.3, 0.02)
        {
            self.pose.translation += snap;
        }
        self.fall = (self.fall + GRAVITY * DT).max(-20.0);
        let drop = self.controller.move_shape(
            DT,
            &queries,
            self.shape.as_ref(),
            &self.pose,
            Vec3::new(0.0, self.fall * DT, 0.0),
            |_| {},
        );
        self.pose.translation += drop.translation;
        if drop.translation.y > self.fall * DT * 0.5 {
            // Stopped by the ground.
            self.fall = 0.0;
        }
        walk.translation
    }
}

/// Walking across chunk seams on flat ground: the commanded speed within 1% every frame, no stall.
#[test]
fn walks_across_seams_at_the_commanded_speed() {
    let terrain = TerrainShape::new(flat(IVec3::new(64, 16, 32)));
    for dir in [Vec3::X, Vec3::new(1.0, 0.0, 1.0).normalize()] {
        let mut w = Walker::new(&terrain, Vec3::new(3.0, 7.5 + 0.8 + 0.03, 3.0));
        let speed = 4.0;
        for frame in 0..400 {
            let moved = w.frame(dir * speed);
            let along = moved.dot(dir) / DT;
            if frame > 5 && w.pose.translation.x < 58.0 && w.pose.translation.z < 28.0 {
                assert!((along - speed).abs() <= 0.01 * speed, "frame {frame} at {}: {along} m/s", w.pose.translation);
            }
        }
        let walked = (w.pose.translation - Vec3::new(3.0, 0.0, 3.0)).dot(dir);
        assert!(walked > 24.0, "walked across many seams: {}", w.pose.translation);
        assert!((w.pose.translation.y - 8.3).abs() < 0.05, "stayed on the ground: {}", w.pose.translation.y);
    }
}

/// A 30-degree slope is climbed; a wall stops the character.
#[test]
fn climbs_a_slope_and_is_stopped_by_a_wall() {
    let rise = 30f32.to_radians().tan();
    let slope =
        heightfield(IVec3::new(48, 40, 16), move |x, _| 7.5 + rise * (x - 12.0).max(0.0), 30f32.to_radians().cos());
    let terrain = TerrainShape::new(slope);
    let mut w = Walker::new(&terrain, Vec3::new(4.0, 8.35, 8.0));
    for frame in 0..600 {
        let moved = w.frame(Vec3::new(3.0, 0.0, 0.0));
        // On the slope the controller keeps the move's projection on it: cos^2(30) = 0.75 of the
        // commanded horizontal speed, never a stall.
        assert!(moved.x / DT > 0.74 * 3.0, "frame {frame} at {}: {} m/s", w.pose.translation, moved.x / DT);
    }
    let p = w.pose.translation;
    assert!(p.x > 28.0, "climbed the slope: {p}");
    assert!(p.y > 7.5 + rise * (p.x - 12.0), "above the slope: {p}");

    let wall = heightfield(IVec3::new(48, 24, 16), |x, _| if x < 20.0 { 7.5 } else { 20.0 }, 1.0);
    let terrain = TerrainShape::new(wall);
    let mut w = Walker::new(&terrain, Vec3::new(4.0, 8.35, 8.0));
    for _ in 0..300 {
        w.frame(Vec3::new(3.0, 0.0, 0.0));
    }
    let p = w.pose.translation;
    assert!(p.x < 19.7 && p.x > 18.5, "stopped by the wall at x = 19.5 - 0.3: {p}");
}

/// Walking down a 20-degree slope with no gravity applied: snapping keeps the character on the
/// ground. rapier's own `snap_to_ground` never fires on a custom shape (its grounded test uses a
/// hard-coded default dispatcher), so the crate's [`snap_to_ground`] does it through the
/// pipeline's cast.
#[test]
fn snaps_to_the_ground_going_down() {
    let fall = 20f32.to_radians().tan();
    let h = move |x: f32| 20.5 - fall * (x - 12.0).max(0.0);
    let terrain = TerrainShape::new(heightfield(IVec3::new(48, 32, 16), move |x, _| h(x), 20f32.to_radians().cos()));
    let mut w = Walker::new(&terrain, Vec3::new(6.0, h(6.0) + 0.83, 8.0));
    for frame in 0..200 {
        let physics = &w.sim.physics;
        let queries = physics.broad_phase.as_query_pipeline(
            physics.narrow_phase.query_dispatcher(),
            &physics.bodies,
            &physics.colliders,
            QueryFilter::default(),
        );
        let m = w.controller.move_shape(DT, &queries, w.shape.as_ref(), &w.pose, Vec3::new(2.0 * DT, 0.0, 0.0), |_| {});
        w.pose.translation += m.translation;
        if let Some(snap) = snap_to_ground(&queries, w.shape.as_ref(), &w.pose, Vec3::Y, 0.3, 0.02) {
            w.pose.translation += snap;
        }
        let p = w.pose.translation;
        if p.x < 40.0 {
            let ground = surface_y(&terrain, p.x, p.z).unwrap();
            let gap = p.y - 0.8 - ground;
            assert!(gap < 0.05, "frame {frame}: {gap} above the slope at {p}");
        }
    }
}

/// `cast_shapes` through rapier's query pipeline and directly, in both orders: a ball dropped on
/// flat ground (top at 7.5) from y = 12 touches at t = 4 (target distance 0.1 stops 0.1 early).
#[test]
fn shape_casts_through_the_pipeline_and_both_orders() {
    use parry3d::query::{QueryDispatcher, ShapeCastOptions};
    let terrain = TerrainShape::new(flat(IVec3::new(32, 16, 32)));
    let w = Walker::new(&terrain, Vec3::ZERO);
    let physics = &w.sim.physics;
    let queries = physics.broad_phase.as_query_pipeline(
        physics.narrow_phase.query_dispatcher(),
        &physics.bodies,
        &physics.colliders,
        QueryFilter::default(),
    );
    let ball = SharedShape::ball(0.5);
    let start = Pose::from_translation(Vec3::new(10.3, 12.0, 9.7));
    let options = ShapeCastOptions { target_distance: 0.1, ..ShapeCastOptions::with_max_time_of_impact(10.0) };
    let (_, hit) = queries.cast_shape(&start, Vec3::NEG_Y, ball.as_ref(), options).expect("a hit");
    assert!((hit.time_of_impact - 3.9).abs() < 1e-3, "{}", hit.time_of_impact);

    let t = terrain.shared_shape();
    let d = voxel_rapier::TerrainDispatcher;
    let a = d.cast_shapes(&start, Vec3::NEG_Y, t.as_ref(), ball.as_ref(), options).unwrap().unwrap();
    // The terrain moving up under the ball is the same cast from the ball's side.
    let b = d.cast_shapes(&start.inverse(), Vec3::Y, ball.as_ref(), t.as_ref(), options).unwrap().unwrap();
    assert!((a.time_of_impact - 3.9).abs() < 1e-3 && (b.time_of_impact - a.time_of_impact).abs() < 1e-5);
    assert!(a.normal1.y > 0.99 && a.normal2.y < -0.99 && b.normal1.y < -0.99 && b.normal2.y > 0.99);
    assert!((a.witness1.y - 7.5).abs() < 0.01 && (a.witness2.y + 0.5).abs() < 0.01, "{a:?}");
    assert!((b.witness2 - a.witness1).length() < 1e-4 && (b.witness1 - a.witness2).length() < 1e-4);
    // Nothing below within reach, and a non-finite motion: no hit.
    let short = ShapeCastOptions::with_max_time_of_impact(1.0);
    assert!(d.cast_shapes(&start, Vec3::NEG_Y, t.as_ref(), ball.as_ref(), short).unwrap().is_none());
    assert!(d.cast_shapes(&start, Vec3::NAN, t.as_ref(), ball.as_ref(), options).unwrap().is_none());
}

/// How a walk went once under way: the slowest and fastest horizontal speed along the commanded
/// direction, and the lowest and highest the feet got above the plane.
#[derive(Debug)]
struct Walked {
    speed: (f32, f32),
    feet: (f32, f32),
    distance: f32,
}

fn walk(mut w: Walker, dir: Vec3, height: impl Fn(f32, f32) -> f32) -> Walked {
    let start = w.pose.translation;
    let mut out = Walked { speed: (f32::INFINITY, 0.0), feet: (f32::INFINITY, f32::NEG_INFINITY), distance: 0.0 };
    for frame in 0..300 {
        let moved = w.frame(dir * 4.0);
        let p = w.pose.translation;
        if !(6.0..90.0).contains(&p.x) || !(6.0..58.0).contains(&p.z) {
            break;
        }
        if frame > 20 {
            let along = moved.dot(dir) / DT;
            out.speed = (out.speed.0.min(along), out.speed.1.max(along));
            let feet = p.y - 0.8 - height(p.x, p.z);
            out.feet = (out.feet.0.min(feet), out.feet.1.max(feet));
        }
    }
    out.distance = (w.pose.translation - start).dot(dir);
    out
}

/// Walking down, up and across a 20-degree plane slanted to the grid, across seams on every axis,
/// with `snap_to_ground`: the horizontal speed is as steady as on one stitched `TriMesh` with
/// rapier's own snapping (within 1% of it), and the feet stay as close to the plane.
#[test]
fn walks_a_slanted_plane_as_on_one_stitched_mesh() {
    use parry3d::shape::TriMeshFlags;
    use voxel_rapier::reference;
    let plane = SlantedPlane::new();
    let (down, height) = (plane.dir, move |x: f32, z: f32| plane.height(x, z));
    let collider = plane.collider();
    let one = vec![reference::stitched_trimesh(&collider, TriMeshFlags::FIX_INTERNAL_EDGES).unwrap()];
    let terrain = TerrainShape::new(collider);
    let across = Vec3::new(-down.z, 0.0, down.x);
    for (start, dir) in
        [(Vec3::new(10.0, 0.0, 8.0), down), (Vec3::new(80.0, 0.0, 50.0), -down), (Vec3::new(10.0, 0.0, 50.0), -across)]
    {
        let at = start + Vec3::Y * (height(start.x, start.z) + 0.8 + 0.1);
        let mut w = Walker::new(&terrain, at);
        w.snap = true;
        let ours = walk(w, dir, height);
        let mesh = walk(Walker::on(Sim::meshes(&one), at), dir, height);
        println!("{dir}: ours {ours:?}\n  stitched {mesh:?}");
        assert!(ours.distance > 15.0, "{dir}: {ours:?}");
        assert!(
            ours.speed.0 >= mesh.speed.0 * 0.99 && ours.speed.1 <= mesh.speed.1 * 1.01,
            "{dir}: {ours:?} vs {mesh:?}"
        );
        assert!(ours.feet.0 > 0.0 && ours.feet.1 <= mesh.feet.1.max(0.05), "{dir}: {ours:?} vs {mesh:?}");
    }
}
