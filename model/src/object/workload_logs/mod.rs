//! A workload's logs: the logs of all pods of a Deployment, StatefulSet, DaemonSet,
//! ReplicaSet, Job, CronJob or Service, merged by time and live (`kubectl logs -f
//! deployment/web --all-containers` for every pod, as stern does). Pure: the page performs
//! the requests and draws; every decision is here.
//!
//! The pieces, in the order a line goes through them:
//! - [`coverage`]: which pods are the workload's (a label selector for the pods' watch, and
//!   [`PodCoverage::covers`] for each pod);
//! - [`membership`]: after each watch event, which streams to open, close or mark ended
//!   (at most [`membership::DEFAULT_MAX_PODS`] pods streamed, the newest; a rollout is old
//!   pods ending and new ones joining), each stream's request built in [`streams`] and its
//!   status sentence in [`status`];
//! - [`intake`]: each stream's chunks split into lines, the kubelet's timestamp read
//!   ([`timestamp`]), the severity guessed ([`severity`]), and the lines waiting for the next
//!   frame, bounded (backpressure);
//! - [`merge`]: the lines of all streams in one bounded buffer by time, a late line placed at
//!   its time;
//! - [`view`] and [`filter`]: what is shown (pod, container, text or regex, severity) and
//!   whether it follows the newest or is paused;
//! - [`tags`]: each stream's prefix (short name, colour); [`download`]: the text to save.
//!
//! [`log::WorkloadLog`] holds the intake, the merged log and the view together.

mod change;
pub mod coverage;
pub mod download;
pub mod filter;
pub mod intake;
pub mod log;
pub mod membership;
pub mod merge;
pub mod severity;
pub mod status;
pub mod streams;
pub mod tags;
pub mod timestamp;
mod tracked;
pub mod view;

pub use coverage::{PodCoverage, WorkloadKind};
pub use filter::{LineFilter, TextMode, TextPattern};
pub use log::WorkloadLog;
pub use membership::{Membership, MembershipChange, MembershipOptions};
pub use merge::{LogLine, MergedLog};
pub use severity::Severity;
pub use status::StreamStatus;
pub use streams::{Since, StreamKey};
pub use tags::{StreamTag, TagPalette};
pub use timestamp::LogTime;

#[cfg(test)]
mod tests;
