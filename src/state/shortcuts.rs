//! The keyboard shortcuts of `model::navigation::shortcuts` (`use_shortcuts`): `:` palette, `/` filter,
//! `?` the cheat sheet, `g p`… pages, unless the user is typing or a dialog is open.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser::now_ms;
use crate::model::navigation::shortcuts::{KeySequence, ShortcutAction};
use crate::state::navigation::Navigation;

/// What `use_shortcuts` needs.
#[derive(Clone, Copy)]
pub struct UseShortcutsOptions {
    pub navigation: Navigation,
    /// The element `/` focuses.
    pub filter_id: &'static str,
}

/// The dialogs the keys open; the dialogs close themselves.
#[derive(Clone, Copy)]
pub struct UseShortcutsReturn {
    pub palette_open: RwSignal<bool>,
    pub cheat_sheet_open: RwSignal<bool>,
}

/// Listens to the window's keys for as long as the calling owner lives.
pub fn use_shortcuts(options: UseShortcutsOptions) -> UseShortcutsReturn {
    let UseShortcutsOptions {
        navigation,
        filter_id,
    } = options;
    let palette_open = RwSignal::new(false);
    let cheat_sheet_open = RwSignal::new(false);
    let keys = StoredValue::new(KeySequence::default());
    let _ = window_event_listener(ev::keydown, move |event| {
        // Form fields, and editable content (the YAML editor is a contenteditable, where
        // every other key of YAML is a colon).
        let typing = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
            .is_some_and(|el| {
                matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                    || el.is_content_editable()
            });
        let dialog_open = palette_open.get_untracked() || cheat_sheet_open.get_untracked();
        if typing || dialog_open || event.ctrl_key() || event.meta_key() || event.alt_key() {
            return;
        }
        let key = event.key();
        let Some(action) = keys
            .try_update_value(|keys| keys.press(&key, now_ms()))
            .flatten()
        else {
            return;
        };
        event.prevent_default();
        match action {
            ShortcutAction::Palette => palette_open.set(true),
            ShortcutAction::CheatSheet => cheat_sheet_open.set(true),
            ShortcutAction::FocusFilter => {
                if let Some(input) = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.get_element_by_id(filter_id))
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let _ = input.focus();
                }
            }
            ShortcutAction::Go(target) => {
                let namespace = navigation
                    .page
                    .with_untracked(|p| p.namespace().map(str::to_string));
                navigation.go(target.destination(namespace));
            }
        }
    });
    UseShortcutsReturn {
        palette_open,
        cheat_sheet_open,
    }
}
