//! The page's clocks for what it shows: the wall clock (ages, "last change" texts), ticking
//! once a second while the tab is visible.

use leptos::prelude::*;

use crate::browser::{document_hidden, wall_now};
use crate::model::time::age::EpochMillis;

/// Ages are refreshed this often (kubectl's have second resolution under two minutes). Only
/// rows whose text changed are redrawn, and a hidden tab does not tick.
const AGE_TICK_MS: u64 = 1_000;

/// Milliseconds since the epoch, for ages.
pub fn epoch_now() -> EpochMillis {
    wall_now().epoch_millis()
}

/// The wall clock, ticking once a second while the tab is visible: ages and "last change"
/// texts.
pub fn use_clock() -> RwSignal<EpochMillis> {
    let now = RwSignal::new(epoch_now());
    let tick = set_interval_with_handle(
        move || {
            if !document_hidden() {
                now.set(epoch_now());
            }
        },
        std::time::Duration::from_millis(AGE_TICK_MS),
    )
    .ok();
    on_cleanup(move || {
        if let Some(handle) = tick {
            handle.clear();
        }
    });
    now
}
