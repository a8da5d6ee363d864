//! The object page's editor session: the model's [`EditSession`] in a signal, its requests
//! (dry run, PUT, server-side apply, the latest version after a 409) made through
//! [`crate::state::edit`], its draft kept in localStorage, and the question asked before
//! leaving unsaved changes. The editor view only draws the session and calls these.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::browser::{local_storage_get, local_storage_remove, local_storage_set, wall_now};
use crate::model::edit::{draft_key, Draft, EditSession, EditTarget, Pick, Write};
use crate::model::object::pointer::Pointer;
use crate::model::ResourceId;
use crate::state::edit::{self, Written};
use crate::state::navigation::use_navigation;

/// Texts shorter than this are checked on every change; longer ones once typing pauses for
/// [`CHECK_PAUSE_MS`] (parsing a megabyte on every key would make typing lag).
const CHECK_AT_ONCE_BELOW: usize = 100_000;
const CHECK_PAUSE_MS: u64 = 300;

/// What [`use_edit_session`] gives the editor view.
#[derive(Clone, Copy)]
pub struct UseEditSession {
    pub session: RwSignal<EditSession>,
    /// Text the session put into the editor (after a save, a merge, a discard).
    pub replaced_text: RwSignal<Option<(u64, String)>>,
    /// The text as it was when the editor opened.
    pub start_text: StoredValue<String>,
    pub dirty: Memo<bool>,
    pub busy: Memo<bool>,
    pub invalid: Memo<bool>,
    /// Written on the server since the edit started (seen on the page's watch).
    pub behind: Memo<bool>,
    /// The user typed: the whole text.
    pub on_change: Callback<String>,
    pub save: Callback<Write>,
    /// A server dry run of the text.
    pub review: Callback<()>,
    /// Replays the edit onto the live object (after a write seen on the watch).
    pub merge_with_latest: Callback<()>,
    pub discard: Callback<()>,
    pub pick: Callback<(usize, Pick)>,
    pub use_picks: Callback<()>,
}

/// An edit of the object at `path`, live in `object`.
pub fn use_edit_session(
    resource: &ResourceId,
    target: EditTarget,
    path: String,
    status_is_subresource: bool,
    object: Signal<Option<Value>>,
) -> UseEditSession {
    let navigation = use_navigation();
    let key = StoredValue::new(draft_key(
        resource,
        target.namespace.as_deref(),
        target.name.as_deref(),
    ));
    let path = StoredValue::new(path);
    // A draft from before (a reload, a failed save) wins over the live object.
    let restored =
        local_storage_get(&key.get_value()).and_then(|text| Draft::from_json(&text).ok());
    let was_restored = restored.is_some();
    let opened = object.with_untracked(|live| {
        EditSession::open(target, status_is_subresource, live.as_ref(), restored)
    });
    let start_text = StoredValue::new(opened.text().to_string());
    let session = RwSignal::new(opened);
    let replaced_text = RwSignal::new(None::<(u64, String)>);

    let dirty = Memo::new(move |_| session.with(EditSession::is_dirty));
    let busy = Memo::new(move |_| session.with(EditSession::is_busy));
    let invalid = Memo::new(move |_| session.with(EditSession::is_invalid));
    let server_version = Memo::new(move |_| {
        object.with(|o| {
            o.as_ref()
                .and_then(|o| o.at("/metadata/resourceVersion"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
    });
    let behind = Memo::new(move |_| {
        let live = server_version.get();
        session.with(|s| s.is_behind(live.as_deref()))
    });

    let leave_question = move || {
        session.with_untracked(|s| {
            format!(
                "Your changes to {} are not saved. Leave anyway? (The draft stays in this browser.)",
                s.label()
            )
        })
    };
    // The draft kept while the text differs from the object it started from; the question
    // before leaving with it.
    let keep_draft = move || {
        let draft = session.with_untracked(|s| s.draft(&key.get_value(), wall_now()));
        match draft {
            Some(draft) => {
                local_storage_set(&key.get_value(), &draft.to_json());
                navigation.set_leave_question(Some(leave_question()));
            }
            None => {
                local_storage_remove(&key.get_value());
                navigation.set_leave_question(None);
            }
        }
    };
    // Applies a transition; text the session put into the editor goes to the editor.
    let step = move |transition: &dyn Fn(&mut EditSession)| {
        let before = session.with_untracked(|s| s.replaced_text().map(|(n, _)| *n));
        session.update(|s| transition(s));
        let after = session.with_untracked(|s| s.replaced_text().cloned());
        if after.as_ref().map(|(n, _)| *n) != before {
            replaced_text.set(after);
        }
    };
    if was_restored {
        navigation.set_leave_question(Some(leave_question()));
    }
    on_cleanup(move || navigation.set_leave_question(None));

    let typing = StoredValue::new(0u64);
    let settle = move || {
        session.update(EditSession::check);
        keep_draft();
    };
    let on_change = Callback::new(move |new_text: String| {
        let big = new_text.len() >= CHECK_AT_ONCE_BELOW;
        session.update(|s| s.typed(new_text));
        if dirty.get_untracked() {
            navigation.set_leave_question(Some(leave_question()));
        }
        if !big {
            settle();
            return;
        }
        let generation = typing.get_value() + 1;
        typing.set_value(generation);
        set_timeout(
            move || {
                if typing.try_get_value() == Some(generation) {
                    typing.set_value(0);
                    settle();
                }
            },
            std::time::Duration::from_millis(CHECK_PAUSE_MS),
        );
    });
    // Leaving while a big text's pause is pending: its draft is kept now.
    on_cleanup(move || {
        if typing.try_get_value().is_some_and(|g| g != 0) {
            let draft = session.try_with_untracked(|s| s.draft(&key.get_value(), wall_now()));
            if let Some(Some(draft)) = draft {
                local_storage_set(&draft.key, &draft.to_json());
            }
        }
    });

    // A 409 on PUT or dry run: someone wrote meanwhile; the edit goes onto what the server
    // has now.
    let reapply_onto_latest = move || async move {
        let read = edit::read(&path.get_value()).await;
        // The editor was left meanwhile: its signals are gone and its draft stays for when it
        // opens again.
        if session.is_disposed() {
            return;
        }
        match read {
            Ok(latest) => {
                step(&|s| s.reapply(latest.clone()));
                keep_draft();
            }
            Err(error) => session.update(|s| s.failed(error, None)),
        }
    };
    let save = Callback::new(move |write: Write| {
        let Some(document) = session.try_update(|s| s.begin(Some(write))).flatten() else {
            return;
        };
        let draft = key.get_value();
        spawn_local(async move {
            let path = path.get_value();
            let result = match write {
                Write::Replace => edit::replace(&path, &document, false).await,
                Write::Apply { force } => edit::apply(&path, &document, force, false).await,
            };
            // The editor was left while saving (its leave question answered): its signals
            // are gone. A saved edit's draft goes; a failed one's stays to be opened again.
            if session.is_disposed() {
                if result.is_ok() {
                    local_storage_remove(&draft);
                }
                return;
            }
            match result {
                Ok(Written { object, warnings }) => {
                    step(&|s| s.saved(&object, warnings.clone(), write));
                    keep_draft();
                }
                Err(error) if EditSession::needs_latest(&error, Some(write)) => {
                    reapply_onto_latest().await
                }
                Err(error) => session.update(|s| s.failed(error, Some(write))),
            }
        });
    });
    let review = Callback::new(move |()| {
        let Some(document) = session.try_update(|s| s.begin(None)).flatten() else {
            return;
        };
        spawn_local(async move {
            let result = edit::replace(&path.get_value(), &document, true).await;
            // A dry run for an editor that was left: nothing to show it in.
            if session.is_disposed() {
                return;
            }
            match result {
                Ok(Written {
                    object: would_store,
                    warnings,
                }) => {
                    let live = object.get_untracked().unwrap_or(Value::Null);
                    session.update(|s| s.reviewed(&live, &would_store, warnings));
                }
                // Written meanwhile: the edit is replayed onto the latest, as on save, and
                // reviewed again from there.
                Err(error) if EditSession::needs_latest(&error, None) => {
                    reapply_onto_latest().await
                }
                Err(error) => session.update(|s| s.failed(error, None)),
            }
        });
    });
    let merge_with_latest = Callback::new(move |()| {
        if let Some(latest) = object.get_untracked() {
            step(&|s| s.reapply(latest.clone()));
            keep_draft();
        }
    });
    let discard = Callback::new(move |()| {
        let live = object.get_untracked();
        step(&|s| s.discard(live.as_ref()));
        keep_draft();
    });
    let pick = Callback::new(move |(index, choice): (usize, Pick)| {
        session.update(|s| s.pick(index, choice));
    });
    let use_picks = Callback::new(move |()| {
        step(&|s| s.use_picks());
        keep_draft();
    });
    UseEditSession {
        session,
        replaced_text,
        start_text,
        dirty,
        busy,
        invalid,
        behind,
        on_change,
        save,
        review,
        merge_with_latest,
        discard,
        pick,
        use_picks,
    }
}
