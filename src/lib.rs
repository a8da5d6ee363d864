//! Kube Atlas: a browser dashboard for the Kubernetes API.
//!
//! `model` is pure logic (no Leptos, no web-sys) and is tested natively with `cargo test`;
//! `api` is the only module that talks to the network; `state` connects the two to the views
//! in `components` and `app`.

pub use kube_atlas_model as model;

pub mod api;
pub mod app;
pub mod browser;
pub mod components;
pub mod pages;
mod split;
pub mod state;

pub use app::App;
