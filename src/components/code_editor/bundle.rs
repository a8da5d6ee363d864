//! The CodeMirror bundle: its JavaScript bindings, loading it once for the page, and what
//! the editors share (diagnostics, options, the plain fallback).

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

#[wasm_bindgen]
extern "C" {
    /// The bundle's module namespace (editor/src/index.js).
    #[derive(Clone)]
    pub(super) type EditorBundle;
    #[wasm_bindgen(method, catch, js_name = createEditor)]
    pub(super) fn create_editor(
        this: &EditorBundle,
        parent: &web_sys::HtmlElement,
        text: &str,
        on_change: &js_sys::Function,
        options: &JsValue,
    ) -> Result<EditorHandle, JsValue>;
    #[wasm_bindgen(method, catch, js_name = createMergeView)]
    pub(super) fn create_merge_view(
        this: &EditorBundle,
        parent: &web_sys::HtmlElement,
        original: &str,
        modified: &str,
        options: &JsValue,
    ) -> Result<MergeHandle, JsValue>;

    /// One CodeMirror editor.
    #[derive(Clone)]
    pub(super) type EditorHandle;
    #[wasm_bindgen(method, catch, js_name = setText)]
    pub(super) fn set_text(this: &EditorHandle, text: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = setDiagnostics)]
    pub(super) fn set_diagnostics(this: &EditorHandle, list: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = setReadOnly)]
    pub(super) fn set_read_only(this: &EditorHandle, read_only: bool) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    pub(super) fn focus(this: &EditorHandle) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    pub(super) fn destroy(this: &EditorHandle) -> Result<(), JsValue>;

    /// One CodeMirror merge (diff) view.
    #[derive(Clone)]
    pub(super) type MergeHandle;
    #[wasm_bindgen(method, catch, js_name = setTexts)]
    pub(super) fn set_texts(
        this: &MergeHandle,
        original: &str,
        modified: &str,
    ) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = destroy)]
    pub(super) fn destroy_merge(this: &MergeHandle) -> Result<(), JsValue>;
}

thread_local! {
    static BUNDLE: RefCell<Option<EditorBundle>> = const { RefCell::new(None) };
}

pub(super) use crate::browser::describe_js_error;

/// The editor bundle, imported on the first call (later calls share that import).
pub(super) async fn editor_bundle() -> Result<EditorBundle, String> {
    if let Some(bundle) = BUNDLE.with(|b| b.borrow().clone()) {
        return Ok(bundle);
    }
    let module = crate::browser::import_module(EDITOR_BUNDLE).await?;
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

pub(super) fn diagnostics_to_js(list: &[EditorDiagnostic]) -> JsValue {
    serde_json::to_string(list)
        .ok()
        .and_then(|json| js_sys::JSON::parse(&json).ok())
        .unwrap_or_else(|| js_sys::Array::new().into())
}

/// A plain object of options for the bundle's functions.
pub(super) fn js_options(entries: &[(&str, JsValue)]) -> JsValue {
    let options = js_sys::Object::new();
    for (key, value) in entries {
        // Setting a property on a fresh plain object does not fail.
        js_sys::Reflect::set(&options, &JsValue::from_str(key), value).ok();
    }
    options.into()
}

/// Where the bundle is for one component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum LoadState {
    Loading,
    Ready,
    /// The plain fallback stays, with this note.
    Failed(String),
}

/// A live CodeMirror editor and the callback it calls (kept alive as long as the editor).
pub(super) struct LiveEditor {
    pub(super) handle: EditorHandle,
    pub(super) _on_change: Closure<dyn FnMut(String)>,
}

/// Rows for the plain fallback: the text's lines, within reason.
pub(super) fn fallback_rows(text: &str) -> u32 {
    let lines = u32::try_from(text.lines().count()).unwrap_or(u32::MAX);
    lines.clamp(8, 30)
}

/// Once `host` is in the page, loads the bundle (once) and calls `mount` with it and the host;
/// a bundle that cannot load leaves `state` failed.
pub(super) fn mount_once_loaded(
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
pub(super) fn failure_note(
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
