//! Small browser helpers the views share: timing marks taken after the frame is painted, and
//! downloads of text made in the page.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::model::time::clock::{Monotonic, Wall};

/// Milliseconds since navigation start (`performance.now()`), 0 without a browser.
pub fn now_ms() -> f64 {
    thread_local! {
        // Looked up once: a watch flush asks the time for every change it applies, and the
        // window and performance lookups cost more than the clock.
        static PERFORMANCE: Option<web_sys::Performance> =
            web_sys::window().and_then(|w| w.performance());
    }
    PERFORMANCE.with(|p| p.as_ref().map(|p| p.now()).unwrap_or(0.0))
}

/// The page's monotonic clock as the model takes it: for durations, never a date.
pub fn monotonic_now() -> Monotonic {
    Monotonic(now_ms())
}

/// The wall clock as the model takes it: when something happened.
pub fn wall_now() -> Wall {
    Wall(js_sys::Date::now())
}

/// The browser's time zone, in minutes east of UTC (120 in Central Europe in summer).
pub fn utc_offset_minutes() -> i32 {
    -(js_sys::Date::new_0().get_timezone_offset() as i32)
}

/// Whether the page is hidden (a background tab, a minimised window): it gets no animation
/// frames, and clocks that only redraw need not tick.
pub fn document_hidden() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.hidden())
}

/// The element kube-atlas writes who is signed in into, when it serves the page for a team
/// (`kube_atlas_server::routing::SESSION_ELEMENT_ID`).
pub const SESSION_ELEMENT_ID: &str = "kube-atlas-session";

/// The page's session has ended (kube-atlas answered 401 to a page it served with one: the
/// sign-in expired, was not renewed, or ended elsewhere): the page goes to `/` once, which
/// kube-atlas answers with its sign-in page saying so. That page is the server's, with no
/// script, so nothing loops. Without a session (kubectl proxy, a kubeconfig) a 401 is the
/// cluster's word, shown where it happened.
pub fn session_ended() {
    thread_local! {
        static LEFT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if element_text(SESSION_ELEMENT_ID).is_none() || LEFT.with(|left| left.replace(true)) {
        return;
    }
    if let Some(window) = web_sys::window() {
        let _ = window.location().assign("/");
    }
}

/// The text of the page's element with this id, if there is one.
pub fn element_text(id: &str) -> Option<String> {
    web_sys::window()?
        .document()?
        .get_element_by_id(id)?
        .text_content()
}

/// Records `performance.mark(name)`: a moment of page start-up that `cargo xtask bench ui`
/// prints beside the requests, so a slow first paint says which step took the time.
pub fn mark(name: &str) {
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        performance.mark(name).ok();
    }
}

/// Resolves once the current DOM changes are painted, or after `at_most_ms` (a hidden tab
/// paints nothing): for work that must not delay a first paint.
pub async fn painted_or_after(at_most_ms: u32) {
    let (painted, on_paint) = futures::channel::oneshot::channel::<()>();
    after_next_paint("kube-atlas:deferred-work", move |_| {
        let _ = painted.send(());
    });
    let timeout = gloo_timers::future::TimeoutFuture::new(at_most_ms);
    futures::future::select(on_paint, timeout).await;
    // One task more: the paint's other callbacks (the time [`after_next_paint`] callers take
    // of it among them) run before the work that waited for it.
    gloo_timers::future::TimeoutFuture::new(0).await;
}

/// Rows a long list draws before the page's first paint: what a 1440-pixel-tall window shows
/// of the sidebar's tree below the quick links. The rest (hundreds with many CRDs) come in the
/// task after that paint, so building and laying them out never delays the first screenful.
pub const ROWS_BEFORE_FIRST_PAINT: usize = 40;

/// Lifts a list's row limit (from [`ROWS_BEFORE_FIRST_PAINT`]) to all rows in a task after
/// the next paint's own, where [`after_next_paint`] callers take the time of that paint.
pub fn draw_all_rows_after_next_paint(limit: leptos::prelude::RwSignal<usize>) {
    use leptos::prelude::Set;
    after_next_paint("kube-atlas:all-rows-due", move |_| {
        leptos::prelude::set_timeout(move || limit.set(usize::MAX), std::time::Duration::ZERO);
    });
}

/// Calls `then` with [`now_ms`] once the current DOM changes have been laid out and painted:
/// a `requestAnimationFrame` callback runs just before the next paint, and a zero-delay
/// timeout queued from it runs just after. Also records a `performance.mark(name)` there, so
/// DevTools traces show the same moment the benchmarks read.
pub fn after_next_paint(name: &'static str, then: impl FnOnce(f64) + 'static) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let after_paint = Closure::once_into_js(move || {
        // A mark is only a diagnostic: the time below is what callers use.
        mark(name);
        then(now_ms());
    });
    let before_paint = Closure::once_into_js(move || {
        if let Some(window) = web_sys::window() {
            window
                .set_timeout_with_callback_and_timeout_and_arguments_0(
                    after_paint.unchecked_ref(),
                    0,
                )
                .ok();
        }
    });
    // Without a frame (a hidden tab) nothing is painted, and nothing is measured.
    window
        .request_animation_frame(before_paint.unchecked_ref())
        .ok();
}

/// Puts a notice over the page that the app stopped (after a panic, when nothing of it runs
/// any more): built with plain DOM calls, since the reactive system may be mid-update, and
/// its text set as text.
pub fn show_app_stopped(details: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if document.get_element_by_id("app-stopped").is_some() {
        return;
    }
    let (Ok(notice), Some(body)) = (document.create_element("div"), document.body()) else {
        return;
    };
    notice.set_id("app-stopped");
    // Best effort: the notice is all that is left to do.
    notice.set_attribute("role", "alert").ok();
    notice.set_text_content(Some(&format!(
        "Kube Atlas stopped after an internal error, so what it shows no longer updates. \
         Reload the page to continue (drafts being edited are kept). Details: {details}"
    )));
    body.prepend_with_node_1(&notice).ok();
}

/// Makes the wasm linear memory reachable as `window.kubeAtlasWasmMemory`, so benchmarks can
/// report it beside the JS heap (it is not part of the JS heap).
pub fn expose_wasm_memory() {
    if let Some(window) = web_sys::window() {
        // Only a diagnostic: a failure leaves the figure out.
        js_sys::Reflect::set(
            &window,
            &"kubeAtlasWasmMemory".into(),
            &wasm_bindgen::memory(),
        )
        .ok();
    }
}

/// Offers `text` as a download named `file_name` (a Blob behind a temporary object URL, so
/// nothing goes back to the server).
pub fn download_text(text: &str, file_name: &str) -> Result<(), wasm_bindgen::JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/plain;charset=utf-8");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a")?.unchecked_into();
    link.set_href(&url);
    link.set_download(file_name);
    link.click();
    // The download has taken the Blob by the time a timeout runs; revoking frees its memory.
    let revoke = Closure::once_into_js(move || {
        // Failing leaves the Blob until the page closes: nothing to recover.
        web_sys::Url::revoke_object_url(&url).ok();
    });
    window.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 1000)?;
    Ok(())
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// A value kept in this browser's localStorage (drafts); None when absent or storage is off.
pub fn local_storage_get(key: &str) -> Option<String> {
    local_storage()?.get_item(key).ok()?
}

/// Keeps `value` under `key`; false when storage is off or full.
pub fn local_storage_set(key: &str, value: &str) -> bool {
    local_storage().is_some_and(|s| s.set_item(key, value).is_ok())
}

pub fn local_storage_remove(key: &str) {
    if let Some(storage) = local_storage() {
        // Removing a missing key is no error; a disabled storage has nothing to remove.
        storage.remove_item(key).ok();
    }
}

#[wasm_bindgen::prelude::wasm_bindgen(inline_js = r#"
const modules = new Map();
// One import per module for the page; a failed one is forgotten, so a later call tries again.
export function import_module_once(path) {
  const url = new URL(path, document.baseURI).href;
  if (!modules.has(url)) {
    modules.set(url, import(url).catch((error) => {
      modules.delete(url);
      throw error;
    }));
  }
  return modules.get(url);
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = import_module_once)]
    fn import_module_once(path: &str) -> js_sys::Promise;
}

/// The ES module at `path` (relative to the document, so any path prefix works), imported on
/// the first call; later calls share that import. The lazily loaded bundles (the editor, the
/// terminal) come through here, never at page start.
pub async fn import_module(path: &str) -> Result<wasm_bindgen::JsValue, String> {
    wasm_bindgen_futures::JsFuture::from(import_module_once(path))
        .await
        .map_err(|e| describe_js_error(&e))
}

/// A JavaScript exception as text (an Error's message, or whatever it was).
pub fn describe_js_error(error: &wasm_bindgen::JsValue) -> String {
    use wasm_bindgen::JsCast;
    if let Some(error) = error.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    error.as_string().unwrap_or_else(|| format!("{error:?}"))
}
