//! The terrain as a parry shape: [`TerrainShape`], a handle on a shared [`TerrainCollider`].

use std::sync::Arc;

use glam::Vec3;
use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use parry3d::bounding_volume::{Aabb, BoundingSphere};
use parry3d::mass_properties::MassProperties;
use parry3d::math::{Pose, Real, Vector};
use parry3d::query::{PointProjection, PointQuery, Ray, RayCast, RayIntersection};
use parry3d::shape::{FeatureId, Shape, ShapeType, SharedShape, TypedShape};
use voxel_contacts::{ContactOptions, FeatureKeys, Shape as ContactShape, Sphere};
use voxel_core::Contact;
use voxel_physics::TerrainCollider;

use crate::dispatcher::with_scratch;

/// The voxel terrain as a parry [`Shape`] ([`ShapeType::Custom`]): a cheap handle (an [`Arc`]) on
/// a [`TerrainCollider`] shared behind a [`RwLock`].
///
/// Put it into a rapier `ColliderSet` with [`TerrainShape::shared_shape`]; contacts with it come
/// from [`TerrainDispatcher`](crate::TerrainDispatcher), which the narrow phase must be built with.
/// Edit the terrain between steps through [`TerrainShape::write`], then call
/// [`terrain_changed`](crate::terrain_changed) (it wakes the bodies the edit touched and tells
/// rapier the shape changed): clones of the handle, the one inside the rapier collider included,
/// see the edit at once, and nothing is rebuilt.
///
/// Coordinates are the collider's voxel units in the collider's local frame (one voxel per unit;
/// place the rapier collider to move or rotate the terrain).
///
/// ```
/// use glam::{IVec3, Vec3};
/// use parry3d::query::{Ray, RayCast};
/// use voxel_physics::{ColliderOptions, TerrainCollider, VoxelBox};
/// use voxel_physics::voxel_store::generate;
/// use voxel_rapier::TerrainShape;
///
/// let store = generate::cuboid(Vec3::new(16.0, 4.0, 16.0), Vec3::new(16.0, 4.0, 16.0))?;
/// let world = VoxelBox::new(IVec3::ZERO, IVec3::splat(32));
/// let terrain = TerrainShape::new(TerrainCollider::new(store, world, ColliderOptions::default())?);
/// let hit = terrain.cast_local_ray_and_get_normal(&Ray::new(Vec3::new(5.5, 20.0, 5.5), Vec3::NEG_Y), 100.0, true).unwrap();
/// assert!((hit.time_of_impact - 12.0).abs() < 0.05 && hit.normal.y > 0.99);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct TerrainShape {
    collider: Arc<RwLock<TerrainCollider>>,
}

impl TerrainShape {
    /// A shape over `collider`, now shared.
    pub fn new(collider: TerrainCollider) -> Self {
        Self { collider: Arc::new(RwLock::new(collider)) }
    }

    /// A shape over a collider already shared.
    pub fn from_shared(collider: Arc<RwLock<TerrainCollider>>) -> Self {
        Self { collider }
    }

    /// The shared collider.
    pub fn collider(&self) -> &Arc<RwLock<TerrainCollider>> {
        &self.collider
    }

    /// Reads the collider (queries; many readers at once).
    pub fn read(&self) -> RwLockReadGuard<'_, TerrainCollider> {
        self.collider.read()
    }

    /// Locks the collider for an edit. Edit between steps: a step running in another thread waits
    /// for the lock (it takes read locks for each contact query).
    pub fn write(&self) -> RwLockWriteGuard<'_, TerrainCollider> {
        self.collider.write()
    }

    /// This handle as a rapier/parry [`SharedShape`] (no copy of the terrain).
    pub fn shared_shape(&self) -> SharedShape {
        SharedShape::new(self.clone())
    }

    /// The box every triangle of the surface lies in (a chunk's mesh reaches one voxel below the
    /// world box), in the collider's frame.
    pub fn surface_bounds(&self) -> Aabb {
        let world = self.collider.read().world();
        Aabb::new(world.min.as_vec3() - Vec3::ONE, world.max.as_vec3())
    }

    /// The nearest surface point within `max_dist` of `pt`, from the contact generator with a
    /// point-sized ball (so only surface seen from `pt`'s side counts: triangles are one-sided).
    fn nearest_surface_point(&self, pt: Vector, max_dist: Real) -> Option<Contact> {
        let ball = ContactShape::Sphere(Sphere { center: pt, radius: 0.0 });
        let options = ContactOptions { contact_distance: max_dist, keys: FeatureKeys::Positions, max_points: 1 };
        let collider = self.collider.read();
        with_scratch(|scratch| {
            scratch.contacts.clear();
            collider.contacts(&ball, &options, &mut scratch.scratch, &mut scratch.contacts).ok()?;
            scratch.contacts.iter().copied().max_by(|a, b| a.depth.total_cmp(&b.depth))
        })
    }

    /// True when `pt` lies inside the solid: the first surface crossed going up is left from its
    /// solid side. Points outside the world box are outside.
    fn is_inside(&self, pt: Vector) -> bool {
        if !pt.is_finite() {
            return false;
        }
        let ray = voxel_core::Ray::new(pt, Vec3::Y);
        self.collider.read().raycast(&ray, f32::MAX).is_some_and(|hit| hit.normal.y > 0.0)
    }
}

impl RayCast for TerrainShape {
    /// The smooth surface's first hit (the collider's [`TerrainCollider::raycast`]); with `solid`,
    /// a ray starting inside the terrain hits at `0` with a zero normal, as parry's solid shapes do.
    fn cast_local_ray_and_get_normal(
        &self,
        ray: &Ray,
        max_time_of_impact: Real,
        solid: bool,
    ) -> Option<RayIntersection> {
        let voxel_ray = voxel_core::Ray::new(ray.origin, ray.dir);
        let collider = self.collider.read();
        let hit = collider.raycast(&voxel_ray, max_time_of_impact)?;
        // The collider's normal points out of the solid whichever side the ray came from: a ray
        // leaving the solid meets a normal along its own direction.
        let from_inside = hit.normal.dot(ray.dir) > 0.0;
        if solid && from_inside {
            return Some(RayIntersection::new(0.0, Vector::ZERO, FeatureId::Unknown));
        }
        let normal = if from_inside { -hit.normal } else { hit.normal };
        Some(RayIntersection::new(hit.t, normal, FeatureId::Face(hit.triangle)))
    }
}

impl PointQuery for TerrainShape {
    /// The nearest surface point seen from `pt` (searched within 64 voxels; farther points project
    /// straight down or up onto the surface). Inside the solid, with `solid`, the point itself.
    fn project_local_point(&self, pt: Vector, solid: bool) -> PointProjection {
        let inside = self.is_inside(pt);
        if inside && solid {
            return PointProjection::new(true, pt);
        }
        for reach in [1.0, 8.0, 64.0] {
            if let Some(c) = self.nearest_surface_point(pt, reach) {
                return PointProjection::new(inside, c.point);
            }
        }
        let collider = self.collider.read();
        for dir in [Vec3::NEG_Y, Vec3::Y] {
            if let Some(hit) = collider.raycast(&voxel_core::Ray::new(pt, dir), f32::MAX) {
                return PointProjection::new(inside, hit.point);
            }
        }
        PointProjection::new(inside, pt)
    }

    fn project_local_point_and_get_feature(&self, pt: Vector) -> (PointProjection, FeatureId) {
        (self.project_local_point(pt, false), FeatureId::Unknown)
    }

    fn contains_local_point(&self, pt: Vector) -> bool {
        self.is_inside(pt)
    }
}

impl Shape for TerrainShape {
    fn compute_local_aabb(&self) -> Aabb {
        self.surface_bounds()
    }

    fn compute_local_bounding_sphere(&self) -> BoundingSphere {
        let b = self.surface_bounds();
        BoundingSphere::new(b.center(), b.half_extents().length())
    }

    fn clone_dyn(&self) -> Box<dyn Shape> {
        Box::new(self.clone())
    }

    /// Terrain is not scaled through parry: `None`.
    fn scale_dyn(&self, _scale: Vector, _num_subdivisions: u32) -> Option<Box<dyn Shape>> {
        None
    }

    /// Terrain has no mass (put it on a fixed body or on none).
    fn mass_properties(&self, _density: Real) -> MassProperties {
        MassProperties::new(Vector::ZERO, 0.0, Vector::ZERO)
    }

    fn shape_type(&self) -> ShapeType {
        ShapeType::Custom
    }

    fn as_typed_shape(&self) -> TypedShape<'_> {
        TypedShape::Custom(self)
    }

    /// The terrain never moves fast enough for its own thickness to matter; one voxel.
    fn ccd_thickness(&self) -> Real {
        1.0
    }

    fn ccd_angular_thickness(&self) -> Real {
        core::f32::consts::FRAC_PI_2
    }

    fn compute_aabb(&self, position: &Pose) -> Aabb {
        self.surface_bounds().transform_by(position)
    }
}
