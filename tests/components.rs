//! Component tests: mount views in headless Chromium with wasm-bindgen-test and assert on the
//! DOM. Run by `cargo xtask test` (cargo test --target wasm32-unknown-unknown).

#![cfg(target_arch = "wasm32")]

use kube_atlas::components::GroupList;
use leptos::prelude::*;
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
    let handle = leptos::mount::mount_to(host.clone(), view);
    handle.forget();
    host
}

use wasm_bindgen::JsCast;

#[wasm_bindgen_test]
fn group_list_names_the_core_group_and_escapes_html() {
    let host = mount_fresh(|| {
        view! {
            <GroupList groups=vec![
                (String::new(), vec!["v1".to_string()]),
                ("apps".to_string(), vec!["v1".to_string()]),
                ("<b>evil</b>.example.com".to_string(), vec!["v1beta1".to_string(), "v1alpha1".to_string()]),
            ]/>
        }
    });
    let rows = host.query_selector_all(".group").unwrap();
    assert_eq!(rows.length(), 3);
    let text = host.text_content().unwrap_or_default();
    assert!(text.contains("core"), "core group shown as core: {text}");
    assert!(
        text.contains("<b>evil</b>.example.com"),
        "HTML in names renders as text"
    );
    assert!(
        host.query_selector("b").unwrap().is_none(),
        "no element injected"
    );
    assert!(text.contains("v1beta1, v1alpha1"));
}
