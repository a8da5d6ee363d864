//! Small charts drawn as inline SVG from the model's geometry (`model::overview::chart`):
//! no chart library. Colours come from CSS variables (`--chart-1`…, `--ok`, `--bad`), so
//! both themes read; each chart says itself in words (`aria-label`, a `<title>` per bar).

use leptos::prelude::*;

use crate::model::diagnosis::Health;
use crate::model::overview::chart::{HealthSegment, HistogramChart, UsageBar};

/// The Warning Events histogram: bars stacked by reason, one colour per reason, and the
/// legend's links. A bar's click opens `href_of(reason)` (the Events page filtered to it);
/// the legend holds the same links for the keyboard (inside an `img` nothing is focusable).
#[component]
pub fn WarningHistogramChart(
    chart: HistogramChart,
    /// The page a reason's bar leads to (None: "Other", every Warning).
    href_of: Callback<Option<String>, String>,
) -> impl IntoView {
    let HistogramChart {
        width,
        height,
        plot,
        bars,
        x_ticks,
        y_ticks,
        legend,
        summary,
    } = chart;
    let view_box = format!("0 0 {width} {height}");
    let bottom = plot.y + plot.height;
    let grid = y_ticks
        .into_iter()
        .map(|tick| {
            view! {
                <line
                    class="chart-grid"
                    x1=plot.x
                    x2=plot.x + plot.width
                    y1=tick.position
                    y2=tick.position
                />
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
            // The last time ends at the chart's edge: it reads leftwards, inside.
            let anchor = if i == last_tick { "end" } else { "middle" };
            view! {
                <line class="chart-axis" x1=tick.position x2=tick.position y1=bottom y2=bottom + 4.0/>
                <text class="chart-tick" x=tick.position y=bottom + 16.0 text-anchor=anchor>
                    {tick.label}
                </text>
            }
        })
        .collect_view();
    let rects = bars
        .into_iter()
        .map(|bar| {
            let href = href_of.run(bar.reason.clone());
            let open = move |_| {
                if let Some(window) = web_sys::window() {
                    window.location().set_hash(&href).ok();
                }
            };
            view! {
                <rect
                    class=format!("chart-bar series-{}", bar.series)
                    data-reason=bar.reason.clone().unwrap_or_default()
                    data-count=bar.count
                    x=bar.rect.x
                    y=bar.rect.y
                    width=bar.rect.width
                    height=bar.rect.height
                    on:click=open
                >
                    <title>{bar.label}</title>
                </rect>
            }
        })
        .collect_view();
    let entries = legend
        .into_iter()
        .map(|entry| {
            let href = href_of.run(entry.reason.clone());
            view! {
                <li>
                    <a href=href class="chart-legend-link" data-reason=entry.reason.unwrap_or_default()>
                        <span class=format!("chart-swatch series-{}", entry.series) aria-hidden="true"></span>
                        {entry.label}
                        " "
                        <span class="chart-legend-count">{entry.total}</span>
                    </a>
                </li>
            }
        })
        .collect_view();
    view! {
        <figure class="chart histogram">
            <svg
                class="histogram-svg"
                viewBox=view_box
                role="img"
                aria-label=summary
                preserveAspectRatio="xMidYMid meet"
            >
                {grid}
                <line class="chart-axis" x1=plot.x x2=plot.x + plot.width y1=bottom y2=bottom/>
                {rects}
                {times}
            </svg>
            <figcaption>
                <ul class="chart-legend" aria-label="Warnings by reason: open the Events page filtered">
                    {entries}
                </ul>
            </figcaption>
        </figure>
    }
}

/// A horizontal bar of what is requested against what there is.
#[component]
pub fn UsageMeter(bar: UsageBar, what: &'static str) -> impl IntoView {
    let width = format!("width: {:.1}%", bar.fill_percent);
    let title = bar.label.clone();
    view! {
        <div class="usage" title=title>
            <span class="usage-what">{what}</span>
            <span class="usage-track" role="img" aria-label=bar.label>
                <span class=format!("usage-fill {}", bar.level.class()) style=width></span>
            </span>
            <span class="usage-amounts">
                {bar.amounts}
                {bar.percent.map(|p| view! { " " <span class="usage-percent">{p}</span> })}
            </span>
        </div>
    }
}

/// A stacked bar of counts by health, worst first, with its words.
#[component]
pub fn HealthStack(segments: Vec<HealthSegment>, label: String) -> impl IntoView {
    let parts = segments
        .into_iter()
        .map(|s| {
            let style = format!(
                "left: {:.2}%; width: {:.2}%",
                s.start_percent, s.width_percent
            );
            view! {
                <span
                    class="health-stack-part"
                    data-health=health_word(s.health)
                    style=style
                    title=s.label
                ></span>
            }
        })
        .collect_view();
    view! { <span class="health-stack" role="img" aria-label=label>{parts}</span> }
}

fn health_word(health: Health) -> String {
    health.label().to_lowercase()
}
