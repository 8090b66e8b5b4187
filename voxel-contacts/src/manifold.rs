//! Manifold reduction: at most four points per query, the deepest first, then the ones that
//! spread the contact area the most (as Kapoulkine's "Voxel Terrain: Physics" does: "keeps up to 4
//! contact points and tries to maximize contact area").

use glam::Vec3;
use voxel_core::Contact;

/// Picks up to `max` (1 to 4) of `contacts` into `keep` (indices, in pick order): the deepest, the
/// farthest from it, the one making the largest triangle with those two, then the one adding the
/// most area to that triangle. Points that add no spread (duplicates) are not picked.
pub(crate) fn reduce(contacts: &[Contact], max: usize, keep: &mut Vec<usize>) {
    keep.clear();
    if contacts.is_empty() || max == 0 {
        return;
    }
    let deepest = argmax(contacts, |c| c.depth).0;
    keep.push(deepest);
    if max == 1 {
        return;
    }
    let p0 = contacts[deepest].point;
    let (i1, d1) = argmax(contacts, |c| c.point.distance_squared(p0));
    if !(d1 > 0.0) {
        return;
    }
    keep.push(i1);
    if max == 2 {
        return;
    }
    let p1 = contacts[i1].point;
    let (i2, a2) = argmax(contacts, |c| (p1 - p0).cross(c.point - p0).length_squared());
    if !(a2 > 0.0) {
        return;
    }
    keep.push(i2);
    if max == 3 {
        return;
    }
    let p2 = contacts[i2].point;
    let base = (p1 - p0).cross(p2 - p0).length();
    // Twice the area a point adds outside the triangle (zero inside it).
    let added = |p: Vec3| {
        (p0 - p).cross(p1 - p).length() + (p1 - p).cross(p2 - p).length() + (p2 - p).cross(p0 - p).length() - base
    };
    let (i3, a3) = argmax(contacts, |c| added(c.point));
    if a3 > 1e-6 * base {
        keep.push(i3);
    }
}

/// First index of the largest key (NaN keys never win).
fn argmax(contacts: &[Contact], key: impl Fn(&Contact) -> f32) -> (usize, f32) {
    let mut best = (0, f32::NEG_INFINITY);
    for (i, c) in contacts.iter().enumerate() {
        let k = key(c);
        if k > best.1 {
            best = (i, k);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use voxel_core::Feature;

    fn c(x: f32, z: f32, depth: f32) -> Contact {
        Contact { point: Vec3::new(x, 0.0, z), normal: Vec3::Y, depth, triangle: 0, feature: Feature::Face }
    }

    #[test]
    fn keeps_deepest_and_the_corners() {
        // A 3x3 grid of points, the centre deepest: the centre, then three corners of the square,
        // then the fourth corner (the one adding the most area).
        let mut pts = Vec::new();
        for x in 0..3 {
            for z in 0..3 {
                pts.push(c(x as f32, z as f32, if (x, z) == (1, 1) { 0.5 } else { 0.1 }));
            }
        }
        let mut keep = Vec::new();
        reduce(&pts, 4, &mut keep);
        assert_eq!(keep[0], 4);
        assert_eq!(keep.len(), 4);
        let corners = keep[1..].iter().filter(|&&i| pts[i].point.x != 1.0 && pts[i].point.z != 1.0).count();
        assert_eq!(corners, 3);
    }

    #[test]
    fn duplicates_are_not_picked() {
        let pts = vec![c(0.0, 0.0, 0.1); 5];
        let mut keep = Vec::new();
        reduce(&pts, 4, &mut keep);
        assert_eq!(keep, vec![0]);
    }
}
