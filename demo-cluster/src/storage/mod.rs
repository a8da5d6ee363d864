//! Storage: the generic object store, its watch cache, the stored objects both hold, and
//! selectors.

pub mod object;
pub mod selectors;
pub mod store;
pub mod watch_cache;
