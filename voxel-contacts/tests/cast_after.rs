//! `ShapeCaster::cast_after`: the cast of `cast`, with hits before `after` left out (they still
//! void), and `after` checked.

use glam::Vec3;
use voxel_contacts::{Candidates, CastOptions, ContactError, Shape, ShapeCaster, Sphere};

/// A floor of two triangles at y = 0.
fn floor() -> Candidates {
    let v =
        [Vec3::new(-5.0, 0.0, -5.0), Vec3::new(-5.0, 0.0, 5.0), Vec3::new(5.0, 0.0, 5.0), Vec3::new(5.0, 0.0, -5.0)];
    let mut set = Candidates::new();
    set.push(0, [v[0], v[1], v[2]], [0, 1, 2]);
    set.push(1, [v[0], v[2], v[3]], [0, 2, 3]);
    set
}

#[test]
fn hits_from_after_on_are_those_of_cast() {
    let set = floor();
    let ball = Shape::Sphere(Sphere { center: Vec3::new(0.3, 3.0, 0.2), radius: 0.5 });
    let options = CastOptions { max_t: 10.0, skin: 0.01, ..CastOptions::default() };
    let mut caster = ShapeCaster::new();
    let hit = caster.cast(&ball, Vec3::NEG_Y, &set, &options).unwrap().expect("it lands");
    assert!((hit.t - 2.49).abs() < 1e-5, "{hit:?}");
    for after in [0.0, 1.0, 2.0, hit.t] {
        assert_eq!(caster.cast_after(&ball, Vec3::NEG_Y, &set, &options, after).unwrap(), Some(hit), "after {after}");
    }
    // The landing comes before `after`: it is not reported, and the ball meets nothing past the
    // floor (its back).
    for after in [2.5, 5.0, 10.0] {
        assert_eq!(caster.cast_after(&ball, Vec3::NEG_Y, &set, &options, after).unwrap(), None, "after {after}");
    }
}

#[test]
fn a_bad_after_is_refused() {
    let set = floor();
    let ball = Shape::Sphere(Sphere { center: Vec3::new(0.3, 3.0, 0.2), radius: 0.5 });
    let options = CastOptions { max_t: 10.0, ..CastOptions::default() };
    let mut caster = ShapeCaster::new();
    for after in [f32::NAN, -1.0, 10.5, f32::INFINITY] {
        let r = caster.cast_after(&ball, Vec3::NEG_Y, &set, &options, after);
        assert!(matches!(r, Err(ContactError::InvalidOptions(_))), "after {after}: {r:?}");
    }
}
