//! One API request as data: verb, path, query options, headers and body. Built and checked
//! here (pure, natively tested); `api` only sends it. The request log and "copy as curl" read
//! the same value, so what is shown is what was sent.

/// The HTTP verb, with the patch type where it matters (it decides the Content-Type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Get,
    Post,
    Put,
    Patch(PatchType),
    Delete,
}

impl Verb {
    pub fn method(self) -> &'static str {
        match self {
            Verb::Get => "GET",
            Verb::Post => "POST",
            Verb::Put => "PUT",
            Verb::Patch(_) => "PATCH",
            Verb::Delete => "DELETE",
        }
    }
}

/// The four patch types kube-apiserver accepts, told apart by Content-Type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// RFC 6902 JSON Patch: a list of operations.
    Json,
    /// RFC 7386 JSON Merge Patch: lists are replaced whole.
    Merge,
    /// Strategic merge patch: lists merged by their merge key (built-in kinds only).
    StrategicMerge,
    /// Server-side apply: the full intent of one field manager.
    Apply,
}

impl PatchType {
    pub fn content_type(self) -> &'static str {
        match self {
            PatchType::Json => "application/json-patch+json",
            PatchType::Merge => "application/merge-patch+json",
            PatchType::StrategicMerge => "application/strategic-merge-patch+json",
            PatchType::Apply => "application/apply-patch+yaml",
        }
    }
}

/// `propagationPolicy` of a delete: what happens to the objects this one owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropagationPolicy {
    Foreground,
    Background,
    Orphan,
}

impl PropagationPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            PropagationPolicy::Foreground => "Foreground",
            PropagationPolicy::Background => "Background",
            PropagationPolicy::Orphan => "Orphan",
        }
    }
}

/// `fieldValidation`: what the server does with unknown or duplicate fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValidation {
    Ignore,
    Warn,
    Strict,
}

impl FieldValidation {
    pub fn as_str(self) -> &'static str {
        match self {
            FieldValidation::Ignore => "Ignore",
            FieldValidation::Warn => "Warn",
            FieldValidation::Strict => "Strict",
        }
    }
}

/// Query options of writes, as kubectl sets them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// `dryRun=All`: validated and defaulted, never stored.
    pub dry_run: bool,
    pub field_manager: Option<String>,
    /// Server-side apply only: take ownership of conflicting fields.
    pub force: bool,
    pub field_validation: Option<FieldValidation>,
    pub propagation_policy: Option<PropagationPolicy>,
    pub grace_period_seconds: Option<u32>,
}

pub const JSON: &str = "application/json";
/// The server's Table rendering (kubectl's columns), with plain JSON as the fallback a server
/// without Table support answers with.
pub const TABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io, application/json";

/// A request to a same-origin API path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiRequest {
    pub verb: Verb,
    /// Absolute path without query (`/api/v1/namespaces/default/pods`).
    pub path: String,
    /// Query parameters in order, not yet encoded.
    pub query: Vec<(String, String)>,
    pub accept: String,
    /// Extra headers (e.g. `If-None-Match`).
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    /// The kube-atlas context it goes to when not the page's own (a list merged across
    /// clusters); `None`: the page's cluster, or the only one.
    pub cluster: Option<String>,
}

impl ApiRequest {
    fn new(verb: Verb, path: &str, body: Option<String>) -> ApiRequest {
        // A caller may pass a path with a query already (e.g. from a continue token plan).
        let (path, query) = match path.split_once('?') {
            Some((path, query)) => (path, parse_query(query)),
            None => (path, Vec::new()),
        };
        ApiRequest {
            verb,
            path: path.to_string(),
            query,
            accept: JSON.to_string(),
            headers: Vec::new(),
            body,
            cluster: None,
        }
    }

    /// The same request, to kube-atlas's context `cluster`.
    pub fn on_cluster(mut self, cluster: Option<String>) -> ApiRequest {
        self.cluster = cluster;
        self
    }

    pub fn get(path: &str) -> ApiRequest {
        Self::new(Verb::Get, path, None)
    }

    /// POST to a collection.
    pub fn create(path: &str, body: String) -> ApiRequest {
        Self::new(Verb::Post, path, Some(body))
    }

    /// PUT of a whole object (its metadata.resourceVersion is the concurrency precondition).
    pub fn replace(path: &str, body: String) -> ApiRequest {
        Self::new(Verb::Put, path, Some(body))
    }

    pub fn patch(path: &str, patch_type: PatchType, body: String) -> ApiRequest {
        Self::new(Verb::Patch(patch_type), path, Some(body))
    }

    pub fn delete(path: &str) -> ApiRequest {
        Self::new(Verb::Delete, path, None)
    }

    pub fn accept(mut self, accept: &str) -> ApiRequest {
        self.accept = accept.to_string();
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> ApiRequest {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Adds a query parameter; an empty value leaves it out (an empty selector is no selector).
    pub fn query(mut self, name: &str, value: &str) -> ApiRequest {
        if !value.is_empty() {
            self.query.push((name.to_string(), value.to_string()));
        }
        self
    }

    /// Sets query parameter `name` to `value`, in place of any value it had.
    pub fn with_query(mut self, name: &str, value: &str) -> ApiRequest {
        self.query.retain(|(key, _)| key != name);
        self.query(name, value)
    }

    /// The value of query parameter `name` (the first, if repeated), as given.
    pub fn query_value(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    pub fn with_options(mut self, options: &WriteOptions) -> ApiRequest {
        if options.dry_run {
            self = self.query("dryRun", "All");
        }
        if let Some(manager) = &options.field_manager {
            self = self.query("fieldManager", manager);
        }
        // `force` is only valid on apply patches; the server rejects it elsewhere.
        if options.force && self.verb == Verb::Patch(PatchType::Apply) {
            self = self.query("force", "true");
        }
        if let Some(validation) = options.field_validation {
            self = self.query("fieldValidation", validation.as_str());
        }
        if let Some(policy) = options.propagation_policy {
            self = self.query("propagationPolicy", policy.as_str());
        }
        if let Some(seconds) = options.grace_period_seconds {
            self = self.query("gracePeriodSeconds", &seconds.to_string());
        }
        self
    }

    pub fn method(&self) -> &'static str {
        self.verb.method()
    }

    /// Content-Type of the body: the patch type's, else JSON.
    pub fn content_type(&self) -> Option<&'static str> {
        self.body.as_ref()?;
        Some(match self.verb {
            Verb::Patch(patch_type) => patch_type.content_type(),
            _ => JSON,
        })
    }

    /// Path and encoded query, as sent.
    pub fn url(&self) -> String {
        if self.query.is_empty() {
            return self.path.clone();
        }
        let query: Vec<String> = self
            .query
            .iter()
            .map(|(k, v)| {
                format!(
                    "{}={}",
                    encode_query_component(k),
                    encode_query_component(v)
                )
            })
            .collect();
        format!("{}?{}", self.path, query.join("&"))
    }
}

/// Percent-encodes a query name or value: everything but RFC 3986 unreserved characters, so
/// selectors (`app in (a,b)`, `!x`, `a=b`) and continue tokens survive intact.
pub fn encode_query_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes (and `+` as space); malformed escapes are kept as written.
pub fn decode_query_component(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The texts of a `Warning` header (`299 - "text"`; the browser joins repeated headers with
/// `, `), as kubectl prints them.
pub fn warning_texts(header: &str) -> Vec<String> {
    header
        .split("299 - ")
        .map(|part| {
            let quoted = part.trim().trim_end_matches(',').trim();
            let inner = quoted
                .strip_prefix('"')
                .and_then(|q| q.strip_suffix('"'))
                .unwrap_or(quoted);
            inner.replace("\\\"", "\"")
        })
        .filter(|text| !text.is_empty())
        .collect()
}

fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode_query_component(k), decode_query_component(v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_and_tokens_are_encoded_and_round_trip() {
        let request = ApiRequest::get("/api/v1/pods")
            .query("labelSelector", "app in (web,db),!canary")
            .query("fieldSelector", "status.phase!=Running")
            .query("continue", "eyJ2Ijoi+/=")
            .query("limit", "500")
            .query("fieldSelector", "");
        let url = request.url();
        assert_eq!(
            url,
            "/api/v1/pods?labelSelector=app%20in%20%28web%2Cdb%29%2C%21canary\
             &fieldSelector=status.phase%21%3DRunning&continue=eyJ2Ijoi%2B%2F%3D&limit=500"
        );
        let parsed = ApiRequest::get(&url);
        assert_eq!(parsed.path, "/api/v1/pods");
        assert_eq!(parsed.query_value("limit"), Some("500"));
        assert_eq!(parsed.query_value("watch"), None);
        assert_eq!(parsed.query, request.query);
    }

    #[test]
    fn a_query_parameter_set_again_is_replaced_not_repeated() {
        let request = ApiRequest::get("/api/v1/pods")
            .query("watch", "true")
            .query("timeoutSeconds", "290")
            .with_query("timeoutSeconds", "20");
        assert_eq!(request.url(), "/api/v1/pods?watch=true&timeoutSeconds=20");
    }

    #[test]
    fn write_options_become_kubectl_query_parameters() {
        let options = WriteOptions {
            dry_run: true,
            field_manager: Some("kube-atlas".into()),
            force: true,
            field_validation: Some(FieldValidation::Strict),
            propagation_policy: None,
            grace_period_seconds: None,
        };
        let apply = ApiRequest::patch(
            "/apis/apps/v1/namespaces/default/deployments/web",
            PatchType::Apply,
            "{}".into(),
        )
        .with_options(&options);
        assert_eq!(apply.method(), "PATCH");
        assert_eq!(apply.content_type(), Some("application/apply-patch+yaml"));
        assert_eq!(
            apply.url(),
            "/apis/apps/v1/namespaces/default/deployments/web?dryRun=All&fieldManager=kube-atlas\
             &force=true&fieldValidation=Strict"
        );
        // force is dropped where the server would reject it.
        let merge = ApiRequest::patch("/x", PatchType::Merge, "{}".into()).with_options(&options);
        assert!(!merge.url().contains("force"));
        assert_eq!(merge.content_type(), Some("application/merge-patch+json"));
        let delete =
            ApiRequest::delete("/api/v1/namespaces/default/pods/p").with_options(&WriteOptions {
                propagation_policy: Some(PropagationPolicy::Foreground),
                grace_period_seconds: Some(0),
                ..Default::default()
            });
        assert_eq!(
            delete.url(),
            "/api/v1/namespaces/default/pods/p?propagationPolicy=Foreground&gracePeriodSeconds=0"
        );
        assert_eq!(delete.content_type(), None);
        assert_eq!(
            PatchType::StrategicMerge.content_type(),
            "application/strategic-merge-patch+json"
        );
        assert_eq!(
            PatchType::Json.content_type(),
            "application/json-patch+json"
        );
    }

    #[test]
    fn warning_headers_give_their_texts() {
        assert_eq!(
            warning_texts(
                r#"299 - "unknown field \"spec.foo\"", 299 - "policy/v1beta1 is deprecated""#
            ),
            [
                r#"unknown field "spec.foo""#,
                "policy/v1beta1 is deprecated"
            ]
        );
        assert!(warning_texts("").is_empty());
    }

    #[test]
    fn decoding_tolerates_malformed_escapes() {
        assert_eq!(decode_query_component("a%2"), "a%2");
        assert_eq!(decode_query_component("%zz%41"), "%zzA");
        assert_eq!(decode_query_component("%E2%9C%93+ok"), "✓ ok");
    }
}
