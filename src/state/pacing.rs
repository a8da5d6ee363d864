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
use crate::model::time::pacing::{CostPacing, FrameBudget};

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

/// Reads and changes the page's frame budget.
fn with_frame_budget<R>(change: impl FnOnce(&mut FrameBudget) -> R) -> R {
    FRAME_BUDGET.with(|cell| {
        let mut budget = cell.get();
        let result = change(&mut budget);
        cell.set(budget);
        result
    })
}

/// What a flush starting at `now` may still take in this frame.
pub fn frame_budget_left(now: f64) -> f64 {
    with_frame_budget(|budget| budget.left(now))
}

/// A flush of this frame took `ms`.
pub fn frame_budget_spend(ms: f64) {
    with_frame_budget(|budget| budget.spend(ms));
}

/// Work between frames (a view computing or drawing) took `ms`: the next frame's flushes
/// make room for it.
fn spend_before_next_frame(ms: f64) {
    with_frame_budget(|budget| budget.spend_before_next_frame(ms, now_ms()));
}

/// Owned by the view that creates it (disposed with it).
#[derive(Clone, Copy)]
pub struct PacedRun {
    pacing: StoredValue<CostPacing>,
    /// What the last run's parts took (computing, drawing), to find idle time for them.
    parts_ms: StoredValue<(f64, f64)>,
}

impl PacedRun {
    pub fn new(factor: f64) -> PacedRun {
        PacedRun {
            pacing: StoredValue::new(CostPacing::new(factor)),
            parts_ms: StoredValue::new((0.0, 0.0)),
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

    /// Runs `compute` in an idle period of the main thread when the pacing allows, and
    /// `draw` with its result in a later one; asks meanwhile fold into the next run. Each
    /// part waits for an idle period with the time it took last (up to
    /// [`IDLE_NEED_MAX_MS`]) left before the next frame, or [`IDLE_WAIT_MAX_MS`] at most;
    /// what it takes comes out of the next frame's flush budget. So neither runs inside the
    /// asker's task (an effect of a frame's watch flush), nor beside the other, a flush or
    /// a frame's layout: together they made frames of 50-80 ms during a 100-pod rollout,
    /// and a part started in a task just before a frame was due still pushed the frame back.
    /// The pacing counts both parts.
    pub fn ask_when_idle<T: 'static>(
        &self,
        compute: impl Fn() -> T + Copy + 'static,
        draw: impl Fn(T) + Copy + 'static,
    ) {
        let Some(wait) = self.wait_unless_scheduled() else {
            return;
        };
        self.pacing.update_value(CostPacing::schedule);
        let this = *self;
        let run = move || {
            let Some((needs, _)) = this.parts_ms.try_get_value() else {
                return; // The view went meanwhile.
            };
            when_idle(needs, move || {
                if this.pacing.is_disposed() {
                    return;
                }
                let started = now_ms();
                let result = compute();
                let finished = now_ms();
                spend_before_next_frame(finished - started);
                this.pacing.update_value(|p| p.ran(started, finished));
                let Some(needs) = this.parts_ms.try_update_value(|parts| {
                    parts.0 = finished - started;
                    parts.1
                }) else {
                    return;
                };
                when_idle(needs, move || {
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
                        this.parts_ms
                            .try_update_value(|parts| parts.1 = finished - started);
                    });
                });
            });
        };
        if wait <= 0.0 {
            run();
        } else {
            set_timeout(run, std::time::Duration::from_millis(wait as u64));
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

/// The idle time a part waits for at most: a frame's period less the frame's own work. A
/// part that took longer last time takes what the first such period gives.
const IDLE_NEED_MAX_MS: f64 = 10.0;

/// How long a part waits for idle time at most: on a main thread busy every frame, it then
/// runs anyway.
const IDLE_WAIT_MAX_MS: f64 = 150.0;

/// Runs `work` in an idle period (`requestIdleCallback`) with `needs_ms` (at most
/// [`IDLE_NEED_MAX_MS`]) left before the next frame, or after [`IDLE_WAIT_MAX_MS`].
fn when_idle(needs_ms: f64, work: impl FnOnce() + 'static) {
    let needs_ms = needs_ms.min(IDLE_NEED_MAX_MS);
    wait_for_idle(needs_ms, now_ms() + IDLE_WAIT_MAX_MS, Box::new(work));
}

fn wait_for_idle(needs_ms: f64, until_ms: f64, work: Box<dyn FnOnce()>) {
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else {
        return work();
    };
    // Safari has no idle callbacks: there, a task just after the next frame.
    if !js_sys::Reflect::has(&window, &"requestIdleCallback".into()).unwrap_or(false) {
        request_animation_frame(move || set_timeout(work, std::time::Duration::ZERO));
        return;
    }
    let callback =
        wasm_bindgen::closure::Closure::once_into_js(move |deadline: web_sys::IdleDeadline| {
            if deadline.did_timeout()
                || deadline.time_remaining() >= needs_ms
                || now_ms() >= until_ms
            {
                work();
            } else {
                wait_for_idle(needs_ms, until_ms, work);
            }
        });
    let options = web_sys::IdleRequestOptions::new();
    options.set_timeout((until_ms - now_ms()).max(1.0) as u32);
    // Only fails without a window's event loop (a closed page): nothing to draw then.
    let _ = window.request_idle_callback_with_options(callback.unchecked_ref(), &options);
}
