//! Day-two actions (issue #48), as data: each builds exactly the request kubectl sends
//! (method, path, content type, body; compared with kubectl's own requests recorded from
//! `kubectl -v=8` in `model/tests/actions_fixtures.rs`) and says the kubectl command it is.
//!
//! - [`target`]: the object acted on and its paths; how requests are sent (field manager,
//!   dry run);
//! - [`action`]: one action on one object: restart, pause/resume, suspend/resume, trigger,
//!   re-run, cordon/uncordon, evict, delete, label/annotate, scale; whether it applies, its
//!   request, the permission it needs, its kubectl command;
//! - [`jobs`]: the Jobs made by hand (from a CronJob, a Job's copy);
//! - [`drain`]: what `kubectl drain --ignore-daemonsets --delete-emptydir-data` evicts, skips
//!   and asks consent for; [`progress`]: a drain under way, pod by pod, and *Stop*;
//! - [`bulk`]: one action on many objects, previewed with permissions per object;
//!   [`results`]: its answers folded per object (409s retried once from the latest).
//!
//! No IO: the app sends the requests and feeds the answers back.

pub mod action;
pub mod bulk;
pub mod drain;
pub mod jobs;
pub mod progress;
pub mod results;
pub mod target;

#[cfg(test)]
mod tests;

pub use action::{Action, MetadataEdit, NotApplicable, RESTARTED_AT};
pub use bulk::{bar_actions, bar_denial, plan_bulk, BarAction, BulkPlan, DryRun, Planned, Verdict};
pub use drain::{plan_drain, Consent, DrainPlan, DrainPod, Skip, MIRROR_ANNOTATION};
pub use jobs::{
    hand_made_job_name, job_from_cronjob, rerun_job, CONTROLLER_LABELS, INSTANTIATE_ANNOTATION,
};
pub use progress::{DrainProgress, PodProgress, StopSummary};
pub use results::{BulkRun, ObjectResult, RunItem};
pub use target::{ActionOptions, Manager, Target};
