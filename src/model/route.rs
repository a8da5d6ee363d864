//! The app's location, kept in the URL fragment (`#/r/apps/v1/deployments?ns=default`).
//!
//! A fragment route works on reload and under any sub-path (`kubectl proxy --www-prefix=/ui/`)
//! without server-side fallbacks, which `kubectl proxy --www` does not have.

use super::tree::ResourceId;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Route {
    pub resource: Option<ResourceId>,
    /// Global namespace selection; None means all namespaces.
    pub namespace: Option<String>,
}

/// Namespace names are DNS labels; anything else in a URL is ignored rather than trusted.
fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

impl Route {
    /// Parses `location.hash` (with or without the leading `#`). Unknown shapes give the
    /// home route, never an error: a mistyped link should still open the app.
    pub fn parse(hash: &str) -> Route {
        let hash = hash.trim_start_matches('#');
        let (path, query) = hash.split_once('?').unwrap_or((hash, ""));
        let mut route = Route::default();
        if let Some(key) = path.strip_prefix("/r/") {
            route.resource = ResourceId::parse(key);
        }
        for pair in query.split('&') {
            if let Some(ns) = pair.strip_prefix("ns=") {
                if is_dns_label(ns) {
                    route.namespace = Some(ns.to_string());
                }
            }
        }
        route
    }

    /// The fragment for this route, including `#`.
    pub fn to_hash(&self) -> String {
        let mut out = String::from("#/");
        if let Some(id) = &self.resource {
            out.push_str("r/");
            out.push_str(&id.key());
        }
        if let Some(ns) = &self.namespace {
            out.push_str("?ns=");
            out.push_str(ns);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_resource_and_namespace() {
        let route = Route {
            resource: Some(ResourceId::new("apps", "v1", "deployments")),
            namespace: Some("kube-system".into()),
        };
        assert_eq!(route.to_hash(), "#/r/apps/v1/deployments?ns=kube-system");
        assert_eq!(Route::parse(&route.to_hash()), route);
    }

    #[test]
    fn core_group_is_spelled_core() {
        let route = Route::parse("#/r/core/v1/pods");
        assert_eq!(route.resource, Some(ResourceId::new("", "v1", "pods")));
        assert_eq!(route.to_hash(), "#/r/core/v1/pods");
    }

    #[test]
    fn garbage_gives_home_and_bad_namespaces_are_dropped() {
        assert_eq!(Route::parse(""), Route::default());
        assert_eq!(Route::parse("#/nonsense/x"), Route::default());
        assert_eq!(Route::parse("#/r/apps/v1"), Route::default());
        assert_eq!(Route::parse("#/?ns=<script>").namespace, None);
        assert_eq!(Route::default().to_hash(), "#/");
    }
}
