//! Signals shared by the views, provided through Leptos context.

pub mod request_log;
