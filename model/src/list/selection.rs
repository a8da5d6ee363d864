//! The rows chosen for a bulk action: a set of row keys (an object's uid), so the selection
//! follows its objects while rows move, with the anchor a Shift gesture extends from.
//! Ranges are taken over the display order (sorted and filtered, as drawn); "select all"
//! takes every row matching the filter; rows that left the list leave the selection.

use std::collections::HashSet;
use std::hash::Hash;

/// What the user did to the selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gesture {
    /// A checkbox click, Ctrl/Cmd-click or Space: the row flips; it becomes the anchor.
    Toggle,
    /// Shift-click or Shift+arrow: every row from the anchor to this one (in display
    /// order) is selected; the anchor stays.
    Extend,
}

/// The selected rows, by key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection<K: Eq + Hash> {
    chosen: HashSet<K>,
    anchor: Option<K>,
}

impl<K: Eq + Hash> Default for Selection<K> {
    fn default() -> Self {
        Selection {
            chosen: HashSet::new(),
            anchor: None,
        }
    }
}

impl<K: Eq + Hash + Clone> Selection<K> {
    pub fn contains(&self, key: &K) -> bool {
        self.chosen.contains(key)
    }

    pub fn len(&self) -> usize {
        self.chosen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chosen.is_empty()
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.chosen.iter()
    }

    /// The row a Shift gesture extends from.
    pub fn anchor(&self) -> Option<&K> {
        self.anchor.as_ref()
    }

    /// `gesture` on the row `key`; `order` is the display order (read for ranges only).
    pub fn apply(&mut self, gesture: Gesture, key: &K, order: &[K]) {
        match gesture {
            Gesture::Toggle => self.toggle(key),
            Gesture::Extend => self.extend_to(key, order),
        }
    }

    /// Flips `key`; it becomes the anchor.
    pub fn toggle(&mut self, key: &K) {
        if !self.chosen.remove(key) {
            self.chosen.insert(key.clone());
        }
        self.anchor = Some(key.clone());
    }

    /// Selects every row between the anchor and `key` in `order`, both included. Without an
    /// anchor in `order` (none yet, or filtered out), `key` alone is selected and anchors.
    pub fn extend_to(&mut self, key: &K, order: &[K]) {
        let to = order.iter().position(|k| k == key);
        let from = self
            .anchor
            .as_ref()
            .and_then(|anchor| order.iter().position(|k| k == anchor));
        match (from, to) {
            (Some(from), Some(to)) => {
                let (low, high) = if from <= to { (from, to) } else { (to, from) };
                self.chosen.extend(order[low..=high].iter().cloned());
            }
            _ => {
                self.chosen.insert(key.clone());
                self.anchor = Some(key.clone());
            }
        }
    }

    /// Every row of `order` (the rows matching the filter) is selected.
    pub fn select_all<'a>(&mut self, order: impl IntoIterator<Item = &'a K>)
    where
        K: 'a,
    {
        self.chosen.extend(order.into_iter().cloned());
    }

    /// Whether every row of `order` is selected (and there is one).
    pub fn covers<'a>(&self, order: impl IntoIterator<Item = &'a K>) -> bool
    where
        K: 'a,
    {
        let mut any = false;
        for key in order {
            if !self.chosen.contains(key) {
                return false;
            }
            any = true;
        }
        any
    }

    /// Escape: nothing selected.
    pub fn clear(&mut self) {
        self.chosen.clear();
        self.anchor = None;
    }

    /// Drops the rows that left the list (`present` says which are still there); true when
    /// any was dropped.
    pub fn prune(&mut self, present: impl Fn(&K) -> bool) -> bool {
        let before = self.chosen.len();
        self.chosen.retain(|key| present(key));
        if self.anchor.as_ref().is_some_and(|anchor| !present(anchor)) {
            self.anchor = None;
        }
        self.chosen.len() != before
    }

    /// "12 selected", and how many of them the filter hides ("12 selected, 3 hidden by the
    /// filter"); `shown` says whether a key is in the display order.
    pub fn count_sentence(&self, shown: impl Fn(&K) -> bool) -> String {
        let hidden = self.chosen.iter().filter(|key| !shown(key)).count();
        let mut text = format!("{} selected", self.chosen.len());
        if hidden > 0 {
            text.push_str(&format!(", {hidden} hidden by the filter"));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(keys: &[&'static str]) -> Vec<&'static str> {
        keys.to_vec()
    }

    fn sorted(selection: &Selection<&'static str>) -> Vec<&'static str> {
        let mut keys: Vec<_> = selection.keys().copied().collect();
        keys.sort();
        keys
    }

    #[test]
    fn toggles_flip_and_anchor() {
        let rows = order(&["a", "b", "c"]);
        let mut selection = Selection::default();
        selection.apply(Gesture::Toggle, &"b", &rows);
        assert!(selection.contains(&"b"));
        assert_eq!(selection.anchor(), Some(&"b"));
        selection.apply(Gesture::Toggle, &"b", &rows);
        assert!(selection.is_empty());
    }

    #[test]
    fn ranges_follow_the_display_order_both_ways() {
        let rows = order(&["e", "a", "d", "b", "c"]);
        let mut selection = Selection::default();
        selection.toggle(&"a");
        selection.apply(Gesture::Extend, &"b", &rows);
        assert_eq!(sorted(&selection), ["a", "b", "d"]);
        // Upwards from the same anchor.
        selection.extend_to(&"e", &rows);
        assert_eq!(sorted(&selection), ["a", "b", "d", "e"]);
        assert_eq!(selection.anchor(), Some(&"a"));
    }

    #[test]
    fn a_range_without_an_anchor_in_view_selects_the_row_alone() {
        let mut selection = Selection::default();
        selection.toggle(&"x");
        selection.extend_to(&"c", &order(&["a", "b", "c"]));
        assert_eq!(sorted(&selection), ["c", "x"]);
        assert_eq!(selection.anchor(), Some(&"c"));
    }

    #[test]
    fn select_all_takes_the_rows_matching_the_filter() {
        let matching = order(&["b", "c"]);
        let mut selection = Selection::default();
        selection.toggle(&"a");
        selection.select_all(&matching);
        assert!(selection.covers(&matching));
        assert!(!selection.covers(&order(&["a", "d"])));
        assert!(!Selection::<&str>::default().covers(&Vec::new()));
        assert_eq!(
            selection.count_sentence(|k| matching.contains(k)),
            "3 selected, 1 hidden by the filter"
        );
        selection.clear();
        assert!(selection.is_empty());
        assert_eq!(selection.anchor(), None);
    }

    #[test]
    fn rows_that_left_are_pruned_with_the_anchor() {
        let mut selection = Selection::default();
        selection.select_all(&order(&["a", "b", "c"]));
        selection.toggle(&"d");
        let present = ["a", "c"];
        assert!(selection.prune(|k| present.contains(k)));
        assert_eq!(sorted(&selection), ["a", "c"]);
        assert_eq!(selection.anchor(), None);
        assert!(!selection.prune(|k| present.contains(k)));
        assert_eq!(selection.count_sentence(|_| true), "2 selected");
    }
}
