//! A usage chart as inline SVG from the model's geometry (`model::metrics::chart`): the
//! samples as a line, the request and the limit (or allocatable) as dashed levels, and the
//! object's history as marks on the same time axis, each naming its entry on hover and
//! opening it on the timeline on click.

use leptos::prelude::*;

use crate::model::metrics::chart::UsageChart;
use crate::model::metrics::MarkSource;

/// One usage chart. `href_of` is where a mark's click goes (its entry on the timeline).
#[component]
pub fn UsageChartView(
    chart: UsageChart,
    title: String,
    href_of: Callback<MarkSource, String>,
) -> impl IntoView {
    let UsageChart {
        width,
        height,
        plot,
        points,
        request,
        limit,
        marks,
        y_ticks,
        x_ticks,
        label,
    } = chart;
    let bottom = plot.y + plot.height;
    let right = plot.x + plot.width;
    let grid = y_ticks
        .into_iter()
        .map(|tick| {
            view! {
                <line class="chart-grid" x1=plot.x x2=right y1=tick.position y2=tick.position/>
                <text class="chart-tick" x=plot.x - 6.0 y=tick.position + 4.0 text-anchor="end">
                    {tick.label}
                </text>
            }
        })
        .collect_view();
    let last_tick = x_ticks.len().saturating_sub(1);
    let times = x_ticks
        .into_iter()
        .enumerate()
        .map(|(i, tick)| {
            let anchor = if i == last_tick { "end" } else { "start" };
            view! {
                <text class="chart-tick" x=tick.position y=bottom + 15.0 text-anchor=anchor>
                    {tick.label}
                </text>
            }
        })
        .collect_view();
    let levels = [("usage-request", request), ("usage-limit", limit)]
        .into_iter()
        .filter_map(|(class, level)| {
            let level = level?;
            Some(view! {
                <line class=format!("usage-level {class}") x1=plot.x x2=right y1=level.y y2=level.y/>
                <text class=format!("chart-tick {class}-label") x=right - 2.0 y=level.y - 3.0 text-anchor="end">
                    {level.label}
                </text>
            })
        })
        .collect_view();
    let line = points
        .iter()
        .map(|p| format!("{:.1},{:.1}", p.x, p.y))
        .collect::<Vec<_>>()
        .join(" ");
    // One sample is a dot: a line needs two.
    let dots = points
        .iter()
        .map(|p| view! { <circle class="usage-dot" cx=p.x cy=p.y r="2.5"/> })
        .collect_view();
    let mark_count = marks.len();
    let marks = marks
        .into_iter()
        .map(|placed| {
            let href = href_of.run(placed.mark.source);
            let class = if placed.mark.warning {
                "usage-mark warning"
            } else {
                "usage-mark"
            };
            let open = move || {
                if let Some(window) = web_sys::window() {
                    window.location().set_hash(&href).ok();
                }
            };
            // A group, not an `a`: inside SVG an `a` made by the view would be an HTML one,
            // and its lines would not be drawn. The chart is one image to assistive
            // technology; the same entries are links on the Timeline tab.
            view! {
                <g class="usage-mark-link" data-at=placed.mark.at_ms on:click=move |_| open()>
                    <line class=class x1=placed.x x2=placed.x y1=plot.y y2=bottom/>
                    // A wide, invisible target: a 1px line is hard to hover.
                    <rect class="usage-mark-target" x=placed.x - 4.0 y=plot.y width="8" height=plot.height>
                        <title>{placed.mark.label.clone()}</title>
                    </rect>
                </g>
            }
        })
        .collect_view();
    view! {
        <figure class="chart usage-chart" data-samples=points.len() data-marks=mark_count>
            <figcaption class="usage-chart-title">{title}</figcaption>
            <svg
                viewBox=format!("0 0 {width} {height}")
                role="img"
                aria-label=label
                preserveAspectRatio="xMidYMid meet"
            >
                {grid}
                <line class="chart-axis" x1=plot.x x2=right y1=bottom y2=bottom/>
                {levels}
                <polyline class="usage-line" points=line/>
                {dots}
                {marks}
                {times}
            </svg>
        </figure>
    }
}
