//! Each cause of an error is printed once: a wrapped error is `source()`, not part of `Display`,
//! so a chain printer (anyhow's `{:#}`) shows every message once.

use std::error::Error;

use convex_hacd::{DecomposeError, HullError};
use voxel_broadphase::BroadphaseError;
use voxel_contacts::ContactError;
use voxel_kdtree::KdTreeError;
use voxel_mesh::MeshError;
use voxel_physics::PhysicsError;
use voxel_raymarch::RaymarchError;
use voxel_store::StoreError;

/// Every message of the chain, outermost first.
fn chain(e: &dyn Error) -> Vec<String> {
    let mut messages = vec![e.to_string()];
    let mut cause = e.source();
    while let Some(c) = cause {
        messages.push(c.to_string());
        cause = c.source();
    }
    messages
}

/// No message of the chain contains a later one: a cause is not repeated by the errors it wraps.
fn assert_printed_once(e: &dyn Error, depth: usize) {
    let messages = chain(e);
    assert_eq!(messages.len(), depth, "{messages:?}");
    for (i, outer) in messages.iter().enumerate() {
        assert!(!outer.is_empty());
        for inner in &messages[i + 1..] {
            assert!(!outer.contains(inner.as_str()), "{outer:?} repeats its cause {inner:?}");
        }
    }
}

#[test]
fn wrapped_errors_are_sources_not_repeated_in_display() {
    let core = || voxel_core::Error::IndexOutOfRange { triangle: 7, index: 9, vertex_count: 3 };
    let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file: world.vxs");
    let wrapped = [
        (PhysicsError::from(StoreError::Io(io())), 3),
        (PhysicsError::from(StoreError::PaletteFull), 2),
        (PhysicsError::from(BroadphaseError::UnknownId(42)), 2),
        (PhysicsError::from(RaymarchError::Source(core())), 3),
        (PhysicsError::from(MeshError::Source(core())), 3),
        (PhysicsError::from(HullError::TooFewPoints { count: 2 }), 2),
        (PhysicsError::from(ContactError::InvalidOptions("contact distance must be finite")), 2),
        (PhysicsError::InvalidParameter("step must be finite"), 1),
    ];
    for (e, depth) in &wrapped {
        assert_printed_once(e, *depth);
    }
    assert_printed_once(&KdTreeError::Source(core()), 2);
    // The inner error is still reachable, with its own words.
    let e = PhysicsError::from(MeshError::Source(core()));
    assert_eq!(chain(&e)[2], core().to_string());
    // convex-hacd's DecomposeError is checked where it is defined; it only needs a source here.
    assert!(PhysicsError::from(DecomposeError::Mesh(core())).source().is_some());
}
