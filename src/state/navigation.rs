//! Where the app is: the [`Page`] in the URL fragment, kept in a signal. Back/forward and
//! edited URLs update the signal; views navigate with [`Navigation::go`] (a history entry) or
//! [`Navigation::replace`] (no entry, for typing in a filter).

use leptos::ev;
use leptos::prelude::*;

use crate::model::route::Page;

#[derive(Clone, Copy)]
pub struct Navigation {
    pub page: RwSignal<Page>,
}

fn current_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

impl Navigation {
    /// Reads the current URL, follows `hashchange`, and provides itself as context.
    pub fn install() -> Navigation {
        let navigation = Navigation {
            page: RwSignal::new(Page::parse(&current_hash())),
        };
        let listener = window_event_listener(ev::hashchange, move |_| {
            let page = Page::parse(&current_hash());
            if navigation.page.get_untracked() != page {
                navigation.page.set(page);
            }
        });
        on_cleanup(move || listener.remove());
        provide_context(navigation);
        navigation
    }

    /// Goes to `page` with a history entry (Back returns here).
    pub fn go(&self, page: Page) {
        let hash = page.to_hash();
        if self.page.get_untracked() != page {
            self.page.set(page);
        }
        if current_hash() != hash && !(hash == "#/" && current_hash().is_empty()) {
            if let Some(window) = web_sys::window() {
                // Setting the hash never fails in a browser; nothing to recover otherwise.
                window.location().set_hash(&hash).ok();
            }
        }
    }

    /// Changes the URL to `page` without a history entry (filters, sort, wide).
    pub fn replace(&self, page: Page) {
        let hash = page.to_hash();
        if self.page.get_untracked() != page {
            self.page.set(page);
        }
        if current_hash() == hash {
            return;
        }
        if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            history
                .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&hash))
                .ok();
        }
    }
}

/// The app's navigation (installed by the shell).
pub fn use_navigation() -> Navigation {
    expect_context::<Navigation>()
}
