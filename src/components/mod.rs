//! Reusable view widgets. They take plain model data and stay free of transport.

pub mod charts;
pub mod cheat_sheet;
pub mod cluster_switcher;
pub mod code_editor;
pub mod diagnosis;
pub mod event_timeline;
pub mod explorer;
pub mod history;
pub mod merged_list;
pub mod object_actions;
pub mod object_editor;
pub mod palette;
pub mod permissions;
pub mod pod_logs;
pub mod quick_access;
pub mod request_log;
pub mod rollout;
pub mod stream_status;
pub mod tree;
pub mod virtual_table;

pub use cheat_sheet::CheatSheet;
pub use cluster_switcher::ClusterSwitcher;
pub use diagnosis::{DiagnosisPanel, HealthBadge};
pub use event_timeline::EventTimeline;
pub use explorer::{Copyable, ResourceExplorer};
pub use history::{ActivityView, BlameView, RecordControl, TimelineView};
pub use merged_list::MergedList;
pub use palette::Palette;
pub use permissions::{use_denial, DenialReason, ForbiddenNotice};
pub use pod_logs::PodLogs;
pub use quick_access::QuickAccess;
pub use request_log::RequestLogPanel;
pub use rollout::RolloutView;
pub use stream_status::StreamStatusLine;
pub use tree::ApiTreeView;
pub use virtual_table::{DisplayCell, DisplayRow, HeaderCell, VirtualTable};
