//! The YAML editor of the object page: CodeMirror 6 (line numbers, YAML highlighting, folding,
//! undo/redo, search, diagnostics in the gutter and underlined), and a side-by-side diff view.
//!
//! CodeMirror is a JavaScript bundle of its own (`editor/`, built by `cargo xtask build` and
//! copied by Trunk to `dist/editor/kube-atlas-editor.js`), about three times the app's wasm, so
//! it is not part of the page start: the first editor that opens imports it (a dynamic
//! `import()` of a URL relative to the document, so any path prefix works), and every later one
//! reuses it. Until it has loaded, or if it cannot load, the editor is a plain `<textarea>` with
//! the same text and the same callbacks, so editing never waits for it. No `eval`, no inline
//! script: the import goes through a module snippet that wasm-bindgen writes next to the glue.

use std::cell::RefCell;

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::Serialize;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The bundle, relative to the document (Trunk's `public_url` is `./`).
pub const EDITOR_BUNDLE: &str = "editor/kube-atlas-editor.js";

/// Accessible name of the editor unless the owner gives one.
pub const DEFAULT_LABEL: &str = "YAML editor";

/// CodeMirror in a shadow root of its host, its styles in that root's `adoptedStyleSheets`:
/// true works under a Content-Security-Policy `style-src 'self'` (measured in Chromium). When
/// false, CodeMirror adds `<style>` elements to the document head, which need
/// `style-src 'unsafe-inline'`; e2e tests then find its elements without crossing a shadow
/// root.
pub const ISOLATE_STYLES: bool = false;

#[wasm_bindgen(inline_js = r#"
let loading = null;
// One import for the page; a failed one is forgotten, so a later editor tries again.
export function load_editor_bundle(path) {
  if (loading === null) {
    const url = new URL(path, document.baseURI).href;
    loading = import(url).catch((error) => {
      loading = null;
      throw error;
    });
  }
  return loading;
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = load_editor_bundle)]
    fn load_editor_bundle(path: &str) -> js_sys::Promise;
}

#[wasm_bindgen]
extern "C" {
    /// The bundle's module namespace (editor/src/index.js).
    #[derive(Clone)]
    type EditorBundle;
    #[wasm_bindgen(method, catch, js_name = createEditor)]
    fn create_editor(
        this: &EditorBundle,
        parent: &web_sys::HtmlElement,
        text: &str,
        on_change: &js_sys::Function,
        options: &JsValue,
    ) -> Result<EditorHandle, JsValue>;
    #[wasm_bindgen(method, catch, js_name = createMergeView)]
    fn create_merge_view(
        this: &EditorBundle,
        parent: &web_sys::HtmlElement,
        original: &str,
        modified: &str,
        options: &JsValue,
    ) -> Result<MergeHandle, JsValue>;

    /// One CodeMirror editor.
    #[derive(Clone)]
    type EditorHandle;
    #[wasm_bindgen(method, catch, js_name = setText)]
    fn set_text(this: &EditorHandle, text: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = setDiagnostics)]
    fn set_diagnostics(this: &EditorHandle, list: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = setReadOnly)]
    fn set_read_only(this: &EditorHandle, read_only: bool) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn focus(this: &EditorHandle) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn destroy(this: &EditorHandle) -> Result<(), JsValue>;

    /// One CodeMirror merge (diff) view.
    #[derive(Clone)]
    type MergeHandle;
    #[wasm_bindgen(method, catch, js_name = setTexts)]
    fn set_texts(this: &MergeHandle, original: &str, modified: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = destroy)]
    fn destroy_merge(this: &MergeHandle) -> Result<(), JsValue>;
}

thread_local! {
    static BUNDLE: RefCell<Option<EditorBundle>> = const { RefCell::new(None) };
}

/// A JavaScript exception as text (an Error's message, or whatever it was).
fn describe_js_error(error: &JsValue) -> String {
    if let Some(error) = error.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    error.as_string().unwrap_or_else(|| format!("{error:?}"))
}

/// The editor bundle, imported on the first call (later calls share that import).
async fn editor_bundle() -> Result<EditorBundle, String> {
    if let Some(bundle) = BUNDLE.with(|b| b.borrow().clone()) {
        return Ok(bundle);
    }
    let module = wasm_bindgen_futures::JsFuture::from(load_editor_bundle(EDITOR_BUNDLE))
        .await
        .map_err(|e| describe_js_error(&e))?;
    let has_api = js_sys::Reflect::get(&module, &JsValue::from_str("createEditor"))
        .is_ok_and(|f| f.is_function());
    if !has_api {
        return Err(format!("{EDITOR_BUNDLE} is not the editor bundle"));
    }
    let bundle: EditorBundle = module.unchecked_into();
    BUNDLE.with(|b| *b.borrow_mut() = Some(bundle.clone()));
    Ok(bundle)
}

/// Starts loading the editor bundle ahead of need (say, when the pointer reaches an Edit
/// button); the editor opens at once if it has loaded. Returns the load error, if any.
pub async fn preload_editor() -> Result<(), String> {
    editor_bundle().await.map(|_| ())
}

/// True once the editor bundle has loaded in this page.
pub fn editor_loaded() -> bool {
    BUNDLE.with(|b| b.borrow().is_some())
}

/// How bad a diagnostic is (the mark's colour).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
    Hint,
}

/// A problem at a place in the text, marked in the editor's gutter and underlined from there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EditorDiagnostic {
    /// 1-based line; past the end means the last line.
    pub line: u32,
    /// 1-based column in characters (`chars()`, as YAML parsers count); past the end of the
    /// line means its end.
    pub column: u32,
    pub message: String,
    pub severity: Severity,
}

impl EditorDiagnostic {
    /// A YAML parse error, at its line and column.
    pub fn of_yaml(error: &crate::model::object::yaml::YamlError) -> Self {
        Self::error(
            u32::try_from(error.line).unwrap_or(1),
            u32::try_from(error.column).unwrap_or(1),
            error.message.clone(),
        )
    }

    pub fn error(line: u32, column: u32, message: impl Into<String>) -> Self {
        Self {
            line,
            column,
            message: message.into(),
            severity: Severity::Error,
        }
    }
}

fn diagnostics_to_js(list: &[EditorDiagnostic]) -> JsValue {
    serde_json::to_string(list)
        .ok()
        .and_then(|json| js_sys::JSON::parse(&json).ok())
        .unwrap_or_else(|| js_sys::Array::new().into())
}

/// A plain object of options for the bundle's functions.
fn js_options(entries: &[(&str, JsValue)]) -> JsValue {
    let options = js_sys::Object::new();
    for (key, value) in entries {
        // Setting a property on a fresh plain object does not fail.
        js_sys::Reflect::set(&options, &JsValue::from_str(key), value).ok();
    }
    options.into()
}

/// Where the bundle is for one component.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LoadState {
    Loading,
    Ready,
    /// The plain fallback stays, with this note.
    Failed(String),
}

/// A live CodeMirror editor and the callback it calls (kept alive as long as the editor).
struct LiveEditor {
    handle: EditorHandle,
    _on_change: Closure<dyn FnMut(String)>,
}

/// Rows for the plain fallback: the text's lines, within reason.
fn fallback_rows(text: &str) -> u32 {
    let lines = u32::try_from(text.lines().count()).unwrap_or(u32::MAX);
    lines.clamp(8, 30)
}

/// Once `host` is in the page, loads the bundle (once) and calls `mount` with it and the host;
/// a bundle that cannot load leaves `state` failed.
fn mount_once_loaded(
    host: NodeRef<html::Div>,
    state: RwSignal<LoadState>,
    mount: impl Fn(EditorBundle, web_sys::HtmlElement) + 'static,
) {
    let mount = std::rc::Rc::new(mount);
    let started = StoredValue::new(false);
    Effect::new(move |_| {
        let Some(parent) = host.get() else {
            return;
        };
        if started.get_value() {
            return;
        }
        started.set_value(true);
        let parent: web_sys::HtmlElement = parent.into();
        let mount = std::rc::Rc::clone(&mount);
        spawn_local(async move {
            match editor_bundle().await {
                Ok(bundle) => mount(bundle, parent),
                Err(error) => {
                    state.try_set(LoadState::Failed(error));
                }
            }
        });
    });
}

/// Why the bundle did not load and what is shown instead, once loading has failed.
fn failure_note(
    state: RwSignal<LoadState>,
    what: &'static str,
    instead: &'static str,
) -> Option<impl IntoView> {
    let error = state.with(|s| match s {
        LoadState::Failed(error) => Some(error.clone()),
        _ => None,
    })?;
    Some(view! { <p class="hint" role="status">{format!("{what} ({error}); {instead}.")}</p> })
}

/// A YAML editor: CodeMirror once its bundle has loaded, a plain textarea until then (or for
/// good if it cannot load, with a note saying so).
#[component]
pub fn CodeEditor(
    /// The text it starts with.
    #[prop(into)]
    text: String,
    /// Called with the whole text after each change the user makes (not after `set_text`).
    #[prop(into)]
    on_change: Callback<String>,
    /// Marks in the text (parse errors, say); pushed to the editor whenever they change.
    #[prop(into, optional)]
    diagnostics: Signal<Vec<EditorDiagnostic>>,
    #[prop(into, optional)] read_only: Signal<bool>,
    /// Replaces the text when the number changes: `Some((n, text))` with a new `n` each time
    /// (one undo step in the editor; `on_change` is not called). The value it has when the
    /// editor is created counts as applied already.
    #[prop(into, optional)]
    set_text: Signal<Option<(u64, String)>>,
    /// Accessible name; "YAML editor" unless given.
    #[prop(into, optional)]
    label: Option<String>,
) -> impl IntoView {
    let label = label.unwrap_or_else(|| DEFAULT_LABEL.to_string());
    let stored_label = StoredValue::new(label.clone());
    let rows = fallback_rows(&text);
    // The latest text, whichever of the two holds it: CodeMirror starts from what was typed
    // into the fallback while the bundle loaded.
    let current = StoredValue::new(text.clone());
    // What the fallback shows: set at start and by `set_text`, not by typing.
    let fallback_text = RwSignal::new(text);
    let state = RwSignal::new(LoadState::Loading);
    let ready = Memo::new(move |_| state.with(|s| *s == LoadState::Ready));
    let applied_request = StoredValue::new(set_text.with_untracked(|r| r.as_ref().map(|r| r.0)));
    let host = NodeRef::<html::Div>::new();
    let fallback = NodeRef::<html::Textarea>::new();
    let live = StoredValue::new_local(None::<LiveEditor>);
    // Handles are cloned out before use: the editor may call back into `on_change`, and a
    // stored value must not be reached from inside another's closure.
    let handle = move || live.try_with_value(|l| l.as_ref().map(|l| l.handle.clone()))?;

    let mount = move |bundle: EditorBundle, parent: web_sys::HtmlElement| {
        if live.try_with_value(|_| ()).is_none() {
            // Gone before the bundle arrived.
            return;
        }
        let had_focus = fallback.get_untracked().is_some_and(|el| {
            web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.active_element())
                .is_some_and(|active| active.is_same_node(Some(&el)))
        });
        let on_change_js = Closure::<dyn FnMut(String)>::new(move |text: String| {
            current.try_set_value(text.clone());
            on_change.try_run(text);
        });
        let options = js_options(&[
            ("readOnly", JsValue::from_bool(read_only.get_untracked())),
            ("label", JsValue::from_str(&stored_label.get_value())),
            ("isolateStyles", JsValue::from_bool(ISOLATE_STYLES)),
        ]);
        let text = current.get_value();
        match bundle.create_editor(
            &parent,
            &text,
            on_change_js.as_ref().unchecked_ref(),
            &options,
        ) {
            Ok(editor) => {
                live.set_value(Some(LiveEditor {
                    handle: editor.clone(),
                    _on_change: on_change_js,
                }));
                state.set(LoadState::Ready);
                if had_focus {
                    editor.focus().ok();
                }
            }
            Err(error) => state.set(LoadState::Failed(describe_js_error(&error))),
        }
    };

    mount_once_loaded(host, state, mount);

    Effect::new(move |_| {
        let list = diagnostics.get();
        if !ready.get() {
            return;
        }
        if let Some(editor) = handle() {
            // A failure leaves the old marks; the text is still edited.
            editor.set_diagnostics(&diagnostics_to_js(&list)).ok();
        }
    });
    Effect::new(move |_| {
        let value = read_only.get();
        if !ready.get() {
            return;
        }
        if let Some(editor) = handle() {
            editor.set_read_only(value).ok();
        }
    });
    Effect::new(move |_| {
        let Some((number, text)) = set_text.get() else {
            return;
        };
        if applied_request.get_value() == Some(number) {
            return;
        }
        applied_request.set_value(Some(number));
        current.set_value(text.clone());
        match handle() {
            Some(editor) => {
                editor.set_text(&text).ok();
            }
            None => fallback_text.set(text),
        }
    });

    on_cleanup(move || {
        if let Some(Some(editor)) = live.try_update_value(Option::take) {
            // Destroyed before its callback is dropped, so nothing calls a freed closure.
            editor.handle.destroy().ok();
        }
    });

    let on_fallback_input = move |event: leptos::ev::Event| {
        let text = event_target_value(&event);
        current.set_value(text.clone());
        on_change.run(text);
    };
    view! {
        <div class="code-editor">
            <div node_ref=host class="code-editor-host"></div>
            {move || {
                (!ready.get())
                    .then(|| {
                        view! {
                            <textarea
                                node_ref=fallback
                                class="code-editor-fallback mono"
                                aria-label=label.clone()
                                rows=rows
                                wrap="off"
                                spellcheck="false"
                                autocomplete="off"
                                autocapitalize="off"
                                readonly=move || read_only.get()
                                prop:value=move || fallback_text.get()
                                on:input=on_fallback_input
                                style:width="100%"
                                style:resize="vertical"
                                style:padding="8px"
                                style:color="var(--text)"
                                style:background="var(--code-bg)"
                                style:border="1px solid var(--border)"
                                style:border-radius="6px"
                            ></textarea>
                            <ul class="code-editor-diagnostics">
                                {move || {
                                    diagnostics
                                        .get()
                                        .into_iter()
                                        .map(|d| {
                                            view! {
                                                <li class="field-error">
                                                    {format!(
                                                        "Line {}, column {}: {}",
                                                        d.line,
                                                        d.column,
                                                        d.message,
                                                    )}
                                                </li>
                                            }
                                        })
                                        .collect_view()
                                }}
                            </ul>
                        }
                    })
            }}
            {move || failure_note(state, "The YAML editor could not be loaded", "editing as plain text")}
        </div>
    }
}

/// Two texts side by side, read-only, with their differences marked: the live object against
/// what the server would store, say. Until the bundle loads (or if it cannot), both texts are
/// shown plainly side by side.
#[component]
pub fn MergeView(
    /// The left side.
    #[prop(into)]
    original: Signal<String>,
    /// The right side.
    #[prop(into)]
    modified: Signal<String>,
    /// Accessible names of the two sides.
    #[prop(into, optional)]
    original_label: Option<String>,
    #[prop(into, optional)] modified_label: Option<String>,
    /// Show unchanged stretches in full (by default long ones fold away, with a line to open
    /// them).
    #[prop(optional)]
    show_all: bool,
) -> impl IntoView {
    let original_label = original_label.unwrap_or_else(|| "Original YAML".to_string());
    let modified_label = modified_label.unwrap_or_else(|| "Modified YAML".to_string());
    let state = RwSignal::new(LoadState::Loading);
    let ready = Memo::new(move |_| state.with(|s| *s == LoadState::Ready));
    let host = NodeRef::<html::Div>::new();
    let live = StoredValue::new_local(None::<MergeHandle>);
    let handle = move || live.try_with_value(Option::clone)?;
    let options = StoredValue::new((original_label.clone(), modified_label.clone()));

    mount_once_loaded(host, state, move |bundle, parent| {
        let Some((left, right)) = options.try_get_value() else {
            return;
        };
        let js = js_options(&[
            ("originalLabel", JsValue::from_str(&left)),
            ("modifiedLabel", JsValue::from_str(&right)),
            ("collapseUnchanged", JsValue::from_bool(!show_all)),
            ("isolateStyles", JsValue::from_bool(ISOLATE_STYLES)),
        ]);
        let (Some(a), Some(b)) = (original.try_get_untracked(), modified.try_get_untracked())
        else {
            return;
        };
        match bundle.create_merge_view(&parent, &a, &b, &js) {
            Ok(view) => {
                live.set_value(Some(view));
                state.set(LoadState::Ready);
            }
            Err(error) => {
                state.set(LoadState::Failed(describe_js_error(&error)));
            }
        }
    });
    Effect::new(move |_| {
        let (a, b) = (original.get(), modified.get());
        if !ready.get() {
            return;
        }
        if let Some(view) = handle() {
            view.set_texts(&a, &b).ok();
        }
    });
    on_cleanup(move || {
        if let Some(Some(view)) = live.try_update_value(Option::take) {
            view.destroy_merge().ok();
        }
    });

    view! {
        <div class="merge-view">
            <div node_ref=host class="merge-view-host"></div>
            {move || {
                (!ready.get())
                    .then(|| {
                        let (left, right) = (original_label.clone(), modified_label.clone());
                        view! {
                            <div
                                class="merge-view-fallback"
                                style:display="grid"
                                style:grid-template-columns="1fr 1fr"
                                style:gap="8px"
                            >
                                <pre class="object-text" tabindex="0" aria-label=left>
                                    {move || original.get()}
                                </pre>
                                <pre class="object-text" tabindex="0" aria-label=right>
                                    {move || modified.get()}
                                </pre>
                            </div>
                        }
                    })
            }}
            {move || failure_note(state, "The diff view could not be loaded", "both texts are shown plainly")}
        </div>
    }
}
