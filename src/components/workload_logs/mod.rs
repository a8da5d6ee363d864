//! The Logs tab of a workload (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob,
//! Service): every covered pod's containers, merged by time into one view, each line behind
//! its pod's coloured tag (`kubectl logs -l … --prefix --all-containers -f`, merged). Pods
//! join as they start and end as they go (`state::workload_logs`).
//!
//! As the pod logs: lines arrive into the model between frames and are merged and drawn once
//! per frame, only the lines in view exist in the DOM, and lines are text, never HTML. The view
//! sticks to the newest line until the user scrolls up; "Pause" stops new lines from being
//! shown (they are counted) until "Follow".

use leptos::html;
use leptos::prelude::*;

use crate::components::log_following::{follow_button, use_following};
use crate::components::windowing::{use_windowing, UseWindowingOptions, UseWindowingReturn};
use crate::model::object::workload_logs::log::DEFAULT_LINES_PER_FRAME;
use crate::model::object::workload_logs::{PodCoverage, Since};
use crate::state::workload_logs::{use_workload_logs, UseWorkloadLogsOptions};

mod lines;
mod toolbar;

use lines::{line_view, visible_lines, StreamList};
use toolbar::{FilterBar, Filters};

/// Height of one line in pixels; the stylesheet sets the same (`.workload-log-line`).
pub const LINE_HEIGHT: f64 = 18.0;

crate::split::split_view!(
    /// The view itself: a module of its own (with the regex engine and the merge), so the
    /// pages that offer it (an object's Logs tab, a pods list's "Logs of these pods") do not
    /// load it before it is opened.
    kube_atlas_workload_logs(coverage: PodCoverage) => view! { <WorkloadLogsView coverage=coverage/> }
);

/// A workload's logs, its code fetched when first shown.
#[component]
pub fn WorkloadLogs(
    /// Which pods: a workload's (`PodCoverage::of` the object), or a label selector's.
    coverage: PodCoverage,
) -> impl IntoView {
    crate::split::loaded_with(
        || view! { <p class="loading">"Loading the logs view…"</p> }.into_any(),
        "The logs view could not be loaded. ",
        move || kube_atlas_workload_logs(coverage.clone()),
    )
}

#[component]
fn WorkloadLogsView(coverage: PodCoverage) -> impl IntoView {
    let since = RwSignal::new(Since::default());
    // Another "since" reads every stream again from there: a new view.
    move || {
        let coverage = coverage.clone();
        view! { <WorkloadLogsSince coverage=coverage since=since/> }
    }
}

#[component]
fn WorkloadLogsSince(coverage: PodCoverage, since: RwSignal<Since>) -> impl IntoView {
    // For the download's file name: `deployment-web-logs.txt`, `pods-app=web-logs.txt`.
    let kind = coverage
        .kind
        .map_or_else(|| "pods".to_string(), |kind| kind.kind().to_string());
    let name = coverage.name.clone();
    let logs = use_workload_logs(UseWorkloadLogsOptions {
        coverage,
        since: since.get_untracked(),
    });
    let log = logs.log;

    // What the view last drew: the lines shown, and a version bumped by every frame.
    let shown = RwSignal::new(0_usize);
    let version = RwSignal::new(0_u64);
    let scroller = NodeRef::<html::Div>::new();
    let sizer = NodeRef::<html::Div>::new();
    let window = use_windowing(UseWindowingOptions {
        scroller,
        row_height: LINE_HEIGHT,
        count: shown.into(),
        initial_viewport: 400.0,
    });
    let UseWindowingReturn {
        scroll_top, range, ..
    } = window;
    let follow = use_following(scroller, scroll_top, LINE_HEIGHT);
    let following = follow.following;

    // Once per frame: merge what arrived (a bounded number of lines), size the scroll area,
    // keep the view at the bottom (following) or on the same lines, then redraw.
    let frame_requested = StoredValue::new_local(false);
    let draw_frame = move || {
        frame_requested.try_set_value(false);
        let Some(change) = log.try_update_value(|l| l.merge_pending(DEFAULT_LINES_PER_FRAME))
        else {
            return;
        };
        let (now, more) = log.with_value(|l| (l.view().len(), l.intake().pending_len() > 0));
        if let (Some(el), Some(sizer)) = (scroller.get_untracked(), sizer.get_untracked()) {
            web_sys::HtmlElement::style(&sizer)
                .set_property("height", &format!("{}px", now as f64 * LINE_HEIGHT))
                .ok();
            if following.get_untracked() {
                el.set_scroll_top(el.scroll_height());
            } else {
                let moved =
                    change.shown.placed_before_end as f64 - change.shown.removed_from_start as f64;
                if moved != 0.0 && f64::from(el.scroll_top()) > 0.0 {
                    let top = f64::from(el.scroll_top()) + moved * LINE_HEIGHT;
                    el.set_scroll_top(top.max(0.0) as i32);
                }
            }
            window.measure(&el);
        }
        shown.set(now);
        version.update(|v| *v += 1);
        if more {
            logs.arrived.notify();
        }
    };
    let redraw = move || {
        if frame_requested.try_with_value(|requested| !*requested) == Some(true) {
            frame_requested.set_value(true);
            request_animation_frame(draw_frame);
        }
    };
    Effect::new(move |_| {
        logs.arrived.track();
        redraw();
    });

    let filters = Filters::new();
    let lines_in_view = move || {
        version.track();
        visible_lines(log, logs.tags, range.get())
    };
    let notes = move || {
        version.track();
        log.with_value(|l| {
            let mut notes = l.notes();
            notes.extend(l.view().waiting_note());
            notes
        })
    };
    let count = move || {
        version.track();
        log.with_value(|l| l.view().count_note())
    };

    view! {
        <section class="workload-logs" aria-label="Workload logs">
            <FilterBar
                filters=filters
                log=log
                since=since
                streams=logs.streams
                kind=kind
                name=name
                on_change=Callback::new(move |()| {
                    shown.set(log.with_value(|l| l.view().len()));
                    version.update(|v| *v += 1);
                    redraw();
                })
            />
            <p class="workload-logs-summary" aria-live="polite">
                <span class="workload-logs-streaming">{move || logs.summary.get()}</span>
                " · "
                <span class="workload-logs-count">{count}</span>
                {(!logs.shared_socket).then(|| view! {
                    <span class="muted" title="A browser keeps at most six connections to one server, and each log stream holds one; kube-atlas carries every stream over one socket.">
                        {format!(
                            " · at most {} pods over plain HTTP (kubectl proxy); kube-atlas streams up to 20",
                            crate::state::workload_logs::MAX_PODS_OVER_HTTP
                        )}
                    </span>
                })}
            </p>
            {move || logs.nothing.get().map(|why| view! { <p class="muted workload-logs-nothing">{why}</p> })}
            {move || logs.refused.get().map(|why| view! { <p class="error workload-logs-refused" role="alert">{why}</p> })}
            {move || notes().into_iter().map(|note| view! { <p class="workload-logs-note">{note}</p> }).collect_view()}
            <StreamList streams=logs.streams/>
            <div class="pod-logs-frame">
                <div
                    class="pod-logs-scroll workload-logs-scroll"
                    node_ref=scroller
                    tabindex="0"
                    role="log"
                    aria-live="off"
                    aria-label="Log lines of every pod"
                    on:scroll=move |_| follow.note_scroll_position.run(())
                >
                    <div class="pod-logs-sizer" node_ref=sizer>
                        <div
                            class="pod-logs-window"
                            style:transform=move || {
                                format!("translateY({}px)", range.get().0 as f64 * LINE_HEIGHT)
                            }
                        >
                            <For each=lines_in_view key=|line| line.key.clone() children=line_view/>
                        </div>
                    </div>
                </div>
                {follow_button(follow)}
            </div>
        </section>
    }
}
