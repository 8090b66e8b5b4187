//! What the demo puts into the world: the flat pad and the shapes resting on its chunk seams, the
//! scattered objects and their shapes, the particles, and where the tunnel goes.

use convex_hacd::convex_hull;
use glam::{IVec3, Quat, Vec3};
use voxel_contacts::{Capsule, ConvexPolyhedron, Cuboid, Pose, Sphere};
use voxel_core::{Aabb, Ray};
use voxel_physics::{Cast, Shape, TerrainCollider};
use voxel_testdata::Rng;

use crate::Error;

/// A unit vector from three draws in the unit ball. Not `Rng::direction`, whose rejection rule
/// differs: a seed's shapes, and so its table and pictures, depend on these exact draws.
pub(crate) fn unit_vector(rng: &mut Rng) -> Vec3 {
    loop {
        let v = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
        let l = v.length_squared();
        if l > 1e-4 && l <= 1.0 {
            return v / l.sqrt();
        }
    }
}

/// Ground height of column `(x, z)` by a ray cast down from above the world.
pub(crate) fn ground(collider: &TerrainCollider, x: f32, z: f32) -> Option<f32> {
    let top = collider.world().max.y as f32 + 1.0;
    collider.raycast(&Ray::new(Vec3::new(x, top, z), Vec3::NEG_Y), top + 2.0).map(|h| h.point.y)
}

/// A flat rock pad across chunk seams, for the seam checks of the contact and sweep stages: its
/// top is the plane `y = top`, over the square of half side `half` around `center`.
#[derive(Clone, Copy)]
pub(crate) struct Pad {
    pub(crate) center: Vec3,
    pub(crate) top: f32,
    pub(crate) half: f32,
}

impl Pad {
    pub(crate) fn new(size: IVec3) -> Self {
        Self {
            center: Vec3::new(size.x as f32 * 0.3, 0.0, size.z as f32 * 0.7).round(),
            top: (size.y as f32 * 0.55).round(),
            half: 20.0,
        }
    }

    /// Spheres, boxes and capsules resting on the pad, straddling chunk seams (x or z a multiple
    /// of 8). Every contact normal against them must point straight up.
    pub(crate) fn seam_shapes(&self) -> Vec<Shape<'static>> {
        let (c, y) = (self.center, self.top);
        let mut shapes = Vec::new();
        let mut s = -self.half + 4.0;
        while s < self.half - 4.0 {
            // Chunk meshes meet half a voxel below each multiple of 8 (through the vertices of the
            // cubes there): the shapes sit on those seams, and at offsets around them.
            let x = ((c.x + s) / 8.0).round() * 8.0 - 0.5;
            for dz in [-9.5f32, -3.0, 0.0, 4.25, 10.0] {
                let z = ((c.z + dz) / 8.0).round() * 8.0 - 0.5 + dz.fract();
                shapes.push(Shape::Sphere(Sphere { center: Vec3::new(x, y + 0.45, z), radius: 0.5 }));
                shapes.push(Shape::Cuboid(Cuboid {
                    half_extents: Vec3::new(1.0, 0.5, 0.7),
                    pose: Pose::from_translation(Vec3::new(x + 0.3, y + 0.47, z)),
                }));
                shapes.push(Shape::Capsule(Capsule {
                    a: Vec3::new(x - 1.5, y + 0.38, z),
                    b: Vec3::new(x + 1.5, y + 0.38, z),
                    radius: 0.4,
                }));
            }
            s += 3.0;
        }
        shapes
    }
}

/// `count` boxes of 0.6 to 3 voxels scattered over the world of `size`, most of them near the
/// ground.
pub(crate) fn scatter_boxes(collider: &TerrainCollider, rng: &mut Rng, size: Vec3, count: usize) -> Vec<Aabb> {
    let mut boxes = Vec::with_capacity(count);
    while boxes.len() < count {
        let x = rng.range(2.0, size.x - 2.0);
        let z = rng.range(2.0, size.z - 2.0);
        let Some(g) = ground(collider, x, z) else { continue };
        let half = Vec3::new(rng.range(0.3, 1.5), rng.range(0.3, 1.5), rng.range(0.3, 1.5));
        let y = g + half.y + rng.range(-1.0, 3.0);
        boxes.push(Aabb::new(Vec3::new(x, y, z) - half, Vec3::new(x, y, z) + half));
    }
    boxes
}

/// The shapes of objects `ids`, each fitted in its box and drawn from its own generator, so an
/// object's shape does not depend on which other objects there are.
pub(crate) fn object_shapes<'a>(
    ids: &[u32],
    boxes: &[Aabb],
    seed: u64,
    polys: &'a [ConvexPolyhedron],
) -> Vec<(u32, Shape<'a>)> {
    ids.iter()
        .map(|&id| {
            let mut rng = Rng(seed ^ u64::from(id).wrapping_mul(0x9E37_79B9));
            (id, object_shape(id, &boxes[id as usize], &mut rng, polys))
        })
        .collect()
}

/// A shape per object, fitted in its box: spheres, capsules, rotated boxes and convex polyhedra.
fn object_shape<'a>(id: u32, b: &Aabb, rng: &mut Rng, polys: &'a [ConvexPolyhedron]) -> Shape<'a> {
    let c = b.center();
    let h = b.size() * 0.5;
    let r = h.min_element();
    match id % 4 {
        0 => Shape::Sphere(Sphere { center: c, radius: r }),
        1 => Shape::Capsule(Capsule {
            a: c - Vec3::Y * (h.y - r).max(0.0),
            b: c + Vec3::Y * (h.y - r).max(0.0),
            radius: r,
        }),
        2 => Shape::Cuboid(Cuboid {
            half_extents: Vec3::splat(r / 3f32.sqrt()) * Vec3::new(1.0, 0.7, 0.9),
            pose: Pose::new(Quat::from_axis_angle(unit_vector(rng), rng.range(0.0, std::f32::consts::TAU)), c),
        }),
        _ => {
            // The prebuilt polyhedron whose size is closest to the box's.
            let poly = polys.iter().min_by(|a, b| (a.radius() - r).abs().total_cmp(&(b.radius() - r).abs()));
            match poly {
                Some(hull) => Shape::Convex { hull, pose: Pose::new(Quat::from_axis_angle(unit_vector(rng), 1.0), c) },
                None => Shape::Sphere(Sphere { center: c, radius: r }),
            }
        }
    }
}

/// A few convex polyhedra (hulls of random points) at the sizes the objects use.
pub(crate) fn polyhedra(rng: &mut Rng) -> Result<Vec<ConvexPolyhedron>, Error> {
    let mut out = Vec::new();
    for size in [0.4f32, 0.6, 0.9, 1.2] {
        let points: Vec<Vec3> = (0..24).map(|_| unit_vector(rng) * size).collect();
        let hull = convex_hull(&points)?;
        let faces: Vec<Vec<u32>> = hull.triangles.iter().map(|t| t.to_vec()).collect();
        out.push(ConvexPolyhedron::new(hull.vertices.clone(), &faces)?);
    }
    Ok(out)
}

/// `count` particles over the upper half of the world, each one second of flight as one straight
/// step.
pub(crate) fn particles(rng: &mut Rng, size: Vec3, count: usize) -> Vec<Cast> {
    (0..count)
        .map(|_| {
            let p = Vec3::new(rng.range(0.0, size.x), rng.range(0.5 * size.y, size.y + 8.0), rng.range(0.0, size.z));
            let v = Vec3::new(rng.range(-20.0, 20.0), rng.range(-60.0, 5.0), rng.range(-20.0, 20.0));
            Cast { ray: Ray::new(p, v), max_t: 1.0 }
        })
        .collect()
}
