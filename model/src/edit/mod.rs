//! Editing objects safely (issue #13), as a pure model: what the editor shows
//! ([`editable`]), checks of an edited document against its page ([`check`]), reapplying an
//! edit over a concurrent write after a 409 ([`merge`]), server-side apply conflicts
//! ([`apply`]), creating from YAML through discovery ([`create`]), starting templates
//! ([`template`]), drafts kept across reloads ([`draft`]), one-label edits ([`quick`]) and
//! an open edit's states and transitions ([`session`]); day-two actions (restart, pause,
//! drain, evict, trigger, bulk) as kubectl's requests ([`actions`]).
//! No browser APIs: the UI parses the editor's text with [`crate::object::yaml`] and sends
//! what these functions return.

pub mod actions;
pub mod apply;
pub mod check;
pub mod create;
pub mod draft;
pub mod editable;
pub mod locate;
pub mod merge;
pub mod quick;
pub mod rollback;
pub mod session;
pub mod template;

pub use apply::{apply_conflicts, ApplyConflict};
pub use check::{
    check_document, document_to_save, fill_default_namespace, EditProblem, EditTarget,
};
pub use create::{expand_lists, plan_creates, CreatePlan};
pub use draft::{draft_key, Draft, CREATE_FROM_YAML_DRAFT_KEY};
pub use editable::{editable, has_status_subresource, review_diff};
pub use locate::line_of_field;
pub use merge::{resolve, three_way, Conflict, Merge, Pick};
pub use quick::{check_metadata_entry, metadata_entry_patch, MetadataMap};
pub use rollback::{Rollback, RollbackStep};
pub use session::{yaml_of, Choice, EditSession, NamedField, Outcome, Review, Write};
pub use template::template_for;

// What the editor needs from elsewhere in the model, in one place.
pub use crate::history::{FieldChange, FieldPath, Segment};
pub use crate::object::yaml::{parse_documents, to_yaml, to_yaml_in_server_order, YamlError};
