//! One sort for the whole crate. Every `sort_by`/`sort_by_key` on a new element type or with a new
//! closure is another copy of std's sort in the wasm module (about 3 KB each; there were 23 of
//! them). Here the only sort is of indices, with one `&dyn Fn` comparator, so the module holds one
//! copy; the callers only build keys and move their items into the order found.
//!
//! Both functions are stable: equal items keep their order (the index breaks ties).

use std::cmp::Ordering;

/// The positions `0..len` in the order `cmp` puts them, equal ones in their present order.
fn order(len: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut positions: Vec<usize> = (0..len).collect();
    positions.sort_unstable_by(|&a, &b| cmp(a, b).then(a.cmp(&b)));
    positions
}

/// Sorts `items` by `cmp`, stably.
pub(crate) fn sort_by<T>(items: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    let positions = order(items.len(), &|a, b| cmp(&items[a], &items[b]));
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(positions.into_iter().filter_map(|i| slots[i].take()));
}

/// Sorts `items` by `key`, stably (what `slice::sort_by_key` does).
pub(crate) fn sort_by_key<T, K: Ord>(items: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_std_stable_sort() {
        // Pairs with many equal keys: the second field shows whether ties kept their order.
        let items: Vec<(u8, usize)> = (0..200).map(|i| ((i * 7919 % 13) as u8, i)).collect();
        let mut ours = items.clone();
        sort_by_key(&mut ours, |&(k, _)| k);
        let mut std_sorted = items.clone();
        std_sorted.sort_by_key(|&(k, _)| k);
        assert_eq!(ours, std_sorted);

        let mut reversed = items.clone();
        sort_by(&mut reversed, |a, b| b.0.cmp(&a.0));
        let mut std_reversed = items;
        std_reversed.sort_by_key(|b| std::cmp::Reverse(b.0));
        assert_eq!(reversed, std_reversed);
    }

    #[test]
    fn empty_and_single() {
        let mut none: Vec<u32> = Vec::new();
        sort_by_key(&mut none, |&x| x);
        assert!(none.is_empty());
        let mut one = vec![5];
        sort_by_key(&mut one, |&x| x);
        assert_eq!(one, [5]);
    }
}
