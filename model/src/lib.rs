//! Kube Atlas's pure model: discovery parsing, the unified API tree, REST mapping, filtering,
//! Browse (tables, selectors, routes, owners, object pages), the watch layer (decoding, the
//! watcher's state machine, the object store), editing, history (timelines, diffs, blame) and
//! logs. No IO, no browser APIs and no UI framework: a crate of its own so the compiler, not
//! review, keeps it that way, and `cargo test -p kube-atlas-model` runs it natively.

pub mod age;
pub mod assets;
pub mod clock;
pub mod clusters;
pub mod diagnosis;
pub mod discovery;
pub mod edit;
pub mod errors;
pub mod events;
pub mod filter;
pub mod history;
pub mod list_view;
pub mod logs;
pub mod mapping;
pub mod meta;
pub mod object_view;
pub mod order;
pub mod overview;
pub mod owners;
pub mod pacing;
pub mod palette;
pub mod permissions;
pub mod pointer;
pub mod quick_access;
pub mod request;
pub mod retry;
pub mod route;
pub mod selector;
pub mod shortcuts;
pub mod synthetic;
pub mod table;
#[cfg(test)]
mod test_rng;
pub mod text;
pub mod tree;
pub mod tree_nav;
pub mod version;
pub mod watch;
pub mod yaml;

// The nouns nearly every layer names; everything else is reached through its module
// (`model::table::Table`, `model::watch::WatchKey`), so an import says where a name lives.
pub use tree::{ApiGroup, ApiResource, ApiTree, GroupVersion, ResourceId, Subresource};
