//! Pacing of a recompute by its own cost: after a run that took `c` ms, the next one waits
//! `factor × c` ms, so an expensive view (a 50,000-row sort, an activity chain) recomputing
//! under a burst of events takes at most `1 / (1 + factor)` of the time.

use crate::clock::Monotonic;

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

#[cfg(test)]
mod tests {
    use super::CostPacing;

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
