//! GVK <-> GVR mapping, kubectl-style name resolution, URL paths, HTTP methods and copyable
//! `curl` / `kubectl` commands.

use std::borrow::Cow;
use std::fmt;

use crate::api::tree::{ApiTree, ResourceId, ResourceRef};

// ---------------------------------------------------------------------------------------------
// Mapping
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MappingError {
    EmptyInput,
    /// Nothing matched a user-typed name (kubectl's wording).
    UnknownResource {
        input: String,
    },
    /// The group-version is not served at all.
    GroupVersionNotServed {
        group: String,
        version: String,
    },
    /// The group-version is served but has no resource of that kind.
    NoKind {
        group: String,
        version: String,
        kind: String,
    },
}

impl fmt::Display for MappingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MappingError::EmptyInput => f.write_str("no resource name given"),
            MappingError::UnknownResource { input } => {
                write!(f, "the server doesn't have a resource type {input:?}")
            }
            MappingError::GroupVersionNotServed { group, version } => write!(
                f,
                "the server does not serve {}",
                crate::api::tree::api_version(group, version)
            ),
            MappingError::NoKind {
                group,
                version,
                kind,
            } => write!(
                f,
                "no matches for kind {kind:?} in version {:?}",
                crate::api::tree::api_version(group, version)
            ),
        }
    }
}

impl std::error::Error for MappingError {}

/// GVK -> GVR: the top-level resource (not a subresource) serving `kind` in exactly this
/// group-version, e.g. for a manifest's `apiVersion` + `kind`.
pub fn kind_to_resource<'a>(
    tree: &'a ApiTree,
    group: &str,
    version: &str,
    kind: &str,
) -> Result<ResourceRef<'a>, MappingError> {
    let not_served = || MappingError::GroupVersionNotServed {
        group: group.to_string(),
        version: version.to_string(),
    };
    let g = tree.group(group).ok_or_else(not_served)?;
    let v = g.version(version).ok_or_else(not_served)?;
    v.resources
        .iter()
        .find(|r| r.kind == kind)
        .map(|resource| ResourceRef {
            group: g,
            version: v,
            resource,
        })
        .ok_or_else(|| MappingError::NoKind {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
        })
}

/// Splits `apiVersion` (`v1`, `apps/v1`) into group and version.
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    }
}

/// How a candidate name matched, in kubectl's precedence (shortcuts expand first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum NameMatch {
    ShortName,
    Plural,
    Singular,
    Kind,
}

fn name_match(r: &crate::api::tree::ApiResource, name: &str) -> Option<NameMatch> {
    if r.short_names.iter().any(|s| s.eq_ignore_ascii_case(name)) {
        Some(NameMatch::ShortName)
    } else if r.plural.eq_ignore_ascii_case(name) {
        Some(NameMatch::Plural)
    } else if !r.singular.is_empty() && r.singular.eq_ignore_ascii_case(name) {
        Some(NameMatch::Singular)
    } else if r.kind.eq_ignore_ascii_case(name) {
        Some(NameMatch::Kind)
    } else {
        None
    }
}

/// Best match for `name`, optionally restricted to a group and a version. Groups are searched
/// in tree order (core first), each group's preferred version before its others; a better
/// match kind (short name > plural > singular > kind) anywhere wins over a weaker one.
fn find_by_name<'a>(
    tree: &'a ApiTree,
    name: &str,
    group: Option<&str>,
    version: Option<&str>,
) -> Option<ResourceRef<'a>> {
    let mut best: Option<(NameMatch, ResourceRef<'a>)> = None;
    for g in tree
        .groups
        .iter()
        .filter(|g| group.is_none_or(|want| g.name == want))
    {
        for v in g
            .versions_by_preference()
            .filter(|v| version.is_none_or(|want| v.version == want))
        {
            for resource in &v.resources {
                if let Some(m) = name_match(resource, name) {
                    if best.as_ref().is_none_or(|(b, _)| m < *b) {
                        best = Some((
                            m,
                            ResourceRef {
                                group: g,
                                version: v,
                                resource,
                            },
                        ));
                    }
                }
            }
        }
    }
    best.map(|(_, r)| r)
}

/// Resolves what a user types after `kubectl get`: `po`, `pods`, `pod`, `Pod`,
/// `deployments.apps`, `deploy.apps`, `deployment.v1.apps`, `ingresses.networking.k8s.io`.
/// Like kubectl, `resource.version.group` is tried first, then `resource.group`, then the bare
/// name across all groups.
pub fn resolve_user_input<'a>(
    tree: &'a ApiTree,
    input: &str,
) -> Result<ResourceRef<'a>, MappingError> {
    let input = input.trim();
    if input.is_empty() {
        return Err(MappingError::EmptyInput);
    }
    let lower = input.to_ascii_lowercase();
    if let Some((name, rest)) = lower.split_once('.') {
        if let Some((version, group)) = rest.split_once('.') {
            if let Some(r) = find_by_name(tree, name, Some(group), Some(version)) {
                return Ok(r);
            }
        }
        if let Some(r) = find_by_name(tree, name, Some(rest), None) {
            return Ok(r);
        }
    }
    find_by_name(tree, &lower, None, None).ok_or_else(|| MappingError::UnknownResource {
        input: input.to_string(),
    })
}

/// Expands a category (`all`) to every resource listing it, one per group/resource.
pub fn resolve_category<'a>(tree: &'a ApiTree, category: &str) -> Vec<ResourceRef<'a>> {
    tree.preferred_resources()
        .into_iter()
        .filter(|r| {
            r.resource
                .categories
                .iter()
                .any(|c| c.eq_ignore_ascii_case(category))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Operations and paths
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HttpMethod {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl HttpMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Put => "PUT",
            HttpMethod::Patch => "PATCH",
            HttpMethod::Delete => "DELETE",
        }
    }
}

impl fmt::Display for HttpMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The Kubernetes verbs that map to plain REST calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    Get,
    List,
    Watch,
    Create,
    Update,
    Patch,
    Delete,
    DeleteCollection,
}

/// What an operation addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Collection,
    Object,
}

impl Operation {
    pub const ALL: [Operation; 8] = [
        Operation::Get,
        Operation::List,
        Operation::Watch,
        Operation::Create,
        Operation::Update,
        Operation::Patch,
        Operation::Delete,
        Operation::DeleteCollection,
    ];

    pub fn verb(self) -> &'static str {
        match self {
            Operation::Get => "get",
            Operation::List => "list",
            Operation::Watch => "watch",
            Operation::Create => "create",
            Operation::Update => "update",
            Operation::Patch => "patch",
            Operation::Delete => "delete",
            Operation::DeleteCollection => "deletecollection",
        }
    }

    pub fn from_verb(verb: &str) -> Option<Operation> {
        Operation::ALL.into_iter().find(|o| o.verb() == verb)
    }

    pub fn method(self) -> HttpMethod {
        match self {
            Operation::Get | Operation::List | Operation::Watch => HttpMethod::Get,
            Operation::Create => HttpMethod::Post,
            Operation::Update => HttpMethod::Put,
            Operation::Patch => HttpMethod::Patch,
            Operation::Delete | Operation::DeleteCollection => HttpMethod::Delete,
        }
    }

    pub fn target(self) -> Target {
        match self {
            Operation::List
            | Operation::Watch
            | Operation::Create
            | Operation::DeleteCollection => Target::Collection,
            Operation::Get | Operation::Update | Operation::Patch | Operation::Delete => {
                Target::Object
            }
        }
    }

    /// Whether the request carries a body (and which Content-Type a shell example should use).
    pub fn body_content_type(self) -> Option<&'static str> {
        match self {
            Operation::Create | Operation::Update => Some("application/json"),
            Operation::Patch => Some("application/merge-patch+json"),
            _ => None,
        }
    }
}

/// Operations the resource's verbs allow, in [`Operation::ALL`] order.
pub fn allowed_operations(verbs: &[String]) -> Vec<Operation> {
    Operation::ALL
        .into_iter()
        .filter(|o| verbs.iter().any(|v| v == o.verb()))
        .collect()
}

/// Which namespace a path is for. Ignored for cluster-scoped resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamespaceArg<'a> {
    /// Collections across all namespaces (objects then use the placeholder).
    All,
    /// `{namespace}` in templates, `${NAMESPACE}` in shell commands.
    Placeholder,
    Named(&'a str),
}

/// Which object a path is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameArg<'a> {
    /// `{name}` in templates, `${NAME}` in shell commands.
    Placeholder,
    Named(&'a str),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum PathPart {
    /// Already percent-encoded text.
    Lit(String),
    Namespace,
    Name,
}

/// A request path that may contain `{namespace}`/`{name}` placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiPath {
    parts: Vec<PathPart>,
}

impl ApiPath {
    fn lit(&mut self, s: &str) {
        match self.parts.last_mut() {
            Some(PathPart::Lit(last)) => last.push_str(s),
            _ => self.parts.push(PathPart::Lit(s.to_string())),
        }
    }

    fn segment(&mut self, value: &str) {
        self.lit("/");
        self.lit(&encode_path_segment(value));
    }

    pub fn has_placeholders(&self) -> bool {
        self.parts.iter().any(|p| !matches!(p, PathPart::Lit(_)))
    }

    /// The path with placeholders spelled `{namespace}` / `{name}` (also [`fmt::Display`]).
    pub fn template(&self) -> String {
        self.render("{namespace}", "{name}")
    }

    fn render(&self, ns: &str, name: &str) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                PathPart::Lit(s) => s.as_str(),
                PathPart::Namespace => ns,
                PathPart::Name => name,
            })
            .collect()
    }

    /// One shell word for `prefix + path`: single-quoted when concrete, double-quoted with
    /// `${NAMESPACE}`/`${NAME}` variables when it has placeholders.
    pub fn shell_word(&self, prefix: &str) -> String {
        if !self.has_placeholders() {
            let full = format!("{prefix}{}", self.template());
            return shell_quote(&full).into_owned();
        }
        let mut out = String::from("\"");
        out.push_str(&escape_double_quoted(prefix));
        for p in &self.parts {
            match p {
                PathPart::Lit(s) => out.push_str(&escape_double_quoted(s)),
                PathPart::Namespace => out.push_str("${NAMESPACE}"),
                PathPart::Name => out.push_str("${NAME}"),
            }
        }
        out.push('"');
        out
    }
}

impl fmt::Display for ApiPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.template())
    }
}

/// The collection path of `resource` in `namespace` (None: all namespaces, or a
/// cluster-scoped resource) as [`ResourceRef::collection_path`] makes it, without the tree:
/// what a list opened by a link asks for, guessed before discovery has answered (the guess
/// is right unless a namespace is given for a cluster-scoped resource).
pub fn collection_path_before_discovery(resource: &ResourceId, namespace: Option<&str>) -> ApiPath {
    let mut p = ApiPath { parts: Vec::new() };
    p.lit(&crate::api::discovery::group_version_path(
        &resource.group,
        &resource.version,
    ));
    if let Some(namespace) = namespace {
        p.lit("/namespaces");
        p.segment(namespace);
    }
    p.segment(&resource.plural);
    p
}

impl ResourceRef<'_> {
    /// `/api/v1` or `/apis/{group}/{version}`.
    pub fn api_prefix(&self) -> String {
        crate::api::discovery::group_version_path(&self.group.name, &self.version.version)
    }

    fn base(&self, ns: NamespaceArg<'_>, object: bool) -> ApiPath {
        let mut p = ApiPath { parts: Vec::new() };
        p.lit(&self.api_prefix());
        if self.resource.namespaced {
            match ns {
                NamespaceArg::Named(n) => {
                    p.lit("/namespaces");
                    p.segment(n);
                }
                NamespaceArg::Placeholder => {
                    p.lit("/namespaces/");
                    p.parts.push(PathPart::Namespace);
                }
                // Objects always live in a namespace, so "all" falls back to the placeholder.
                NamespaceArg::All if object => {
                    p.lit("/namespaces/");
                    p.parts.push(PathPart::Namespace);
                }
                NamespaceArg::All => {}
            }
        }
        p.segment(&self.resource.plural);
        p
    }

    /// Collection path: across all namespaces, one namespace, or the placeholder.
    pub fn collection_path(&self, ns: NamespaceArg<'_>) -> ApiPath {
        self.base(ns, false)
    }

    pub fn object_path(&self, ns: NamespaceArg<'_>, name: NameArg<'_>) -> ApiPath {
        let mut p = self.base(ns, true);
        match name {
            NameArg::Named(n) => p.segment(n),
            NameArg::Placeholder => {
                p.lit("/");
                p.parts.push(PathPart::Name);
            }
        }
        p
    }

    pub fn subresource_path(&self, ns: NamespaceArg<'_>, name: NameArg<'_>, sub: &str) -> ApiPath {
        let mut p = self.object_path(ns, name);
        p.segment(sub);
        p
    }

    pub fn watch_path(&self, ns: NamespaceArg<'_>) -> ApiPath {
        let mut p = self.collection_path(ns);
        p.lit("?watch=true");
        p
    }

    /// Path for an operation on the main resource.
    pub fn operation_path(
        &self,
        op: Operation,
        ns: NamespaceArg<'_>,
        name: NameArg<'_>,
    ) -> ApiPath {
        match op {
            Operation::Watch => self.watch_path(ns),
            // Creating needs a concrete namespace: POST to the all-namespaces path is invalid.
            Operation::Create | Operation::DeleteCollection if ns == NamespaceArg::All => {
                self.collection_path(NamespaceArg::Placeholder)
            }
            _ => match op.target() {
                Target::Collection => self.collection_path(ns),
                Target::Object => self.object_path(ns, name),
            },
        }
    }

    /// Every operation the verbs allow, with method and path (main resource only).
    pub fn endpoints(&self, ns: NamespaceArg<'_>, name: NameArg<'_>) -> Vec<Endpoint> {
        allowed_operations(&self.resource.verbs)
            .into_iter()
            .map(|op| Endpoint {
                op,
                method: op.method(),
                path: self.operation_path(op, ns, name),
                subresource: None,
            })
            .collect()
    }

    /// Endpoints of each subresource (only object-level verbs apply to subresources).
    pub fn subresource_endpoints(&self, ns: NamespaceArg<'_>, name: NameArg<'_>) -> Vec<Endpoint> {
        let mut out = Vec::new();
        for sub in &self.resource.subresources {
            for op in allowed_operations(&sub.verbs) {
                // `create` on a subresource (binding, eviction) POSTs to the object path.
                if op.target() == Target::Collection && op != Operation::Create {
                    continue;
                }
                out.push(Endpoint {
                    op,
                    method: op.method(),
                    path: self.subresource_path(ns, name, &sub.name),
                    subresource: Some(sub.name.clone()),
                });
            }
        }
        out
    }

    /// `kubectl` equivalent of an operation on the main resource.
    pub fn kubectl_command(
        &self,
        op: Operation,
        ns: NamespaceArg<'_>,
        name: NameArg<'_>,
    ) -> String {
        let res = shell_quote(&self.kubectl_name()).into_owned();
        let ns_flag = if self.resource.namespaced {
            match (ns, op.target()) {
                (NamespaceArg::Named(n), _) => format!(" -n {}", shell_quote(n)),
                (NamespaceArg::All, Target::Collection) if op != Operation::Create => " -A".into(),
                _ => " -n \"${NAMESPACE}\"".into(),
            }
        } else {
            String::new()
        };
        let name = match name {
            NameArg::Named(n) => shell_quote(n).into_owned(),
            NameArg::Placeholder => "\"${NAME}\"".into(),
        };
        match op {
            Operation::Get => format!("kubectl get {res} {name}{ns_flag} -o yaml"),
            Operation::List => format!("kubectl get {res}{ns_flag}"),
            Operation::Watch => format!("kubectl get {res}{ns_flag} --watch"),
            Operation::Create => format!("kubectl create{ns_flag} -f object.yaml"),
            Operation::Update => format!("kubectl replace{ns_flag} -f object.yaml"),
            Operation::Patch => {
                format!("kubectl patch {res} {name}{ns_flag} --type merge -p '{{}}'")
            }
            Operation::Delete => format!("kubectl delete {res} {name}{ns_flag}"),
            Operation::DeleteCollection => format!("kubectl delete {res} --all{ns_flag}"),
        }
    }
}

/// One callable REST endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub op: Operation,
    pub method: HttpMethod,
    pub path: ApiPath,
    pub subresource: Option<String>,
}

/// Where `kubectl proxy` listens by default.
pub const DEFAULT_PROXY_BASE: &str = "http://127.0.0.1:8001";

impl Endpoint {
    /// `curl -s http://127.0.0.1:8001/apis/apps/v1/namespaces/default/deployments`.
    pub fn curl(&self, proxy_base: &str) -> String {
        let url = self.path.shell_word(proxy_base.trim_end_matches('/'));
        let mut cmd = String::from("curl -s");
        if self.op == Operation::Watch {
            // Don't buffer the streamed watch events.
            cmd.push_str(" -N");
        }
        if self.method != HttpMethod::Get {
            cmd.push_str(" -X ");
            cmd.push_str(self.method.as_str());
        }
        if let Some(ct) = self.op.body_content_type() {
            cmd.push_str(&format!(
                " -H 'Content-Type: {ct}' --data-binary @body.json"
            ));
        }
        cmd.push(' ');
        cmd.push_str(&url);
        cmd
    }

    /// `kubectl get --raw /apis/...` and friends; `None` for PATCH (kubectl has no raw patch).
    pub fn kubectl_raw(&self) -> Option<String> {
        let path = self.path.shell_word("");
        match self.method {
            HttpMethod::Get => Some(format!("kubectl get --raw {path}")),
            HttpMethod::Post => Some(format!("kubectl create --raw {path} -f body.json")),
            HttpMethod::Put => Some(format!("kubectl replace --raw {path} -f body.json")),
            HttpMethod::Delete => Some(format!("kubectl delete --raw {path}")),
            HttpMethod::Patch => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Encoding and quoting
// ---------------------------------------------------------------------------------------------

/// Percent-encodes one path segment like Go's `url.PathEscape`, so names containing `/`, `?`,
/// `#`, spaces or non-ASCII can't change the request's meaning.
pub fn encode_path_segment(s: &str) -> Cow<'_, str> {
    fn keep(b: u8) -> bool {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'_' | b'.' | b'~' | b'$' | b'&' | b'+' | b':' | b'=' | b'@'
            )
    }
    if s.bytes().all(keep) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if keep(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Cow::Owned(out)
}

/// Quotes one POSIX shell word; safe words are left bare so common commands stay readable.
pub fn shell_quote(s: &str) -> Cow<'_, str> {
    let safe = |c: char| {
        c.is_ascii_alphanumeric()
            || matches!(c, '_' | '@' | '%' | '+' | '=' | ':' | ',' | '.' | '/' | '-')
    };
    if !s.is_empty() && s.chars().all(safe) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(format!("'{}'", s.replace('\'', r"'\''")))
    }
}

/// Escapes text for inside double quotes (where `$`, `` ` ``, `"`, `\` are special).
fn escape_double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '$' | '`' | '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::tree::tests::sample_tree;
    use crate::api::tree::ResourceId;

    fn id(t: &ApiTree, input: &str) -> String {
        resolve_user_input(t, input)
            .map(|r| r.id().key())
            .unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn resolves_like_kubectl() {
        let t = sample_tree();
        assert_eq!(id(&t, "po"), "core/v1/pods");
        assert_eq!(id(&t, "pods"), "core/v1/pods");
        assert_eq!(id(&t, "pod"), "core/v1/pods");
        assert_eq!(id(&t, "Pod"), "core/v1/pods");
        assert_eq!(id(&t, " POD "), "core/v1/pods");
        assert_eq!(id(&t, "deploy"), "apps/v1/deployments");
        assert_eq!(id(&t, "Deployment"), "apps/v1/deployments");
        assert_eq!(id(&t, "deployments.apps"), "apps/v1/deployments");
        assert_eq!(id(&t, "deploy.apps"), "apps/v1/deployments");
        assert_eq!(id(&t, "deployment.v1.apps"), "apps/v1/deployments");
        assert_eq!(
            id(&t, "crd"),
            "apiextensions.k8s.io/v1/customresourcedefinitions"
        );
        assert_eq!(
            id(&t, "customresourcedefinitions.apiextensions.k8s.io"),
            "apiextensions.k8s.io/v1/customresourcedefinitions"
        );
        // Core wins for names served by several groups; qualification picks the other.
        assert_eq!(id(&t, "events"), "core/v1/pods".replace("pods", "events"));
        assert_eq!(id(&t, "ev"), "core/v1/events");
        assert_eq!(id(&t, "events.events.k8s.io"), "events.k8s.io/v1/events");
        // Preferred version first; explicit version selects another; version-only resources.
        assert_eq!(id(&t, "wg"), "example.com/v1/widgets");
        assert_eq!(
            id(&t, "widgets.v1beta1.example.com"),
            "example.com/v1beta1/widgets"
        );
        assert_eq!(id(&t, "gadgets"), "example.com/v1alpha1/gadgets");
        assert_eq!(
            id(&t, "nope"),
            "the server doesn't have a resource type \"nope\""
        );
        assert_eq!(
            id(&t, "deployments.nope"),
            "the server doesn't have a resource type \"deployments.nope\""
        );
        assert_eq!(
            resolve_user_input(&t, "  ").unwrap_err(),
            MappingError::EmptyInput
        );
    }

    #[test]
    fn kind_mapping() {
        let t = sample_tree();
        let r = kind_to_resource(&t, "apps", "v1", "Deployment").unwrap();
        assert_eq!(r.id(), ResourceId::new("apps", "v1", "deployments"));
        let (g, v) = split_api_version("v1");
        assert_eq!(
            kind_to_resource(&t, g, v, "Pod").unwrap().resource.plural,
            "pods"
        );
        assert_eq!(split_api_version("apps/v1"), ("apps", "v1"));
        assert_eq!(
            kind_to_resource(&t, "apps", "v1beta1", "Deployment")
                .unwrap_err()
                .to_string(),
            "the server does not serve apps/v1beta1"
        );
        assert_eq!(
            kind_to_resource(&t, "apps", "v1", "Scale")
                .unwrap_err()
                .to_string(),
            "no matches for kind \"Scale\" in version \"apps/v1\""
        );
        let all: Vec<_> = resolve_category(&t, "all")
            .iter()
            .map(|r| r.id().key())
            .collect();
        assert_eq!(all, ["core/v1/pods", "apps/v1/deployments"]);
    }

    #[test]
    fn paths_for_namespaced_and_cluster_resources() {
        let t = sample_tree();
        let deploy = resolve_user_input(&t, "deploy").unwrap();
        assert_eq!(
            deploy.collection_path(NamespaceArg::All).to_string(),
            "/apis/apps/v1/deployments"
        );
        assert_eq!(
            deploy
                .collection_path(NamespaceArg::Placeholder)
                .to_string(),
            "/apis/apps/v1/namespaces/{namespace}/deployments"
        );
        assert_eq!(
            deploy
                .collection_path(NamespaceArg::Named("default"))
                .to_string(),
            "/apis/apps/v1/namespaces/default/deployments"
        );
        assert_eq!(
            deploy
                .object_path(NamespaceArg::Named("default"), NameArg::Named("web"))
                .to_string(),
            "/apis/apps/v1/namespaces/default/deployments/web"
        );
        assert_eq!(
            deploy
                .object_path(NamespaceArg::All, NameArg::Placeholder)
                .to_string(),
            "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"
        );
        assert_eq!(
            deploy
                .subresource_path(
                    NamespaceArg::Named("default"),
                    NameArg::Named("web"),
                    "scale"
                )
                .to_string(),
            "/apis/apps/v1/namespaces/default/deployments/web/scale"
        );
        assert_eq!(
            deploy
                .watch_path(NamespaceArg::Named("default"))
                .to_string(),
            "/apis/apps/v1/namespaces/default/deployments?watch=true"
        );
        let nodes = resolve_user_input(&t, "no").unwrap();
        assert_eq!(
            nodes
                .collection_path(NamespaceArg::Named("default"))
                .to_string(),
            "/api/v1/nodes"
        );
        assert_eq!(
            nodes
                .object_path(NamespaceArg::Placeholder, NameArg::Named("n1"))
                .to_string(),
            "/api/v1/nodes/n1"
        );
        // Namespace objects are cluster scoped; their subresources hang off the object.
        let ns = resolve_user_input(&t, "ns").unwrap();
        assert_eq!(
            ns.subresource_path(NamespaceArg::All, NameArg::Named("foo"), "finalize")
                .to_string(),
            "/api/v1/namespaces/foo/finalize"
        );
    }

    #[test]
    fn weird_names_are_encoded_in_paths() {
        let t = sample_tree();
        let pods = resolve_user_input(&t, "po").unwrap();
        let p = pods.object_path(NamespaceArg::Named("a b"), NameArg::Named("x/../y?z#<b>é"));
        assert_eq!(
            p.to_string(),
            "/api/v1/namespaces/a%20b/pods/x%2F..%2Fy%3Fz%23%3Cb%3E%C3%A9"
        );
        assert_eq!(encode_path_segment("system:node@x"), "system:node@x");
    }

    #[test]
    fn methods_follow_verbs() {
        let t = sample_tree();
        let pods = resolve_user_input(&t, "po").unwrap();
        let eps = pods.endpoints(NamespaceArg::Named("default"), NameArg::Named("p"));
        let got: Vec<String> = eps
            .iter()
            .map(|e| format!("{} {} {}", e.op.verb(), e.method, e.path))
            .collect();
        assert_eq!(
            got,
            [
                "get GET /api/v1/namespaces/default/pods/p",
                "list GET /api/v1/namespaces/default/pods",
                "watch GET /api/v1/namespaces/default/pods?watch=true",
                "create POST /api/v1/namespaces/default/pods",
                "update PUT /api/v1/namespaces/default/pods/p",
                "patch PATCH /api/v1/namespaces/default/pods/p",
                "delete DELETE /api/v1/namespaces/default/pods/p",
                "deletecollection DELETE /api/v1/namespaces/default/pods",
            ]
        );
        let subs: Vec<String> = pods
            .subresource_endpoints(NamespaceArg::Named("default"), NameArg::Named("p"))
            .iter()
            .map(|e| format!("{} {}", e.method, e.path))
            .collect();
        assert_eq!(
            subs,
            [
                "POST /api/v1/namespaces/default/pods/p/eviction",
                "GET /api/v1/namespaces/default/pods/p/status",
                "PUT /api/v1/namespaces/default/pods/p/status",
                "PATCH /api/v1/namespaces/default/pods/p/status",
            ]
        );
        assert_eq!(
            allowed_operations(&["get".into(), "bogus".into()]),
            [Operation::Get]
        );
        assert_eq!(
            Operation::from_verb("deletecollection"),
            Some(Operation::DeleteCollection)
        );
        assert_eq!(Operation::from_verb("escalate"), None);
        // Create across all namespaces needs a namespace.
        assert_eq!(
            pods.operation_path(Operation::Create, NamespaceArg::All, NameArg::Placeholder)
                .to_string(),
            "/api/v1/namespaces/{namespace}/pods"
        );
    }

    #[test]
    fn curl_and_kubectl_commands() {
        let t = sample_tree();
        let deploy = resolve_user_input(&t, "deploy").unwrap();
        let ns = NamespaceArg::Named("default");
        let ep = |op| Endpoint {
            op,
            method: Operation::method(op),
            path: deploy.operation_path(op, ns, NameArg::Named("web")),
            subresource: None,
        };
        assert_eq!(
            ep(Operation::List).curl("http://127.0.0.1:8001/"),
            "curl -s http://127.0.0.1:8001/apis/apps/v1/namespaces/default/deployments"
        );
        assert_eq!(
            ep(Operation::Watch).curl(DEFAULT_PROXY_BASE),
            "curl -s -N 'http://127.0.0.1:8001/apis/apps/v1/namespaces/default/deployments?watch=true'"
        );
        assert_eq!(
            ep(Operation::Patch).curl(DEFAULT_PROXY_BASE),
            "curl -s -X PATCH -H 'Content-Type: application/merge-patch+json' --data-binary @body.json http://127.0.0.1:8001/apis/apps/v1/namespaces/default/deployments/web"
        );
        assert_eq!(
            ep(Operation::Delete).curl(DEFAULT_PROXY_BASE),
            "curl -s -X DELETE http://127.0.0.1:8001/apis/apps/v1/namespaces/default/deployments/web"
        );
        assert_eq!(
            ep(Operation::List).kubectl_raw().unwrap(),
            "kubectl get --raw /apis/apps/v1/namespaces/default/deployments"
        );
        assert_eq!(ep(Operation::Patch).kubectl_raw(), None);
        assert_eq!(
            deploy.kubectl_command(Operation::List, ns, NameArg::Placeholder),
            "kubectl get deployments.apps -n default"
        );
        assert_eq!(
            deploy.kubectl_command(Operation::List, NamespaceArg::All, NameArg::Placeholder),
            "kubectl get deployments.apps -A"
        );
        assert_eq!(
            deploy.kubectl_command(Operation::Get, ns, NameArg::Named("web")),
            "kubectl get deployments.apps web -n default -o yaml"
        );
        let nodes = resolve_user_input(&t, "nodes").unwrap();
        assert_eq!(
            nodes.kubectl_command(Operation::Delete, ns, NameArg::Named("n1")),
            "kubectl delete nodes n1"
        );
        // Placeholders become shell variables, inside double quotes.
        let tmpl = Endpoint {
            op: Operation::Get,
            method: HttpMethod::Get,
            path: deploy.object_path(NamespaceArg::Placeholder, NameArg::Placeholder),
            subresource: None,
        };
        assert_eq!(
            tmpl.curl(DEFAULT_PROXY_BASE),
            "curl -s \"http://127.0.0.1:8001/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${NAME}\""
        );
        assert_eq!(
            deploy.kubectl_command(
                Operation::Get,
                NamespaceArg::Placeholder,
                NameArg::Placeholder
            ),
            "kubectl get deployments.apps \"${NAME}\" -n \"${NAMESPACE}\" -o yaml"
        );
    }

    #[test]
    fn shell_quoting_of_hostile_input() {
        assert_eq!(shell_quote("default"), "default");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("<b>x</b>"), "'<b>x</b>'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("$(rm -rf /)"), "'$(rm -rf /)'");
        assert_eq!(shell_quote("a\"b`c"), "'a\"b`c'");
        assert_eq!(shell_quote("a;b|c&d"), "'a;b|c&d'");
        assert_eq!(shell_quote("line\nbreak"), "'line\nbreak'");
        let t = sample_tree();
        let deploy = resolve_user_input(&t, "deploy").unwrap();
        let cmd = deploy.kubectl_command(
            Operation::Delete,
            NamespaceArg::Named("it's"),
            NameArg::Named("<b>x</b>"),
        );
        assert_eq!(
            cmd,
            r"kubectl delete deployments.apps '<b>x</b>' -n 'it'\''s'"
        );
        // In URLs the name is percent-encoded, and a hostile proxy base is still one word.
        let ep = Endpoint {
            op: Operation::Get,
            method: HttpMethod::Get,
            path: deploy.object_path(NamespaceArg::Named("d"), NameArg::Named("<b>x</b>")),
            subresource: None,
        };
        assert_eq!(
            ep.curl("http://h:1/$(x)'"),
            r"curl -s 'http://h:1/$(x)'\''/apis/apps/v1/namespaces/d/deployments/%3Cb%3Ex%3C%2Fb%3E'"
        );
        let tmpl = Endpoint {
            path: deploy.collection_path(NamespaceArg::Placeholder),
            ..ep
        };
        assert_eq!(
            tmpl.curl("http://h/`x`$y\""),
            "curl -s \"http://h/\\`x\\`\\$y\\\"/apis/apps/v1/namespaces/${NAMESPACE}/deployments\""
        );
    }
}
