//! Scenes shared by the scenario tests: voxel worlds, a rapier world around them, and the
//! measure of how deep a body is inside the surface (parry's own contact query on one stitched
//! mesh of the same surface, not the dispatcher under test).
#![allow(dead_code, unreachable_pub)]

use glam::{IVec3, Quat, Vec3};
use parry3d::math::Pose;
use parry3d::shape::{SharedShape, TriMeshFlags};
use rapier3d::prelude::*;
use voxel_core::{Voxel, VoxelBox};
use voxel_physics::{ColliderOptions, TerrainCollider};
use voxel_rapier::{TerrainDispatcher, TerrainShape, reference};
use voxel_store::generate::{self, materials};
use voxel_store::{VoxelStore, quantize};

/// The x of the crease between the meshes of physics chunks 1 and 2: the ridge's vertex row sits
/// in the cells at x = 15 (vertices at 15.5); the quads left of it belong to the grid edges at
/// x = 15 (chunk 1), those right of it to x = 16 (chunk 2).
pub const SEAM_X: f32 = 15.5;
/// A ridge apex in the middle of chunk 2 (cells at x = 19, edges 19 and 20).
pub const MID_X: f32 = 19.5;
/// Height of a ridge's apex.
pub const APEX_Y: f32 = 12.0;

/// A world of `size` voxels whose surface is `height(x, z)` (a field with unit-ish gradient).
pub fn heightfield(size: IVec3, height: impl Fn(f32, f32) -> f32 + Sync, slope_cos: f32) -> TerrainCollider {
    let mut store = VoxelStore::with_palette(generate::palette());
    let world = VoxelBox::new(IVec3::ZERO, size);
    generate::from_fn(&mut store, world, |p| {
        let d = (p.y as f32 - height(p.x as f32, p.z as f32)) * slope_cos;
        Voxel::new(quantize(d), if d < 0.0 { materials::ROCK } else { materials::AIR })
    })
    .unwrap();
    store.compact();
    TerrainCollider::new(store, world, ColliderOptions::default()).unwrap()
}

/// A ridge along z with its apex line at `apex_x`, the two faces meeting at a convex crease of
/// `angle_deg` degrees (each face slopes by half of it).
pub fn ridge(angle_deg: f32, apex_x: f32) -> (TerrainCollider, impl Fn(f32) -> f32 + Copy) {
    let t = (angle_deg.to_radians() * 0.5).tan();
    let h = move |x: f32| APEX_Y - t * (x - apex_x).abs();
    (heightfield(IVec3::new(40, 24, 64), move |x, _| h(x), (angle_deg.to_radians() * 0.5).cos()), h)
}

/// A plane falling 20 degrees along (1, 0, 0.6), slanted to the grid so that its mesh crosses
/// chunk seams on every axis, over 96 x 48 x 64 voxels.
#[derive(Clone, Copy)]
pub struct SlantedPlane {
    /// Downhill, horizontal and unit.
    pub dir: Vec3,
    pub tan: f32,
    /// Up, unit.
    pub normal: Vec3,
}

impl SlantedPlane {
    pub fn new() -> Self {
        let dir = Vec3::new(1.0, 0.0, 0.6).normalize();
        let tan = 20f32.to_radians().tan();
        Self { dir, tan, normal: Vec3::new(tan * dir.x, 1.0, tan * dir.z).normalize() }
    }

    pub fn height(&self, x: f32, z: f32) -> f32 {
        40.0 - self.tan * (x * self.dir.x + z * self.dir.z)
    }

    /// The plane as a terrain collider.
    pub fn collider(&self) -> TerrainCollider {
        let plane = *self;
        heightfield(IVec3::new(96, 48, 64), move |x, z| plane.height(x, z), self.normal.y)
    }
}

/// Flat ground with its surface at y = 7.5 over `size`.
pub fn flat(size: IVec3) -> TerrainCollider {
    heightfield(size, |_, _| 7.5, 1.0)
}

/// Generated hills.
pub fn hills(size: IVec3, seed: u64) -> TerrainCollider {
    let mut store = generate::terrain(&generate::Terrain::new(size, seed)).unwrap();
    store.compact();
    TerrainCollider::new(store, VoxelBox::new(IVec3::ZERO, size), ColliderOptions::default()).unwrap()
}

/// A rapier world with the terrain in it, dt 1/60.
pub struct Sim {
    pub physics: PhysicsWorld,
    pub terrain: ColliderHandle,
    pub bodies: Vec<RigidBodyHandle>,
}

impl Sim {
    /// Our terrain collider and dispatcher.
    pub fn ours(shape: &TerrainShape) -> Self {
        let mut physics = PhysicsWorld {
            narrow_phase: NarrowPhase::with_query_dispatcher(TerrainDispatcher::chained()),
            ..PhysicsWorld::default()
        };
        let terrain = physics.colliders.insert(ColliderBuilder::new(shape.shared_shape()).build());
        Self { physics, terrain, bodies: Vec::new() }
    }

    /// rapier's own meshes (any number of fixed colliders).
    pub fn meshes(shapes: &[SharedShape]) -> Self {
        let mut physics = PhysicsWorld::default();
        let mut terrain = None;
        for s in shapes {
            let h = physics.colliders.insert(ColliderBuilder::new(s.clone()).build());
            terrain.get_or_insert(h);
        }
        Self { physics, terrain: terrain.expect("a mesh"), bodies: Vec::new() }
    }

    pub fn add(
        &mut self,
        shape: SharedShape,
        position: Vec3,
        rotation: Quat,
        linvel: Vec3,
        angvel: Vec3,
    ) -> RigidBodyHandle {
        let body = RigidBodyBuilder::dynamic()
            .pose(Pose::from_parts(position, rotation))
            .linvel(linvel)
            .angvel(angvel)
            .build();
        let h = self.physics.bodies.insert(body);
        self.physics.colliders.insert_with_parent(ColliderBuilder::new(shape).build(), h, &mut self.physics.bodies);
        self.bodies.push(h);
        h
    }

    pub fn step(&mut self) {
        self.physics.step();
    }

    pub fn pose(&self, h: RigidBodyHandle) -> Pose {
        *self.physics.bodies[h].position()
    }

    pub fn linvel(&self, h: RigidBodyHandle) -> Vec3 {
        self.physics.bodies[h].linvel()
    }

    /// The shape of body `h`'s first collider.
    pub fn shape(&self, h: RigidBodyHandle) -> SharedShape {
        let c = self.physics.bodies[h].colliders()[0];
        self.physics.colliders[c].shared_shape().clone()
    }

    /// Every body's pose as bits, for bit-identity checks.
    pub fn state_bits(&self) -> Vec<u32> {
        self.bodies
            .iter()
            .flat_map(|&h| {
                let p = self.pose(h);
                let v = self.linvel(h);
                p.translation.to_array().into_iter().chain(p.rotation.to_array()).chain(v.to_array()).map(f32::to_bits)
            })
            .collect()
    }
}

/// How deep a body is inside the surface: minus parry's contact distance between the stitched
/// mesh and the body's shape (0 when apart).
pub fn depth_inside(stitched: &SharedShape, shape: &SharedShape, pose: &Pose) -> f32 {
    match parry3d::query::contact(&Pose::IDENTITY, stitched.as_ref(), pose, shape.as_ref(), 0.0) {
        Ok(Some(c)) => (-c.dist).max(0.0),
        _ => 0.0,
    }
}

/// One stitched mesh of the collider's surface (no flags): the measuring stick.
pub fn stitched(collider: &TerrainCollider) -> SharedShape {
    reference::stitched_trimesh(collider, TriMeshFlags::empty()).expect("a surface")
}

/// A small deterministic generator (xorshift) for scattered bodies.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }
}

/// The surface height under (x, z): the first hit of a ray from far above.
pub fn surface_y(shape: &TerrainShape, x: f32, z: f32) -> Option<f32> {
    let ray = voxel_core::Ray::new(Vec3::new(x, 1000.0, z), Vec3::NEG_Y);
    shape.read().raycast(&ray, 2000.0).map(|h| h.point.y)
}

/// Ball, box, capsule and hull shapes of about `size` across, by index.
pub fn mixed_shape(i: usize, size: f32) -> SharedShape {
    match i % 4 {
        0 => SharedShape::ball(size * 0.5),
        1 => SharedShape::cuboid(size * 0.4, size * 0.3, size * 0.5),
        2 => SharedShape::capsule_y(size * 0.3, size * 0.25),
        _ => {
            let s = size * 0.5;
            let pts = [
                Vec3::new(-s, -s * 0.6, -s),
                Vec3::new(s, -s * 0.6, -s * 0.8),
                Vec3::new(0.0, -s * 0.6, s),
                Vec3::new(0.1 * s, s * 0.7, 0.0),
                Vec3::new(-0.6 * s, s * 0.2, 0.4 * s),
            ];
            SharedShape::convex_hull(&pts).expect("a hull")
        }
    }
}

/// Steps each scene runs (2.5 s at 60 Hz); the depth is measured once the body has landed.
pub const STEPS: usize = 150;
pub const SETTLED: usize = 40;

pub struct Scene {
    pub name: String,
    pub shape: SharedShape,
    pub position: Vec3,
    pub rotation: Quat,
    pub linvel: Vec3,
    pub angvel: Vec3,
}

pub fn scenes(apex: f32, h: impl Fn(f32) -> f32) -> Vec<Scene> {
    let r = 0.5;
    let mut out = Vec::new();
    let ball = |name: String, x: f32, z: f32, linvel: Vec3, angvel: Vec3| Scene {
        name,
        shape: SharedShape::ball(r),
        position: Vec3::new(x, h(x) + r + 0.002, z),
        rotation: Quat::IDENTITY,
        linvel,
        angvel,
    };
    for off in [0.0, 0.001, 0.01, 0.03] {
        out.push(ball(
            format!("ball at rest {} mm off the edge", off * 1000.0),
            apex + off,
            20.0,
            Vec3::ZERO,
            Vec3::ZERO,
        ));
    }
    for v in [2.0, 5.0] {
        out.push(ball(
            format!("ball rolling along at {v} m/s"),
            apex,
            8.0,
            Vec3::new(0.0, 0.0, v),
            Vec3::new(v / r, 0.0, 0.0),
        ));
    }
    for v in [0.1, 1.0, 5.0] {
        out.push(ball(
            format!("ball crossing at {v} m/s"),
            apex - 1.0,
            20.0,
            Vec3::new(v, 0.0, 0.0),
            Vec3::new(0.0, 0.0, -v / r),
        ));
    }
    out.push(Scene {
        name: "box resting on the edge".into(),
        shape: SharedShape::cuboid(0.4, 0.3, 0.6),
        position: Vec3::new(apex, h(apex) + 0.302, 20.0),
        rotation: Quat::IDENTITY,
        linvel: Vec3::ZERO,
        angvel: Vec3::ZERO,
    });
    out.push(Scene {
        name: "box sliding along the edge".into(),
        shape: SharedShape::cuboid(0.4, 0.3, 0.6),
        position: Vec3::new(apex, h(apex) + 0.302, 8.0),
        rotation: Quat::IDENTITY,
        linvel: Vec3::new(0.0, 0.0, 3.0),
        angvel: Vec3::ZERO,
    });
    out.push(Scene {
        name: "capsule along the edge".into(),
        shape: SharedShape::capsule_z(0.5, 0.3),
        position: Vec3::new(apex, h(apex) + 0.302, 20.0),
        rotation: Quat::IDENTITY,
        linvel: Vec3::ZERO,
        angvel: Vec3::ZERO,
    });
    out.push(Scene {
        name: "capsule across the edge".into(),
        shape: SharedShape::capsule_x(0.5, 0.3),
        position: Vec3::new(apex, h(apex) + 0.302, 20.0),
        rotation: Quat::IDENTITY,
        linvel: Vec3::ZERO,
        angvel: Vec3::ZERO,
    });
    out
}

/// What one scene did.
pub struct Outcome {
    /// Deepest inside the surface once landed.
    pub deepest: f32,
    /// The centre went below the surface (or the body left the world).
    pub fell: bool,
    /// Height of the body's centre above the surface under it, every step.
    pub heights: Vec<f32>,
    /// Steps where the body moved up faster than 0.05 m/s after landing.
    pub bumps: usize,
}

/// Runs `scene` in `sim` for [`STEPS`] steps over the surface `h(x)`.
pub fn run_scene(mut sim: Sim, scene: &Scene, h: impl Fn(f32) -> f32, stick: &SharedShape) -> Outcome {
    let body = sim.add(scene.shape.clone(), scene.position, scene.rotation, scene.linvel, scene.angvel);
    let mut out = Outcome { deepest: 0.0, fell: false, heights: Vec::new(), bumps: 0 };
    for step in 0..STEPS {
        sim.step();
        let pose = sim.pose(body);
        let p = pose.translation;
        out.heights.push(p.y - h(p.x));
        // Through the surface: the centre below it, or gone.
        if !p.is_finite() || p.y < h(p.x) || p.y < 0.0 {
            out.fell = true;
            break;
        }
        if step >= SETTLED {
            out.deepest = out.deepest.max(depth_inside(stick, &scene.shape, &pose));
            if sim.linvel(body).y > 0.05 {
                out.bumps += 1;
            }
        }
    }
    out
}
