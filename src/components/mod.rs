//! Reusable view widgets. They take plain model data and stay free of transport.

pub mod explorer;
pub mod palette;
pub mod quick_access;
pub mod request_log;
pub mod tree;
pub mod virtual_table;

pub use explorer::{Copyable, ResourceExplorer};
pub use palette::Palette;
pub use quick_access::QuickAccess;
pub use request_log::RequestLogPanel;
pub use tree::ApiTreeView;
pub use virtual_table::{DisplayCell, DisplayRow, HeaderCell, VirtualTable};
