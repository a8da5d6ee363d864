//! The app's location, kept in the URL fragment.
//!
//! A fragment route works on reload and under any sub-path (`kubectl proxy --www-prefix=/ui/`)
//! without server-side fallbacks, which `kubectl proxy --www` does not have.
//!
//! [`Page`] is the whole location; its fragments are:
//! - the cluster overview, the landing page ([`OverviewRoute`]): `#/`, `#/?ns=default`
//! - the API hierarchy, the tree explorer ([`Route`]): `#/api`,
//!   `#/r/apps/v1/deployments?ns=default`
//! - a list ([`ListRoute`]): `#/list/apps/v1/deployments?ns=default&l=app%3Dweb&f=…&sort=-Age&wide=1&unhealthy=1&q=web`
//!   (`l` label selector, `f` field selector, `sort` a column name with `-` for descending,
//!   `q` the quick filter; all percent-encoded, empty ones left out)
//! - an object ([`ObjectRoute`]): `#/obj/apps/v1/deployments/default/web?tab=yaml`; a
//!   cluster-scoped object has `_` as its namespace (`#/obj/core/v1/nodes/_/node-1`), which no
//!   namespace can be called.
//! - the Event objects timeline ([`EventsRoute`]): `#/events`, `#/events?ns=demo`, with an
//!   initial filter ([`EventsFilter`]): `#/events?ns=demo&reason=BackOff&type=Warning`
//! - the user's permissions ([`PermissionsRoute`]): `#/permissions?ns=default`
//! - the map of a namespace ([`MapRoute`]): `#/map?ns=demo`, one application in it
//!   `#/map?ns=demo&selector=app%3Dweb`, or one object's neighbourhood
//!   `#/map?ns=demo&around=<uid>`
//!
//! The core group is spelled `core`. Parsing never fails: anything unknown is home.

use crate::api::request::{decode_query_component, encode_query_component};
use crate::api::tree::ResourceId;
use crate::list::table::SortSpec;

/// The home page's state: the resource selected in the tree, and the global namespace.
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
        match &self.resource {
            Some(id) => {
                out.push_str("r/");
                out.push_str(&id.key());
            }
            // The hierarchy's own address: `#/` is the cluster overview.
            None => out.push_str("api"),
        }
        if let Some(ns) = &self.namespace {
            out.push_str("?ns=");
            out.push_str(ns);
        }
        out
    }
}

/// Which tab of an object page is open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ObjectTab {
    #[default]
    Overview,
    Yaml,
    Json,
    Versions,
    /// The containers' logs (`pods/{name}/log`): a pod's, or every pod's of a workload.
    Logs,
    /// Every change since the page opened: who made it and what changed.
    Timeline,
    /// The YAML with the manager owning each line.
    Blame,
    /// Event objects about this object.
    Events,
    /// The controllers at work on everything this object owns.
    Activity,
    /// The YAML editor: review, save, apply.
    Edit,
    /// A shell in one of a pod's containers (`pods/exec`), or attached to its process.
    Terminal,
}

impl ObjectTab {
    /// In display order.
    pub const ALL: [ObjectTab; 11] = [
        ObjectTab::Overview,
        ObjectTab::Timeline,
        ObjectTab::Activity,
        ObjectTab::Events,
        ObjectTab::Yaml,
        ObjectTab::Edit,
        ObjectTab::Blame,
        ObjectTab::Json,
        ObjectTab::Versions,
        ObjectTab::Logs,
        ObjectTab::Terminal,
    ];

    /// The tab's name on the page.
    pub fn label(self) -> &'static str {
        match self {
            ObjectTab::Overview => "Overview",
            ObjectTab::Yaml => "YAML",
            ObjectTab::Json => "JSON",
            ObjectTab::Versions => "Versions",
            ObjectTab::Logs => "Logs",
            ObjectTab::Timeline => "Timeline",
            ObjectTab::Blame => "Blame",
            ObjectTab::Events => "Events",
            ObjectTab::Activity => "Activity",
            ObjectTab::Edit => "Edit",
            ObjectTab::Terminal => "Terminal",
        }
    }

    /// The `tab=` value.
    pub fn as_str(self) -> &'static str {
        match self {
            ObjectTab::Overview => "overview",
            ObjectTab::Yaml => "yaml",
            ObjectTab::Json => "json",
            ObjectTab::Versions => "versions",
            ObjectTab::Logs => "logs",
            ObjectTab::Timeline => "timeline",
            ObjectTab::Blame => "blame",
            ObjectTab::Events => "events",
            ObjectTab::Activity => "activity",
            ObjectTab::Edit => "edit",
            ObjectTab::Terminal => "terminal",
        }
    }

    /// Whether objects of `resource` have this tab (logs: core/v1 pods, and the workloads
    /// and Services whose pods they are).
    pub fn applies_to(self, resource: &ResourceId) -> bool {
        match self {
            ObjectTab::Logs => matches!(
                (resource.group.as_str(), resource.plural.as_str()),
                ("", "pods" | "services")
                    | (
                        "apps",
                        "deployments" | "statefulsets" | "daemonsets" | "replicasets"
                    )
                    | ("batch", "jobs" | "cronjobs")
            ),
            ObjectTab::Terminal => resource.group.is_empty() && resource.plural == "pods",
            _ => true,
        }
    }

    /// Unknown names give `None` (the page then opens on [`ObjectTab::Overview`]).
    pub fn from_name(name: &str) -> Option<ObjectTab> {
        ObjectTab::ALL.into_iter().find(|tab| tab.as_str() == name)
    }
}

/// A list of one resource: `#/list/<group>/<version>/<plural>?…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListRoute {
    pub resource: ResourceId,
    /// None: all namespaces (or a cluster-scoped resource).
    pub namespace: Option<String>,
    /// As typed, even when invalid, so a shared link shows the user's text to fix; check it
    /// with [`crate::list::selector::parse_label_selector`] before sending.
    pub label_selector: String,
    pub field_selector: String,
    pub sort: Option<SortSpec>,
    /// Show priority > 0 columns (`-o wide`).
    pub wide: bool,
    /// Show the LABELS column (`--show-labels`).
    pub show_labels: bool,
    /// The quick text filter over the shown rows.
    pub filter: String,
    /// Only rows whose health is not OK.
    pub unhealthy: bool,
    /// Behind kube-atlas: the same list from every cluster, merged (`clusters=all`).
    pub all_clusters: bool,
}

impl ListRoute {
    pub fn new(resource: ResourceId, namespace: Option<String>) -> ListRoute {
        ListRoute {
            resource,
            namespace,
            label_selector: String::new(),
            field_selector: String::new(),
            sort: None,
            wide: false,
            show_labels: false,
            unhealthy: false,
            all_clusters: false,
            filter: String::new(),
        }
    }
}

/// One object: `#/obj/<group>/<version>/<plural>/<namespace or _>/<name>?tab=…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRoute {
    pub resource: ResourceId,
    /// None for cluster-scoped objects.
    pub namespace: Option<String>,
    pub name: String,
    pub tab: ObjectTab,
    /// A resourceVersion to show on the timeline (`rev=`).
    pub revision: Option<String>,
    /// The Terminal tab attaches to this container's process instead of running a shell
    /// (`attach=`).
    pub attach: Option<String>,
}

impl ObjectRoute {
    pub fn new(resource: ResourceId, namespace: Option<String>, name: impl Into<String>) -> Self {
        ObjectRoute {
            resource,
            namespace,
            name: name.into(),
            tab: ObjectTab::Overview,
            revision: None,
            attach: None,
        }
    }
}

/// The timeline of Event objects (reports by components): `#/events?ns=…`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventsRoute {
    /// None: all namespaces.
    pub namespace: Option<String>,
    /// What the page opens filtered to (the overview's histogram links).
    pub filter: EventsFilter,
}

/// The Events page's initial filter: the `reason=` and `type=` of its fragment
/// (`#/events?ns=demo&reason=BackOff&type=Warning`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventsFilter {
    /// Only Events with this reason (exactly).
    pub reason: Option<String>,
    /// Only Events of this type (`Warning`).
    pub event_type: Option<String>,
}

/// Reasons are CamelCase words; anything else in a URL is not trusted.
fn is_event_word(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' || c == ':')
}

impl EventsFilter {
    /// Whether only Warnings are wanted.
    pub fn warnings_only(&self) -> bool {
        self.event_type.as_deref() == Some("Warning")
    }
}

/// "What can I do here?": the user's permissions in a namespace:
/// `#/permissions?ns=…`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionsRoute {
    /// None: the view asks for one (the rules are per namespace).
    pub namespace: Option<String>,
}

/// The map of how a namespace's objects connect: `#/map?ns=…`, narrowed to one application
/// with `&selector=` (a label selector; what its objects reach is drawn too).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MapRoute {
    /// None: the view asks for one (a map is of one namespace).
    pub namespace: Option<String>,
    /// A label selector as typed (`app.kubernetes.io/instance=web`); empty: the namespace.
    pub selector: String,
    /// One object's neighbourhood instead: the uid of the object in the middle.
    pub around: Option<String>,
}

/// The cluster overview, the landing page: `#/`, `#/?ns=…`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OverviewRoute {
    /// None: the whole cluster.
    pub namespace: Option<String>,
}

/// Where the app is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Page {
    /// The cluster overview (`#/`): is my cluster fine?
    Overview(OverviewRoute),
    /// The explorer, with the tree selection (`#/`, `#/r/…`).
    Home(Route),
    ResourceList(ListRoute),
    Object(ObjectRoute),
    Events(EventsRoute),
    Permissions(PermissionsRoute),
    Map(MapRoute),
    /// A recording of watch traffic played back with no cluster: `#/replay`.
    Replay,
    /// New objects from YAML, starting from a template of one resource:
    /// `#/create/<group>/<version>/<plural>?ns=…`.
    Create(CreateRoute),
}

/// Where objects are created from: the kind whose template starts the editor, and the
/// namespace documents without one go to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateRoute {
    pub resource: ResourceId,
    pub namespace: Option<String>,
}

impl Default for Page {
    fn default() -> Self {
        Page::Overview(OverviewRoute::default())
    }
}

/// The namespace segment of a cluster-scoped object (no namespace can be called `_`).
const CLUSTER_SCOPE: &str = "_";

/// Group, version and plural are DNS-like words; anything else in a URL is not trusted.
fn is_resource_segment(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
}

/// Object names: what the API accepts in a path segment (not `.`, `..`, nor with `/` or `%`).
fn is_object_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s != "."
        && s != ".."
        && !s.chars().any(|c| c == '/' || c == '%' || c.is_control())
}

/// `core/v1/pods` from three path segments, checked.
fn resource_from(segments: &[&str]) -> Option<ResourceId> {
    match segments {
        [group, version, plural] if segments.iter().all(|s| is_resource_segment(s)) => {
            ResourceId::parse(&format!("{group}/{version}/{plural}"))
        }
        _ => None,
    }
}

/// Query pairs, decoded; pairs without `=` have an empty value.
fn query_pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query.split('&').filter(|p| !p.is_empty()).map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (decode_query_component(key), decode_query_component(value))
    })
}

fn parse_list(segments: &[&str], query: &str) -> Option<ListRoute> {
    let mut route = ListRoute::new(resource_from(segments)?, None);
    for (key, value) in query_pairs(query) {
        match key.as_str() {
            "ns" if is_dns_label(&value) => route.namespace = Some(value),
            "l" => route.label_selector = value,
            "f" => route.field_selector = value,
            "sort" => route.sort = SortSpec::from_param(&value),
            "wide" => route.wide = matches!(value.as_str(), "1" | "true"),
            "labels" => route.show_labels = matches!(value.as_str(), "1" | "true"),
            "unhealthy" => route.unhealthy = matches!(value.as_str(), "1" | "true"),
            "clusters" => route.all_clusters = value == "all",
            "q" => route.filter = value,
            _ => {}
        }
    }
    Some(route)
}

fn parse_events(query: &str) -> EventsRoute {
    let mut route = EventsRoute::default();
    for (key, value) in query_pairs(query) {
        match key.as_str() {
            "ns" if is_dns_label(&value) => route.namespace = Some(value),
            "reason" if is_event_word(&value) => route.filter.reason = Some(value),
            "type" if is_event_word(&value) => route.filter.event_type = Some(value),
            _ => {}
        }
    }
    route
}

/// A uid is hex digits and dashes; anything else in a URL is not trusted.
fn is_uid(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

fn parse_map(query: &str) -> MapRoute {
    let mut route = MapRoute::default();
    for (key, value) in query_pairs(query) {
        match key.as_str() {
            "ns" if is_dns_label(&value) => route.namespace = Some(value),
            "selector" => route.selector = value,
            "around" if is_uid(&value) => route.around = Some(value),
            _ => {}
        }
    }
    route
}

fn parse_object(segments: &[&str], query: &str) -> Option<ObjectRoute> {
    let [group, version, plural, namespace, name] = segments else {
        return None;
    };
    let resource = resource_from(&[group, version, plural])?;
    let namespace = match decode_query_component(namespace) {
        ns if ns == CLUSTER_SCOPE => None,
        ns if is_dns_label(&ns) => Some(ns),
        _ => return None,
    };
    let name = decode_query_component(name);
    if !is_object_name(&name) {
        return None;
    }
    let mut route = ObjectRoute::new(resource, namespace, name);
    for (key, value) in query_pairs(query) {
        if key == "tab" {
            route.tab = ObjectTab::from_name(&value)
                .filter(|tab| tab.applies_to(&route.resource))
                .unwrap_or_default();
        } else if key == "rev" && value.bytes().all(|b| b.is_ascii_alphanumeric()) {
            route.revision = Some(value).filter(|v| !v.is_empty());
        } else if key == "attach" && is_dns_label(&value) {
            route.attach = Some(value);
        }
    }
    Some(route)
}

/// Appends `&key=value` (or `?key=value` first), encoded; empty values are left out.
fn push_param(out: &mut String, key: &str, value: &str) {
    if value.is_empty() {
        return;
    }
    out.push(if out.contains('?') { '&' } else { '?' });
    out.push_str(key);
    out.push('=');
    out.push_str(&encode_query_component(value));
}

impl Page {
    /// Parses `location.hash` (with or without `#`). Never fails: an unknown or malformed
    /// fragment gives the home page (keeping a valid `ns=`).
    pub fn parse(hash: &str) -> Page {
        let fragment = hash.trim_start_matches('#');
        let (path, query) = fragment.split_once('?').unwrap_or((fragment, ""));
        let parsed = if path.is_empty() || path == "/" {
            Some(Page::Overview(OverviewRoute {
                namespace: parse_events(query).namespace,
            }))
        } else if let Some(rest) = path.strip_prefix("/list/") {
            let segments: Vec<&str> = rest.split('/').collect();
            parse_list(&segments, query).map(Page::ResourceList)
        } else if let Some(rest) = path.strip_prefix("/obj/") {
            let segments: Vec<&str> = rest.split('/').collect();
            parse_object(&segments, query).map(Page::Object)
        } else if path == "/events" {
            Some(Page::Events(parse_events(query)))
        } else if path == "/permissions" {
            Some(Page::Permissions(PermissionsRoute {
                namespace: parse_events(query).namespace,
            }))
        } else if path == "/map" {
            Some(Page::Map(parse_map(query)))
        } else if path == "/replay" {
            Some(Page::Replay)
        } else if let Some(rest) = path.strip_prefix("/create/") {
            let segments: Vec<&str> = rest.split('/').collect();
            parse_list(&segments, query).map(|list| {
                Page::Create(CreateRoute {
                    resource: list.resource,
                    namespace: list.namespace,
                })
            })
        } else {
            None
        };
        parsed.unwrap_or_else(|| Page::Home(Route::parse(hash)))
    }

    /// The fragment, including `#`; [`Page::parse`] gives this page back.
    pub fn to_hash(&self) -> String {
        match self {
            Page::Overview(overview) => {
                let mut out = String::from("#/");
                push_param(
                    &mut out,
                    "ns",
                    overview.namespace.as_deref().unwrap_or_default(),
                );
                out
            }
            Page::Home(route) => route.to_hash(),
            Page::ResourceList(list) => {
                let mut out = format!("#/list/{}", list.resource.key());
                push_param(
                    &mut out,
                    "ns",
                    list.namespace.as_deref().unwrap_or_default(),
                );
                push_param(&mut out, "l", &list.label_selector);
                push_param(&mut out, "f", &list.field_selector);
                let sort = list.sort.as_ref().map(SortSpec::to_param);
                push_param(&mut out, "sort", sort.as_deref().unwrap_or_default());
                push_param(&mut out, "wide", if list.wide { "1" } else { "" });
                push_param(&mut out, "labels", if list.show_labels { "1" } else { "" });
                push_param(&mut out, "unhealthy", if list.unhealthy { "1" } else { "" });
                push_param(
                    &mut out,
                    "clusters",
                    if list.all_clusters { "all" } else { "" },
                );
                push_param(&mut out, "q", &list.filter);
                out
            }
            Page::Object(object) => {
                let namespace = object.namespace.as_deref().unwrap_or(CLUSTER_SCOPE);
                let mut out = format!(
                    "#/obj/{}/{}/{}",
                    object.resource.key(),
                    encode_query_component(namespace),
                    encode_query_component(&object.name)
                );
                if object.tab != ObjectTab::Overview {
                    push_param(&mut out, "tab", object.tab.as_str());
                }
                push_param(
                    &mut out,
                    "rev",
                    object.revision.as_deref().unwrap_or_default(),
                );
                push_param(
                    &mut out,
                    "attach",
                    object.attach.as_deref().unwrap_or_default(),
                );
                out
            }
            Page::Events(events) => {
                let mut out = String::from("#/events");
                push_param(
                    &mut out,
                    "ns",
                    events.namespace.as_deref().unwrap_or_default(),
                );
                let filter = &events.filter;
                push_param(
                    &mut out,
                    "reason",
                    filter.reason.as_deref().unwrap_or_default(),
                );
                push_param(
                    &mut out,
                    "type",
                    filter.event_type.as_deref().unwrap_or_default(),
                );
                out
            }
            Page::Permissions(permissions) => {
                let mut out = String::from("#/permissions");
                push_param(
                    &mut out,
                    "ns",
                    permissions.namespace.as_deref().unwrap_or_default(),
                );
                out
            }
            Page::Map(map) => {
                let mut out = String::from("#/map");
                push_param(&mut out, "ns", map.namespace.as_deref().unwrap_or_default());
                push_param(&mut out, "selector", &map.selector);
                push_param(
                    &mut out,
                    "around",
                    map.around.as_deref().unwrap_or_default(),
                );
                out
            }
            Page::Replay => "#/replay".to_string(),
            Page::Create(create) => {
                let mut out = format!("#/create/{}", create.resource.key());
                push_param(
                    &mut out,
                    "ns",
                    create.namespace.as_deref().unwrap_or_default(),
                );
                out
            }
        }
    }

    /// The page for a namespace chosen in the header or the palette: the same view in that
    /// namespace (an object is in its namespace: another namespace means its kind's list there).
    pub fn with_namespace(self, namespace: Option<String>) -> Page {
        match self {
            Page::Overview(_) => Page::Overview(OverviewRoute { namespace }),
            Page::Home(route) => Page::Home(Route { namespace, ..route }),
            Page::ResourceList(route) => Page::ResourceList(ListRoute { namespace, ..route }),
            Page::Object(route) => Page::ResourceList(ListRoute::new(route.resource, namespace)),
            Page::Events(route) => Page::Events(EventsRoute { namespace, ..route }),
            Page::Permissions(_) => Page::Permissions(PermissionsRoute { namespace }),
            // Another namespace has other applications: its whole map.
            Page::Map(_) => Page::Map(MapRoute {
                namespace,
                ..MapRoute::default()
            }),
            Page::Replay => Page::Replay,
            Page::Create(route) => Page::Create(CreateRoute { namespace, ..route }),
        }
    }

    /// What makes it another built page: the page with what the page reads itself reset (a
    /// list's sort, filter and wide; an object's tab and revision; the explorer's selection
    /// and namespace). Two pages with equal screens are one page, so changing those rebuilds
    /// nothing.
    pub fn screen(&self) -> Page {
        match self {
            Page::Home(_) => Page::Home(Route::default()),
            Page::ResourceList(route) => Page::ResourceList(ListRoute {
                label_selector: route.label_selector.clone(),
                field_selector: route.field_selector.clone(),
                all_clusters: route.all_clusters,
                ..ListRoute::new(route.resource.clone(), route.namespace.clone())
            }),
            Page::Object(route) => Page::Object(ObjectRoute::new(
                route.resource.clone(),
                route.namespace.clone(),
                route.name.clone(),
            )),
            other => other.clone(),
        }
    }

    /// Whether the page fills the window's height and scrolls inside (a virtualized list,
    /// pod logs) instead of scrolling as a whole.
    pub fn fills_height(&self) -> bool {
        match self {
            Page::ResourceList(_) => true,
            Page::Object(route) => matches!(route.tab, ObjectTab::Logs | ObjectTab::Terminal),
            _ => false,
        }
    }

    /// The resource the page is about (the tree selection on home).
    pub fn resource(&self) -> Option<&ResourceId> {
        match self {
            Page::Home(route) => route.resource.as_ref(),
            Page::ResourceList(list) => Some(&list.resource),
            Page::Object(object) => Some(&object.resource),
            Page::Create(create) => Some(&create.resource),
            Page::Overview(_)
            | Page::Events(_)
            | Page::Permissions(_)
            | Page::Map(_)
            | Page::Replay => None,
        }
    }

    /// The namespace the page is about; None for all namespaces or cluster scope.
    pub fn namespace(&self) -> Option<&str> {
        match self {
            Page::Overview(overview) => overview.namespace.as_deref(),
            Page::Home(route) => route.namespace.as_deref(),
            Page::ResourceList(list) => list.namespace.as_deref(),
            Page::Object(object) => object.namespace.as_deref(),
            Page::Events(events) => events.namespace.as_deref(),
            Page::Permissions(permissions) => permissions.namespace.as_deref(),
            Page::Map(map) => map.namespace.as_deref(),
            Page::Create(create) => create.namespace.as_deref(),
            Page::Replay => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::TestRng;

    #[test]
    fn another_namespace_is_the_same_view_there_and_an_object_its_list() {
        let pods = ResourceId::new("", "v1", "pods");
        let list = Page::ResourceList(ListRoute {
            wide: true,
            ..ListRoute::new(pods.clone(), None)
        });
        assert_eq!(
            list.with_namespace(Some("demo".into())),
            Page::ResourceList(ListRoute {
                wide: true,
                ..ListRoute::new(pods.clone(), Some("demo".into()))
            })
        );
        let object = Page::Object(ObjectRoute::new(pods.clone(), Some("a".into()), "web-0"));
        assert_eq!(
            object.with_namespace(Some("b".into())),
            Page::ResourceList(ListRoute::new(pods, Some("b".into())))
        );
        assert_eq!(
            Page::Overview(OverviewRoute::default()).with_namespace(Some("x".into())),
            Page::Overview(OverviewRoute {
                namespace: Some("x".into())
            })
        );
        assert_eq!(Page::Replay.with_namespace(Some("x".into())), Page::Replay);
    }

    #[test]
    fn a_screen_ignores_what_the_page_reads_itself() {
        let pods = ResourceId::new("", "v1", "pods");
        let plain = Page::ResourceList(ListRoute::new(pods.clone(), None));
        let sorted = Page::ResourceList(ListRoute {
            wide: true,
            filter: "web".into(),
            ..ListRoute::new(pods.clone(), None)
        });
        assert_eq!(plain.screen(), sorted.screen());
        let selected = Page::ResourceList(ListRoute {
            label_selector: "app=web".into(),
            ..ListRoute::new(pods.clone(), None)
        });
        assert_ne!(plain.screen(), selected.screen());
        let mut object = ObjectRoute::new(pods.clone(), None, "web-0");
        let overview = Page::Object(object.clone()).screen();
        object.tab = ObjectTab::Yaml;
        assert_eq!(Page::Object(object).screen(), overview);
        let home = Page::Home(Route {
            resource: Some(pods),
            namespace: None,
        });
        assert_eq!(home.screen(), Page::Home(Route::default()).screen());
    }

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
        assert_eq!(Route::default().to_hash(), "#/api");
        assert_eq!(Page::parse("#/api"), Page::Home(Route::default()));
    }

    fn deployments() -> ResourceId {
        ResourceId::new("apps", "v1", "deployments")
    }

    fn round_trip(page: &Page) {
        let hash = page.to_hash();
        assert_eq!(&Page::parse(&hash), page, "{hash}");
    }

    #[test]
    fn list_pages_round_trip_with_awkward_selectors() {
        let mut list = ListRoute::new(deployments(), Some("default".into()));
        list.label_selector = "app=web,tier in (a, b),!legacy,env!=dev".into();
        list.field_selector = r"metadata.name=a\,b,status.phase!=Running".into();
        list.sort = Some(SortSpec::descending("Up-to-date"));
        list.wide = true;
        list.show_labels = true;
        list.unhealthy = true;
        list.all_clusters = true;
        list.filter = "web 1/1 & #x ?y=z %41 + ü".into();
        let page = Page::ResourceList(list);
        let hash = page.to_hash();
        assert!(
            hash.starts_with(
                "#/list/apps/v1/deployments?ns=default&l=app%3Dweb%2Ctier%20in%20%28a%2C%20b%29"
            ),
            "{hash}"
        );
        assert!(
            hash.contains("&sort=-Up-to-date&wide=1&labels=1&unhealthy=1&clusters=all&q="),
            "{hash}"
        );
        // One `#`, one `?`: nothing in the values can end the fragment or start a new query.
        assert_eq!(hash.matches('#').count(), 1);
        assert_eq!(hash.matches('?').count(), 1);
        round_trip(&page);
        // The shortest form.
        let plain = Page::ResourceList(ListRoute::new(ResourceId::new("", "v1", "pods"), None));
        assert_eq!(plain.to_hash(), "#/list/core/v1/pods");
        round_trip(&plain);
    }

    #[test]
    fn suggested_list_fragment_parses() {
        let page = Page::parse("#/list/apps/v1/deployments?ns=default&l=app%3Dweb&f=status.replicas%3D1&sort=-Age&wide=1&unknown=x");
        let Page::ResourceList(list) = page else {
            panic!("a list: {page:?}");
        };
        assert_eq!(list.resource, deployments());
        assert_eq!(list.namespace.as_deref(), Some("default"));
        assert_eq!(list.label_selector, "app=web");
        assert_eq!(list.field_selector, "status.replicas=1");
        assert_eq!(list.sort, Some(SortSpec::descending("Age")));
        assert!(list.wide);
        // Bad values are dropped, not trusted.
        let Page::ResourceList(list) =
            Page::parse("#/list/core/v1/pods?ns=%3Cscript%3E&sort=&wide=yes")
        else {
            panic!("a list");
        };
        assert_eq!((list.namespace, list.sort, list.wide), (None, None, false));
    }

    #[test]
    fn object_pages_round_trip_namespaced_and_cluster_scoped() {
        let mut object = ObjectRoute::new(deployments(), Some("default".into()), "web");
        object.tab = ObjectTab::Yaml;
        let page = Page::Object(object);
        assert_eq!(
            page.to_hash(),
            "#/obj/apps/v1/deployments/default/web?tab=yaml"
        );
        round_trip(&page);
        let node = Page::Object(ObjectRoute::new(
            ResourceId::new("", "v1", "nodes"),
            None,
            "node-1",
        ));
        assert_eq!(node.to_hash(), "#/obj/core/v1/nodes/_/node-1");
        round_trip(&node);
        // RBAC names have colons; odd names are encoded.
        for name in ["system:controller:job-controller", "a b#c?d&e", "ü"] {
            let page = Page::Object(ObjectRoute::new(
                ResourceId::new("rbac.authorization.k8s.io", "v1", "clusterroles"),
                None,
                name,
            ));
            round_trip(&page);
        }
        for tab in ObjectTab::ALL {
            let resource = if tab.applies_to(&deployments()) {
                deployments()
            } else {
                ResourceId::new("", "v1", "pods")
            };
            let mut object = ObjectRoute::new(resource, Some("default".into()), "x");
            object.tab = tab;
            round_trip(&Page::Object(object));
        }
        // An unknown tab opens the overview.
        let Page::Object(object) = Page::parse("#/obj/apps/v1/deployments/default/web?tab=history")
        else {
            panic!("an object");
        };
        assert_eq!(object.tab, ObjectTab::Overview);
    }

    #[test]
    fn every_tab_has_a_label_of_its_own() {
        let labels: std::collections::BTreeSet<&str> =
            ObjectTab::ALL.into_iter().map(ObjectTab::label).collect();
        assert_eq!(labels.len(), ObjectTab::ALL.len());
        assert_eq!(ObjectTab::Yaml.label(), "YAML");
    }

    #[test]
    fn pods_workloads_and_services_have_a_logs_tab() {
        for hash in [
            "#/obj/core/v1/pods/default/web-1?tab=logs",
            "#/obj/apps/v1/deployments/default/web?tab=logs",
            "#/obj/apps/v1/statefulsets/default/db?tab=logs",
            "#/obj/apps/v1/daemonsets/default/agent?tab=logs",
            "#/obj/apps/v1/replicasets/default/web-6d4cf56db6?tab=logs",
            "#/obj/batch/v1/jobs/default/once?tab=logs",
            "#/obj/batch/v1/cronjobs/default/nightly?tab=logs",
            "#/obj/core/v1/services/default/web?tab=logs",
        ] {
            let Page::Object(route) = Page::parse(hash) else {
                panic!("an object: {hash}");
            };
            assert_eq!(route.tab, ObjectTab::Logs, "{hash}");
            assert_eq!(Page::Object(route).to_hash(), hash);
        }
        // Elsewhere the link opens the overview.
        for hash in [
            "#/obj/core/v1/configmaps/default/web?tab=logs",
            "#/obj/example.com/v1/pods/default/web?tab=logs",
        ] {
            let Page::Object(other) = Page::parse(hash) else {
                panic!("an object: {hash}");
            };
            assert_eq!(other.tab, ObjectTab::Overview, "{hash}");
        }
    }

    #[test]
    fn pods_have_a_terminal_tab_that_may_attach() {
        let hash = "#/obj/core/v1/pods/default/web-1?tab=terminal&attach=app";
        let Page::Object(route) = Page::parse(hash) else {
            panic!("an object");
        };
        assert_eq!(route.tab, ObjectTab::Terminal);
        assert_eq!(route.attach.as_deref(), Some("app"));
        assert_eq!(Page::Object(route).to_hash(), hash);
        // Only core pods have one; a container name that is not a DNS label is dropped.
        for (hash, tab, attach) in [
            (
                "#/obj/apps/v1/deployments/default/web?tab=terminal",
                ObjectTab::Overview,
                None,
            ),
            (
                "#/obj/core/v1/pods/default/web-1?tab=terminal&attach=%3Cb%3E",
                ObjectTab::Terminal,
                None,
            ),
        ] {
            let Page::Object(route) = Page::parse(hash) else {
                panic!("an object: {hash}");
            };
            assert_eq!(
                (route.tab, route.attach.as_deref()),
                (tab, attach),
                "{hash}"
            );
        }
    }

    #[test]
    fn the_replay_page_round_trips() {
        assert_eq!(Page::parse("#/replay"), Page::Replay);
        let create = Page::Create(CreateRoute {
            resource: ResourceId::new("apps", "v1", "deployments"),
            namespace: Some("demo".into()),
        });
        assert_eq!(create.to_hash(), "#/create/apps/v1/deployments?ns=demo");
        assert_eq!(Page::parse(&create.to_hash()), create);
        assert_eq!(Page::Replay.to_hash(), "#/replay");
    }

    #[test]
    fn timeline_links_carry_a_revision() {
        let hash = "#/obj/apps/v1/deployments/demo/web?tab=timeline&rev=1234";
        let Page::Object(route) = Page::parse(hash) else {
            panic!("an object");
        };
        assert_eq!(route.tab, ObjectTab::Timeline);
        assert_eq!(route.revision.as_deref(), Some("1234"));
        assert_eq!(Page::Object(route).to_hash(), hash);
        for tab in ObjectTab::ALL {
            assert_eq!(ObjectTab::from_name(tab.as_str()), Some(tab));
        }
        // Only plain resourceVersions are taken from a link.
        let Page::Object(odd) = Page::parse("#/obj/core/v1/pods/a/b?tab=timeline&rev=%3Cx%3E")
        else {
            panic!("an object");
        };
        assert_eq!(odd.revision, None);
    }

    #[test]
    fn malformed_pages_fall_back_to_home() {
        for hash in [
            "#/list/apps/v1",
            "#/list/apps/v1/deployments/extra",
            "#/list/Apps/v1/deployments",
            "#/list/apps/v1/deploy%2Fments",
            "#/list//v1/pods",
            "#/obj/apps/v1/deployments/default",
            "#/obj/apps/v1/deployments/default/",
            "#/obj/apps/v1/deployments/Default/web",
            "#/obj/apps/v1/deployments/default/a%2Fb",
            "#/obj/apps/v1/deployments/default/..",
            "#/obj/apps/v1/deployments/default/%25",
            "#/obj/apps/v1/deployments/default/web/more",
            "#/obj/apps/v1/deployments/default/%ZZ%",
            "#/elsewhere",
            "%%%",
        ] {
            assert!(matches!(Page::parse(hash), Page::Home(_)), "{hash}");
        }
        // No path at all is the landing page, whatever the query says.
        assert_eq!(Page::parse("#?&&=&"), Page::default());
        // The namespace survives a bad path, as the home route reads it.
        assert_eq!(
            Page::parse("#/list/bad?ns=default").namespace(),
            Some("default")
        );
        assert_eq!(Page::default().to_hash(), "#/");
        assert_eq!(Page::parse(""), Page::default());
        assert_eq!(Page::parse("#/"), Page::default());
        let overview = Page::Overview(OverviewRoute {
            namespace: Some("default".into()),
        });
        assert_eq!(overview.to_hash(), "#/?ns=default");
        assert_eq!(Page::parse(&overview.to_hash()), overview);
    }

    #[test]
    fn home_keeps_the_explorer_form() {
        let page = Page::parse("#/r/apps/v1/deployments?ns=kube-system");
        assert_eq!(
            page,
            Page::Home(Route {
                resource: Some(deployments()),
                namespace: Some("kube-system".into()),
            })
        );
        assert_eq!(page.to_hash(), "#/r/apps/v1/deployments?ns=kube-system");
        assert_eq!(page.resource(), Some(&deployments()));
        assert_eq!(page.namespace(), Some("kube-system"));
    }

    #[test]
    fn map_pages_round_trip_with_a_namespace_and_a_selector() {
        let demo = Page::Map(MapRoute {
            namespace: Some("demo".into()),
            ..MapRoute::default()
        });
        assert_eq!(demo.to_hash(), "#/map?ns=demo");
        assert_eq!(Page::parse(&demo.to_hash()), demo);
        let web = Page::Map(MapRoute {
            namespace: Some("demo".into()),
            selector: "app.kubernetes.io/instance in (web,api)".into(),
            around: None,
        });
        assert_eq!(Page::parse(&web.to_hash()), web);
        let around = Page::Map(MapRoute {
            namespace: Some("demo".into()),
            around: Some("0b6f1d8e-0002-4000-8000-000000000002".into()),
            ..MapRoute::default()
        });
        assert_eq!(
            around.to_hash(),
            "#/map?ns=demo&around=0b6f1d8e-0002-4000-8000-000000000002"
        );
        assert_eq!(Page::parse(&around.to_hash()), around);
        assert_eq!(
            Page::parse("#/map?ns=demo&around=%3Cb%3E"),
            demo,
            "a uid is letters, digits and dashes"
        );
        assert!(web.to_hash().starts_with("#/map?ns=demo&selector="));
        // Another namespace is that namespace's whole map; a bad namespace is dropped.
        assert_eq!(
            web.with_namespace(Some("other".into())).to_hash(),
            "#/map?ns=other"
        );
        assert_eq!(
            Page::parse("#/map?ns=%3Cb%3E"),
            Page::Map(MapRoute::default())
        );
    }

    #[test]
    fn permissions_pages_round_trip() {
        let default = Page::Permissions(PermissionsRoute {
            namespace: Some("default".into()),
        });
        assert_eq!(default.to_hash(), "#/permissions?ns=default");
        assert_eq!(Page::parse(&default.to_hash()), default);
        assert_eq!(
            Page::parse("#/permissions"),
            Page::Permissions(PermissionsRoute::default())
        );
    }

    #[test]
    fn events_pages_round_trip_with_and_without_a_namespace() {
        let all = Page::Events(EventsRoute::default());
        assert_eq!(all.to_hash(), "#/events");
        round_trip(&all);
        let demo = Page::Events(EventsRoute {
            namespace: Some("demo".into()),
            ..EventsRoute::default()
        });
        assert_eq!(demo.to_hash(), "#/events?ns=demo");
        round_trip(&demo);
        // `location.hash` with or without its `#`.
        assert_eq!(Page::parse("/events?ns=demo"), demo);
        assert_eq!(demo.namespace(), Some("demo"));
        assert_eq!(demo.resource(), None);
        // A bad namespace is dropped, unknown parameters ignored, extra segments are home.
        assert_eq!(Page::parse("#/events?ns=%3Cb%3E&x=1"), all);
        assert!(matches!(Page::parse("#/events/more"), Page::Home(_)));
    }

    #[test]
    fn events_filters_round_trip_in_the_route() {
        let filtered = Page::Events(EventsRoute {
            namespace: Some("demo".into()),
            filter: EventsFilter {
                reason: Some("BackOff".into()),
                event_type: Some("Warning".into()),
            },
        });
        assert_eq!(
            filtered.to_hash(),
            "#/events?ns=demo&reason=BackOff&type=Warning"
        );
        round_trip(&filtered);
        let warnings = Page::Events(EventsRoute {
            namespace: None,
            filter: EventsFilter {
                reason: None,
                event_type: Some("Warning".into()),
            },
        });
        assert_eq!(warnings.to_hash(), "#/events?type=Warning");
        round_trip(&warnings);
        assert!(matches!(&warnings, Page::Events(r) if r.filter.warnings_only()));
        // Odd values are dropped, the rest kept.
        assert_eq!(
            Page::parse("#/events?reason=%3Cb%3E&type=Warning"),
            warnings
        );
    }

    /// Random fragments never panic, and whatever they parse to prints and parses back.
    #[test]
    fn random_fragments_never_panic_and_round_trip() {
        let pieces = [
            "#", "/", "list", "obj", "r", "apps", "v1", "core", "pods", "_", "default", "web", "?",
            "&", "=", "ns", "l", "f", "sort", "wide", "q", "tab", "yaml", "%", "%2", "%41", "%FF",
            "-", "+", "ü", " ", "..", "1", "events",
        ];
        let mut rng = TestRng::new(0x1234_5678_9ABC_DEF1);
        for _ in 0..20_000 {
            let hash = rng.text(&pieces, 16);
            let page = Page::parse(&hash);
            let again = Page::parse(&page.to_hash());
            assert_eq!(again, page, "{hash:?} -> {}", page.to_hash());
        }
    }
}
