//! Kube Atlas's pure model: discovery parsing, the unified API tree, REST mapping, filtering,
//! Browse (tables, selectors, routes, owners, object pages), the watch layer (decoding, the
//! watcher's state machine, the object store), editing, history (timelines, diffs, blame) and
//! logs. No IO, no browser APIs and no UI framework: a crate of its own so the compiler, not
//! review, keeps it that way, and `cargo test -p kube-atlas-model` runs it natively.
//!
//! By domain (docs/architecture.md, "The model's domains"):
//! - [`api`]: the API server as served and asked: discovery, the API tree, versions,
//!   endpoints (names resolved to paths, methods, commands), requests, errors, retries,
//!   clusters;
//! - [`list`]: lists: the server's Tables (decoded, stored, formatted, sorted, filtered), what
//!   a list draws, selectors, the one shared sort;
//! - [`object`]: one object and what is shown of it: metadata, owners, its page, YAML, JSON
//!   pointers, cluster text made visible, Event objects, pod logs, a terminal in a pod;
//! - [`edit`]: changing objects; [`history`]: what objects were; [`watch`]: keeping lists and
//!   objects live; [`diagnosis`]: why something is unhealthy; [`overview`]: the cluster
//!   overview; [`permissions`]: what the user may do; [`metrics`]: CPU and memory in use,
//!   from the metrics API (discovery, decoding, usage against requests and limits, polling,
//!   samples, charts);
//! - [`map`]: how a namespace's objects connect: the graph of references with their
//!   evidence, scopes, counted groups, a layered layout and the same in words;
//! - [`navigation`]: where the user is and how they move: routes, shortcuts, the palette,
//!   quick access, the sidebar tree and its search;
//! - [`time`]: the two clocks, Kubernetes timestamps and ages, pacing by cost.

pub mod api;
pub mod diagnosis;
pub mod edit;
pub mod history;
pub mod list;
pub mod map;
pub mod metrics;
pub mod navigation;
pub mod object;
pub mod overview;
pub mod permissions;
#[cfg(test)]
mod test_rng;
pub mod time;
pub mod watch;

// The nouns nearly every layer names; everything else is reached through its module
// (`model::list::table::Table`, `model::watch::WatchKey`), so an import says where a name
// lives.
pub use api::tree::{ApiGroup, ApiResource, ApiTree, GroupVersion, ResourceId, Subresource};
