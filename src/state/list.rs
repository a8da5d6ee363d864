//! A live list's view state: the rows in display order, kept up to date as watch events
//! arrive at a cost the page can afford, and when its first rows and the whole list were
//! painted.

use std::sync::Arc;

use leptos::prelude::*;

use crate::browser::after_next_paint;
use crate::model::diagnosis::Health;
use crate::model::list::display::order_depends_only_on_rows;
use crate::model::list::table::{RowPosition, SortSpec};
use crate::model::metrics::columns::{sort_by_usage, usage_column, UsageColumns};
use crate::model::watch::{LiveTable, StreamPhase, WatchStatus};
use crate::state::clock::epoch_now;
use crate::state::pacing::PacedRun;

/// The sorted, filtered order is recomputed at most this often relative to its own cost
/// (4: at most a fifth of the time), so a burst of events into a big sorted list never
/// takes every frame.
const ORDER_COST_FACTOR: f64 = 4.0;

/// How the user asked to see the list: sort, quick filter.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ListOrder {
    pub sort: Option<SortSpec>,
    pub filter: String,
    /// Only rows whose health is not OK (Progressing too: a Deployment whose pods cannot
    /// start reads as "0/1 ready" in its row).
    pub only_unhealthy: bool,
}

/// The rows of `store` in display order, as positions in its table: recomputed when rows,
/// sort or filter change (not on scroll, not on the age tick), so a frame only formats the
/// visible rows; positions, so 50,000 rows are not 50,000 copied keys each time.
pub fn use_list_order(
    store: ReadSignal<LiveTable>,
    asked: Memo<ListOrder>,
    usage: Signal<Option<Arc<UsageColumns>>>,
) -> ReadSignal<Vec<RowPosition>> {
    let order = RwSignal::new(Vec::<RowPosition>::new());
    // The rows `order` was computed from (`LiveTable::membership`).
    let ordered_membership = StoredValue::new(None::<(u64, usize)>);
    let compute_order = move || {
        let ListOrder {
            sort,
            filter,
            only_unhealthy,
        } = asked.get_untracked();
        // A usage column sorts by the metrics the table does not hold.
        let by_usage = sort
            .as_ref()
            .and_then(|s| Some((usage_column(&s.column)?, s.direction)));
        let positions = store.with_untracked(|live| {
            ordered_membership.set_value(Some(live.membership()));
            let table_sort = sort.as_ref().filter(|_| by_usage.is_none());
            let mut positions = live
                .table()
                .view_positions(table_sort, &filter, epoch_now());
            if let Some((resource, direction)) = by_usage {
                usage.with_untracked(|usage| {
                    if let Some(usage) = usage {
                        sort_by_usage(&mut positions, live.table(), usage, resource, direction);
                    }
                });
            }
            if only_unhealthy {
                positions.retain(|&position| {
                    live.table()
                        .at(position)
                        .and_then(|row| live.health(&row.key))
                        .is_some_and(|health| health != Health::Ok)
                });
            }
            positions
        });
        order.set(positions);
    };
    let paced_order = PacedRun::new(ORDER_COST_FACTOR);
    Effect::new(move |previous: Option<ListOrder>| {
        store.track();
        let current = asked.get();
        let sorted_by_usage = current
            .sort
            .as_ref()
            .is_some_and(|s| usage_column(&s.column).is_some());
        if sorted_by_usage {
            usage.track();
        }
        let same_rows =
            store.with_untracked(|live| ordered_membership.get_value() == Some(live.membership()));
        if previous.as_ref() != Some(&current) {
            // The user changed the view: at once.
            paced_order.run_now(compute_order);
        } else if same_rows
            && !sorted_by_usage
            && order_depends_only_on_rows(current.sort.as_ref(), &current.filter)
        {
            // Rows only changed in place (the usual watch event): the order stands, and a
            // big list is not walked again each frame.
        } else {
            paced_order.ask(compute_order);
        }
        current
    });
    order.read_only()
}

/// When a list's first rows and its whole list were painted (`performance.now()` ms), for
/// the benchmarks and DevTools traces (`kube-atlas:list-first-rows`, `kube-atlas:list-loaded`).
#[derive(Clone, Copy)]
pub struct PaintMarks {
    pub first_rows_ms: ReadSignal<Option<f64>>,
    pub loaded_ms: ReadSignal<Option<f64>>,
}

pub fn use_paint_marks(row_count: Signal<usize>, status: ReadSignal<WatchStatus>) -> PaintMarks {
    let first_rows_ms = RwSignal::new(None::<f64>);
    let loaded_ms = RwSignal::new(None::<f64>);
    let marks_pending = StoredValue::new((false, false));
    Effect::new(move |_| {
        let has_rows = row_count.get() > 0;
        let done = status.with(|s| s.phase != StreamPhase::Listing && s.resource_version.is_some());
        let (first_pending, loaded_pending) = marks_pending.get_value();
        if has_rows && !first_pending {
            marks_pending.update_value(|m| m.0 = true);
            after_next_paint("kube-atlas:list-first-rows", move |ms| {
                first_rows_ms.try_set(Some(ms));
            });
        }
        if done && !loaded_pending {
            marks_pending.update_value(|m| m.1 = true);
            after_next_paint("kube-atlas:list-loaded", move |ms| {
                loaded_ms.try_set(Some(ms));
            });
        }
    });
    PaintMarks {
        first_rows_ms: first_rows_ms.read_only(),
        loaded_ms: loaded_ms.read_only(),
    }
}
