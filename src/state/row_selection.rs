//! A list's selected rows, for bulk actions: a set of row keys (uids: the selection follows
//! its objects while rows move; `model::list::selection`), the gestures on rows by display
//! index, "select all matching the filter", and the selected objects as action targets.
//! Rows that leave the list leave the selection.

use leptos::prelude::*;
use serde_json::{json, Value};

use crate::model::edit::actions::Target;
use crate::model::list::selection::{Gesture, Selection};
use crate::model::list::table::{RowKey, RowPosition};
use crate::model::watch::LiveTable;
use crate::model::ResourceId;

pub struct UseRowSelectionOptions {
    pub store: ReadSignal<LiveTable>,
    /// The display order (sorted and filtered).
    pub order: ReadSignal<Vec<RowPosition>>,
    /// The list's resource and kind (for the targets).
    pub resource: ResourceId,
    pub kind: String,
}

#[derive(Clone, Copy)]
pub struct UseRowSelectionReturn {
    /// Whether the row at a display index is selected.
    pub is_selected: Callback<usize, bool>,
    /// A gesture on the row at a display index.
    pub gesture: Callback<(usize, Gesture)>,
    pub clear: Callback<()>,
    /// Every row matching the filter (true), or none (false).
    pub select_all: Callback<bool>,
    /// Whether every row matching the filter is selected.
    pub all_selected: Signal<bool>,
    pub count: Signal<usize>,
    /// "12 selected" (", 3 hidden by the filter").
    pub sentence: Signal<String>,
    /// The selected objects: each one's target and its metadata, by namespace and name.
    pub objects: Signal<Vec<(Target, Value)>>,
}

pub fn use_row_selection(options: UseRowSelectionOptions) -> UseRowSelectionReturn {
    let UseRowSelectionOptions {
        store,
        order,
        resource,
        kind,
    } = options;
    let selection = RwSignal::new(Selection::<RowKey>::default());
    let key_at = move |index: usize| -> Option<RowKey> {
        let position = order.with(|o| o.get(index).copied())?;
        store.with(|live| live.table().at(position).map(|row| row.key.clone()))
    };
    let ordered_keys = move || -> Vec<RowKey> {
        order.with_untracked(|positions| {
            store.with_untracked(|live| {
                positions
                    .iter()
                    .filter_map(|&p| live.table().at(p).map(|row| row.key.clone()))
                    .collect()
            })
        })
    };
    // Objects that left the list leave the selection.
    Effect::new(move |_| {
        store.track();
        if selection.with_untracked(Selection::is_empty) {
            return;
        }
        let gone = selection.with_untracked(|s| {
            store.with_untracked(|live| s.keys().any(|k| live.table().row(k).is_none()))
        });
        if gone {
            selection.update(|s| {
                store.with_untracked(|live| s.prune(|k| live.table().row(k).is_some()));
            });
        }
    });
    let is_selected = Callback::new(move |index: usize| {
        key_at(index).is_some_and(|key| selection.with(|s| s.contains(&key)))
    });
    let gesture = Callback::new(move |(index, gesture): (usize, Gesture)| {
        let Some(key) = key_at(index) else {
            return;
        };
        let keys = match gesture {
            Gesture::Extend => ordered_keys(),
            Gesture::Toggle => Vec::new(),
        };
        selection.update(|s| s.apply(gesture, &key, &keys));
    });
    let clear = Callback::new(move |()| selection.update(Selection::clear));
    let select_all = Callback::new(move |all: bool| {
        if all {
            let keys = ordered_keys();
            selection.update(|s| s.select_all(&keys));
        } else {
            selection.update(Selection::clear);
        }
    });
    let count = Signal::derive(move || selection.with(Selection::len));
    let all_selected = Memo::new(move |_| {
        let n = order.with(Vec::len);
        selection.with(|s| {
            // Cheap first: fewer selected than shown is not all.
            s.len() >= n
                && order.with(|positions| {
                    store.with(|live| {
                        s.covers(
                            &positions
                                .iter()
                                .filter_map(|&p| live.table().at(p).map(|r| r.key.clone()))
                                .collect::<Vec<_>>(),
                        )
                    })
                })
        })
    });
    let sentence = Memo::new(move |_| {
        selection.with(|s| {
            if s.is_empty() {
                return String::new();
            }
            // The keys shown: the filter may hide some of the selected.
            let shown: std::collections::HashSet<RowKey> = order.with(|positions| {
                store.with(|live| {
                    positions
                        .iter()
                        .filter_map(|&p| live.table().at(p))
                        .filter(|row| s.contains(&row.key))
                        .map(|row| row.key.clone())
                        .collect()
                })
            });
            s.count_sentence(|k| shown.contains(k))
        })
    });
    let objects = Memo::new(move |_| {
        selection.with(|s| {
            store.with(|live| {
                let mut objects: Vec<(Target, Value)> = s
                    .keys()
                    .filter_map(|key| live.table().row(key))
                    .map(|row| {
                        let object = json!({ "metadata": row.meta });
                        (Target::of_resource(&resource, &kind, &object), object)
                    })
                    .collect();
                objects
                    .sort_by(|a, b| (&a.0.namespace, &a.0.name).cmp(&(&b.0.namespace, &b.0.name)));
                objects
            })
        })
    });
    UseRowSelectionReturn {
        is_selected,
        gesture,
        clear,
        select_all,
        all_selected: all_selected.into(),
        count,
        sentence: sentence.into(),
        objects: objects.into(),
    }
}
