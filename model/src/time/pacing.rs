//! Pacing of a recompute by its own cost: after a run that took `c` ms, the next one waits
//! `factor × c` ms, so an expensive view (a 50,000-row sort, an activity chain) recomputing
//! under a burst of events takes at most `1 / (1 + factor)` of the time.

use crate::time::clock::Monotonic;

/// When the next run may start, and whether one is already scheduled for then.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostPacing {
    factor: f64,
    scheduled: bool,
    /// Earliest time (ms, same clock as the calls) of the next run.
    next_at_ms: f64,
    /// What the last run cost so far (a run may go on in a later task: a draw).
    last_cost_ms: f64,
}

impl CostPacing {
    pub fn new(factor: f64) -> CostPacing {
        CostPacing {
            factor,
            scheduled: false,
            next_at_ms: f64::NEG_INFINITY,
            last_cost_ms: 0.0,
        }
    }

    /// How long a run asked for at `now_ms` waits (0: it may run at once).
    pub fn wait_ms(&self, now: impl Into<Monotonic>) -> f64 {
        let now_ms = now.into().ms();
        (self.next_at_ms - now_ms).max(0.0)
    }

    /// Whether a run is already scheduled (a new ask is folded into it).
    pub fn scheduled(&self) -> bool {
        self.scheduled
    }

    pub fn schedule(&mut self) {
        self.scheduled = true;
    }

    /// A run went from `started_ms` to `finished_ms`: nothing is scheduled any more, and the
    /// next run waits `factor` times its cost.
    pub fn ran(&mut self, started_ms: f64, finished_ms: f64) {
        self.scheduled = false;
        self.last_cost_ms = finished_ms - started_ms;
        self.next_at_ms = finished_ms + self.last_cost_ms * self.factor;
    }

    /// The last run went on in a later task from `started_ms` to `finished_ms` (its result
    /// drawn apart from its computing): the next run waits `factor` times both parts' cost,
    /// from the end of this one.
    pub fn continued(&mut self, started_ms: f64, finished_ms: f64) {
        self.last_cost_ms += finished_ms - started_ms;
        self.next_at_ms = self
            .next_at_ms
            .max(finished_ms + self.last_cost_ms * self.factor);
    }
}

/// The main thread's budget, per frame, for work that can wait for a later frame (watch
/// flushes recording history): the flushes of one frame share it, and work done between
/// frames that could not wait (a view computing or drawing after a frame) is taken from the
/// next frame's, so that frame does little else and is not late.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameBudget {
    budget_ms: f64,
    /// Work starting within this long of the frame's first counts in the same frame (a
    /// frame's callbacks run back to back).
    frame_window_ms: f64,
    /// When the current frame's first work began, and what it spent so far.
    began_ms: f64,
    spent_ms: f64,
    /// Spent between frames, for the next frame, and when.
    carried_ms: f64,
    carried_at_ms: f64,
}

impl FrameBudget {
    pub const fn new(budget_ms: f64, frame_window_ms: f64) -> FrameBudget {
        FrameBudget {
            budget_ms,
            frame_window_ms,
            began_ms: f64::NEG_INFINITY,
            spent_ms: 0.0,
            carried_ms: 0.0,
            carried_at_ms: f64::NEG_INFINITY,
        }
    }

    /// What work starting at `now` may still take in its frame (negative: nothing).
    pub fn left(&mut self, now: impl Into<Monotonic>) -> f64 {
        let now_ms = now.into().ms();
        if now_ms - self.began_ms > self.frame_window_ms {
            self.began_ms = now_ms;
            // What was done between frames counts in this one; long ago, in none.
            self.spent_ms = if now_ms - self.carried_at_ms <= 3.0 * self.frame_window_ms {
                self.carried_ms
            } else {
                0.0
            };
            self.carried_ms = 0.0;
        }
        self.budget_ms - self.spent_ms
    }

    /// Work in the current frame took `ms`.
    pub fn spend(&mut self, ms: f64) {
        self.spent_ms += ms;
    }

    /// Work between frames took `ms`, finishing at `now`: the next frame makes room for it.
    pub fn spend_before_next_frame(&mut self, ms: f64, now: impl Into<Monotonic>) {
        self.carried_ms += ms;
        self.carried_at_ms = now.into().ms();
    }
}

#[cfg(test)]
mod tests {
    use super::{CostPacing, FrameBudget};

    #[test]
    fn a_frames_flushes_share_its_budget_and_work_between_frames_takes_from_the_next() {
        let mut budget = FrameBudget::new(6.0, 12.0);
        assert_eq!(budget.left(100.0), 6.0);
        budget.spend(4.0);
        assert_eq!(budget.left(105.0), 2.0, "a second flush of the same frame");
        assert_eq!(budget.left(117.0), 6.0, "the next frame starts afresh");
        // A view computed for 10 ms after that frame: the next frame has nothing left.
        budget.spend_before_next_frame(10.0, 130.0);
        assert_eq!(budget.left(133.0), -4.0);
        assert_eq!(budget.left(134.0), -4.0);
        assert_eq!(budget.left(150.0), 6.0, "and the one after is whole again");
        // Work long before the next frame's first flush (no flush for a while) is not held
        // against it.
        budget.spend_before_next_frame(10.0, 160.0);
        assert_eq!(budget.left(400.0), 6.0);
    }

    #[test]
    fn the_next_run_waits_factor_times_the_last_runs_cost() {
        let mut pacing = CostPacing::new(4.0);
        assert_eq!(pacing.wait_ms(0.0), 0.0, "the first run goes at once");
        pacing.schedule();
        assert!(pacing.scheduled());
        pacing.ran(100.0, 110.0);
        assert!(!pacing.scheduled());
        assert_eq!(pacing.wait_ms(110.0), 40.0);
        assert_eq!(pacing.wait_ms(130.0), 20.0);
        assert_eq!(pacing.wait_ms(150.0), 0.0);
        assert_eq!(pacing.wait_ms(500.0), 0.0);
    }

    #[test]
    fn a_run_drawn_in_a_later_task_counts_both_parts() {
        let mut pacing = CostPacing::new(4.0);
        pacing.ran(100.0, 110.0);
        // Drawn from 115 to 125: 20 ms in all, so the next run waits 80 ms from 125.
        pacing.continued(115.0, 125.0);
        assert_eq!(pacing.wait_ms(125.0), 80.0);
        assert_eq!(pacing.wait_ms(205.0), 0.0);
        // A new run starts the count again.
        pacing.ran(300.0, 305.0);
        assert_eq!(pacing.wait_ms(305.0), 20.0);
    }
}
