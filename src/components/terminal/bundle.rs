//! The xterm.js bundle (editor/src/terminal.js, built into dist/editor/): its bindings, and
//! loading it once for the page when a Terminal tab first opens.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The bundle, relative to the document (Trunk's `public_url` is `./`).
pub const TERMINAL_BUNDLE: &str = "editor/kube-atlas-terminal.js";

#[wasm_bindgen]
extern "C" {
    /// The bundle's module namespace.
    #[derive(Clone)]
    pub(super) type TerminalBundle;
    #[wasm_bindgen(method, catch, js_name = createTerminal)]
    pub(super) fn create_terminal(
        this: &TerminalBundle,
        parent: &web_sys::HtmlElement,
        on_data: &js_sys::Function,
        on_resize: &js_sys::Function,
        convert_eol: bool,
    ) -> Result<TerminalHandle, JsValue>;

    /// One xterm.js terminal.
    #[derive(Clone)]
    pub(super) type TerminalHandle;
    #[wasm_bindgen(method)]
    pub(super) fn write(this: &TerminalHandle, bytes: &[u8]);
    #[wasm_bindgen(method, js_name = writeText)]
    pub(super) fn write_text(this: &TerminalHandle, text: &str);
    #[wasm_bindgen(method)]
    pub(super) fn selection(this: &TerminalHandle) -> String;
    #[wasm_bindgen(method)]
    pub(super) fn paste(this: &TerminalHandle, text: &str);
    #[wasm_bindgen(method)]
    pub(super) fn focus(this: &TerminalHandle);
    #[wasm_bindgen(method)]
    pub(super) fn destroy(this: &TerminalHandle);
}

/// The terminal bundle, imported on the first call (later calls share that import).
pub(super) async fn terminal_bundle() -> Result<TerminalBundle, String> {
    let module = crate::browser::import_module(TERMINAL_BUNDLE).await?;
    let has_api = js_sys::Reflect::get(&module, &JsValue::from_str("createTerminal"))
        .is_ok_and(|f| f.is_function());
    if !has_api {
        return Err(format!("{TERMINAL_BUNDLE} is not the terminal bundle"));
    }
    Ok(module.unchecked_into())
}
