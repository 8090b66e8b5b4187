//! Scenario and property tests of the store against a brute-force dense reference.

use glam::{IVec3, Vec3};
use proptest::prelude::*;
use voxel_core::{Phase, RegionHint, Voxel, VoxelBox, VoxelGrid, VoxelSource};
use voxel_store::generate::materials::ROCK;
use voxel_store::{Brush, StoreError, VoxelStore, generate, quantize};

/// The reference: a dense grid over a box, edited voxel by voxel with the documented rules.
struct Reference {
    grid: VoxelGrid,
}

impl Reference {
    fn new(bounds: VoxelBox) -> Self {
        Self { grid: VoxelGrid::new(bounds).unwrap() }
    }

    fn apply(&mut self, op: &Op) {
        if let Op::Add(b, _) | Op::Subtract(b) | Op::Paint(b, _) = op {
            if b.is_zero_size() {
                return; // a brush without volume changes nothing
            }
        }
        for p in self.grid.grid_bounds().iter() {
            let v = self.grid.get(p);
            let q = |b: &Brush| quantize(b.distance(p.as_vec3()));
            let new = match op {
                Op::Set(at, voxel) => {
                    if *at == p {
                        *voxel
                    } else {
                        v
                    }
                }
                Op::Fill(b, voxel) => {
                    if b.contains(p) {
                        *voxel
                    } else {
                        v
                    }
                }
                Op::Add(b, m) => {
                    if q(b) < v.distance {
                        Voxel::new(q(b), *m)
                    } else {
                        v
                    }
                }
                Op::Subtract(b) => Voxel::new(v.distance.max(q(b).saturating_neg()), v.material),
                Op::Paint(b, m) => {
                    if q(b) < 0 {
                        Voxel::new(v.distance, *m)
                    } else {
                        v
                    }
                }
            };
            self.grid.set(p, new);
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Set(IVec3, Voxel),
    Fill(VoxelBox, Voxel),
    Add(Brush, u8),
    Subtract(Brush),
    Paint(Brush, u8),
}

fn apply(store: &mut VoxelStore, op: &Op) -> voxel_store::EditReport {
    match op {
        Op::Set(p, v) => store.set(*p, *v),
        Op::Fill(b, v) => store.fill_box(*b, *v),
        Op::Add(b, m) => store.add(b, *m),
        Op::Subtract(b) => store.subtract(b),
        Op::Paint(b, m) => store.paint(b, *m),
    }
    .unwrap()
}

/// Edits stay inside [-40, 40)^3 minus the brush band, so the reference box covers everything.
fn arb_point() -> impl Strategy<Value = IVec3> {
    prop::array::uniform3(-36i32..36).prop_map(IVec3::from)
}

fn arb_voxel() -> impl Strategy<Value = Voxel> {
    (-127i8..=127, 0u8..4).prop_map(|(d, m)| Voxel::new(d, m))
}

fn arb_brush() -> impl Strategy<Value = Brush> {
    let c = prop::array::uniform3(-25.0f32..25.0).prop_map(Vec3::from);
    prop_oneof![
        (c.clone(), prop_oneof![Just(0.0f32), 0.0f32..9.0])
            .prop_map(|(center, radius)| Brush::Sphere { center, radius }),
        (c.clone(), prop::array::uniform3(prop_oneof![1 => Just(0.0f32), 4 => 0.0f32..7.0]))
            .prop_map(|(center, h)| Brush::Box { center, half_extents: Vec3::from(h) }),
        (c.clone(), c, prop_oneof![Just(0.0f32), 0.0f32..5.0]).prop_map(|(a, b, radius)| Brush::Capsule {
            a: a * 0.5,
            b: b * 0.5,
            radius
        }),
    ]
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (arb_point(), arb_voxel()).prop_map(|(p, v)| Op::Set(p, v)),
        (arb_point(), prop::array::uniform3(0i32..12), arb_voxel())
            .prop_map(|(p, s, v)| Op::Fill(VoxelBox::from_min_size(p, IVec3::from(s)), v)),
        (arb_brush(), 1u8..4).prop_map(|(b, m)| Op::Add(b, m)),
        arb_brush().prop_map(Op::Subtract),
        (arb_brush(), 1u8..4).prop_map(|(b, m)| Op::Paint(b, m)),
    ]
}

fn world() -> VoxelBox {
    VoxelBox::new(IVec3::splat(-48), IVec3::splat(48))
}

fn read_all(source: &impl VoxelSource, region: VoxelBox) -> Vec<Voxel> {
    let mut buf = Vec::new();
    source.read_region(region, &mut buf).unwrap();
    buf
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Every edit sequence gives the reference's voxels, before and after compaction; every changed
    /// voxel lies in its edit's dirty region shrunk by the padding, and that box is tight.
    #[test]
    fn edits_match_the_reference_and_report_tight_dirty_regions(ops in prop::collection::vec(arb_op(), 1..6)) {
        let mut store = VoxelStore::with_palette(generate::palette());
        let mut reference = Reference::new(world());
        for op in &ops {
            let before = read_all(&store, world());
            let report = apply(&mut store, op);
            reference.apply(op);
            let after = read_all(&store, world());
            prop_assert_eq!(&after[..], reference.grid.voxels());
            let mut changed = VoxelBox::EMPTY;
            let mut count = 0;
            for (i, (a, b)) in before.iter().zip(&after).enumerate() {
                if a != b {
                    let p = world().point_at(i).unwrap();
                    changed = changed.union(&VoxelBox::from_min_size(p, IVec3::ONE));
                    count += 1;
                }
            }
            prop_assert_eq!(report.changed_voxels, count);
            let expected = if count == 0 { VoxelBox::EMPTY } else { changed.grow(voxel_store::DIRTY_PADDING) };
            prop_assert_eq!(report.dirty, expected);
        }
        store.compact();
        prop_assert_eq!(&read_all(&store, world())[..], reference.grid.voxels());
    }

    /// Region reads of any box equal per-voxel gets, and the uniform hint never lies.
    #[test]
    fn region_reads_and_hints_agree_with_get(
        ops in prop::collection::vec(arb_op(), 1..4),
        min in prop::array::uniform3(-80i32..60),
        size in prop::array::uniform3(0i32..70),
        compact in any::<bool>(),
    ) {
        let mut store = VoxelStore::with_palette(generate::palette());
        for op in &ops {
            apply(&mut store, op);
        }
        if compact {
            store.compact();
        }
        let region = VoxelBox::from_min_size(IVec3::from(min), IVec3::from(size));
        let buf = read_all(&store, region);
        let expected: Vec<Voxel> = region.iter().map(|p| store.get(p)).collect();
        prop_assert_eq!(&buf, &expected);
        if let RegionHint::Uniform(v) = store.region_hint(region) {
            prop_assert!(expected.iter().all(|e| *e == v));
        }
    }

    /// Save then load gives the same voxels and the same bytes again.
    #[test]
    fn save_load_round_trips(ops in prop::collection::vec(arb_op(), 0..5), compact in any::<bool>()) {
        let mut store = VoxelStore::with_palette(generate::palette());
        for op in &ops {
            apply(&mut store, op);
        }
        if compact {
            store.compact();
        }
        let mut bytes = Vec::new();
        store.write_to(&mut bytes).unwrap();
        let loaded = VoxelStore::from_bytes(&bytes).unwrap();
        prop_assert_eq!(read_all(&loaded, world()), read_all(&store, world()));
        prop_assert_eq!(loaded.palette(), store.palette());
        let mut again = Vec::new();
        loaded.write_to(&mut again).unwrap();
        prop_assert_eq!(again, bytes);
    }
}

#[test]
fn empty_and_uniform_chunks_take_no_voxel_arrays() {
    let mut store = VoxelStore::with_palette(generate::palette());
    // Fill exactly one chunk with rock, another with something then back to empty.
    let chunk = VoxelBox::chunk(IVec3::new(-1, 0, 2), voxel_store::CHUNK_EDGE);
    store.fill_box(chunk, Voxel::new(-127, ROCK)).unwrap();
    let other = VoxelBox::chunk(IVec3::new(3, 3, 3), voxel_store::CHUNK_EDGE);
    store.fill_box(other, Voxel::new(-5, ROCK)).unwrap();
    store.fill_box(other, Voxel::EMPTY).unwrap();
    store.compact();
    assert_eq!(store.chunk_count(), 1, "the emptied chunk is dropped");
    let m = store.memory();
    assert_eq!((m.uniform_chunks, m.packed_chunks, m.dense_chunks), (1, 0, 0));
    assert!(m.bytes > 0);
    assert_eq!(store.heap_bytes(), m.bytes);
    assert_eq!(store.region_hint(chunk), RegionHint::Uniform(Voxel::new(-127, ROCK)));
    assert_eq!(store.region_hint(other), RegionHint::Uniform(Voxel::EMPTY));
}

#[test]
fn negative_coordinates_work_like_positive_ones() {
    let mut store = VoxelStore::with_palette(generate::palette());
    for p in [IVec3::new(-1, -1, -1), IVec3::new(-32, -33, -64), IVec3::new(31, -32, 0), IVec3::splat(i32::MIN / 64)] {
        store.set(p, Voxel::new(-9, ROCK)).unwrap();
        assert_eq!(store.get(p), Voxel::new(-9, ROCK), "{p}");
        assert_eq!(store.get(p + IVec3::X), Voxel::EMPTY);
    }
}

#[test]
fn bad_input_is_an_error_and_changes_nothing() {
    let mut store = generate::sphere(Vec3::ZERO, 5.0).unwrap();
    let before = read_all(&store, world());
    let bad = [
        Brush::Sphere { center: Vec3::new(f32::NAN, 0.0, 0.0), radius: 3.0 },
        Brush::Sphere { center: Vec3::ZERO, radius: f32::INFINITY },
        Brush::Sphere { center: Vec3::ZERO, radius: -1.0 },
        Brush::Box { center: Vec3::ZERO, half_extents: Vec3::new(1.0, -1.0, 1.0) },
        Brush::Capsule { a: Vec3::ZERO, b: Vec3::splat(1e30), radius: 1.0 },
        Brush::Sphere { center: Vec3::ZERO, radius: 1e7 },
    ];
    for b in bad {
        assert!(matches!(store.add(&b, ROCK), Err(StoreError::InvalidParameter(_))), "{b:?}");
        assert!(matches!(store.subtract(&b), Err(StoreError::InvalidParameter(_))), "{b:?}");
    }
    let fine = Brush::Sphere { center: Vec3::ZERO, radius: 2.0 };
    assert!(matches!(store.add(&fine, 77), Err(StoreError::UnknownMaterial(77))));
    assert!(matches!(store.set(IVec3::ZERO, Voxel::new(-1, 200)), Err(StoreError::UnknownMaterial(200))));
    let huge = VoxelBox::new(IVec3::splat(-100_000), IVec3::splat(100_000));
    assert!(matches!(store.fill_box(huge, Voxel::EMPTY), Err(StoreError::RegionTooLarge)));
    assert!(matches!(
        generate::from_fn(&mut store, world(), |_| Voxel::new(-1, 99)),
        Err(StoreError::UnknownMaterial(99))
    ));
    assert_eq!(read_all(&store, world()), before);
}

#[test]
fn degenerate_brushes_are_documented_no_ops_or_points() {
    // A zero-length capsule is a sphere.
    let a = Brush::Capsule { a: Vec3::ONE, b: Vec3::ONE, radius: 2.0 };
    let s = Brush::Sphere { center: Vec3::ONE, radius: 2.0 };
    assert_eq!(a.distance(Vec3::new(4.0, 1.0, 1.0)), s.distance(Vec3::new(4.0, 1.0, 1.0)));
    // Subtracting from empty space changes nothing and creates no chunk.
    let mut empty = VoxelStore::new();
    let r = empty.subtract(&Brush::Sphere { center: Vec3::ZERO, radius: 4.0 }).unwrap();
    assert_eq!(r.changed_voxels, 0);
    assert!(r.dirty.is_empty());
    assert_eq!(empty.chunk_count(), 0);
}

/// Every brush without volume, of every shape, is a no-op for every edit, on rock, in air and on
/// the surface between them: the same voxels after as before, an empty report, no chunk made (read
/// as a distance field, a radius-0 subtract would change 81 voxels, a radius-0 add in air would
/// write distance-0 voxels).
#[test]
fn zero_size_brushes_change_nothing_for_every_edit() {
    let mut store = VoxelStore::with_palette(generate::palette());
    // Rock below y = 0, air above: centres deep in rock, in air, and on the surface.
    store.fill_box(VoxelBox::new(IVec3::new(-40, -40, -40), IVec3::new(40, 0, 40)), Voxel::new(-127, ROCK)).unwrap();
    store
        .add(&Brush::Box { center: Vec3::new(0.0, -20.0, 0.0), half_extents: Vec3::new(40.0, 19.5, 40.0) }, ROCK)
        .unwrap();
    let region = VoxelBox::new(IVec3::splat(-44), IVec3::splat(44));
    let before = read_all(&store, region);
    let chunks = store.chunk_count();
    let paint = generate::materials::GRASS;
    for center in
        [Vec3::new(3.0, -20.0, 5.0), Vec3::new(3.0, 20.0, 5.0), Vec3::new(3.0, -0.5, 5.0), Vec3::new(3.4, 0.0, 5.6)]
    {
        let brushes = [
            Brush::Sphere { center, radius: 0.0 },
            Brush::Sphere { center, radius: -0.0 },
            Brush::Capsule { a: center, b: center + Vec3::new(6.0, 1.0, 0.0), radius: 0.0 },
            Brush::Capsule { a: center, b: center, radius: 0.0 },
            Brush::Box { center, half_extents: Vec3::ZERO },
            Brush::Box { center, half_extents: Vec3::new(4.0, 0.0, 4.0) },
            Brush::Box { center, half_extents: Vec3::new(0.0, 3.0, 2.0) },
        ];
        for brush in brushes {
            assert!(brush.is_zero_size(), "{brush:?}");
            let reports = [store.add(&brush, ROCK), store.subtract(&brush), store.paint(&brush, paint)];
            for (op, report) in ["add", "subtract", "paint"].iter().zip(reports) {
                let report = report.unwrap();
                assert_eq!(report.changed_voxels, 0, "{op} {brush:?}");
                assert!(report.dirty.is_empty(), "{op} {brush:?}");
            }
            assert!(read_all(&store, region) == before, "{brush:?} changed voxels");
            assert_eq!(store.chunk_count(), chunks, "{brush:?} made chunks");
        }
    }
    // A brush with volume, however small, is a brush: tiny ones still carve.
    assert!(!Brush::Sphere { center: Vec3::ZERO, radius: 1e-3 }.is_zero_size());
    assert!(
        store.subtract(&Brush::Sphere { center: Vec3::new(3.0, -20.0, 5.0), radius: 1.0 }).unwrap().changed_voxels > 0
    );
    // Zero size does not excuse bad parameters: NaN and negative sizes are still refused.
    for bad in [
        Brush::Sphere { center: Vec3::NAN, radius: 0.0 },
        Brush::Box { center: Vec3::ZERO, half_extents: Vec3::new(0.0, -1.0, 0.0) },
        Brush::Capsule { a: Vec3::ZERO, b: Vec3::INFINITY, radius: 0.0 },
    ] {
        assert!(matches!(store.subtract(&bad), Err(StoreError::InvalidParameter(_))), "{bad:?}");
    }
}

#[test]
fn sphere_edit_dirties_the_neighbour_chunk_across_a_border() {
    let mut store = VoxelStore::with_palette(generate::palette());
    // A voxel right at x = 31 (the last of chunk 0) dirties voxel x = 32 (chunk 1) and x = 30.
    let r = store.set(IVec3::new(31, 5, 5), Voxel::new(-3, ROCK)).unwrap();
    assert_eq!(r.dirty, VoxelBox::new(IVec3::new(30, 4, 4), IVec3::new(33, 7, 7)));
    assert_eq!(r.dirty_chunks(8), VoxelBox::new(IVec3::new(3, 0, 0), IVec3::new(5, 1, 1)));
}

#[test]
fn palette_phases_reach_consumers() {
    let mut store = VoxelStore::new();
    let water = store.palette_mut().add("water", Phase::Liquid, [0, 0, 255, 255]).unwrap();
    store.set(IVec3::ZERO, Voxel::new(-50, water)).unwrap();
    assert_eq!(store.get(IVec3::ZERO).phase(store.phase_table()), Phase::Liquid);
}

#[test]
fn extreme_coordinates_round_trip_or_are_refused() {
    let mut store = VoxelStore::with_palette(generate::palette());
    let lowest = IVec3::new(i32::MIN, i32::MIN, i32::MIN);
    let highest = IVec3::splat(i32::MAX - 1);
    store.set(lowest, Voxel::new(-3, ROCK)).unwrap();
    store.set(highest, Voxel::new(-4, ROCK)).unwrap();
    assert!(matches!(
        store.set(IVec3::new(0, i32::MAX, 0), Voxel::new(-4, ROCK)),
        Err(StoreError::InvalidParameter(_))
    ));
    let mut bytes = Vec::new();
    store.write_to(&mut bytes).unwrap();
    let loaded = VoxelStore::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.get(lowest), Voxel::new(-3, ROCK));
    assert_eq!(loaded.get(highest), Voxel::new(-4, ROCK));
}

#[test]
fn long_thin_edits_are_refused_before_unpacking_thousands_of_chunks() {
    let mut store = VoxelStore::with_palette(generate::palette());
    let thin = VoxelBox::new(IVec3::ZERO, IVec3::new(1, 1 << 20, 1));
    assert!(matches!(store.fill_box(thin, Voxel::new(-1, ROCK)), Err(StoreError::RegionTooLarge)));
    // Brushes are bounded by their extent instead: 4096 voxels, at most 512 chunks for a needle.
    let needle = Brush::Capsule { a: Vec3::ZERO, b: Vec3::new(0.0, 5000.0, 0.0), radius: 1.0 };
    assert!(matches!(store.add(&needle, ROCK), Err(StoreError::InvalidParameter(_))));
    let far = Brush::Sphere { center: Vec3::new(1e9, 0.0, 0.0), radius: 3.0 };
    assert!(matches!(store.add(&far, ROCK), Err(StoreError::InvalidParameter(_))));
    assert_eq!(store.chunk_count(), 0);
}

#[test]
fn from_fn_reports_only_what_changed() {
    let mut store = VoxelStore::with_palette(generate::palette());
    let region = VoxelBox::new(IVec3::ZERO, IVec3::splat(40));
    let report = generate::from_fn(&mut store, region, |p| {
        if p == IVec3::new(5, 6, 35) { Voxel::new(-9, ROCK) } else { Voxel::EMPTY }
    })
    .unwrap();
    assert_eq!(report.changed_voxels, 1);
    assert_eq!(report.dirty, VoxelBox::new(IVec3::new(4, 5, 34), IVec3::new(7, 8, 37)));
}

#[test]
fn terrain_parameters_are_checked() {
    let ok = generate::Terrain::new(IVec3::new(32, 32, 32), 1);
    for bad in [
        generate::Terrain { frequency: 1e12, ..ok.clone() },
        generate::Terrain { cave_frequency: -1.0, ..ok.clone() },
        generate::Terrain { base_height: f32::NAN, ..ok.clone() },
        generate::Terrain { size: IVec3::new(-1, 4, 4), ..ok.clone() },
    ] {
        assert!(matches!(generate::terrain(&bad), Err(StoreError::InvalidParameter(_))), "{bad:?}");
    }
}

/// Reads one voxel wide, as a halo is read (the first or last column of a chunk, or a single
/// column anywhere), on generated terrain, whose packed chunks hold uniform, one-material and
/// mixed rows: every column read along x, y and z equals per-voxel gets.
#[test]
fn one_voxel_wide_reads_equal_gets_on_terrain() {
    let size = IVec3::new(64, 64, 64);
    let store = generate::terrain(&generate::Terrain::new(size, 3)).unwrap();
    let world = VoxelBox::new(IVec3::ZERO, size);
    let mut buf = Vec::new();
    for axis in 0..3 {
        for c in 0..64 {
            let mut min = world.min.to_array();
            let mut max = world.max.to_array();
            min[axis] = c;
            max[axis] = c + 1;
            let region = VoxelBox::new(IVec3::from(min), IVec3::from(max));
            store.read_region(region, &mut buf).unwrap();
            let expected: Vec<Voxel> = region.iter().map(|p| store.get(p)).collect();
            assert!(buf == expected, "axis {axis}, column {c}");
        }
    }
}

/// Brushes are checked with their distance band: one whose band reaches past
/// `MAX_BRUSH_COORDINATE` (2^24, where `f32` steps stall) is refused and changes nothing; one that
/// fits is exact.
#[test]
fn brushes_near_the_coordinate_limit_are_exact_or_refused() {
    let limit = voxel_store::MAX_BRUSH_COORDINATE.as_f32();
    let mut store = VoxelStore::with_palette(generate::palette());
    let rock = VoxelBox::new(IVec3::new(16_777_180, -4, -4), IVec3::new(16_777_216, 5, 5));
    store.fill_box(rock, Voxel::new(-127, ROCK)).unwrap();
    let touching = Brush::Sphere { center: Vec3::new(limit - 6.0, 0.0, 0.0), radius: 6.0 };
    assert!(matches!(store.subtract(&touching), Err(StoreError::InvalidParameter(_))));
    assert_eq!(store.get(IVec3::new(16_777_212, 0, 0)), Voxel::new(-127, ROCK), "a refused edit changed nothing");
    // Three voxels further in: accepted, and every voxel is `max(stored, -brush)`.
    let centre = limit - 9.0;
    let inside = Brush::Sphere { center: Vec3::new(centre, 0.0, 0.0), radius: 6.0 };
    store.subtract(&inside).unwrap();
    for x in 16_777_195..16_777_216 {
        let outside_by = (x as f32 - centre).abs() - 6.0;
        let expected = (-127i8).max(-quantize(outside_by));
        assert_eq!(store.get(IVec3::new(x, 0, 0)).distance, expected, "x = {x}");
    }
}
