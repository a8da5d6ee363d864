//! The API server as the dashboard sees it: what it serves (discovery documents read into one
//! [`tree::ApiTree`], version priority), how to ask it (names resolved to resources, paths,
//! methods and copyable commands in [`endpoints`]; one request as data; which failures are
//! retried), what its errors mean to a user, the clusters behind kube-atlas, and how the
//! servers that serve the dashboard let browsers cache its files.

pub mod asset_caching;
pub mod clusters;
pub mod discovery;
pub mod endpoints;
pub mod errors;
pub mod forwards;
pub mod request;
pub mod retry;
pub mod tree;
pub mod version;
