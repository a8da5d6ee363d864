//! One terminal session on the screen: xterm.js fed by [`use_terminal_session`], its size
//! following the panel, a status line saying where the session is and how it ended.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use send_wrapper::SendWrapper;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use super::bundle::{terminal_bundle, TerminalHandle};
use crate::model::object::terminal::frame::TerminalSize;
use crate::model::ApiTree;
use crate::state::terminal::{
    use_terminal_session, OutputSink, TerminalCommand, TerminalPhase, UseTerminalSessionOptions,
    UseTerminalSessionReturn,
};

/// What one session runs, where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSpec {
    pub namespace: String,
    pub pod: String,
    pub container: String,
    pub command: TerminalCommand,
}

/// The screen of a session: output that arrives before xterm.js has loaded waits here.
#[derive(Default)]
struct Screen {
    handle: Option<TerminalHandle>,
    pending: Vec<u8>,
    #[allow(clippy::type_complexity)]
    callbacks: Option<(Closure<dyn FnMut(String)>, Closure<dyn FnMut(u16, u16)>)>,
}

impl Screen {
    fn write(&mut self, bytes: &[u8]) {
        match &self.handle {
            Some(handle) => handle.write(bytes),
            None => self.pending.extend_from_slice(bytes),
        }
    }
}

#[component]
pub fn TerminalScreen(
    tree: ApiTree,
    spec: SessionSpec,
    /// Hidden sessions keep running (and their size) while another tab is shown.
    #[prop(into)]
    visible: Signal<bool>,
    /// The pod's page saw it deleted.
    deleted: Signal<bool>,
) -> impl IntoView {
    let screen = Rc::new(RefCell::new(Screen::default()));
    let on_output: OutputSink = {
        let screen = Rc::clone(&screen);
        Rc::new(move |bytes: &[u8]| screen.borrow_mut().write(bytes))
    };
    let UseTerminalSessionReturn {
        phase,
        tty,
        running,
        controls,
    } = use_terminal_session(UseTerminalSessionOptions {
        tree,
        namespace: spec.namespace.clone(),
        pod: spec.pod.clone(),
        container: spec.container.clone(),
        command: spec.command.clone(),
        on_output,
    });
    {
        let controls = SendWrapper::new(controls.clone());
        Effect::new(move |_| {
            if deleted.get() {
                controls.pod_deleted();
            }
        });
    }
    let size = RwSignal::new(None::<TerminalSize>);
    let load_error = RwSignal::new(None::<String>);
    let host = NodeRef::<html::Div>::new();
    let started = StoredValue::new(false);
    {
        let screen = Rc::clone(&screen);
        let controls = controls.clone();
        Effect::new(move |_| {
            let Some(parent) = host.get() else {
                return;
            };
            if started.get_value() {
                return;
            }
            started.set_value(true);
            let parent: web_sys::HtmlElement = parent.into();
            let screen = Rc::clone(&screen);
            let controls = controls.clone();
            spawn_local(async move {
                let bundle = match terminal_bundle().await {
                    Ok(bundle) => bundle,
                    Err(error) => {
                        load_error.try_set(Some(error));
                        return;
                    }
                };
                let on_data = {
                    let controls = controls.clone();
                    let screen = Rc::clone(&screen);
                    Closure::<dyn FnMut(String)>::new(move |text: String| {
                        if !tty {
                            // No TTY echoes: the screen does, as a local line discipline.
                            let echo = text.replace('\r', "\n");
                            screen.borrow_mut().write(echo.as_bytes());
                        }
                        controls.input(&text);
                    })
                };
                let on_resize = Closure::<dyn FnMut(u16, u16)>::new(move |cols, rows| {
                    let new = TerminalSize { cols, rows };
                    size.try_set(Some(new));
                    controls.resize(new);
                });
                match bundle.create_terminal(
                    &parent,
                    on_data.as_ref().unchecked_ref(),
                    on_resize.as_ref().unchecked_ref(),
                    !tty,
                ) {
                    Ok(handle) => {
                        let mut screen = screen.borrow_mut();
                        let pending = std::mem::take(&mut screen.pending);
                        handle.write(&pending);
                        handle.focus();
                        screen.handle = Some(handle);
                        screen.callbacks = Some((on_data, on_resize));
                    }
                    Err(error) => {
                        load_error.try_set(Some(crate::browser::describe_js_error(&error)));
                    }
                }
            });
        });
    }
    {
        let screen = SendWrapper::new(Rc::clone(&screen));
        on_cleanup(move || {
            let mut screen = screen.borrow_mut();
            if let Some(handle) = screen.handle.take() {
                handle.destroy();
            }
            screen.callbacks = None;
        });
    }
    // Each end is said in the terminal too, where the eye is.
    {
        let screen = Rc::clone(&screen);
        Effect::new(move |_| {
            if let TerminalPhase::Ended { sentence, .. } = phase.get() {
                let line = format!("\r\n\x1b[2m[{sentence}]\x1b[0m\r\n");
                screen.borrow_mut().write(line.as_bytes());
            }
        });
    }
    let copy = {
        let screen = Rc::clone(&screen);
        move |_| {
            let text = screen
                .borrow()
                .handle
                .as_ref()
                .map(TerminalHandle::selection);
            if let (Some(text), Some(window)) = (text.filter(|t| !t.is_empty()), web_sys::window())
            {
                let _ = window.navigator().clipboard().write_text(&text);
            }
        }
    };
    let paste = {
        let screen = SendWrapper::new(Rc::clone(&screen));
        move |_| {
            let Some(window) = web_sys::window() else {
                return;
            };
            let promise = window.navigator().clipboard().read_text();
            let screen = screen.clone();
            spawn_local(async move {
                let Ok(text) = wasm_bindgen_futures::JsFuture::from(promise).await else {
                    return;
                };
                if let (Some(text), Some(handle)) = (text.as_string(), &screen.borrow().handle) {
                    // Through xterm.js, so a program that asked for bracketed paste gets it.
                    handle.paste(&text);
                }
            });
        }
    };
    let reconnect = {
        let screen = SendWrapper::new(Rc::clone(&screen));
        let controls = SendWrapper::new(controls);
        move |_| {
            if let Some(handle) = &screen.borrow().handle {
                handle.write_text("\r\n");
                handle.focus();
            }
            controls.reconnect();
        }
    };
    let phase_text = move || match phase.get() {
        TerminalPhase::Connecting => "Connecting…".to_string(),
        TerminalPhase::Open { protocol } => {
            let what = running.with(|argv| argv.join(" "));
            let what = if what.is_empty() {
                "attached".into()
            } else {
                what
            };
            format!("Connected: {what} ({protocol})")
        }
        TerminalPhase::Ended { sentence, .. } | TerminalPhase::Refused { sentence } => sentence,
    };
    let phase_name = move || match phase.get() {
        TerminalPhase::Connecting => "connecting",
        TerminalPhase::Open { .. } => "open",
        TerminalPhase::Ended { .. } => "ended",
        TerminalPhase::Refused { .. } => "refused",
    };
    let can_reconnect = move || match phase.get() {
        TerminalPhase::Ended { reconnect, .. } => reconnect,
        _ => false,
    };
    let size_text = move || size.get().map(|s| format!("{}×{}", s.cols, s.rows));
    view! {
        <div
            class="terminal-session"
            style:display=move || if visible.get() { "flex" } else { "none" }
            data-phase=phase_name
            data-cols=move || size.get().map(|s| s.cols.to_string())
            data-rows=move || size.get().map(|s| s.rows.to_string())
        >
            <div class="terminal-status">
                <span class="terminal-phase" role="status" class:error=move || matches!(phase.get(), TerminalPhase::Refused { .. })>
                    {phase_text}
                </span>
                <span class="muted terminal-size">{size_text}</span>
                {move || can_reconnect().then(|| view! {
                    <button type="button" on:click=reconnect.clone()>"Reconnect"</button>
                })}
                <button type="button" title="Copy the selected text (also Ctrl+Shift+C)" on:click=copy>"Copy"</button>
                <button type="button" title="Paste the clipboard into the terminal" on:click=paste>"Paste"</button>
            </div>
            {move || load_error.get().map(|error| view! {
                <p class="error" role="alert">{format!("The terminal could not load ({error}).")}</p>
            })}
            <div class="terminal-host" node_ref=host aria-label="Terminal"></div>
        </div>
    }
}
