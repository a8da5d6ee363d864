//! Component tests: mount views in headless Chromium with wasm-bindgen-test and assert on the
//! DOM. Run by `cargo xtask test` (cargo test --target wasm32-unknown-unknown).

#![cfg(target_arch = "wasm32")]

use std::collections::HashSet;

use kube_atlas::components::{
    ApiTreeView, DisplayCell, DisplayRow, HeaderCell, QuickAccess, ResourceExplorer, VirtualTable,
};
use kube_atlas::model::navigation::sidebar_tree::NodeKey;
use kube_atlas::model::{ApiGroup, ApiResource, ApiTree, GroupVersion, ResourceId, Subresource};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn mount_fresh<F, V>(view: F) -> web_sys::HtmlElement
where
    F: FnOnce() -> V + 'static,
    V: IntoView + 'static,
{
    let document = web_sys::window().unwrap().document().unwrap();
    let host: web_sys::HtmlElement = document.create_element("div").unwrap().unchecked_into();
    document.body().unwrap().append_child(&host).unwrap();
    leptos::mount::mount_to(host.clone(), view).forget();
    host
}

fn resource(plural: &str, kind: &str, short: &[&str], subs: &[(&str, &str)]) -> ApiResource {
    ApiResource {
        plural: plural.into(),
        singular: plural.trim_end_matches('s').into(),
        kind: kind.into(),
        namespaced: true,
        verbs: [
            "create", "delete", "get", "list", "patch", "update", "watch",
        ]
        .map(String::from)
        .to_vec(),
        short_names: short.iter().map(|s| s.to_string()).collect(),
        categories: vec!["all".into()],
        subresources: subs
            .iter()
            .map(|(name, kind)| Subresource {
                name: (*name).into(),
                kind: (*kind).into(),
                kind_group_version: None,
                verbs: vec!["get".into(), "patch".into(), "update".into()],
            })
            .collect(),
    }
}

fn sample_tree() -> ApiTree {
    ApiTree::new(vec![
        ApiGroup::new(
            "",
            vec![GroupVersion::new(
                "v1",
                false,
                vec![resource("pods", "Pod", &["po"], &[("status", "Pod")])],
            )],
            Some("v1"),
        ),
        ApiGroup::new(
            "apps",
            vec![GroupVersion::new(
                "v1",
                false,
                vec![resource(
                    "deployments",
                    "Deployment",
                    &["deploy"],
                    &[("status", "Deployment")],
                )],
            )],
            Some("v1"),
        ),
        ApiGroup::new(
            "<b>evil</b>.example.com",
            vec![
                GroupVersion::new(
                    "v1beta1",
                    false,
                    vec![resource("things", "Thing", &[], &[])],
                ),
                GroupVersion::new(
                    "v1alpha1",
                    false,
                    vec![resource("things", "Thing", &[], &[])],
                ),
            ],
            Some("v1beta1"),
        ),
    ])
}

async fn tick() {
    gloo_timers::future::TimeoutFuture::new(20).await;
}

fn texts(host: &web_sys::HtmlElement, selector: &str) -> Vec<String> {
    let nodes = host.query_selector_all(selector).unwrap();
    (0..nodes.length())
        .filter_map(|i| nodes.item(i))
        .map(|n| n.text_content().unwrap_or_default())
        .collect()
}

#[wasm_bindgen_test]
async fn tree_shows_groups_escapes_html_and_filters() {
    let filter = RwSignal::new(String::new());
    let selected = RwSignal::new(None::<ResourceId>);
    let host = mount_fresh(move || {
        view! {
            <ApiTreeView
                tree=Signal::derive(sample_tree)
                filter=filter
                selected=selected
                selected_subresource=RwSignal::new(None)
                expanded=RwSignal::new(HashSet::<NodeKey>::new())
            />
        }
    });
    tick().await;
    let groups = texts(&host, "[role=treeitem] .group-label");
    assert_eq!(groups, ["core", "apps", "<b>evil</b>.example.com"]);
    let core = host.query_selector("[data-key='g:core']").unwrap().unwrap();
    assert_eq!(
        core.get_attribute("aria-level").as_deref(),
        Some("1"),
        "{}",
        core.outer_html()
    );
    assert!(
        host.query_selector(".tree b").unwrap().is_none(),
        "HTML in names renders as text"
    );

    filter.set("deploy".into());
    tick().await;
    let labels = texts(
        &host,
        "[role=treeitem] .node-label, [role=treeitem] .group-label",
    );
    assert_eq!(labels, ["apps", "v1", "deployments"]);

    // Clicking a resource row selects it.
    let row: web_sys::HtmlElement = host
        .query_selector("[data-key='r:apps/v1/deployments'] .tree-row")
        .unwrap()
        .unwrap()
        .unchecked_into();
    row.click();
    tick().await;
    assert_eq!(
        selected.get_untracked(),
        Some(ResourceId::new("apps", "v1", "deployments"))
    );
    let item = host
        .query_selector("[data-key='r:apps/v1/deployments']")
        .unwrap()
        .unwrap();
    assert_eq!(item.get_attribute("aria-selected").as_deref(), Some("true"));
}

#[wasm_bindgen_test]
async fn quick_access_shows_a_few_custom_resources_until_asked_for_more() {
    let mut groups: Vec<ApiGroup> = (0..30)
        .map(|i| {
            ApiGroup::new(
                format!("g{i:02}.example.com"),
                vec![GroupVersion::new(
                    "v1",
                    false,
                    vec![resource("widgets", &format!("Widget{i:02}"), &[], &[])],
                )],
                Some("v1"),
            )
        })
        .collect();
    groups.extend(sample_tree().groups.iter().cloned());
    let tree = Signal::derive(move || ApiTree::new(groups.clone()));
    let page = Signal::derive(|| kube_atlas::model::navigation::route::Page::parse("#/api"));
    let host = mount_fresh(move || view! { <QuickAccess tree=tree page=page/> });
    tick().await;
    let links = |host: &web_sys::HtmlElement| texts(host, "nav.quick-access a");
    let shown = links(&host);
    // Pods, Deployments, then 8 of the 31 custom resources (sorted by label), then the button.
    assert_eq!(shown.len(), 2 + 8, "{shown:?}");
    assert_eq!(shown[2], "Things");
    assert_eq!(texts(&host, "nav.quick-access button.more"), ["23 more"]);
    let more: web_sys::HtmlElement = host
        .query_selector("nav.quick-access button.more")
        .unwrap()
        .unwrap()
        .unchecked_into();
    assert_eq!(
        more.get_attribute("aria-expanded").as_deref(),
        Some("false")
    );
    more.click();
    tick().await;
    assert_eq!(links(&host).len(), 2 + 31);
    assert_eq!(texts(&host, "nav.quick-access button.more"), ["Fewer"]);
}

#[wasm_bindgen_test]
async fn tree_keyboard_expands_and_moves() {
    let host = mount_fresh(move || {
        view! {
            <ApiTreeView
                tree=Signal::derive(sample_tree)
                filter=RwSignal::new(String::new())
                selected=RwSignal::new(None)
                selected_subresource=RwSignal::new(None)
                expanded=RwSignal::new(HashSet::<NodeKey>::new())
            />
        }
    });
    tick().await;
    let tree = host.query_selector("[role=tree]").unwrap().unwrap();
    let press = |key: &str| {
        let init = web_sys::KeyboardEventInit::new();
        init.set_key(key);
        init.set_bubbles(true);
        let event =
            web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
        tree.dispatch_event(&event).unwrap();
    };
    press("ArrowDown"); // focus core
    tick().await;
    press("ArrowRight"); // expand core
    tick().await;
    let core = host.query_selector("[data-key='g:core']").unwrap().unwrap();
    assert_eq!(core.get_attribute("aria-expanded").as_deref(), Some("true"));
    assert!(host
        .query_selector("[data-key='v:core/v1']")
        .unwrap()
        .is_some());
    press("ArrowRight"); // into v1
    tick().await;
    let v1 = host
        .query_selector("[data-key='v:core/v1']")
        .unwrap()
        .unwrap();
    assert_eq!(v1.get_attribute("tabindex").as_deref(), Some("0"));
}

#[wasm_bindgen_test]
async fn explorer_shows_mapping_paths_and_commands() {
    let group = sample_tree().group("apps").cloned().unwrap();
    let host = mount_fresh(move || {
        view! {
            <ResourceExplorer
                group=group
                version="v1".to_string()
                plural="deployments".to_string()
                namespace=Some("default".to_string())
                subresource=None
            />
        }
    });
    tick().await;
    let text = host.text_content().unwrap_or_default();
    assert!(text.contains("apps/v1, Kind=Deployment"), "{text}");
    assert!(text.contains("apps/v1, Resource=deployments"));
    assert!(text.contains("/apis/apps/v1/namespaces/default/deployments"));
    assert!(
        text.contains("kubectl get deployments.apps -n default"),
        "{text}"
    );
    assert!(texts(&host, ".method").iter().any(|m| m == "PATCH"));
}

fn numbered_row(index: usize) -> DisplayRow {
    let name = format!("pod-{index:06}");
    DisplayRow {
        id: name.clone(),
        key: name.clone(),
        href: format!("#/obj/core/v1/pods/default/{name}"),
        cells: vec![
            DisplayCell {
                text: name,
                numeric: false,
                link: true,
                changed: false,
                health: None,
                flag: None,
            },
            DisplayCell {
                text: index.to_string(),
                numeric: true,
                link: false,
                changed: index == 1,
                health: None,
                flag: None,
            },
        ],
        problem: None,
    }
}

fn press(target: &web_sys::Element, key: &str) {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    let event =
        web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    target.dispatch_event(&event).unwrap();
}

#[wasm_bindgen_test]
async fn virtual_table_keeps_only_the_visible_rows_of_100000() {
    const ROWS: usize = 100_000;
    let opened = RwSignal::new(None::<String>);
    // The app's stylesheet is not loaded here: the two rules virtualization relies on.
    let document = web_sys::window().unwrap().document().unwrap();
    let style = document.create_element("style").unwrap();
    style.set_text_content(Some(
        ".vt-scroll { flex: 1; min-height: 0; overflow: auto; } .vt-row { height: 30px; }",
    ));
    document.head().unwrap().append_child(&style).unwrap();
    let host = mount_fresh(move || {
        view! {
            <div style="height: 600px; display: flex; flex-direction: column;">
                <VirtualTable
                    label="Pods"
                    headers=Signal::derive(|| vec![
                        HeaderCell { id: "Name".into(), label: "NAME".into(), description: String::new(), numeric: false, sorted: None },
                        HeaderCell { id: "Index".into(), label: "INDEX".into(), description: String::new(), numeric: true, sorted: None },
                    ])
                    row_count=Signal::derive(|| ROWS)
                    row_at=Callback::new(|i: usize| (i < ROWS).then(|| numbered_row(i)))
                    on_sort=Callback::new(|_: String| {})
                    on_open=Callback::new(move |href: String| opened.set(Some(href)))
                />
            </div>
        }
    });
    tick().await;
    let grid = host.query_selector("table[role=grid]").unwrap().unwrap();
    assert_eq!(
        grid.get_attribute("aria-rowcount").as_deref(),
        Some("100001")
    );
    let in_dom = host.query_selector_all("tbody tr.vt-row").unwrap().length();
    assert!((10..80).contains(&in_dom), "{in_dom} rows in the DOM");
    // Names are links, counts are right-aligned.
    assert_eq!(
        texts(&host, "tbody tr.vt-row td.name-cell a")[0],
        "pod-000000"
    );
    assert_eq!(
        host.query_selector_all("tbody td.numeric")
            .unwrap()
            .length(),
        in_dom
    );

    // End goes to the last row (scrolled into view), Enter opens it.
    let scroller = host.query_selector(".vt-scroll").unwrap().unwrap();
    press(&scroller, "End");
    tick().await;
    let active = host
        .query_selector("tr.vt-row.active")
        .unwrap()
        .expect("an active row");
    assert_eq!(
        active.get_attribute("aria-rowindex").as_deref(),
        Some("100001")
    );
    assert!(active
        .text_content()
        .unwrap_or_default()
        .contains("pod-099999"));
    let in_dom = host.query_selector_all("tbody tr.vt-row").unwrap().length();
    assert!(
        (10..80).contains(&in_dom),
        "{in_dom} rows in the DOM after scrolling"
    );
    press(&scroller, "ArrowUp");
    tick().await;
    press(&scroller, "Enter");
    tick().await;
    assert_eq!(
        opened.get_untracked().as_deref(),
        Some("#/obj/core/v1/pods/default/pod-099998")
    );
}

/// A paced run scheduled for later is dropped when its view goes: by then the view's
/// signals are disposed, and reading one panics (which stops the whole app).
#[wasm_bindgen_test]
async fn a_paced_run_scheduled_before_its_view_went_does_not_run() {
    use kube_atlas::state::pacing::PacedRun;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    fn busy_ms(ms: f64) {
        let until = js_sys::Date::now() + ms;
        while js_sys::Date::now() < until {}
    }
    let count = || RUNS.fetch_add(1, Ordering::SeqCst);
    let view = Owner::new();
    let paced = view.with(|| PacedRun::new(4.0));
    // A first run that costs 10 ms: the next ask waits 40 ms, scheduled on a timer.
    paced.run_now(|| {
        count();
        busy_ms(10.0);
    });
    paced.ask(move || {
        count();
    });
    assert_eq!(RUNS.load(Ordering::SeqCst), 1, "the second run waits");
    // Still there: the scheduled run happens.
    gloo_timers::future::TimeoutFuture::new(80).await;
    assert_eq!(RUNS.load(Ordering::SeqCst), 2, "the scheduled run ran");
    paced.run_now(|| busy_ms(10.0));
    paced.ask(move || {
        count();
    });
    // The view goes before the timer fires (as when the user leaves it).
    view.cleanup();
    gloo_timers::future::TimeoutFuture::new(80).await;
    assert_eq!(
        RUNS.load(Ordering::SeqCst),
        2,
        "the run scheduled for a gone view"
    );
}
