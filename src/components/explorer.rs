//! The explorer panel for one resource: its REST mapping (GVK <-> GVR), URL paths, the HTTP
//! methods its verbs allow, and copyable curl and kubectl equivalents.

use leptos::prelude::*;

use crate::model::navigation::route::{ListRoute, Page};

use crate::model::{
    api::endpoints::Endpoint, api::endpoints::NameArg, api::endpoints::NamespaceArg,
    api::endpoints::Operation, api::tree::api_version, api::tree::ResourceRef,
    api::version::Stability, ApiGroup,
};

/// Origin the page was served from: the API is on the same origin (kubectl proxy).
pub fn page_origin() -> String {
    web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_else(|| crate::model::api::endpoints::DEFAULT_PROXY_BASE.to_string())
}

fn copy_to_clipboard(text: &str) {
    if let Some(window) = web_sys::window() {
        let _ = window.navigator().clipboard().write_text(text);
    }
}

/// A line of code with a copy button.
#[component]
pub fn Copyable(text: String, #[prop(optional)] label: &'static str) -> impl IntoView {
    let copied = RwSignal::new(false);
    let to_copy = text.clone();
    view! {
        <div class="copyable">
            <code>{text}</code>
            <button
                type="button"
                title="Copy to clipboard"
                aria-label=format!("Copy {label}")
                on:click=move |_| {
                    copy_to_clipboard(&to_copy);
                    copied.set(true);
                }
            >
                {move || if copied.get() { "Copied" } else { "Copy" }}
            </button>
        </div>
    }
}

fn chips(items: &[String]) -> AnyView {
    if items.is_empty() {
        return view! { <span class="hint">"none"</span> }.into_any();
    }
    view! {
        <span class="chips">
            {items.iter().map(|i| view! { <span class="chip">{i.clone()}</span> }).collect_view()}
        </span>
    }
    .into_any()
}

fn endpoint_row(
    endpoint: &Endpoint,
    r: &ResourceRef<'_>,
    ns: NamespaceArg<'_>,
    origin: &str,
) -> impl IntoView {
    let method = endpoint.method.as_str();
    let what = match &endpoint.subresource {
        Some(sub) => format!("{} /{sub}", endpoint.op.verb()),
        None => endpoint.op.verb().to_string(),
    };
    let kubectl = match (&endpoint.subresource, endpoint.op) {
        (None, op) => Some(r.kubectl_command(op, ns, NameArg::Placeholder)),
        (Some(_), _) => endpoint.kubectl_raw(),
    };
    view! {
        <tr>
            <th><span class=format!("method {method}")>{method}</span></th>
            <td>
                <div class="mono">{endpoint.path.template()}</div>
                <div class="hint">{what}</div>
            </td>
            <td style="width: 55%">
                <Copyable text=endpoint.curl(origin) label="curl command"/>
                {kubectl.map(|k| view! { <Copyable text=k label="kubectl command"/> })}
            </td>
        </tr>
    }
}

/// Everything about one resource. `namespace` is the global namespace selection.
#[component]
pub fn ResourceExplorer(
    /// The resource's group (owned: the view is built once from it).
    group: ApiGroup,
    version: String,
    plural: String,
    namespace: Option<String>,
    subresource: Option<String>,
) -> impl IntoView {
    let found = group
        .version(&version)
        .and_then(|v| v.resource(&plural).map(|r| (v, r)));
    match found {
        Some((group_version, resource)) => explorer_view(
            ResourceRef {
                group: &group,
                version: group_version,
                resource,
            },
            namespace,
            subresource,
        ),
        None => view! {
            <p class="error" role="alert">
                {format!(
                    "The server does not serve {plural} in {}.",
                    api_version(&group.name, &version)
                )}
            </p>
        }
        .into_any(),
    }
}

fn explorer_view(
    r: ResourceRef<'_>,
    namespace: Option<String>,
    subresource: Option<String>,
) -> AnyView {
    let res = r.resource;
    let ns = match &namespace {
        Some(n) => NamespaceArg::Named(n.as_str()),
        None => NamespaceArg::All,
    };
    // Behind kube-atlas, the page's cluster's API is under its prefix.
    let origin = format!("{}{}", page_origin(), crate::state::clusters::api_base());
    let gv = r.api_version();
    let collection = r.collection_path(ns).template();
    let scope = if res.namespaced {
        "Namespaced"
    } else {
        "Cluster"
    };
    let stability = match r.version.stability {
        Stability::Alpha => Some(("alpha", "alpha")),
        Stability::Beta => Some(("beta", "beta")),
        _ => None,
    };
    let other_versions: Vec<(String, bool)> = r
        .group
        .versions
        .iter()
        .filter(|v| v.resource(&res.plural).is_some())
        .map(|v| (v.version.clone(), v.preferred))
        .collect();
    let endpoints = r.endpoints(ns, NameArg::Placeholder);
    let sub_endpoints = r.subresource_endpoints(ns, NameArg::Placeholder);
    let list_curl = endpoints
        .iter()
        .find(|e| e.op == Operation::List)
        .map(|e| e.curl(&origin));
    let subresources: Vec<(String, String, String)> = res
        .subresources
        .iter()
        .map(|s| {
            let kind = match &s.kind_group_version {
                Some(gv) => format!("{} ({})", s.kind, gv.api_version()),
                None => s.kind.clone(),
            };
            (s.name.clone(), kind, s.verbs.join(", "))
        })
        .collect();
    let highlighted = subresource.clone();

    let list_href = res
        .supports("list")
        .then(|| Page::ResourceList(ListRoute::new(r.id(), namespace.clone())).to_hash());
    view! {
        <section class="explorer" aria-label=format!("{} explorer", res.plural)>
            <h1>
                {res.kind.clone()} " "
                <span class="kind">{format!("{} · {gv}", res.plural)}</span>
            </h1>
            {list_href.map(|href| view! {
                <p><a class="button" href=href>{format!("List {}", res.plural)}</a></p>
            })}
            <p class="subtitle">
                <span class="badge scope">{scope}</span> " "
                {r.version.preferred.then(|| view! { <span class="badge preferred">"preferred version"</span> })}
                " "
                {stability.map(|(class, text)| view! { <span class=format!("badge {class}")>{text}</span> })}
            </p>

            <div class="card">
                <div class="mapping" aria-label="REST mapping">
                    <div class="box">
                        <div class="label">"GVK · schema"</div>
                        <div class="mono gvk">{format!("{gv}, Kind={}", res.kind)}</div>
                    </div>
                    <span class="arrow">"⇄"</span>
                    <div class="box">
                        <div class="label">"GVR · resource"</div>
                        <div class="mono gvr">{format!("{gv}, Resource={}", res.plural)}</div>
                    </div>
                    <span class="arrow">"→"</span>
                    <div class="box">
                        <div class="label">"URL"</div>
                        <div class="mono">{collection}</div>
                    </div>
                </div>
                <p class="hint">
                    "A GVK (group, version, kind) names a schema: the apiVersion and kind of an object. "
                    "A GVR (group, version, resource) names the URL that serves it. A group serves "
                    "several versions of the same objects; clients that do not name a version use "
                    "the group's preferred version."
                </p>
                {list_curl.map(|c| view! { <Copyable text=c label="list command"/> })}
            </div>

            <h2>"Resource"</h2>
            <div class="card">
                <table class="props">
                    <tr><th>"Kind"</th><td class="mono">{res.kind.clone()}</td></tr>
                    <tr><th>"apiVersion"</th><td class="mono">{gv.clone()}</td></tr>
                    <tr><th>"Resource (plural)"</th><td class="mono">{res.plural.clone()}</td></tr>
                    <tr><th>"Singular"</th><td class="mono">{res.singular.clone()}</td></tr>
                    <tr><th>"Scope"</th><td>{scope}</td></tr>
                    <tr><th>"Verbs"</th><td>{chips(&res.verbs)}</td></tr>
                    <tr><th>"Short names"</th><td>{chips(&res.short_names)}</td></tr>
                    <tr><th>"Categories"</th><td>{chips(&res.categories)}</td></tr>
                    <tr>
                        <th>"Served in versions"</th>
                        <td>
                            <span class="chips">
                                {other_versions
                                    .into_iter()
                                    .map(|(v, preferred)| {
                                        let label = if preferred { format!("{v} (preferred)") } else { v };
                                        view! { <span class="chip">{label}</span> }
                                    })
                                    .collect_view()}
                            </span>
                        </td>
                    </tr>
                    <tr><th>"kubectl name"</th><td class="mono">{r.kubectl_name()}</td></tr>
                </table>
            </div>

            <h2>"Subresources"</h2>
            <div class="card">
                {if subresources.is_empty() {
                    view! { <p class="hint">"This resource has no subresources."</p> }.into_any()
                } else {
                    view! {
                        <table class="props subresources">
                            {subresources
                                .into_iter()
                                .map(|(name, kind, verbs)| {
                                    let is_highlighted = highlighted.as_deref() == Some(name.as_str());
                                    view! {
                                        <tr class:selected=is_highlighted>
                                            <th class="mono">{format!("{}/{}", res.plural, name)}</th>
                                            <td>{kind}</td>
                                            <td class="hint">{verbs}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </table>
                    }
                    .into_any()
                }}
            </div>

            <h2>"Endpoints"</h2>
            <p class="hint">
                {format!(
                    "Each verb maps to an HTTP method on a collection or object URL{}.",
                    match &namespace {
                        Some(n) => format!(" (namespace {n})"),
                        None => String::new(),
                    }
                )}
            </p>
            <div class="card">
                <table class="endpoints">
                    {endpoints.iter().map(|e| endpoint_row(e, &r, ns, &origin)).collect_view()}
                    {sub_endpoints.iter().map(|e| endpoint_row(e, &r, ns, &origin)).collect_view()}
                </table>
            </div>
        </section>
    }
    .into_any()
}
