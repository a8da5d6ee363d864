//! One stream's life as its container runs, exits and restarts: when to open it (again),
//! from where, and when it ended. [`super::membership`] keeps one per stream.

use crate::object::workload_logs::status::{EndReason, StreamStatus};
use crate::object::workload_logs::streams::{ContainerRun, Since, StreamStart};

/// What a stream does after its container's run was read again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Nothing,
    /// Open the stream from `start`; close the one still open first when `close_first`.
    Open {
        start: StreamStart,
        close_first: bool,
    },
    /// The container exited: mark it ended (the server ends the stream by itself).
    Ended,
}

/// Where one stream is, and which run of its container it reads.
#[derive(Debug, Clone)]
pub(crate) struct Tracked {
    pub(crate) status: StreamStatus,
    /// `restartCount` of the run last opened.
    opened_run: Option<u32>,
    last_run: ContainerRun,
}

impl Tracked {
    pub(crate) fn new() -> Tracked {
        Tracked {
            status: StreamStatus::NotStarted,
            opened_run: None,
            last_run: ContainerRun::NotStarted,
        }
    }

    /// Follows the container to `run`. A stream opens once its container has started (and
    /// again for a new run, or after the server said it waited to start; not after a
    /// refusal, nor after the server closed it while the run went on: reading it again would
    /// repeat lines). The first run of a pod there when the view opened (`from_open`) is read
    /// from `since`; any other from its start (`run`'s, else `pod_start`).
    pub(crate) fn step(
        &mut self,
        run: ContainerRun,
        from_open: bool,
        since: Since,
        pod_start: Option<&str>,
    ) -> Step {
        let restarts = run.restarts();
        let new_run = self.opened_run.is_some_and(|opened| restarts > opened);
        let open = run.has_started()
            && match self.status {
                StreamStatus::NotStarted | StreamStatus::WaitingToStart => true,
                StreamStatus::Joined | StreamStatus::Ended(_) => new_run,
                StreamStatus::Refused { .. } => false,
            };
        let step = if open {
            let start = if self.opened_run.is_none() && from_open {
                StreamStart::Since(since)
            } else {
                match run.started_at().or(pod_start) {
                    Some(time) => StreamStart::At(time.to_string()),
                    None => StreamStart::Beginning,
                }
            };
            let close_first = self.status.is_live();
            self.status = StreamStatus::Joined;
            self.opened_run = Some(restarts);
            Step::Open { start, close_first }
        } else {
            self.follow_exit(&run, restarts)
        };
        self.last_run = run;
        step
    }

    /// The run read exited: an open stream ends; one that ended first learns why.
    fn follow_exit(&mut self, run: &ContainerRun, restarts: u32) -> Step {
        let ContainerRun::Terminated { exit_code, .. } = run else {
            return Step::Nothing;
        };
        if self.opened_run != Some(restarts) {
            return Step::Nothing;
        }
        let exited = StreamStatus::Ended(EndReason::Exited {
            exit_code: *exit_code,
        });
        match self.status {
            StreamStatus::Joined => {
                self.status = exited;
                Step::Ended
            }
            // The stream ended before the watch told why.
            StreamStatus::Ended(EndReason::Closed) => {
                self.status = exited;
                Step::Nothing
            }
            _ => Step::Nothing,
        }
    }

    /// The response ended by itself: the container exited, if the last run read says so.
    pub(crate) fn finished(&mut self) {
        if self.status.is_live() {
            self.status = StreamStatus::Ended(match self.last_run {
                ContainerRun::Terminated { exit_code, .. } => EndReason::Exited { exit_code },
                _ => EndReason::Closed,
            });
        }
    }
}
