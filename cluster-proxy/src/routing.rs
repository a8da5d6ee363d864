//! Pure routing decisions: which of kube-atlas's kinds of path a request is for, what
//! path it goes on with upstream, and whether its Host and Origin are ones it answers.

use percent_encoding::percent_decode_str;

/// The prefix of everything proxied to a context's API server.
pub const CLUSTERS_PREFIX: &str = "/clusters";

/// The WebSocket that carries the page's long-running GETs (`crate::multiplex`).
pub const MULTIPLEX_PATH: &str = "/kube-atlas/multiplex";

/// kube-atlas's port-forwards: the list, one forward, and page sessions' leases
/// (`crate::forwards::http`).
pub const FORWARDS_PATH: &str = "/kube-atlas/forwards";

/// What a request path asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `GET /clusters`: every context with its connection state.
    ClusterList,
    /// `/clusters/{context}/{rest}`: `rest` (with the query) sent to the context's API server.
    Cluster {
        context: String,
        /// Starts with `/`; still percent-encoded as the client sent it.
        upstream: String,
    },
    /// `GET /kube-atlas/multiplex`: a WebSocket carrying many streams (`crate::multiplex`).
    Multiplex,
    /// `/kube-atlas/forwards{rest}`: port-forwards (`crate::forwards::http`); `rest` is empty
    /// or starts with `/`.
    Forwards { rest: String },
    /// `/kube-atlas/sign-in`: the sign-in page (GET) and form (POST), with sessions only.
    SignIn,
    /// `POST /kube-atlas/sign-out`.
    SignOut,
    /// `GET /kube-atlas/session`: who is signed in.
    Session,
    /// `GET /kube-atlas/oidc/start`: to the OIDC issuer (`crate::oidc`).
    OidcStart,
    /// `GET /kube-atlas/oidc/callback`: back from it.
    OidcCallback,
    /// Anything else: the dashboard's files.
    Static,
}

/// Reads a request's path (percent-encoded, as sent) and query into a [`Route`]. The context is
/// one path segment, percent-encoded by the page (names such as
/// `arn:aws:eks:eu-west-1:1:cluster/prod` hold slashes), so it is decoded here; the rest is
/// passed on as sent. `None` for a `/clusters/…` path that names no context or is not UTF-8.
pub fn route(path: &str, query: Option<&str>) -> Option<Route> {
    if path == CLUSTERS_PREFIX || path == "/clusters/" {
        return Some(Route::ClusterList);
    }
    match path {
        MULTIPLEX_PATH => return Some(Route::Multiplex),
        crate::sign_in::SIGN_IN_PATH => return Some(Route::SignIn),
        crate::sign_in::SIGN_OUT_PATH => return Some(Route::SignOut),
        crate::sign_in::SESSION_PATH => return Some(Route::Session),
        crate::oidc::START_PATH => return Some(Route::OidcStart),
        crate::oidc::CALLBACK_PATH => return Some(Route::OidcCallback),
        _ => {}
    }
    if let Some(rest) = path.strip_prefix(FORWARDS_PATH) {
        if rest.is_empty() || rest.starts_with('/') {
            return Some(Route::Forwards {
                rest: rest.to_string(),
            });
        }
    }
    let Some(after) = path.strip_prefix("/clusters/") else {
        return Some(Route::Static);
    };
    let (encoded_context, rest) = match after.find('/') {
        Some(slash) => (&after[..slash], &after[slash..]),
        None => (after, "/"),
    };
    let context = percent_decode_str(encoded_context).decode_utf8().ok()?;
    if context.is_empty() {
        return None;
    }
    let upstream = match query {
        Some(query) if !query.is_empty() => format!("{rest}?{query}"),
        _ => rest.to_string(),
    };
    Some(Route::Cluster {
        context: context.into_owned(),
        upstream,
    })
}

/// The id of the element of the served page that holds `GET /clusters`'s answer; the
/// dashboard reads it instead of asking (`src/state/clusters.rs`).
pub const CLUSTER_LIST_ELEMENT_ID: &str = "kube-atlas-clusters";

/// `index_html` with `clusters_json` (the `/clusters` answer) in a JSON script element before
/// `</head>`. A `<` in the JSON (a context named `</script>…`) is written `\u003c`, the same
/// string to a JSON parser, so the text cannot end the element.
pub fn with_cluster_list(index_html: &str, clusters_json: &str) -> String {
    with_json_element(index_html, CLUSTER_LIST_ELEMENT_ID, clusters_json)
}

/// The id of the element of the served page that holds `GET /kube-atlas/session`'s answer
/// (who is signed in), with sessions only; the page's header reads it (`src/state/session.rs`).
pub const SESSION_ELEMENT_ID: &str = "kube-atlas-session";

/// `index_html` with `json` in a JSON script element of id `id` before `</head>`, a `<` in it
/// written `\u003c` (see [`with_cluster_list`]).
pub fn with_json_element(index_html: &str, id: &str, json: &str) -> String {
    let element = format!(
        r#"<script type="application/json" id="{id}">{}</script>"#,
        json.replace('<', "\\u003c")
    );
    match index_html.find("</head>") {
        Some(at) => format!("{}{element}{}", &index_html[..at], &index_html[at..]),
        None => format!("{element}{index_html}"),
    }
}

/// The host names kube-atlas answers by default, as `kubectl proxy`'s `--accept-hosts`
/// default: a page on another name (DNS rebinding) cannot use the credentials it holds.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Why a request is refused before it reaches any cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The Host header names a host not accepted.
    ForeignHost(String),
    /// The request comes from a page of another origin (a browser sets `Origin`).
    ForeignOrigin(String),
    /// A request that could change something, or a WebSocket, without `Origin` (sessions only).
    NoOrigin,
}

impl Refusal {
    /// What the refused client reads.
    pub fn message(&self) -> String {
        match self {
            Refusal::ForeignHost(host) => format!(
                "kube-atlas does not answer for host {host:?}: only {} (and --accept-host names)",
                LOOPBACK_HOSTS.join(", ")
            ),
            Refusal::ForeignOrigin(origin) => format!(
                "kube-atlas refuses requests from pages of another origin ({origin}): \
                 they would act with your cluster credentials"
            ),
            Refusal::NoOrigin => "kube-atlas refuses a request that changes something, or a \
                 WebSocket, without an Origin header: it cannot tell it came from its own page"
                .to_string(),
        }
    }
}

/// The host part of a `Host` header value (`localhost:8001` → `localhost`, `[::1]:8001` →
/// `[::1]`).
fn host_name(authority: &str) -> &str {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => &authority[..=end],
            None => authority,
        };
    }
    authority.split(':').next().unwrap_or(authority)
}

/// Accepts a request whose `Host` names an accepted host and whose `Origin`, when a browser
/// sent one, is this server's own (`http://` or `https://` and the same host and port as
/// `Host`). A request without `Host` (HTTP/1.0) is refused: it cannot be checked.
pub fn check_host_and_origin(
    host: Option<&str>,
    origin: Option<&str>,
    accepted_hosts: &[String],
) -> Result<(), Refusal> {
    let host = host.unwrap_or_default();
    let name = host_name(host);
    let accepted = LOOPBACK_HOSTS.contains(&name)
        || accepted_hosts
            .iter()
            .any(|accepted| accepted.eq_ignore_ascii_case(name));
    if !accepted {
        return Err(Refusal::ForeignHost(host.to_string()));
    }
    if let Some(origin) = origin {
        let same_origin = ["http://", "https://"]
            .iter()
            .any(|scheme| origin.strip_prefix(scheme) == Some(host));
        if !same_origin {
            return Err(Refusal::ForeignOrigin(origin.to_string()));
        }
    }
    Ok(())
}

/// The check of a server with sessions: any Host (it sits behind an Ingress of any name, and a
/// page on another name, DNS rebinding included, holds no session cookie for this one), but an
/// Origin of this server's own on every request that could change something, and on every
/// WebSocket: a browser sends Origin with each of those, so one missing is refused too
/// (cross-site request forgery rides on the browser's cookie).
pub fn check_origin_for_session(
    host: Option<&str>,
    origin: Option<&str>,
    method: &http::Method,
    is_upgrade: bool,
) -> Result<(), Refusal> {
    let host = host.unwrap_or_default();
    if host.is_empty() {
        return Err(Refusal::ForeignHost(String::new()));
    }
    let safe = matches!(
        *method,
        http::Method::GET | http::Method::HEAD | http::Method::OPTIONS
    ) && !is_upgrade;
    match origin {
        Some(origin) => {
            let same_origin = ["http://", "https://"]
                .iter()
                .any(|scheme| origin.strip_prefix(scheme) == Some(host));
            if same_origin {
                Ok(())
            } else {
                Err(Refusal::ForeignOrigin(origin.to_string()))
            }
        }
        None if safe => Ok(()),
        None => Err(Refusal::NoOrigin),
    }
}

/// Request headers not passed on to an API server: hop-by-hop ones (RFC 9110 §7.6.1), the
/// page's own credentials and identity (the context's credentials are added upstream; a
/// cookie for kube-atlas's host means nothing to the cluster), and `Host`, which is the
/// upstream's. Upgrade headers are kept for WebSocket requests only, and so is `Origin`
/// (already checked to be kube-atlas's own): kube-apiserver's WebSocket handshake refuses a
/// request without one (403).
pub fn forwarded_request_header(name: &str, is_upgrade: bool) -> bool {
    let name = name.to_ascii_lowercase();
    if is_upgrade && (name == "connection" || name == "upgrade" || name == "origin") {
        return true;
    }
    !matches!(
        name.as_str(),
        "host"
            | "connection"
            | "keep-alive"
            | "proxy-connection"
            | "proxy-authorization"
            | "te"
            | "trailer"
            | "transfer-encoding"
            | "upgrade"
            | "authorization"
            | "cookie"
            | "origin"
            | "referer"
    )
}

/// Response headers passed back to the page: all but hop-by-hop ones (kept on a 101
/// Switching Protocols, which needs them) and cookies an API server might set.
pub fn forwarded_response_header(name: &str, is_switching_protocols: bool) -> bool {
    let name = name.to_ascii_lowercase();
    if is_switching_protocols && (name == "connection" || name == "upgrade") {
        return true;
    }
    !matches!(
        name.as_str(),
        "connection"
            | "keep-alive"
            | "proxy-connection"
            | "te"
            | "trailer"
            | "transfer-encoding"
            | "upgrade"
            | "set-cookie"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(context: &str, upstream: &str) -> Option<Route> {
        Some(Route::Cluster {
            context: context.into(),
            upstream: upstream.into(),
        })
    }

    #[test]
    fn the_page_carries_the_cluster_list_and_a_name_cannot_end_its_element() {
        let json = r#"{"clusters":[{"name":"</script><b>x"}]}"#;
        let page = with_cluster_list(
            "<html><head><title>t</title></head><body></body></html>",
            json,
        );
        assert_eq!(page.matches("</script>").count(), 1, "{page}");
        let start = page.find(r#"id="kube-atlas-clusters">"#).expect("element") + 25;
        let end = page.find("</script>").expect("end");
        let parsed: serde_json::Value = serde_json::from_str(&page[start..end]).expect("JSON");
        assert_eq!(parsed["clusters"][0]["name"], "</script><b>x");
        assert!(
            page.ends_with("</script></head><body></body></html>"),
            "{page}"
        );
    }

    #[test]
    fn paths_route_to_the_list_a_cluster_or_the_files() {
        assert_eq!(route("/clusters", None), Some(Route::ClusterList));
        assert_eq!(route("/clusters/", None), Some(Route::ClusterList));
        assert_eq!(route("/", None), Some(Route::Static));
        assert_eq!(route("/index.html", None), Some(Route::Static));
        assert_eq!(route("/clustersx", None), Some(Route::Static));
        assert_eq!(route("/kube-atlas/multiplex", None), Some(Route::Multiplex));
        assert_eq!(
            route("/kube-atlas/multiplex", Some("x=1")),
            Some(Route::Multiplex)
        );
        assert_eq!(route("/kube-atlas/multiplex/", None), Some(Route::Static));
        assert_eq!(route("/kube-atlas", None), Some(Route::Static));
        assert_eq!(route("/kube-atlas/sign-in", None), Some(Route::SignIn));
        assert_eq!(route("/kube-atlas/sign-out", None), Some(Route::SignOut));
        assert_eq!(route("/kube-atlas/session", None), Some(Route::Session));
        assert_eq!(
            route("/kube-atlas/oidc/start", None),
            Some(Route::OidcStart)
        );
        assert_eq!(
            route("/kube-atlas/oidc/callback", Some("code=c&state=s")),
            Some(Route::OidcCallback)
        );
        let forwards = |rest: &str| {
            Some(Route::Forwards {
                rest: rest.to_string(),
            })
        };
        assert_eq!(route("/kube-atlas/forwards", None), forwards(""));
        assert_eq!(route("/kube-atlas/forwards/3", None), forwards("/3"));
        assert_eq!(route("/kube-atlas/forwardsx", None), Some(Route::Static));
        assert_eq!(
            route("/clusters/dev/kube-atlas/multiplex", None),
            cluster("dev", "/kube-atlas/multiplex")
        );
        assert_eq!(
            route(
                "/clusters/dev/api/v1/pods",
                Some("watch=1&resourceVersion=5")
            ),
            cluster("dev", "/api/v1/pods?watch=1&resourceVersion=5")
        );
        assert_eq!(route("/clusters/dev", None), cluster("dev", "/"));
        assert_eq!(
            route("/clusters/dev/version", Some("")),
            cluster("dev", "/version")
        );
    }

    #[test]
    fn a_context_name_with_slashes_and_colons_arrives_encoded_and_is_decoded() {
        assert_eq!(
            route(
                "/clusters/arn%3Aaws%3Aeks%3Aeu-west-1%3A1%3Acluster%2Fprod/apis/apps/v1",
                None
            ),
            cluster("arn:aws:eks:eu-west-1:1:cluster/prod", "/apis/apps/v1")
        );
        // The rest stays encoded: an object name is the API server's to decode.
        assert_eq!(
            route(
                "/clusters/kind-a/api/v1/namespaces/x/configmaps/a%20b",
                None
            ),
            cluster("kind-a", "/api/v1/namespaces/x/configmaps/a%20b")
        );
    }

    #[test]
    fn a_cluster_path_without_a_context_or_with_a_broken_name_is_no_route() {
        assert_eq!(route("/clusters//api", None), None);
        assert_eq!(route("/clusters/%FF/api", None), None);
    }

    #[test]
    fn loopback_hosts_are_accepted_others_only_when_named() {
        let none: Vec<String> = Vec::new();
        for host in [
            "localhost:8001",
            "127.0.0.1:8001",
            "[::1]:8001",
            "localhost",
        ] {
            assert_eq!(
                check_host_and_origin(Some(host), None, &none),
                Ok(()),
                "{host}"
            );
        }
        assert_eq!(
            check_host_and_origin(Some("evil.example:8001"), None, &none),
            Err(Refusal::ForeignHost("evil.example:8001".into()))
        );
        // DNS rebinding: a name that merely starts like a loopback one.
        assert!(check_host_and_origin(Some("localhost.evil.example:8001"), None, &none).is_err());
        assert_eq!(
            check_host_and_origin(None, None, &none),
            Err(Refusal::ForeignHost(String::new()))
        );
        let named = vec!["atlas.internal".to_string()];
        assert_eq!(
            check_host_and_origin(Some("atlas.internal:8001"), None, &named),
            Ok(())
        );
    }

    #[test]
    fn only_the_servers_own_origin_is_accepted() {
        let none: Vec<String> = Vec::new();
        let host = Some("127.0.0.1:8001");
        assert_eq!(
            check_host_and_origin(host, Some("http://127.0.0.1:8001"), &none),
            Ok(())
        );
        for origin in [
            "http://evil.example",
            "http://127.0.0.1:9999",
            "http://localhost:8001",
            "null",
        ] {
            assert_eq!(
                check_host_and_origin(host, Some(origin), &none),
                Err(Refusal::ForeignOrigin(origin.into())),
                "{origin}"
            );
        }
        assert!(Refusal::ForeignOrigin("http://evil.example".into())
            .message()
            .contains("http://evil.example"));
    }

    #[test]
    fn with_sessions_any_host_but_only_the_own_origin_may_change_things() {
        let host = Some("atlas.example.com");
        let own = Some("https://atlas.example.com");
        let post = http::Method::POST;
        let get = http::Method::GET;
        assert_eq!(check_origin_for_session(host, own, &post, false), Ok(()));
        assert_eq!(check_origin_for_session(host, None, &get, false), Ok(()));
        assert_eq!(
            check_origin_for_session(host, None, &post, false),
            Err(Refusal::NoOrigin)
        );
        assert_eq!(
            check_origin_for_session(host, None, &get, true),
            Err(Refusal::NoOrigin),
            "a WebSocket without Origin"
        );
        assert_eq!(
            check_origin_for_session(host, Some("https://evil.example"), &get, false),
            Err(Refusal::ForeignOrigin("https://evil.example".into()))
        );
        assert!(check_origin_for_session(None, own, &post, false).is_err());
    }

    #[test]
    fn the_pages_credentials_and_hop_by_hop_headers_stay_behind() {
        for dropped in [
            "Authorization",
            "Cookie",
            "Host",
            "Connection",
            "Origin",
            "te",
        ] {
            assert!(!forwarded_request_header(dropped, false), "{dropped}");
        }
        for kept in [
            "Accept",
            "Content-Type",
            "Impersonate-User",
            "Sec-WebSocket-Key",
        ] {
            assert!(forwarded_request_header(kept, false), "{kept}");
        }
        assert!(forwarded_request_header("Upgrade", true));
        assert!(forwarded_request_header("Origin", true));
        assert!(!forwarded_request_header("Upgrade", false));
        assert!(!forwarded_response_header("Set-Cookie", false));
        assert!(!forwarded_response_header("Transfer-Encoding", false));
        assert!(forwarded_response_header("Content-Type", false));
        assert!(forwarded_response_header("Upgrade", true));
    }
}
