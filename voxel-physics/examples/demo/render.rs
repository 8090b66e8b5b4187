//! The pictures: the terrain drawn with the collider's own queries (ray casts on the smooth
//! surface, voxel-raymarch for the blocky view), the water drawn over them, and a decomposition's
//! hulls.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use glam::{IVec3, Vec3};
use indicatif::ProgressBar;
use rayon::prelude::*;
use voxel_core::{IndexedMesh, Ray, TriangleSource};
use voxel_kdtree::{KdTree, Scratch};
use voxel_physics::{RayScratch, TerrainCollider};
use voxel_store::generate::materials;

use crate::Error;

/// A pinhole camera: one ray per pixel.
pub(crate) struct Camera {
    eye: Vec3,
    forward: Vec3,
    right: Vec3,
    up: Vec3,
    tan_half: f32,
}

impl Camera {
    pub(crate) fn look_at(eye: Vec3, target: Vec3, fov_degrees: f32) -> Self {
        let forward = (target - eye).normalize();
        let right = forward.cross(Vec3::Y).normalize();
        let up = right.cross(forward);
        Self { eye, forward, right, up, tan_half: (fov_degrees.to_radians() * 0.5).tan() }
    }

    pub(crate) fn ray(&self, x: u32, y: u32, width: u32, height: u32) -> Ray {
        let aspect = width as f32 / height as f32;
        let u = ((x as f32 + 0.5) / width as f32 * 2.0 - 1.0) * self.tan_half * aspect;
        let v = (1.0 - (y as f32 + 0.5) / height as f32 * 2.0) * self.tan_half;
        Ray::new(self.eye, (self.forward + self.right * u + self.up * v).normalize())
    }
}

fn sky(dir: Vec3) -> [u8; 3] {
    let t = (dir.y * 0.5 + 0.5).clamp(0.0, 1.0);
    let c = Vec3::new(0.85, 0.9, 0.97).lerp(Vec3::new(0.35, 0.55, 0.85), t);
    to_rgb(c)
}

fn to_rgb(c: Vec3) -> [u8; 3] {
    let c = c.clamp(Vec3::ZERO, Vec3::ONE) * 255.0;
    [c.x as u8, c.y as u8, c.z as u8]
}

pub(crate) fn write_png(path: &Path, width: u32, height: u32, rgb: &[u8]) -> Result<(), Error> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(())
}

/// The sun, and how a lit surface of colour `base` with normal `n` looks.
const SUN: Vec3 = Vec3::new(0.6, 0.55, -0.25);

fn shade(base: Vec3, n: Vec3, lit: bool) -> Vec3 {
    let sun = SUN.normalize();
    let diffuse = if lit { n.dot(sun).max(0.0) } else { 0.0 };
    let sky_light = 0.5 + 0.5 * n.y;
    base * (0.25 + 0.25 * sky_light + 0.7 * diffuse)
}

fn material_colour(collider: &TerrainCollider, material: u8) -> Vec3 {
    let c = collider.store().palette().get(material).map_or([255, 0, 255, 255], |m| m.color);
    Vec3::new(f32::from(c[0]), f32::from(c[1]), f32::from(c[2])) / 255.0
}

/// A free body drawn into a render: a mesh, its kD tree, where it is drawn (added to its
/// coordinates) and its colour.
pub(crate) struct Body<'a> {
    pub(crate) mesh: &'a IndexedMesh,
    pub(crate) tree: &'a KdTree,
    pub(crate) offset: Vec3,
    pub(crate) colour: Vec3,
}

/// What a smooth render needs besides the collider.
pub(crate) struct View<'a> {
    pub(crate) camera: &'a Camera,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) shadows: bool,
    pub(crate) body: Option<Body<'a>>,
    pub(crate) water: Option<Water>,
}

/// The water surface: the collider's queries see solid voxels only, so the renders draw the water
/// as the plane `y = surface` over every column whose voxel just below it is water.
#[derive(Clone, Copy)]
pub(crate) struct Water {
    /// Height of the drawn plane: the water level for the smooth view (where the Surface Nets of
    /// the water's distances would put it), the top of the highest water cell for the blocky one.
    surface: f32,
    /// `y` of the voxels just below the surface.
    voxel_y: i32,
    /// Whether voxel `p` is the cell `[p, p + 1)` (blocky view) or the grid point `p` (smooth).
    cells: bool,
}

impl Water {
    /// The water at `level` as the smooth view draws it.
    pub(crate) fn smooth(level: f32) -> Self {
        Self::new(level, false)
    }

    /// The water at `level` as the blocky view draws it.
    pub(crate) fn blocky(level: f32) -> Self {
        Self::new(level, true)
    }

    fn new(level: f32, cells: bool) -> Self {
        let voxel_y = level.ceil() as i32 - 1;
        Self { surface: if cells { (voxel_y + 1) as f32 } else { level }, voxel_y, cells }
    }

    /// The ray parameter where `ray` meets the water surface before `max_t`, if it does.
    fn hit(&self, collider: &TerrainCollider, ray: &Ray, max_t: f32) -> Option<f32> {
        if !(ray.dir.y < 0.0 && ray.origin.y > self.surface) {
            return None;
        }
        let t = (self.surface - ray.origin.y) / ray.dir.y;
        if !(t < max_t) {
            return None;
        }
        let p = ray.at(t);
        let (x, z) = if self.cells { (p.x.floor(), p.z.floor()) } else { (p.x.round(), p.z.round()) };
        let voxel = IVec3::new(x as i32, self.voxel_y, z as i32);
        let inside = collider.world().contains(voxel);
        (inside && collider.store().get(voxel).material == materials::WATER).then_some(t)
    }
}

/// The colour of the water surface seen along `dir`, over `under`: the shaded ground below it and
/// how far the ray travels through the water to reach it (`None`: nothing before the far plane).
fn water_colour(collider: &TerrainCollider, dir: Vec3, under: Option<(Vec3, f32)>, lit: bool) -> Vec3 {
    let water = material_colour(collider, materials::WATER);
    let body = match under {
        // Shallow water shows the ground through it; deep water is the water's own colour.
        Some((ground, depth)) => ground.lerp(water * 0.55, 1.0 - (-depth * 0.12).exp()),
        None => water * 0.55,
    };
    // More sky reflected at grazing angles (Schlick's approximation of Fresnel's).
    let fresnel = 0.02 + 0.98 * (1.0 - (-dir.y).clamp(0.0, 1.0)).powi(5);
    let reflected = Vec3::from_array(sky(Vec3::new(dir.x, -dir.y, dir.z)).map(|c| f32::from(c) / 255.0));
    let c = body.lerp(reflected, fresnel.max(0.15));
    if lit { c } else { c * 0.6 }
}

/// Renders the smooth surface with the collider's own ray casts: one primary ray per pixel and,
/// with shadows, one shadow ray towards the sun per hit. Returns the RGB image and the rays cast.
pub(crate) fn render_smooth(collider: &TerrainCollider, view: &View<'_>, bar: &ProgressBar) -> (Vec<u8>, u64) {
    let rays = AtomicUsize::new(0);
    let sun = SUN.normalize();
    let (width, height) = (view.width, view.height);
    let mut image = vec![0u8; (width * height * 3) as usize];
    image.par_chunks_mut((width * 3) as usize).enumerate().for_each_init(
        || (RayScratch::new(), Scratch::new()),
        |(scratch, body_scratch), (y, row)| {
            let mut cast = 0;
            for x in 0..width {
                let ray = view.camera.ray(x, y as u32, width, height);
                cast += 1;
                let terrain = collider.raycast_with(&ray, 2000.0, scratch);
                // The free body, if one is drawn and it comes first.
                let body = view.body.as_ref().and_then(|b| {
                    let local = Ray::new(ray.origin - b.offset, ray.dir);
                    let hit = b.tree.cast_ray(b.mesh, &local, terrain.map_or(2000.0, |h| h.t), body_scratch)?;
                    let [p0, p1, p2] = b.mesh.triangle_positions(hit.triangle);
                    Some((hit.t, (p1 - p0).cross(p2 - p0).normalize_or_zero(), b.colour))
                });
                let (point, normal, base) = match (terrain, body) {
                    (_, Some((t, n, c))) => (ray.at(t), n, c),
                    (Some(h), None) => (h.point, h.normal, material_colour(collider, h.material)),
                    (None, None) => (Vec3::NAN, Vec3::NAN, Vec3::NAN),
                };
                let first_t = if point.is_nan() { 2000.0 } else { (point - ray.origin).length() };
                let surface = view.water.and_then(|w| w.hit(collider, &ray, first_t));
                let mut shadowed = |p: Vec3| {
                    view.shadows && {
                        cast += 1;
                        collider.raycast_with(&Ray::new(p, sun), 2000.0, scratch).is_some()
                    }
                };
                let (point, c) = match surface {
                    Some(t) => {
                        let at = ray.at(t);
                        let under = (!point.is_nan()).then(|| {
                            let lit = !shadowed(point + normal * 0.05);
                            (shade(base, normal, lit), first_t - t)
                        });
                        (at, water_colour(collider, ray.dir, under, !shadowed(at)))
                    }
                    None if point.is_nan() => {
                        row[(x * 3) as usize..(x * 3 + 3) as usize].copy_from_slice(&sky(ray.dir));
                        continue;
                    }
                    None => (point, shade(base, normal, !shadowed(point + normal * 0.05))),
                };
                // A little distance haze.
                let fog = ((point - view.camera.eye).length() / 900.0).clamp(0.0, 0.6);
                let colour = to_rgb(c.lerp(Vec3::new(0.8, 0.86, 0.93), fog));
                row[(x * 3) as usize..(x * 3 + 3) as usize].copy_from_slice(&colour);
            }
            rays.fetch_add(cast, Ordering::Relaxed);
            bar.inc(1);
        },
    );
    (image, rays.into_inner() as u64)
}

/// Renders the blocky view with voxel-raymarch: faces shaded by their axis. Returns the RGB image
/// and the rays cast.
pub(crate) fn render_blocky(collider: &TerrainCollider, view: &View<'_>, bar: &ProgressBar) -> (Vec<u8>, u64) {
    let rays = AtomicUsize::new(0);
    let (camera, width, height) = (view.camera, view.width, view.height);
    let sun = SUN.normalize();
    let mut image = vec![0u8; (width * height * 3) as usize];
    image.par_chunks_mut((width * 3) as usize).enumerate().for_each(|(y, row)| {
        let mut cast = 0;
        for x in 0..width {
            cast += 1;
            let ray = camera.ray(x, y as u32, width, height);
            let hit = collider.raymarch(&ray, 2000.0);
            let first_t = hit.map_or(2000.0, |h| (h.point - ray.origin).length());
            let mut lit = |p: Vec3| {
                cast += 1;
                collider.raymarch(&Ray::new(p, sun), 2000.0).is_none()
            };
            let ground = hit.map(|hit| {
                let n = hit.face.map_or(Vec3::Y, |f| f.normal().as_vec3());
                let material = collider.store().get(hit.voxel).material;
                (hit.point, shade(material_colour(collider, material), n, lit(hit.point + n * 1e-3)))
            });
            let surface = view.water.and_then(|w| w.hit(collider, &ray, first_t));
            let colour = match (surface, ground) {
                (Some(t), _) => {
                    let at = ray.at(t);
                    let under = ground.map(|(_, c)| (c, first_t - t));
                    Some((at, water_colour(collider, ray.dir, under, lit(at + Vec3::Y * 1e-3))))
                }
                (None, g) => g,
            };
            let colour = match colour {
                None => sky(ray.dir),
                Some((point, c)) => {
                    let fog = ((point - camera.eye).length() / 900.0).clamp(0.0, 0.6);
                    to_rgb(c.lerp(Vec3::new(0.8, 0.86, 0.93), fog))
                }
            };
            row[(x * 3) as usize..(x * 3 + 3) as usize].copy_from_slice(&colour);
        }
        rays.fetch_add(cast, Ordering::Relaxed);
        bar.inc(1);
    });
    (image, rays.into_inner() as u64)
}

/// Renders the hulls of a decomposition, each in its own colour, by ray casts against a kD tree
/// over all hull triangles (material = hull index).
pub(crate) fn render_hulls(
    hulls: &[convex_hacd::ConvexHull],
    source: &IndexedMesh,
    path: &Path,
    side: u32,
) -> Result<(), Error> {
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    let mut owner = Vec::new();
    for (i, h) in hulls.iter().enumerate() {
        let base = positions.len() as u32;
        positions.extend_from_slice(&h.vertices);
        triangles.extend(h.triangles.iter().map(|t| t.map(|v| v + base)));
        owner.extend(std::iter::repeat_n(i as u32, h.triangles.len()));
    }
    let mesh = IndexedMesh::new(positions, triangles)?;
    let tree = KdTree::build(&mesh)?;
    let bounds = source.aabb();
    let centre = bounds.center();
    let radius = bounds.size().length() * 0.5;
    let camera = Camera::look_at(centre + Vec3::new(0.9, 0.55, 1.3).normalize() * radius * 2.6, centre, 40.0);
    let sun = SUN.normalize();
    let mut image = vec![0u8; (side * side * 3) as usize];
    image.par_chunks_mut((side * 3) as usize).enumerate().for_each_init(Scratch::new, |scratch, (y, row)| {
        for x in 0..side {
            let ray = camera.ray(x, y as u32, side, side);
            let colour = match tree.cast_ray(&mesh, &ray, f32::INFINITY, scratch) {
                None => [245, 245, 245],
                Some(hit) => {
                    let [a, b, c] = mesh.triangle_positions(hit.triangle);
                    let mut n = (b - a).cross(c - a).normalize_or_zero();
                    if n.dot(ray.dir) > 0.0 {
                        n = -n;
                    }
                    let base = hull_colour(owner[hit.triangle as usize]);
                    to_rgb(base * (0.35 + 0.65 * n.dot(sun).max(0.0)) + Vec3::splat(0.05))
                }
            };
            row[(x * 3) as usize..(x * 3 + 3) as usize].copy_from_slice(&colour);
        }
    });
    write_png(path, side, side, &image)
}

/// Well-separated colours by golden-ratio hue steps.
fn hull_colour(i: u32) -> Vec3 {
    let h = (i as f32 * 0.618_034).fract() * 6.0;
    let x = 1.0 - (h % 2.0 - 1.0).abs();
    let (r, g, b) = match h as u32 {
        0 => (1.0, x, 0.0),
        1 => (x, 1.0, 0.0),
        2 => (0.0, 1.0, x),
        3 => (0.0, x, 1.0),
        4 => (x, 0.0, 1.0),
        _ => (1.0, 0.0, x),
    };
    Vec3::new(r, g, b) * 0.75 + Vec3::splat(0.2)
}
