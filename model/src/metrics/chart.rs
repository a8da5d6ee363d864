//! A usage chart as geometry: the samples as points scaled to a width and height, the request
//! and the limit (or allocatable) as horizontal lines, and marks at the times of the object's
//! timeline entries (restarts, OOMKilled, rollouts, scaling, Warning Events), each naming the
//! entry a click opens. The view draws inline SVG from it (as the overview's charts).

use super::decode::Usage;
use super::resources::{Amounts, Resource};
use super::samples::Sample;
use crate::history::{ObjectTimeline, PastEntry, PastKind};
use crate::overview::chart::{clock_text, nice_ceiling, Rect, Tick};
use crate::time::age::EpochMillis;

const MARGIN_LEFT: f64 = 48.0;
const MARGIN_RIGHT: f64 = 8.0;
const MARGIN_TOP: f64 = 8.0;
const MARGIN_BOTTOM: f64 = 20.0;

/// Which timeline entry a mark stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkSource {
    /// The index of a [`PastEntry`] in the list given to [`marks_from_past`].
    Past(usize),
    /// A live timeline's revision (its `seq`).
    Revision(u64),
}

/// Something that happened to the object, at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub at_ms: EpochMillis,
    /// The entry's line, shown on hover.
    pub label: String,
    /// A Warning Event, a restart, an OOMKill: drawn as a warning.
    pub warning: bool,
    pub source: MarkSource,
}

/// The marks of the object's reconstructed history: restarts and terminations (OOMKilled),
/// rollouts, scaling, deletions and Warning Events; entries without a time are left out.
pub fn marks_from_past(entries: &[PastEntry]) -> Vec<Mark> {
    entries
        .iter()
        .enumerate()
        .filter_map(|(index, entry)| {
            let warning = match &entry.kind {
                PastKind::ContainerRestarted { .. } | PastKind::ContainerTerminated { .. } => true,
                PastKind::RolloutRevision { .. }
                | PastKind::Scaled { .. }
                | PastKind::DeletionStarted { .. } => false,
                PastKind::EventSeen { warning: true, .. } => true,
                _ => return None,
            };
            Some(Mark {
                at_ms: entry.time.start_ms()?,
                label: entry.kind.describe(),
                warning,
                source: MarkSource::Past(index),
            })
        })
        .collect()
}

/// The marks of what the watch saw change while the page was open: every revision that is
/// not bookkeeping (a rollout done, a scale, a restart counted in status).
pub fn marks_from_timeline(timeline: &ObjectTimeline) -> Vec<Mark> {
    timeline
        .revisions
        .iter()
        .filter(|r| !r.noise && !r.changes.is_empty())
        .map(|r| {
            let first = r.changes.first().map(|c| c.describe()).unwrap_or_default();
            let more = r.changes.len().saturating_sub(1);
            let label = if more == 0 {
                format!("{} {first}", r.kind.label())
            } else {
                format!("{} {first} (+{more} more)", r.kind.label())
            };
            Mark {
                at_ms: r.observed_ms as EpochMillis,
                label,
                warning: false,
                source: MarkSource::Revision(r.seq),
            }
        })
        .collect()
}

/// A point of the usage line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// A horizontal line across the plot (a request, a limit, allocatable).
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    pub y: f64,
    /// `limit 500m`.
    pub label: String,
}

/// A mark placed on the time axis.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedMark {
    pub x: f64,
    pub mark: Mark,
}

/// What to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageChart {
    pub width: f64,
    pub height: f64,
    pub plot: Rect,
    pub points: Vec<Point>,
    pub request: Option<Level>,
    pub limit: Option<Level>,
    pub marks: Vec<PlacedMark>,
    /// 0, half and the top, in the resource's unit (`250m`, `64Mi`).
    pub y_ticks: Vec<Tick>,
    /// The span's start and end as clock times.
    pub x_ticks: Vec<Tick>,
    /// The chart in words, for screen readers: `CPU: 120m now, limit 500m, 12 samples`.
    pub label: String,
}

/// What one chart shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartInput<'a> {
    pub resource: Resource,
    pub samples: &'a [Sample],
    pub requests: Amounts,
    /// A limit, or a node's allocatable (`limit_word` says which).
    pub limits: Amounts,
    pub limit_word: &'static str,
    pub marks: &'a [Mark],
    /// The time axis: from, to (ms since the epoch).
    pub span: (EpochMillis, EpochMillis),
    pub width: f64,
    pub height: f64,
    pub utc_offset_minutes: i32,
}

/// The chart's geometry. Samples and marks outside the span are left out; the vertical
/// scale reaches the highest of the samples, the request and the limit.
pub fn usage_chart(input: &ChartInput<'_>) -> UsageChart {
    let resource = input.resource;
    let plot = Rect {
        x: MARGIN_LEFT,
        y: MARGIN_TOP,
        width: (input.width - MARGIN_LEFT - MARGIN_RIGHT).max(1.0),
        height: (input.height - MARGIN_TOP - MARGIN_BOTTOM).max(1.0),
    };
    let (from, to) = input.span;
    let duration = (to - from).max(1) as f64;
    let inside = |at: EpochMillis| at >= from && at <= to;
    let value = |usage: Usage| resource.of_usage(usage);
    let request = resource.of_amounts(input.requests);
    let limit = resource.of_amounts(input.limits);
    let highest = input
        .samples
        .iter()
        .filter(|s| inside(s.at_ms))
        .map(|s| value(s.usage))
        .chain(request)
        .chain(limit)
        .fold(0.0f64, f64::max);
    let top = nice_ceiling(highest.ceil().max(1.0) as u64) as f64;
    let x_of = |at: EpochMillis| plot.x + (at - from) as f64 / duration * plot.width;
    let y_of = |v: f64| plot.y + plot.height - (v / top).clamp(0.0, 1.0) * plot.height;
    let points: Vec<Point> = input
        .samples
        .iter()
        .filter(|s| inside(s.at_ms))
        .map(|s| Point {
            x: x_of(s.at_ms),
            y: y_of(value(s.usage)),
        })
        .collect();
    let level = |amount: Option<f64>, word: &str| {
        amount.map(|a| Level {
            y: y_of(a),
            label: format!("{word} {}", resource.format(a)),
        })
    };
    let marks = input
        .marks
        .iter()
        .filter(|m| inside(m.at_ms))
        .map(|m| PlacedMark {
            x: x_of(m.at_ms),
            mark: m.clone(),
        })
        .collect();
    let y_ticks = [0.0, top / 2.0, top]
        .into_iter()
        .map(|v| Tick {
            position: y_of(v),
            label: resource.format(v),
        })
        .collect();
    let x_ticks = vec![
        Tick {
            position: plot.x,
            label: clock_text(from, input.utc_offset_minutes),
        },
        Tick {
            position: plot.x + plot.width,
            label: clock_text(to, input.utc_offset_minutes),
        },
    ];
    let now = input
        .samples
        .iter()
        .rev()
        .find(|s| inside(s.at_ms))
        .map(|s| format!("{} now", resource.format(value(s.usage))))
        .unwrap_or_else(|| "no samples yet".to_string());
    let mut words = vec![format!("{}: {now}", resource.label())];
    if let Some(r) = request {
        words.push(format!("request {}", resource.format(r)));
    }
    if let Some(l) = limit {
        words.push(format!("{} {}", input.limit_word, resource.format(l)));
    }
    words.push(format!("{} samples", points.len()));
    UsageChart {
        width: input.width,
        height: input.height,
        plot,
        request: level(request, "request"),
        limit: level(limit, input.limit_word),
        points,
        marks,
        y_ticks,
        x_ticks,
        label: words.join(", "),
    }
}
