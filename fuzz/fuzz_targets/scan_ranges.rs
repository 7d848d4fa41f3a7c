//! The scan builder's range computation: a key lies inside the ranges of a
//! request if and only if its fields match the request (equality on the
//! bound prefix, the range on the next component), over salted keys with a
//! `rev` component, an option and bytes, and over a hashed `bucket(...)`.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use keyschema::{RowKey, ScanRangeSet};
use libfuzzer_sys::fuzz_target;
use std::ops::{Bound, RangeBounds};

#[derive(RowKey, Debug, Clone, PartialEq, Arbitrary)]
#[rowkey(salt = hash(a, b) % 8, then = a, rev(b), c, d)]
struct Mixed {
    a: String,
    b: i32,
    c: Option<u16>,
    d: Vec<u8>,
}

#[derive(RowKey, Debug, Clone, PartialEq, Arbitrary)]
#[rowkey(salt = hash(hotel, bucket(day, 7)) % 16, then = hotel, bucket(day, 7), day, room)]
struct Stay {
    hotel: String,
    day: u32,
    room: u16,
}

/// The pivot's value, or (less often) an arbitrary one: keys and bounds
/// land near the request, where the edges are.
fn near<T: Clone + for<'a> Arbitrary<'a>>(
    u: &mut Unstructured<'_>,
    pivot: &T,
) -> arbitrary::Result<T> {
    if u.ratio(3, 4)? {
        Ok(pivot.clone())
    } else {
        T::arbitrary(u)
    }
}

fn bounds<T: Clone + for<'a> Arbitrary<'a>>(
    u: &mut Unstructured<'_>,
    pivot: &T,
) -> arbitrary::Result<(Bound<T>, Bound<T>)> {
    let one = |u: &mut Unstructured<'_>| -> arbitrary::Result<Bound<T>> {
        Ok(match u.int_in_range(0..=2u8)? {
            0 => Bound::Included(near(u, pivot)?),
            1 => Bound::Excluded(near(u, pivot)?),
            _ => Bound::Unbounded,
        })
    };
    Ok((one(u)?, one(u)?))
}

fn check(set: &ScanRangeSet, key: &[u8], matches: bool, what: &dyn std::fmt::Debug) {
    assert_eq!(set.contains(key), matches, "{what:?}\nranges {set:?}");
    assert_eq!(set.iter().any(|r| r.contains(key)), matches, "{what:?}");
    let starts: Vec<&[u8]> = set.iter().map(|r| r.start()).collect();
    assert!(
        starts.windows(2).all(|w| w[0] <= w[1]),
        "ranges out of order: {set:?}"
    );
}

fn mixed(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let pivot = Mixed::arbitrary(u)?;
    let key = Mixed {
        a: near(u, &pivot.a)?,
        b: near(u, &pivot.b)?,
        c: near(u, &pivot.c)?,
        d: near(u, &pivot.d)?,
    };
    let depth = u.int_in_range(0..=4u8)?;
    let ranged = depth < 4 && u.arbitrary()?;
    let p = &pivot;
    let eq = [key.a == p.a, key.b == p.b, key.c == p.c, key.d == p.d];
    let prefix = eq.iter().take(usize::from(depth)).all(|&e| e);
    let (set, inside) = if ranged {
        match depth {
            0 => {
                let r = bounds(u, &p.a)?;
                (Mixed::scan().a(r.clone()).ranges(), r.contains(&key.a))
            }
            1 => {
                let r = bounds(u, &p.b)?;
                (Mixed::scan().a(&p.a).b(r).ranges(), r.contains(&key.b))
            }
            2 => {
                let r = bounds(u, &p.c)?;
                (
                    Mixed::scan().a(&p.a).b(p.b).c(r).ranges(),
                    r.contains(&key.c),
                )
            }
            _ => {
                let r = bounds(u, &p.d)?;
                (
                    Mixed::scan().a(&p.a).b(p.b).c(p.c).d(r.clone()).ranges(),
                    r.contains(&key.d),
                )
            }
        }
    } else {
        let set = match depth {
            0 => Mixed::scan().ranges(),
            1 => Mixed::scan().a(&p.a).ranges(),
            2 => Mixed::scan().a(&p.a).b(p.b).ranges(),
            3 => Mixed::scan().a(&p.a).b(p.b).c(p.c).ranges(),
            _ => Mixed::scan().a(&p.a).b(p.b).c(p.c).d(&p.d).ranges(),
        };
        (set, true)
    };
    check(
        &set,
        &key.encode(),
        prefix && inside,
        &(&pivot, depth, &key),
    );
    Ok(())
}

fn stay(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let pivot = Stay::arbitrary(u)?;
    let key = Stay {
        hotel: near(u, &pivot.hotel)?,
        // Days within a few buckets of the pivot, and the ends of u32.
        day: match u.int_in_range(0..=3u8)? {
            0 => pivot.day,
            1 => pivot.day.wrapping_add(u32::from(u.int_in_range(0..=40u8)?)),
            2 => pivot.day.wrapping_sub(u32::from(u.int_in_range(0..=40u8)?)),
            _ => u32::arbitrary(u)?,
        },
        room: near(u, &pivot.room)?,
    };
    let p = &pivot;
    let depth = u.int_in_range(0..=2u8)?;
    let ranged = depth < 2 && u.arbitrary()?;
    let eq = [key.hotel == p.hotel, key.day == p.day];
    let prefix = eq.iter().take(usize::from(depth)).all(|&e| e);
    let (set, inside) = if ranged {
        match depth {
            0 => {
                let r = bounds(u, &p.hotel)?;
                (
                    Stay::scan().hotel(r.clone()).ranges(),
                    r.contains(&key.hotel),
                )
            }
            _ => {
                let lo = p.day.saturating_sub(u32::from(u.int_in_range(0..=60u8)?));
                let hi = lo.saturating_add(u32::from(u.int_in_range(0..=60u8)?));
                let r = (Bound::Included(lo), Bound::Excluded(hi));
                match Stay::scan().hotel(&p.hotel).day(r) {
                    Ok(request) => (request.ranges(), r.contains(&key.day)),
                    Err(err) => panic!("a 60-day range expands to at most 10 buckets: {err}"),
                }
            }
        }
    } else {
        let set = match depth {
            0 => Stay::scan().ranges(),
            1 => Stay::scan().hotel(&p.hotel).ranges(),
            _ => Stay::scan().hotel(&p.hotel).day(p.day).ranges(),
        };
        (set, true)
    };
    check(
        &set,
        &key.encode(),
        prefix && inside,
        &(&pivot, depth, &key),
    );
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = match u.arbitrary::<bool>() {
        Ok(true) => stay(&mut u),
        _ => mixed(&mut u),
    };
});
