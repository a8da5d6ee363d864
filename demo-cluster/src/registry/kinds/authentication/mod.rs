//! authentication.k8s.io: the create-only reviews of who a request or a token is.

pub(crate) mod selfsubjectreviews;
pub(crate) mod tokenreviews;
