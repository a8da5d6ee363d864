//! Stable sorting through one shared sort routine. Every `slice::sort_by` with its own element
//! type and closure is a separate copy of the standard library's sort (1-4 KB of wasm each);
//! the app had a dozen of them in its page-start module. Here only a list of indices is ever
//! sorted, with the comparison behind `&dyn Fn`, so the sort itself exists once; what each
//! element type adds is the small permutation step.
//!
//! Use these instead of `sort`, `sort_by`, `sort_by_key` (and their unstable forms) in code
//! that ships to the browser.

use std::cmp::Ordering;

/// Sorts `items` by `compare`, keeping the order of equal elements (as `slice::sort_by`).
pub fn sort_by<T>(items: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    // Most slices sorted are tiny (a resource's subresources, a group's versions): they need
    // no positions allocated, which building a tree of 300 groups did a thousand times.
    match items {
        [] | [_] => return,
        [a, b] => {
            if compare(a, b) == Ordering::Greater {
                items.swap(0, 1);
            }
            return;
        }
        _ => {}
    }
    let order = {
        let items = &*items;
        sorted_positions(items.len(), &|a, b| compare(&items[a], &items[b]))
    };
    permute(items, &order);
}

/// Sorts `items` by the key `key` gives (as `slice::sort_by_key`).
pub fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` in their natural order (as `slice::sort`).
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// The positions `0..len` in the order `compare` puts them (stable). Not generic: the one
/// instance of the standard sort.
fn sorted_positions(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut positions: Vec<usize> = (0..len).collect();
    positions.sort_by(|&a, &b| compare(a, b));
    positions
}

/// Rearranges `items` so that `items[i]` becomes what was at `order[i]`, following each cycle
/// of the permutation with swaps.
fn permute<T>(items: &mut [T], order: &[usize]) {
    let mut placed = vec![false; items.len()];
    for start in 0..items.len() {
        let mut current = start;
        while !placed[current] {
            placed[current] = true;
            let next = order[current];
            if next == start {
                break;
            }
            items.swap(current, next);
            current = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::TestRng;

    #[test]
    fn sorts_as_the_standard_stable_sort_does() {
        let mut rng = TestRng::new(7);
        for len in [0usize, 1, 2, 3, 10, 57, 300] {
            // Few distinct keys, so stability is exercised: the second field tells equal
            // keys apart.
            let items: Vec<(usize, usize)> = (0..len).map(|i| (rng.below(5), i)).collect();
            let mut expected = items.clone();
            expected.sort_by_key(|item| item.0);
            let mut sorted = items.clone();
            sort_by_key(&mut sorted, |item| item.0);
            assert_eq!(sorted, expected, "{len} items");
            let mut descending = items;
            sort_by(&mut descending, |a, b| b.0.cmp(&a.0));
            let mut expected_descending = sorted.clone();
            expected_descending.sort_by_key(|item| std::cmp::Reverse(item.0));
            assert_eq!(descending, expected_descending);
        }
    }

    #[test]
    fn sorts_owned_values_in_natural_order() {
        let mut names = vec!["web".to_string(), "api".into(), "db".into(), "api".into()];
        sort(&mut names);
        assert_eq!(names, ["api", "api", "db", "web"]);
    }
}
