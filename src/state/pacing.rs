//! A view's recompute paced by its own cost ([`CostPacing`]): run at once when the last run
//! was long enough ago, else once after the pause, with every ask meanwhile folded into that
//! run. A run scheduled before its view went is dropped: the view's signals are disposed by
//! then, and reading one would panic (which stops the whole app).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser::{monotonic_now, now_ms};
use crate::model::pacing::CostPacing;

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

    /// Runs `compute` at an animation frame when the pacing allows, and `draw` with its
    /// result at the next one; asks meanwhile fold into the next run. Neither runs inside the
    /// asker's task (an effect of a frame's watch flush, which has its frame's work already),
    /// and computing and drawing never share a frame: together with the frame's own watch
    /// flush and layout they made frames of 50-80 ms during a 100-pod rollout. The pacing
    /// counts both parts.
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
            request_animation_frame(move || {
                if this.pacing.is_disposed() {
                    return;
                }
                let started = now_ms();
                let result = compute();
                let finished = now_ms();
                this.pacing.update_value(|p| p.ran(started, finished));
                request_animation_frame(move || {
                    if this.pacing.is_disposed() {
                        return;
                    }
                    let started = now_ms();
                    draw(result);
                    // What the draw set is drawn by effects, in microtasks queued by the
                    // set: this one runs after them.
                    spawn_local(async move {
                        let finished = now_ms();
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
