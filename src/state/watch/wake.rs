//! Streams die unnoticed while a laptop sleeps or the network blips: these listeners make
//! every stream resume at once when the browser says it is back (online, shown again, resumed
//! from the back/forward cache) or when the wall clock jumps (a machine that slept).

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use super::WatchHub;
use crate::browser::{document_hidden, now_ms, wall_now};
use crate::model::watch::{SleepDetector, WAKE_TICK_MS};

/// A tab hidden longer than this may have lost its streams while hidden.
const HIDDEN_LONG_MS: f64 = 30_000.0;

impl WatchHub {
    pub(super) fn listen_for_wake_up(&self) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let hub = *self;
        let online = Closure::<dyn Fn()>::new(move || hub.reconnect_all());
        // Listeners live as long as the page: leaking them is the intent.
        window
            .add_event_listener_with_callback("online", online.as_ref().unchecked_ref())
            .ok();
        online.forget();
        let hub = *self;
        let hidden_since = Rc::new(Cell::new(None::<f64>));
        let visibility = Closure::<dyn Fn()>::new(move || {
            if document_hidden() {
                hidden_since.set(Some(now_ms()));
            } else if let Some(since) = hidden_since.take() {
                // Streams may have died unnoticed while the machine slept.
                if now_ms() - since > HIDDEN_LONG_MS {
                    hub.reconnect_all();
                }
            }
        });
        if let Some(document) = window.document() {
            document
                .add_event_listener_with_callback(
                    "visibilitychange",
                    visibility.as_ref().unchecked_ref(),
                )
                .ok();
        }
        visibility.forget();
        // A page frozen in the background, or restored from the back/forward cache, resumes
        // with streams that may have died meanwhile.
        for (target, event) in [
            (window.document().map(web_sys::EventTarget::from), "resume"),
            (Some(web_sys::EventTarget::from(window.clone())), "pageshow"),
        ] {
            let hub = *self;
            let resumed = Closure::<dyn Fn()>::new(move || hub.reconnect_all());
            if let Some(target) = target {
                target
                    .add_event_listener_with_callback(event, resumed.as_ref().unchecked_ref())
                    .ok();
            }
            resumed.forget();
        }
        // A machine that slept wakes with its streams silently dead and often no other
        // signal (the tab stayed visible, the network never went "offline"): the wall clock
        // jumps, and a cheap tick notices.
        let hub = *self;
        let mut detector = SleepDetector::default();
        gloo_timers::callback::Interval::new(WAKE_TICK_MS, move || {
            if detector.tick(wall_now(), document_hidden()) {
                hub.reconnect_all();
            }
        })
        .forget();
    }
}
