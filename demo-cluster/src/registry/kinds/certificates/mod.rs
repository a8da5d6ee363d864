//! certificates.k8s.io: certificate requests and trust bundles.

pub(crate) mod certificatesigningrequests;
pub(crate) mod clustertrustbundles;
pub(crate) mod podcertificaterequests;
