//! One open edit of an object as a state machine: the text and the object it started from,
//! what the last check of the text found, the write under way, what the last write came to,
//! a dry-run review, and the fields to pick after a 409 when both sides changed them. The
//! view performs the requests and reports their answers here; every decision is made here,
//! and tested natively.

use crate::time::clock::Wall;
use serde_json::Value;

use super::apply::{apply_conflicts, ApplyConflict};
use super::check::{document_to_save, EditProblem, EditTarget};
use super::draft::Draft;
use super::editable::{editable, review_diff};
use super::locate::line_of_field;
use super::merge::{resolve, three_way, Merge, Pick};
use crate::api::errors::ApiError;
use crate::history::FieldChange;
use crate::object::pointer::Pointer;
use crate::object::yaml::to_yaml;

/// What the last action came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Saved {
        resource_version: String,
        warnings: Vec<String>,
        applied: bool,
    },
    Failed(ApiError),
    /// Not sent: the text cannot be used for this action.
    Refused(String),
    /// A 409 on save: the edit was replayed onto the latest version.
    Reapplied {
        theirs: Vec<FieldChange>,
        yours: Vec<FieldChange>,
    },
    /// Server-side apply refused: fields other managers own.
    ApplyConflicts(Vec<ApplyConflict>),
}

/// A server dry run of the text: the live object against what would be stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    pub live: String,
    pub would_store: String,
    pub changes: Vec<FieldChange>,
    pub warnings: Vec<String>,
}

/// Both sides changed these fields: the user picks a side, one per conflict.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub merge: Merge,
    pub latest: Value,
    pub picks: Vec<Pick>,
}

/// How the text is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// PUT with the resourceVersion the edit started from.
    Replace,
    /// Server-side apply as the dashboard's field manager; `force` takes fields others own.
    Apply { force: bool },
}

/// A field the server's last answer named (a 422's causes, apply conflicts), at its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedField {
    /// 1-based.
    pub line: usize,
    pub message: String,
}

/// The object's YAML as the editor shows it.
pub fn yaml_of(object: &Value) -> String {
    to_yaml(object).unwrap_or_else(|e| format!("# {e}\n"))
}

fn resource_version_of(object: &Value) -> Option<&str> {
    object.at("/metadata/resourceVersion")?.as_str()
}

#[derive(Debug, Clone, PartialEq)]
pub struct EditSession {
    target: EditTarget,
    status_is_subresource: bool,
    /// The object (in editor form) the edit started from: the base of a three-way merge.
    base: Value,
    text: String,
    /// The text of `base`: the edit is dirty while the text differs.
    clean_text: String,
    /// The text as a document to save, as last checked (big texts are checked once typing
    /// pauses).
    checked: Result<Value, EditProblem>,
    outcome: Option<Outcome>,
    review: Option<Review>,
    choice: Option<Choice>,
    busy: bool,
    /// When the draft this session was restored from was saved (epoch ms).
    restored_at_ms: Option<f64>,
    /// Text the session put into the editor itself (after a save, a merge, a discard), with a
    /// count so the same text twice is still news: the editor takes it as one undo step.
    replaced: Option<(u64, String)>,
}

impl EditSession {
    /// An edit of `live` (None: not loaded), or of the draft kept from before (a reload, a
    /// failed save), which wins over the live object.
    pub fn open(
        target: EditTarget,
        status_is_subresource: bool,
        live: Option<&Value>,
        restored: Option<Draft>,
    ) -> EditSession {
        let (base, text, clean_text, restored_at_ms) = match restored {
            Some(draft) => {
                let clean = yaml_of(&draft.base);
                (draft.base, draft.text, clean, Some(draft.saved_at_ms))
            }
            None => {
                let base = live
                    .map(|o| editable(o, status_is_subresource))
                    .unwrap_or(Value::Null);
                let text = yaml_of(&base);
                (base, text.clone(), text, None)
            }
        };
        let checked = document_to_save(&target, &text);
        EditSession {
            target,
            status_is_subresource,
            base,
            text,
            clean_text,
            checked,
            outcome: None,
            review: None,
            choice: None,
            busy: false,
            restored_at_ms,
            replaced: None,
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_dirty(&self) -> bool {
        self.text != self.clean_text
    }

    pub fn checked(&self) -> &Result<Value, EditProblem> {
        &self.checked
    }

    pub fn is_invalid(&self) -> bool {
        self.checked.is_err()
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    pub fn review(&self) -> Option<&Review> {
        self.review.as_ref()
    }

    pub fn choice(&self) -> Option<&Choice> {
        self.choice.as_ref()
    }

    pub fn is_busy(&self) -> bool {
        self.busy
    }

    pub fn restored_at_ms(&self) -> Option<f64> {
        self.restored_at_ms
    }

    pub fn replaced_text(&self) -> Option<&(u64, String)> {
        self.replaced.as_ref()
    }

    /// "Deployment web", for questions about leaving.
    pub fn label(&self) -> String {
        format!(
            "{} {}",
            self.target.kind,
            self.target.name.as_deref().unwrap_or_default()
        )
    }

    /// The user typed: the review no longer shows this text. The check waits for
    /// [`EditSession::check`] (at once for small texts, once typing pauses for big ones).
    pub fn typed(&mut self, text: String) {
        self.text = text;
        self.review = None;
    }

    /// Checks the text now.
    pub fn check(&mut self) {
        self.checked = document_to_save(&self.target, &self.text);
    }

    /// The draft to keep while the text differs from the object it started from.
    pub fn draft(&self, key: &str, now: impl Into<Wall>) -> Option<Draft> {
        let now_ms = now.into().ms();
        self.is_dirty().then(|| Draft {
            key: key.to_string(),
            text: self.text.clone(),
            base: self.base.clone(),
            saved_at_ms: now_ms,
        })
    }

    /// Starts sending `write` (or a dry run for review): the document to send, or None when
    /// the text does not parse (the check then says why, and nothing is sent).
    pub fn begin(&mut self, write: Option<Write>) -> Option<Value> {
        self.check();
        let mut document = self.checked.clone().ok()?;
        if let Some(Write::Apply { .. }) = write {
            // Apply states intent, not a version: no resourceVersion precondition.
            if let Some(meta) = document.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("resourceVersion");
            }
        }
        self.busy = true;
        self.outcome = None;
        Some(document)
    }

    /// The write was stored as `object`.
    pub fn saved(&mut self, object: &Value, warnings: Vec<String>, write: Write) {
        self.busy = false;
        let saved = editable(object, self.status_is_subresource);
        let saved_text = yaml_of(&saved);
        self.outcome = Some(Outcome::Saved {
            resource_version: resource_version_of(object).unwrap_or_default().to_string(),
            warnings,
            applied: matches!(write, Write::Apply { .. }),
        });
        self.start_over(saved, saved_text.clone(), saved_text);
        self.review = None;
    }

    /// The write failed. A server-side apply's 409 names the fields other managers own; a
    /// PUT's 409 is not handled here (see [`EditSession::needs_latest`]).
    pub fn failed(&mut self, error: ApiError, write: Option<Write>) {
        self.busy = false;
        let conflicts = match write {
            Some(Write::Apply { .. }) if error.is_conflict() => apply_conflicts(&error),
            _ => Vec::new(),
        };
        self.outcome = Some(if conflicts.is_empty() {
            Outcome::Failed(error)
        } else {
            Outcome::ApplyConflicts(conflicts)
        });
    }

    /// Whether `error` means the object was written meanwhile and the edit must be replayed
    /// onto the latest version (read it, then [`EditSession::reapply`]).
    pub fn needs_latest(error: &ApiError, write: Option<Write>) -> bool {
        error.is_conflict() && !matches!(write, Some(Write::Apply { .. }))
    }

    /// The dry run answered: what would be stored, against the live object.
    pub fn reviewed(&mut self, live: &Value, would_store: &Value, warnings: Vec<String>) {
        self.busy = false;
        let live_shown = editable(live, self.status_is_subresource);
        let would_shown = editable(would_store, self.status_is_subresource);
        self.review = Some(Review {
            live: yaml_of(&live_shown),
            would_store: yaml_of(&would_shown),
            changes: review_diff(live, would_store),
            warnings,
        });
    }

    /// Replays the edit onto `latest` (after a 409, or asked after a write seen on the
    /// watch): merged at once when no field was changed on both sides, else the user picks.
    pub fn reapply(&mut self, latest: Value) {
        self.busy = false;
        self.check();
        let Ok(yours) = self.checked.clone() else {
            self.outcome = Some(Outcome::Refused(
                "Fix the YAML first: your text cannot be merged while it does not parse.".into(),
            ));
            return;
        };
        let merge = three_way(&self.base, &yours, &latest, self.status_is_subresource);
        if merge.is_clean() {
            let merged_text = yaml_of(&merge.merged);
            self.outcome = Some(Outcome::Reapplied {
                theirs: merge.theirs.clone(),
                yours: merge.yours.clone(),
            });
            self.start_over_from_latest(&latest, merged_text);
        } else {
            let picks = vec![Pick::Yours; merge.conflicts.len()];
            self.choice = Some(Choice {
                merge,
                latest,
                picks,
            });
        }
    }

    /// Picks a side for conflict `index`.
    pub fn pick(&mut self, index: usize, pick: Pick) {
        if let Some(slot) = self
            .choice
            .as_mut()
            .and_then(|choice| choice.picks.get_mut(index))
        {
            *slot = pick;
        }
    }

    /// Merges with the picks made.
    pub fn use_picks(&mut self) {
        let Some(Choice {
            merge,
            latest,
            picks,
        }) = self.choice.take()
        else {
            return;
        };
        let merged_text = yaml_of(&resolve(&merge, &picks));
        self.start_over_from_latest(&latest, merged_text);
        self.outcome = Some(Outcome::Reapplied {
            theirs: merge.theirs,
            yours: merge.yours,
        });
    }

    /// Drops the edit: the editor shows `live` again.
    pub fn discard(&mut self, live: Option<&Value>) {
        let latest = live
            .map(|o| editable(o, self.status_is_subresource))
            .unwrap_or(Value::Null);
        let latest_text = yaml_of(&latest);
        self.start_over(latest, latest_text.clone(), latest_text);
        self.outcome = None;
        self.review = None;
        self.choice = None;
        self.restored_at_ms = None;
    }

    /// Whether the object was written on the server (its resourceVersion now `live`) since
    /// the edit started.
    pub fn is_behind(&self, live: Option<&str>) -> bool {
        let started = resource_version_of(&self.base);
        started.is_some() && live.is_some() && started != live
    }

    /// The fields the server's last answer named, at their lines in the text.
    pub fn named_fields(&self) -> Vec<NamedField> {
        let named: Vec<(String, String)> = match &self.outcome {
            Some(Outcome::Failed(error)) => error
                .causes()
                .iter()
                .filter_map(|c| Some((c.field.clone()?, c.message.clone().unwrap_or_default())))
                .collect(),
            Some(Outcome::ApplyConflicts(conflicts)) => conflicts
                .iter()
                .map(|c| (c.field.clone(), format!("owned by {}", c.manager)))
                .collect(),
            _ => Vec::new(),
        };
        named
            .into_iter()
            .filter_map(|(field, message)| {
                let line = line_of_field(&self.text, &field)?;
                Some(NamedField {
                    line,
                    message: format!("{field}: {message}"),
                })
            })
            .collect()
    }

    fn start_over_from_latest(&mut self, latest: &Value, text: String) {
        let latest_editable = editable(latest, self.status_is_subresource);
        let clean = yaml_of(&latest_editable);
        self.start_over(latest_editable, text, clean);
    }

    /// Starts over from `base` with `text` in the editor.
    fn start_over(&mut self, base: Value, text: String, clean_text: String) {
        self.base = base;
        self.clean_text = clean_text;
        self.text = text.clone();
        self.check();
        let count = self.replaced.as_ref().map_or(1, |(n, _)| n + 1);
        self.replaced = Some((count, text));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn target() -> EditTarget {
        EditTarget {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            namespaced: true,
            namespace: Some("default".into()),
            name: Some("settings".into()),
        }
    }

    fn config_map(rv: &str, data: Value) -> Value {
        json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "settings", "namespace": "default", "resourceVersion": rv,
                "managedFields": [{"manager": "kubectl"}]},
            "data": data,
        })
    }

    fn session() -> EditSession {
        let live = config_map("5", json!({"a": "1", "b": "2"}));
        EditSession::open(target(), false, Some(&live), None)
    }

    #[test]
    fn opening_shows_the_object_without_managed_fields_and_clean() {
        let s = session();
        assert!(s.text().contains("a: \"1\""), "{}", s.text());
        assert!(!s.text().contains("managedFields"));
        assert!(!s.is_dirty());
        assert!(!s.is_invalid());
        assert_eq!(s.draft("k", 1.0), None, "nothing to keep");
        assert_eq!(s.label(), "ConfigMap settings");
    }

    #[test]
    fn typing_makes_a_draft_and_a_bad_text_is_refused_before_sending() {
        let mut s = session();
        let text = s.text().replace("b: \"2\"", "b: \"3\"");
        s.typed(text.clone());
        s.check();
        assert!(s.is_dirty());
        let draft = s
            .draft("edit/core/v1/configmaps/default/settings", 7.0)
            .expect("a draft");
        assert_eq!(draft.text, text);
        assert_eq!(draft.base["metadata"]["resourceVersion"], "5");

        s.typed("data: [unclosed".into());
        assert_eq!(s.begin(Some(Write::Replace)), None, "nothing is sent");
        assert!(s.is_invalid());
        assert!(!s.is_busy());
    }

    #[test]
    fn a_saved_edit_starts_over_from_what_was_stored() {
        let mut s = session();
        s.typed(s.text().replace("b: \"2\"", "b: \"3\""));
        let sent = s.begin(Some(Write::Replace)).expect("a document");
        assert_eq!(
            sent["metadata"]["resourceVersion"], "5",
            "PUT carries its version"
        );
        assert!(s.is_busy());
        s.saved(
            &config_map("6", json!({"a": "1", "b": "3"})),
            vec!["w".into()],
            Write::Replace,
        );
        assert!(!s.is_busy() && !s.is_dirty());
        assert_eq!(
            s.outcome(),
            Some(&Outcome::Saved {
                resource_version: "6".into(),
                warnings: vec!["w".into()],
                applied: false
            })
        );
        let (count, text) = s.replaced_text().expect("the editor gets the stored text");
        assert_eq!((*count, text.as_str()), (1, s.text()));
        assert!(!s.is_behind(Some("6")));
        assert!(s.is_behind(Some("7")), "a later write on the watch");
    }

    #[test]
    fn apply_sends_no_resource_version_and_names_the_fields_others_own() {
        let mut s = session();
        let sent = s
            .begin(Some(Write::Apply { force: false }))
            .expect("a document");
        assert_eq!(sent["metadata"].get("resourceVersion"), None);
        let conflict = ApiError::from_response(
            409,
            &json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Conflict", "code": 409,
                "message": "Apply failed with 1 conflict: conflict with \"kubectl\": .data.a",
                "details": {"causes": [{"reason": "FieldManagerConflict", "message": "conflict with \"kubectl\"", "field": ".data.a"}]}})
            .to_string(),
        );
        assert!(!EditSession::needs_latest(
            &conflict,
            Some(Write::Apply { force: false })
        ));
        s.failed(conflict, Some(Write::Apply { force: false }));
        let Some(Outcome::ApplyConflicts(conflicts)) = s.outcome() else {
            panic!("apply conflicts, got {:?}", s.outcome());
        };
        assert_eq!(conflicts[0].manager, "kubectl");
        let named = s.named_fields();
        assert_eq!(named.len(), 1, "{named:?}");
        assert!(named[0].message.contains("owned by kubectl"));
        assert_eq!(
            s.text()
                .lines()
                .nth(named[0].line - 1)
                .map(str::trim_start)
                .map(|l| &l[..2]),
            Some("a:")
        );
    }

    #[test]
    fn a_conflict_on_save_replays_the_edit_onto_the_latest() {
        let mut s = session();
        s.typed(s.text().replace("b: \"2\"", "b: \"3\""));
        s.begin(Some(Write::Replace));
        let conflict = ApiError::from_response(
            409,
            &json!({"kind": "Status", "status": "Failure", "reason": "Conflict", "code": 409,
                "message": "the object has been modified"})
            .to_string(),
        );
        assert!(EditSession::needs_latest(&conflict, Some(Write::Replace)));
        // Someone else changed `a` meanwhile: no field changed on both sides.
        s.reapply(config_map("9", json!({"a": "x", "b": "2"})));
        let Some(Outcome::Reapplied { theirs, yours }) = s.outcome() else {
            panic!("reapplied, got {:?}", s.outcome());
        };
        assert_eq!((theirs.len(), yours.len()), (1, 1));
        assert!(
            s.text().contains("a: x") && s.text().contains("b: \"3\""),
            "{}",
            s.text()
        );
        assert!(s.is_dirty(), "still to be saved");
        assert_eq!(
            s.draft("k", 1.0).expect("draft").base["metadata"]["resourceVersion"],
            "9"
        );
    }

    #[test]
    fn a_field_changed_on_both_sides_waits_for_a_pick() {
        let mut s = session();
        s.typed(s.text().replace("b: \"2\"", "b: mine"));
        s.reapply(config_map("9", json!({"a": "1", "b": "theirs"})));
        let choice = s.choice().expect("a choice");
        assert_eq!(choice.picks, vec![Pick::Yours]);
        assert_eq!(s.outcome(), None);
        s.pick(0, Pick::Theirs);
        s.pick(5, Pick::Yours);
        s.use_picks();
        assert!(s.choice().is_none());
        assert!(s.text().contains("b: theirs"), "{}", s.text());
        assert!(matches!(s.outcome(), Some(Outcome::Reapplied { .. })));
    }

    #[test]
    fn an_unparsable_text_is_not_merged() {
        let mut s = session();
        s.typed("data: [unclosed".into());
        s.reapply(config_map("9", json!({"a": "1"})));
        assert!(matches!(s.outcome(), Some(Outcome::Refused(_))));
        assert_eq!(s.text(), "data: [unclosed", "the text stays");
    }

    #[test]
    fn a_review_shows_what_would_be_stored_until_the_text_changes() {
        let mut s = session();
        s.typed(s.text().replace("b: \"2\"", "b: \"3\""));
        s.begin(None);
        let live = config_map("5", json!({"a": "1", "b": "2"}));
        let would = config_map("5", json!({"a": "1", "b": "3"}));
        s.reviewed(&live, &would, vec![]);
        let review = s.review().expect("a review");
        assert_eq!(review.changes.len(), 1);
        assert!(!review.live.contains("managedFields"));
        s.typed(s.text().to_string() + "\n");
        assert!(s.review().is_none());
    }

    #[test]
    fn a_restored_draft_wins_and_discarding_goes_back_to_the_live_object() {
        let live = config_map("5", json!({"a": "1"}));
        let draft = Draft {
            key: "k".into(),
            text: "kind: ConfigMap\n# mine".into(),
            base: editable(&config_map("4", json!({"a": "0"})), false),
            saved_at_ms: 42.0,
        };
        let mut s = EditSession::open(target(), false, Some(&live), Some(draft));
        assert_eq!(s.text(), "kind: ConfigMap\n# mine");
        assert_eq!(s.restored_at_ms(), Some(42.0));
        assert!(s.is_dirty());
        assert!(s.is_behind(Some("5")));
        s.discard(Some(&live));
        assert!(!s.is_dirty());
        assert_eq!(s.restored_at_ms(), None);
        assert!(!s.is_behind(Some("5")));
        assert!(s.text().contains("a: \"1\""));
    }
}
