//! Where the app is: the [`Page`] in the URL fragment, kept in a signal. Back/forward and
//! edited URLs update the signal; views navigate with [`Navigation::go`] (a history entry) or
//! [`Navigation::replace`] (no entry, for typing in a filter).

use leptos::ev;
use leptos::prelude::*;

use crate::model::navigation::route::Page;

#[derive(Clone, Copy)]
pub struct Navigation {
    pub page: RwSignal<Page>,
    /// Set by a view holding unsaved work (the editor): the question to ask before leaving.
    leave_question: StoredValue<Option<String>>,
}

/// Asks the user with `question`; true when they agree to leave.
fn confirm(question: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.confirm_with_message(question).ok())
        .unwrap_or(true)
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
            leave_question: StoredValue::new(None),
        };
        let listener = window_event_listener(ev::hashchange, move |_| {
            let page = Page::parse(&current_hash());
            let current = navigation.page.get_untracked();
            if current == page {
                return;
            }
            // A link, Back or an edited URL: the URL has changed already, so staying means
            // putting the page's own URL back.
            if !navigation.may_leave(&current, &page) {
                navigation.put_back(&current);
                return;
            }
            navigation.page.set(page);
        });
        // Closing the tab or reloading with unsaved work: the browser asks (its own words).
        let unload = window_event_listener(ev::beforeunload, move |event| {
            if navigation.leave_question.with_value(Option::is_some) {
                event.prevent_default();
                event.set_return_value("unsaved changes");
            }
        });
        on_cleanup(move || {
            listener.remove();
            unload.remove();
        });
        provide_context(navigation);
        navigation
    }

    /// While `question` is set, leaving the object (another page, another object) asks it
    /// first; None when the work is saved or discarded.
    pub fn set_leave_question(&self, question: Option<String>) {
        self.leave_question.set_value(question);
    }

    /// Whether going from `from` to `to` may happen: always within one object's tabs (the
    /// editor keeps its draft), otherwise when nothing is unsaved or the user agrees.
    fn may_leave(&self, from: &Page, to: &Page) -> bool {
        if let (Page::Object(a), Page::Object(b)) = (from, to) {
            if a.resource == b.resource && a.namespace == b.namespace && a.name == b.name {
                return true;
            }
        }
        let Some(question) = self.leave_question.get_value() else {
            return true;
        };
        let agreed = confirm(&question);
        if agreed {
            self.leave_question.set_value(None);
        }
        agreed
    }

    fn put_back(&self, page: &Page) {
        if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            history
                .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&page.to_hash()))
                .ok();
        }
    }

    /// Goes to `page` with a history entry (Back returns here).
    pub fn go(&self, page: Page) {
        let hash = page.to_hash();
        let current = self.page.get_untracked();
        if current != page && !self.may_leave(&current, &page) {
            return;
        }
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
