//! Storage: the generic object store, its watch cache, and selectors.

pub mod selectors;
pub mod store;
pub mod watch_cache;
