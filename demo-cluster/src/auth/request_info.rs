//! What an authorizer is asked about a request, derived from its method, path and query
//! alone, as kube-apiserver's `RequestInfoFactory` does (before it knows whether the
//! resource exists): `/api/v1/...` and `/apis/{group}/{version}/...` with at least a resource
//! are resource requests, everything else (discovery, `/version`, `/healthz`, `/openapi/...`)
//! a non-resource request on its path.

use std::collections::HashMap;

/// kube-apiserver's `authorizer.Attributes`, minus the user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attributes {
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`
    /// (and `proxy`); for a non-resource request the method in lower case.
    pub verb: String,
    /// The request's path, for non-resource requests.
    pub path: String,
    pub resource_request: bool,
    pub group: String,
    pub version: String,
    pub resource: String,
    pub subresource: String,
    /// `""` at the cluster scope.
    pub namespace: String,
    pub name: String,
}

/// Verbs given as the first path segment after the version (`/api/v1/watch/pods`).
const SPECIAL_VERBS: [&str; 2] = ["proxy", "watch"];
/// Segments after `namespaces/{name}` that are the Namespace's own subresources.
const NAMESPACE_SUBRESOURCES: [&str; 2] = ["status", "finalize"];

impl Attributes {
    /// The attributes of `method path?query`; `path` as the client sent it (a trailing slash
    /// kept: non-resource rules match paths exactly).
    pub fn of_request(method: &str, path: &str, query: Option<&str>) -> Attributes {
        let non_resource = Attributes {
            verb: method.to_ascii_lowercase(),
            path: path.to_string(),
            ..Attributes::default()
        };
        let trimmed = path.trim_matches('/');
        let mut parts: Vec<&str> = if trimmed.is_empty() {
            vec![]
        } else {
            trimmed.split('/').collect()
        };
        if parts.len() < 3 || !matches!(parts[0], "api" | "apis") {
            return non_resource;
        }
        let groupless = parts[0] == "api";
        parts.remove(0);
        let mut attributes = Attributes {
            resource_request: true,
            path: path.to_string(),
            ..Attributes::default()
        };
        if !groupless {
            if parts.len() < 3 {
                return non_resource;
            }
            attributes.group = parts.remove(0).to_string();
        }
        attributes.version = parts.remove(0).to_string();
        if SPECIAL_VERBS.contains(&parts[0]) {
            if parts.len() < 2 {
                // kube-apiserver fails such a request before authorizing it; as a resource
                // request with no resource it is authorized on its verb alone.
                attributes.verb = parts[0].to_string();
                return attributes;
            }
            attributes.verb = parts.remove(0).to_string();
        } else {
            attributes.verb = match method {
                "POST" => "create",
                "GET" | "HEAD" => "get",
                "PUT" => "update",
                "PATCH" => "patch",
                "DELETE" => "delete",
                _ => "",
            }
            .to_string();
        }
        if parts[0] == "namespaces" && parts.len() > 1 {
            attributes.namespace = parts[1].to_string();
            if parts.len() > 2 && !NAMESPACE_SUBRESOURCES.contains(&parts[2]) {
                parts.drain(..2);
            }
        }
        if parts.len() >= 3 && attributes.verb != "proxy" {
            attributes.subresource = parts[2].to_string();
        }
        if parts.len() >= 2 {
            attributes.name = parts[1].to_string();
        }
        attributes.resource = parts[0].to_string();
        if attributes.name.is_empty() && attributes.verb == "get" {
            let query = query_values(query.unwrap_or(""));
            attributes.verb = if watch_requested(&query) {
                "watch"
            } else {
                "list"
            }
            .to_string();
            if let Some(name) = query
                .get("fieldSelector")
                .and_then(|selector| exact_name(selector))
                .filter(|name| valid_path_segment(name))
            {
                attributes.name = name;
            }
        }
        if attributes.name.is_empty() && attributes.verb == "delete" {
            attributes.verb = "deletecollection".into();
        }
        attributes
    }
}

/// The first value of each query parameter, percent-decoded.
fn query_values(query: &str) -> HashMap<String, String> {
    let mut values = HashMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        values
            .entry(percent_decode(key))
            .or_insert_with(|| percent_decode(value));
    }
    values
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(high), Some(low)) => {
                    out.push((high * 16 + low) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `watch` as kube-apiserver's query decoding reads a bool: present and not `0` or `false`.
fn watch_requested(query: &HashMap<String, String>) -> bool {
    query
        .get("watch")
        .is_some_and(|v| v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// The name a field selector requires exactly (`metadata.name=x` or `metadata.name==x` among
/// its terms), which kube-apiserver authorizes a list or watch on as that object's name.
fn exact_name(selector: &str) -> Option<String> {
    selector.split(',').find_map(|term| {
        let term = term.trim();
        let value = term.strip_prefix("metadata.name")?.trim_start();
        let value = value
            .strip_prefix("==")
            .or_else(|| value.strip_prefix('='))?;
        Some(value.trim().to_string())
    })
}

/// `path.IsValidPathSegmentName`: not `.` or `..`, no `/` or `%`.
fn valid_path_segment(name: &str) -> bool {
    !matches!(name, "." | "..") && !name.contains('/') && !name.contains('%')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(method: &str, target: &str) -> Attributes {
        let (path, query) = match target.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (target, None),
        };
        Attributes::of_request(method, path, query)
    }

    /// (method, target, [verb, group, resource, subresource, namespace, name]).
    const RESOURCE_REQUESTS: &[(&str, &str, [&str; 6])] = &[
        ("GET", "/api/v1/pods", ["list", "", "pods", "", "", ""]),
        (
            "GET",
            "/api/v1/namespaces/default/pods?watch=true",
            ["watch", "", "pods", "", "default", ""],
        ),
        (
            "GET",
            "/api/v1/pods?watch=",
            ["watch", "", "pods", "", "", ""],
        ),
        (
            "GET",
            "/api/v1/pods?watch=false",
            ["list", "", "pods", "", "", ""],
        ),
        (
            "GET",
            "/api/v1/watch/namespaces/kube-system/pods",
            ["watch", "", "pods", "", "kube-system", ""],
        ),
        (
            "GET",
            "/apis/apps/v1/namespaces/default/deployments/web",
            ["get", "apps", "deployments", "", "default", "web"],
        ),
        (
            "GET",
            "/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3D%3Dabc,x%3Dy",
            ["list", "", "secrets", "", "default", "abc"],
        ),
        (
            "POST",
            "/api/v1/namespaces/default/pods",
            ["create", "", "pods", "", "default", ""],
        ),
        (
            "PATCH",
            "/apis/apps/v1/namespaces/default/deployments/web/scale",
            ["patch", "apps", "deployments", "scale", "default", "web"],
        ),
        (
            "GET",
            "/api/v1/namespaces/default/pods/web-1/log",
            ["get", "", "pods", "log", "default", "web-1"],
        ),
        (
            "DELETE",
            "/api/v1/namespaces/default/pods",
            ["deletecollection", "", "pods", "", "default", ""],
        ),
        (
            "GET",
            "/api/v1/namespaces/default/pods/web-1/proxy/metrics",
            ["get", "", "pods", "proxy", "default", "web-1"],
        ),
        // A Namespace is in its own namespace.
        (
            "GET",
            "/api/v1/namespaces/default",
            ["get", "", "namespaces", "", "default", "default"],
        ),
        (
            "PUT",
            "/api/v1/namespaces/demo/finalize",
            ["update", "", "namespaces", "finalize", "demo", "demo"],
        ),
        (
            "GET",
            "/api/v1/namespaces",
            ["list", "", "namespaces", "", "", ""],
        ),
    ];

    #[test]
    fn resource_requests_as_kube_apiserver_reads_them() {
        for (method, target, expected) in RESOURCE_REQUESTS {
            let a = of(method, target);
            assert!(a.resource_request, "{method} {target}");
            let seen = [
                a.verb.as_str(),
                &a.group,
                &a.resource,
                &a.subresource,
                &a.namespace,
                &a.name,
            ];
            assert_eq!(&seen, expected, "{method} {target}");
        }
    }

    #[test]
    fn everything_else_is_a_path() {
        for path in [
            "/api",
            "/api/v1",
            "/apis",
            "/apis/apps/v1",
            "/version",
            "/healthz/",
            "/",
        ] {
            let a = of("GET", path);
            assert!(!a.resource_request, "{path}");
            assert_eq!((a.verb.as_str(), a.path.as_str()), ("get", path));
        }
        assert_eq!(of("POST", "/healthz").verb, "post");
    }
}
