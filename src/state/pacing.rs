//! A view's recompute paced by its own cost ([`CostPacing`]): run at once when the last run
//! was long enough ago, else once after the pause, with every ask meanwhile folded into that
//! run. A run scheduled before its view went is dropped: the view's signals are disposed by
//! then, and reading one would panic (which stops the whole app).
//!
//! And the frame's budget ([`FrameBudget`]) that the watch flushes share, which a view's
//! computing or drawing between frames takes from: so a frame never has both.

use leptos::prelude::*;
use leptos::task::spawn_local;

use std::cell::Cell;

use crate::browser::{monotonic_now, now_ms};
use crate::model::pacing::{CostPacing, FrameBudget};

/// How long the watch streams' flushes of one frame may take together while recording
/// history (each write's diff and copy is what costs): what is left waits for the next frame,
/// so a burst of writes (a 100-pod rollout) is spread over frames instead of making one long.
const FRAME_FLUSH_BUDGET_MS: f64 = 6.0;

/// Animation-frame callbacks of one frame run back to back: flushes starting within this
/// long of the first share its budget.
const FRAME_MS: f64 = 12.0;

thread_local! {
    static FRAME_BUDGET: Cell<FrameBudget> =
        const { Cell::new(FrameBudget::new(FRAME_FLUSH_BUDGET_MS, FRAME_MS)) };
}

/// What a flush starting at `now` may still take in this frame.
pub fn frame_budget_left(now: f64) -> f64 {
    FRAME_BUDGET.with(|cell| {
        let mut budget = cell.get();
        let left = budget.left(now);
        cell.set(budget);
        left
    })
}

/// A flush of this frame took `ms`.
pub fn frame_budget_spend(ms: f64) {
    FRAME_BUDGET.with(|cell| {
        let mut budget = cell.get();
        budget.spend(ms);
        cell.set(budget);
    });
}

/// Work between frames (a view computing or drawing) took `ms`: the next frame's flushes
/// make room for it.
fn spend_before_next_frame(ms: f64) {
    FRAME_BUDGET.with(|cell| {
        let mut budget = cell.get();
        budget.spend_before_next_frame(ms, now_ms());
        cell.set(budget);
    });
}

/// Owned by the view that creates it (disposed with it).
#[derive(Clone, Copy)]
pub struct PacedRun {
    pacing: StoredValue<CostPacing>,
}

impl PacedRun {
    pub fn new(factor: f64) -> PacedRun {
        PacedRun {
            pacing: StoredValue::new(CostPacing::new(factor)),
        }
    }

    /// Runs `work` now, whatever the pacing says (the user changed the view), and times it.
    pub fn run_now(&self, work: impl FnOnce()) {
        let started = now_ms();
        work();
        let finished = now_ms();
        self.pacing.update_value(|p| p.ran(started, finished));
    }

    /// How long a run asked now waits; None when one is scheduled already (the ask folds
    /// into it) or the view has gone.
    fn wait_unless_scheduled(&self) -> Option<f64> {
        self.pacing
            .try_with_value(|p| (!p.scheduled()).then(|| p.wait_ms(monotonic_now())))
            .flatten()
    }

    /// Runs `compute` in a task just after an animation frame when the pacing allows, and
    /// `draw` with its result just after the next one; asks meanwhile fold into the next run.
    /// Neither runs inside the asker's task (an effect of a frame's watch flush) nor inside a
    /// frame's callbacks: a frame's own work (the watch flush, then style and layout) comes
    /// first, and each part starts with a whole frame period before the next frame. Computing,
    /// drawing and a watch flush in one frame made frames of 50-80 ms during a 100-pod
    /// rollout; computing beside a flush in one frame still made 50. The pacing counts both
    /// parts.
    pub fn ask_in_frames<T: 'static>(
        &self,
        compute: impl Fn() -> T + Copy + 'static,
        draw: impl Fn(T) + Copy + 'static,
    ) {
        let Some(wait) = self.wait_unless_scheduled() else {
            return;
        };
        self.pacing.update_value(CostPacing::schedule);
        let this = *self;
        let in_frames = move || {
            after_next_frame(move || {
                if this.pacing.is_disposed() {
                    return;
                }
                let started = now_ms();
                let result = compute();
                let finished = now_ms();
                spend_before_next_frame(finished - started);
                this.pacing.update_value(|p| p.ran(started, finished));
                after_next_frame(move || {
                    if this.pacing.is_disposed() {
                        return;
                    }
                    let started = now_ms();
                    draw(result);
                    // What the draw set is drawn by effects, in microtasks queued by the
                    // set: this one runs after them.
                    spawn_local(async move {
                        let finished = now_ms();
                        spend_before_next_frame(finished - started);
                        this.pacing
                            .try_update_value(|p| p.continued(started, finished));
                    });
                });
            });
        };
        if wait <= 0.0 {
            in_frames();
        } else {
            set_timeout(in_frames, std::time::Duration::from_millis(wait as u64));
        }
    }

    /// Runs `work` now if the pacing allows, else once when it does (unless a run is
    /// already scheduled, which will see the same state).
    pub fn ask(&self, work: impl Fn() + Copy + 'static) {
        let Some(wait) = self.wait_unless_scheduled() else {
            return;
        };
        if wait <= 0.0 {
            self.run_now(work);
            return;
        }
        self.pacing.update_value(CostPacing::schedule);
        let this = *self;
        set_timeout(
            move || {
                if !this.pacing.is_disposed() {
                    this.run_now(work);
                }
            },
            std::time::Duration::from_millis(wait as u64),
        );
    }
}

/// Runs `work` in a task of its own just after the next animation frame (its callbacks,
/// style, layout and paint), so it has the frame period before the next one to itself.
fn after_next_frame(work: impl FnOnce() + 'static) {
    request_animation_frame(move || set_timeout(work, std::time::Duration::ZERO));
}
