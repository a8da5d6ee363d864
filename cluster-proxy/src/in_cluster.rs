//! In-cluster mode: kube-atlas running in a pod reaches its own cluster's API server at
//! `KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT`, checked against the mounted CA, as
//! client-go's `rest.InClusterConfig` does, but WITHOUT the pod's ServiceAccount token: every
//! user's request carries that user's own token (`crate::session`), and the dashboard's own
//! identity is never lent to anyone. The token file is only looked at to tell that kube-atlas
//! runs in a pod, except with `--impersonate` (`crate::oidc::impersonation`), where it is the
//! credential that acts for the signed-in users.

use std::path::{Path, PathBuf};

use kube::config::Kubeconfig;

/// Where a pod's ServiceAccount token and CA are mounted.
pub const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// The one context kube-atlas serves in a pod; the page's paths are `/clusters/in-cluster/…`.
pub const CONTEXT_NAME: &str = "in-cluster";

/// The default token file (its presence means "in a pod").
pub fn default_token_file() -> PathBuf {
    Path::new(SERVICE_ACCOUNT_DIR).join("token")
}

/// The default CA file of the API server's certificate.
pub fn default_ca_file() -> PathBuf {
    Path::new(SERVICE_ACCOUNT_DIR).join("ca.crt")
}

/// Where the API server is and how its certificate is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InCluster {
    /// `https://HOST:PORT`.
    pub server: String,
    pub ca_file: PathBuf,
}

impl InCluster {
    /// From the pod's environment (`KUBERNETES_SERVICE_HOST`, `KUBERNETES_SERVICE_PORT`) and
    /// the CA file, which must exist.
    pub fn from_env(ca_file: PathBuf) -> Result<InCluster, String> {
        let host = std::env::var("KUBERNETES_SERVICE_HOST").unwrap_or_default();
        let port = std::env::var("KUBERNETES_SERVICE_PORT").unwrap_or_default();
        InCluster::new(&host, &port, ca_file)
    }

    pub fn new(host: &str, port: &str, ca_file: PathBuf) -> Result<InCluster, String> {
        if host.is_empty() || port.is_empty() {
            return Err(
                "in-cluster mode needs KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT \
                 (set in every pod)"
                    .to_string(),
            );
        }
        if port.parse::<u16>().is_err() {
            return Err(format!("KUBERNETES_SERVICE_PORT {port:?} is not a port"));
        }
        if !ca_file.is_file() {
            return Err(format!(
                "in-cluster mode needs the API server's CA in {} (--ca-file)",
                ca_file.display()
            ));
        }
        // An IPv6 address goes in brackets, as client-go's net.JoinHostPort writes it.
        let host = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]")
        } else {
            host.to_string()
        };
        Ok(InCluster {
            server: format!("https://{host}:{port}"),
            ca_file,
        })
    }

    /// A kubeconfig of one context, [`CONTEXT_NAME`], with no credentials at all: what
    /// reaches the API server is the user's token, added per request.
    pub fn kubeconfig(&self) -> Result<Kubeconfig, String> {
        // JSON strings are YAML strings: a path or URL with odd characters stays one value.
        let quoted = |text: &str| serde_json::Value::String(text.to_string()).to_string();
        let yaml = format!(
            "apiVersion: v1\nkind: Config\n\
             clusters:\n- name: {CONTEXT_NAME}\n  cluster:\n    server: {}\n    certificate-authority: {}\n\
             users:\n- name: each-user-their-own\n  user: {{}}\n\
             contexts:\n- name: {CONTEXT_NAME}\n  context:\n    cluster: {CONTEXT_NAME}\n    user: each-user-their-own\n\
             current-context: {CONTEXT_NAME}\n",
            quoted(&self.server),
            quoted(&self.ca_file.display().to_string()),
        );
        Kubeconfig::from_yaml(&yaml).map_err(|error| format!("in-cluster configuration: {error}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_comes_from_the_pods_environment_and_carries_no_credentials() {
        let ca = std::env::temp_dir().join(format!("in-cluster-ca-{}", std::process::id()));
        std::fs::write(&ca, "not checked here").expect("CA file");
        let plane = InCluster::new("10.96.0.1", "443", ca.clone()).expect("in cluster");
        assert_eq!(plane.server, "https://10.96.0.1:443");
        let v6 = InCluster::new("fd00::1", "443", ca.clone()).expect("in cluster");
        assert_eq!(v6.server, "https://[fd00::1]:443");
        let config = plane.kubeconfig().expect("kubeconfig");
        let user = &config.auth_infos[0].auth_info;
        let user = user.as_ref().expect("an empty user");
        assert!(user.token.is_none() && user.token_file.is_none());
        assert!(InCluster::new("", "443", ca.clone()).is_err());
        assert!(InCluster::new("10.96.0.1", "https", ca.clone()).is_err());
        assert!(InCluster::new("10.96.0.1", "443", ca.with_extension("missing")).is_err());
        let _ = std::fs::remove_file(ca);
    }
}
