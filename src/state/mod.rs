//! Signals shared by the views, provided through Leptos context.

pub mod discovery;
pub mod request_log;
