//! Signals shared by the views, provided through Leptos context, and the loaders that fill
//! them through `api`.

pub mod activity;
pub mod bulk;
pub mod clock;
pub mod clusters;
pub mod day_two;
pub mod debug_container;
pub mod discovery;
pub mod drain;
pub mod edit;
pub mod edit_session;
pub mod events;
pub mod forwards;
pub mod list;
pub mod logs;
pub mod map;
pub mod metrics;
pub mod namespaces;
pub mod navigation;
pub mod object;
pub mod object_usage;
pub mod overview;
pub mod pacing;
pub mod permissions;
pub mod request_log;
pub mod rollback;
pub mod row_selection;
pub mod session;
pub mod shell;
pub mod shortcuts;
pub mod terminal;
pub mod usage_columns;
pub mod verdicts;
pub mod watch;
pub mod workload_logs;
