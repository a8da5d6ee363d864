//! The shared watch layer, pure: what is watched ([`key`]), how one key's watcher moves from
//! list to watch to relist ([`machine`]), how long it waits after failures ([`backoff`]),
//! where its items live ([`store`]), who uses which stream ([`hub`]), and the events as they
//! arrive ([`event`]). The browser side (`state::watch`) only performs the commands and feeds
//! what happened back, so every transition is tested natively, including against a model
//! API server with compaction, cut streams and errors (`simulation`).

pub mod backoff;
pub mod event;
pub mod hub;
pub mod key;
pub mod machine;
pub mod mechanics;
pub mod probe;
#[cfg(test)]
mod simulation;
pub mod slots;
pub mod store;
pub mod wake;

pub use backoff::Backoff;
pub use event::{decode_event, ErrorStatus, EventType, LineDecoder, WatchDecodeError, WatchEvent};
pub use hub::{Subscribed, Subscriptions, LINGER_MS};
pub use key::{split_page, Output, WatchKey};
pub use machine::{
    Command, Input, ListMode, Observed, Step, StoreChange, StreamPhase, WatchStatus, Watcher,
};
pub use mechanics::{Happening, MechanicsLog};
pub use store::{object_key, ChangeMark, LiveTable, ObjectCache, ObjectKey, WatchStore};
pub use wake::{Silence, SleepDetector, IDLE_TIMEOUT_MS, WAKE_TICK_MS};
