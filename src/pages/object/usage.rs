//! The object page's usage: small charts of the samples taken since the page opened, with
//! the requests and limits (or allocatable) as levels and the object's own history as marks
//! on the same time axis.

use leptos::prelude::*;

use crate::browser::utc_offset_minutes;
use crate::components::usage_chart::UsageChartView;
use crate::model::diagnosis::Finding;
use crate::model::metrics::chart::{marks_from_past, marks_from_timeline};
use crate::model::metrics::{usage_chart, ChartInput, Mark, MarkSource};
use crate::model::navigation::route::{ObjectTab, Page};
use crate::pages::object::tabs::{timeline_of, ObjectPageParts};
use crate::state::clock::{epoch_now, use_clock};
use crate::state::object_usage::use_object_usage;

/// The time axis reaches back at least this far, so the first samples do not fill it.
const MIN_SPAN_MS: i64 = 5 * 60_000;
const CHART_WIDTH: f64 = 360.0;
const CHART_HEIGHT: f64 = 130.0;

impl ObjectPageParts {
    /// Usage charts for pods, nodes and workloads, with what the usage says is wrong (for
    /// the Diagnosis); nothing for other kinds.
    pub(super) fn usage_section(&self) -> Option<(AnyView, Signal<Vec<Finding>>)> {
        let kind = self
            .tree
            .find(&self.identity.resource)?
            .resource
            .kind
            .clone();
        let usage = use_object_usage(
            &kind,
            self.identity.namespace.as_deref(),
            &self.identity.name,
            self.state.object,
        )?;
        let opened = epoch_now();
        let now = use_clock();
        let timeline = timeline_of(&self.state);
        let past = self.state.past;
        let marks = Memo::new(move |_| {
            let mut marks: Vec<Mark> = past.with(|p| marks_from_past(p));
            if let Some(timeline) = timeline.get() {
                marks.extend(marks_from_timeline(&timeline));
            }
            marks
        });
        // A mark opens its entry on the timeline (a watched revision by its resourceVersion).
        let identity = self.identity.clone();
        let href_of = Callback::new(move |source: MarkSource| {
            let mut route = identity.route(ObjectTab::Timeline);
            if let MarkSource::Revision(seq) = source {
                route.revision = timeline.with_untracked(|t| {
                    let t = t.as_ref()?;
                    let revision = t.revisions.iter().find(|r| r.seq == seq)?;
                    Some(revision.resource_version.clone())
                });
            }
            Page::Object(route).to_hash()
        });
        let charts = move || {
            let to = now.get();
            let series = usage.series.get();
            marks.with(|marks| {
                series
                    .into_iter()
                    .map(|series| {
                        let first = series.samples.first().map_or(opened, |s| s.at_ms);
                        let from = first.min(opened).min(to - MIN_SPAN_MS);
                        let chart = usage_chart(&ChartInput {
                            resource: series.resource,
                            samples: &series.samples,
                            requests: series.requests,
                            limits: series.limits,
                            limit_word: series.limit_word,
                            marks,
                            span: (from, to),
                            width: CHART_WIDTH,
                            height: CHART_HEIGHT,
                            utc_offset_minutes: utc_offset_minutes(),
                        });
                        view! { <UsageChartView chart=chart title=series.title href_of=href_of/> }
                    })
                    .collect_view()
            })
        };
        let missing = usage.missing;
        let section = view! {
                <section class="usage-section" aria-labelledby="usage-heading">
                    <h2 id="usage-heading">"Usage"</h2>
                    {move || match missing.get() {
                        Some(reason) => view! { <p class="usage-missing" role="note">{reason}</p> }.into_any(),
                        None => view! {
                            <p class="muted usage-note">
                                "Samples since this page opened (the metrics API, every 15 s); marks are what happened to the object."
                            </p>
                            <div class="usage-charts">{charts}</div>
                        }
                        .into_any(),
                    }}
                </section>
            }
            .into_any();
        Some((section, usage.findings))
    }
}
