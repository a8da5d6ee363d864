//! The overview's charts as geometry and words: rectangles, axis ticks and the accessible
//! text of every bar, computed here so the view only draws inline SVG (no chart library).

use std::collections::BTreeMap;

use super::histogram::WarningHistogram;
use crate::diagnosis::Health;
use crate::time::age::EpochMillis;

/// A rectangle in the chart's own units (its `viewBox`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// A labelled position along an axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    pub position: f64,
    pub label: String,
}

/// One reason's part of one bucket's bar.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramBar {
    pub rect: Rect,
    /// Which series (colour) it belongs to: its index in the histogram's series.
    pub series: usize,
    /// The reason it filters the Events page by (None: "Other", every Warning).
    pub reason: Option<String>,
    pub count: u64,
    pub bucket: usize,
    /// `BackOff: 3 Warnings between 10:05 and 10:10`.
    pub label: String,
}

/// A legend entry: one series, its total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegendEntry {
    pub series: usize,
    pub label: String,
    pub reason: Option<String>,
    pub total: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HistogramChart {
    pub width: f64,
    pub height: f64,
    /// The plotting area inside the axes.
    pub plot: Rect,
    pub bars: Vec<HistogramBar>,
    /// Times along the bottom (clock times of bucket edges).
    pub x_ticks: Vec<Tick>,
    /// Counts up the side (0, half, top).
    pub y_ticks: Vec<Tick>,
    pub legend: Vec<LegendEntry>,
    /// The whole chart in one sentence, for `aria-label`.
    pub summary: String,
}

pub const HISTOGRAM_WIDTH: f64 = 480.0;
pub const HISTOGRAM_HEIGHT: f64 = 150.0;
const MARGIN_LEFT: f64 = 30.0;
const MARGIN_RIGHT: f64 = 8.0;
const MARGIN_TOP: f64 = 8.0;
const MARGIN_BOTTOM: f64 = 20.0;
const BAR_GAP: f64 = 4.0;
/// A segment this short still shows (a single Warning among hundreds).
const MIN_SEGMENT: f64 = 2.0;

/// `HH:MM` of wall-clock time `at`, `utc_offset_minutes` east of UTC (the browser's zone).
pub fn clock_text(at: EpochMillis, utc_offset_minutes: i32) -> String {
    let local = at + EpochMillis::from(utc_offset_minutes) * 60_000;
    let minutes = local.div_euclid(60_000).rem_euclid(24 * 60);
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// The smallest of 1, 2, 5, 10, 20, 50… at least `value` (at least 1).
pub fn nice_ceiling(value: u64) -> u64 {
    let mut step = 1u64;
    loop {
        for m in [1, 2, 5] {
            let candidate = step.saturating_mul(m);
            if candidate >= value {
                return candidate;
            }
        }
        step = step.saturating_mul(10);
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The histogram's bars, ticks, legend and words; times shown in the zone
/// `utc_offset_minutes` east of UTC.
pub fn histogram_chart(histogram: &WarningHistogram, utc_offset_minutes: i32) -> HistogramChart {
    let plot = Rect {
        x: MARGIN_LEFT,
        y: MARGIN_TOP,
        width: HISTOGRAM_WIDTH - MARGIN_LEFT - MARGIN_RIGHT,
        height: HISTOGRAM_HEIGHT - MARGIN_TOP - MARGIN_BOTTOM,
    };
    let buckets = histogram.buckets.max(1);
    let slot = plot.width / buckets as f64;
    let peak = (0..histogram.buckets)
        .map(|i| histogram.bucket_total(i))
        .max()
        .unwrap_or(0);
    let top = nice_ceiling(peak);
    let scale = plot.height / top as f64;
    let bottom = plot.y + plot.height;
    let clock = |at: EpochMillis| clock_text(at, utc_offset_minutes);
    let mut bars = Vec::new();
    for bucket in 0..histogram.buckets {
        let (from, to) = histogram.bucket_span(bucket);
        let mut y = bottom;
        for (index, series) in histogram.series.iter().enumerate() {
            let count = series.counts[bucket];
            if count == 0 {
                continue;
            }
            let height = (count as f64 * scale).max(MIN_SEGMENT);
            y -= height;
            bars.push(HistogramBar {
                rect: Rect {
                    x: plot.x + slot * bucket as f64 + BAR_GAP / 2.0,
                    y,
                    width: slot - BAR_GAP,
                    height,
                },
                series: index,
                reason: series.reason.clone(),
                count,
                bucket,
                label: format!(
                    "{}: {} between {} and {}",
                    series.label(),
                    plural(count, "Warning", "Warnings"),
                    clock(from),
                    clock(to)
                ),
            });
        }
    }
    let x_ticks = (0..=histogram.buckets)
        .step_by(3)
        .map(|i| Tick {
            position: plot.x + slot * i as f64,
            label: clock(histogram.start_ms + histogram.bucket_ms * i as EpochMillis),
        })
        .collect();
    let mut y_values = vec![0, top];
    if top >= 2 && top.is_multiple_of(2) {
        y_values.insert(1, top / 2);
    }
    let y_ticks = y_values
        .into_iter()
        .map(|v| Tick {
            position: bottom - v as f64 * scale,
            label: v.to_string(),
        })
        .collect();
    let legend = histogram
        .series
        .iter()
        .enumerate()
        .map(|(series, s)| LegendEntry {
            series,
            label: s.label().to_string(),
            reason: s.reason.clone(),
            total: s.total,
        })
        .collect();
    let (first, _) = histogram.bucket_span(0);
    let (_, last) = histogram.bucket_span(histogram.buckets.saturating_sub(1));
    let summary = if histogram.total == 0 {
        format!(
            "No Warning Events between {} and {}",
            clock(first),
            clock(last)
        )
    } else {
        let parts: Vec<String> = histogram
            .series
            .iter()
            .map(|s| format!("{} {}", s.label(), s.total))
            .collect();
        format!(
            "{} between {} and {}, by reason: {}",
            plural(histogram.total, "Warning Event", "Warning Events"),
            clock(first),
            clock(last),
            parts.join(", ")
        )
    };
    HistogramChart {
        width: HISTOGRAM_WIDTH,
        height: HISTOGRAM_HEIGHT,
        plot,
        bars,
        x_ticks,
        y_ticks,
        legend,
        summary,
    }
}

/// How full a usage bar is, in three steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Ok,
    /// 80% or more.
    High,
    /// More than all of it (only pods bound outside the scheduler can do that).
    Over,
}

impl Level {
    pub fn class(self) -> &'static str {
        match self {
            Level::Ok => "level-ok",
            Level::High => "level-high",
            Level::Over => "level-over",
        }
    }
}

/// A horizontal bar: what is requested of what there is.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageBar {
    /// The filled part, 0 to 100 (percent of the track).
    pub fill_percent: f64,
    pub level: Level,
    /// `1.5 / 4` (the shown numbers), and the percentage when known: `38%`.
    pub amounts: String,
    pub percent: Option<String>,
    /// `CPU requested on demo-node-1: 1.5 of 4 cores (38%)`.
    pub label: String,
}

/// `requested` of `allocatable` (None: unknown), each shown through `format`.
pub fn usage_bar(
    what: &str,
    node: &str,
    requested: i64,
    allocatable: Option<i64>,
    format: impl Fn(i64) -> String,
    unit: &str,
) -> UsageBar {
    amount_bar(
        "requested",
        what,
        node,
        requested,
        allocatable,
        format,
        unit,
    )
}

/// `used` (from the metrics API) of `allocatable`, as [`usage_bar`] draws what is requested.
pub fn used_bar(
    what: &str,
    node: &str,
    used: i64,
    allocatable: Option<i64>,
    format: impl Fn(i64) -> String,
    unit: &str,
) -> UsageBar {
    amount_bar("used", what, node, used, allocatable, format, unit)
}

/// `amount` of `allocatable`; `verb` says what the amount is (`requested`, `used`).
fn amount_bar(
    verb: &str,
    what: &str,
    node: &str,
    requested: i64,
    allocatable: Option<i64>,
    format: impl Fn(i64) -> String,
    unit: &str,
) -> UsageBar {
    let fraction = allocatable
        .filter(|a| *a > 0)
        .map(|a| requested as f64 / a as f64);
    let level = match fraction {
        Some(f) if f > 1.0 => Level::Over,
        Some(f) if f >= 0.8 => Level::High,
        _ => Level::Ok,
    };
    let percent = fraction.map(|f| format!("{:.0}%", (f * 100.0).round()));
    let of = allocatable.map_or_else(|| "?".to_string(), &format);
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    UsageBar {
        fill_percent: fraction.map_or(0.0, |f| (f * 100.0).clamp(0.0, 100.0)),
        level,
        amounts: format!("{} / {of}", format(requested)),
        label: format!(
            "{what} {verb} on {node}: {} of {of}{unit}{}",
            format(requested),
            percent
                .as_ref()
                .map(|p| format!(" ({p})"))
                .unwrap_or_else(|| " (allocatable not reported)".to_string())
        ),
        percent,
    }
}

/// One health's part of a workload kind's bar.
#[derive(Debug, Clone, PartialEq)]
pub struct HealthSegment {
    pub health: Health,
    pub count: usize,
    /// Start and width, in percent of the bar.
    pub start_percent: f64,
    pub width_percent: f64,
    /// `2 Failing`.
    pub label: String,
}

/// A stacked bar of `counts`, worst first (the eye lands on trouble).
pub fn health_segments(counts: &BTreeMap<Health, usize>) -> Vec<HealthSegment> {
    let total: usize = counts.values().sum();
    if total == 0 {
        return Vec::new();
    }
    let mut start = 0.0;
    counts
        .iter()
        .rev()
        .filter(|(_, n)| **n > 0)
        .map(|(health, n)| {
            let width = *n as f64 * 100.0 / total as f64;
            let segment = HealthSegment {
                health: *health,
                count: *n,
                start_percent: start,
                width_percent: width,
                label: format!("{n} {}", health.label()),
            };
            start += width;
            segment
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::histogram::{ReasonSeries, BUCKETS, BUCKET_MS};
    use super::*;

    #[test]
    fn clock_times_in_the_browsers_zone() {
        // 2024-05-01T10:05:00Z
        let at = 1_714_557_900_000;
        assert_eq!(clock_text(at, 0), "10:05");
        assert_eq!(clock_text(at, 120), "12:05");
        assert_eq!(clock_text(at, -630), "23:35");
    }

    #[test]
    fn nice_ceilings() {
        let cases = [
            (0, 1),
            (1, 1),
            (2, 2),
            (3, 5),
            (7, 10),
            (11, 20),
            (21, 50),
            (51, 100),
            (101, 200),
        ];
        for (value, nice) in cases {
            assert_eq!(nice_ceiling(value), nice, "{value}");
        }
        assert_eq!(nice_ceiling(u64::MAX), u64::MAX);
    }

    fn histogram(series: Vec<ReasonSeries>) -> WarningHistogram {
        WarningHistogram {
            // 09:15Z: buckets 09:15 … 10:15.
            start_ms: 1_714_554_900_000,
            bucket_ms: BUCKET_MS,
            buckets: BUCKETS,
            total: series.iter().map(|s| s.total).sum(),
            other_reasons: Vec::new(),
            series,
        }
    }

    fn series(reason: Option<&str>, at: &[(usize, u64)]) -> ReasonSeries {
        let mut counts = vec![0; BUCKETS];
        for (i, n) in at {
            counts[*i] = *n;
        }
        ReasonSeries {
            reason: reason.map(str::to_string),
            total: counts.iter().sum(),
            counts,
        }
    }

    #[test]
    fn bars_stack_by_reason_with_words_for_each() {
        let h = histogram(vec![
            series(Some("BackOff"), &[(10, 3), (11, 1)]),
            series(None, &[(10, 1)]),
        ]);
        let chart = histogram_chart(&h, 0);
        assert_eq!(chart.bars.len(), 3);
        let backoff = &chart.bars[0];
        assert_eq!(backoff.label, "BackOff: 3 Warnings between 10:05 and 10:10");
        assert_eq!(backoff.reason.as_deref(), Some("BackOff"));
        assert_eq!(
            chart.bars[1].label,
            "Other: 1 Warning between 10:05 and 10:10"
        );
        // Stacked: the second sits on the first; the peak (4) fills the scale's top (5)
        // by four fifths.
        assert!((chart.bars[1].rect.y + chart.bars[1].rect.height - backoff.rect.y).abs() < 1e-9);
        let bottom = chart.plot.y + chart.plot.height;
        let stack = bottom - chart.bars[1].rect.y;
        assert!(
            (stack - chart.plot.height * 4.0 / 5.0).abs() < 1e-9,
            "{stack}"
        );
        // Bars of one bucket share x; the next bucket is one slot to the right.
        assert_eq!(backoff.rect.x, chart.bars[1].rect.x);
        let slot = chart.plot.width / BUCKETS as f64;
        assert!((chart.bars[2].rect.x - backoff.rect.x - slot).abs() < 1e-9);
        assert!(chart.bars.iter().all(|b| b.rect.x >= chart.plot.x
            && b.rect.x + b.rect.width <= chart.plot.x + chart.plot.width + 1e-9));
        // Ticks: every 15 minutes along the bottom, 0 / top up the side.
        let times: Vec<&str> = chart.x_ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(times, ["09:15", "09:30", "09:45", "10:00", "10:15"]);
        let counts: Vec<&str> = chart.y_ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(counts, ["0", "5"]);
        assert_eq!(
            chart.summary,
            "5 Warning Events between 09:15 and 10:15, by reason: BackOff 4, Other 1"
        );
        assert_eq!(chart.legend[0].label, "BackOff");
        assert_eq!(chart.legend[1].reason, None);
    }

    #[test]
    fn a_lone_warning_among_many_stays_visible() {
        let h = histogram(vec![
            series(Some("FailedScheduling"), &[(0, 1000)]),
            series(Some("BackOff"), &[(1, 1)]),
        ]);
        let chart = histogram_chart(&h, 0);
        assert!(chart.bars[1].rect.height >= MIN_SEGMENT);
        let counts: Vec<&str> = chart.y_ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(counts, ["0", "500", "1000"]);
    }

    #[test]
    fn no_warnings_says_so() {
        let chart = histogram_chart(&histogram(Vec::new()), 0);
        assert!(chart.bars.is_empty());
        assert_eq!(chart.summary, "No Warning Events between 09:15 and 10:15");
    }

    #[test]
    fn usage_bars_in_words() {
        let cpu = usage_bar(
            "CPU",
            "node-1",
            1500,
            Some(4000),
            crate::metrics::quantity::format_cpu,
            "cores",
        );
        assert_eq!(cpu.label, "CPU requested on node-1: 1.5 of 4 cores (38%)");
        assert_eq!(cpu.amounts, "1.5 / 4");
        assert!((cpu.fill_percent - 37.5).abs() < 1e-9);
        assert_eq!(cpu.level, Level::Ok);
        let full = usage_bar(
            "CPU",
            "n",
            3900,
            Some(4000),
            crate::metrics::quantity::format_cpu,
            "cores",
        );
        assert_eq!(full.level, Level::High);
        let over = usage_bar(
            "CPU",
            "n",
            5000,
            Some(4000),
            crate::metrics::quantity::format_cpu,
            "cores",
        );
        assert_eq!((over.level, over.fill_percent), (Level::Over, 100.0));
        let unknown = usage_bar(
            "Memory",
            "n",
            1024,
            None,
            crate::metrics::quantity::format_bytes,
            "",
        );
        assert_eq!(
            unknown.label,
            "Memory requested on n: 1Ki of ? (allocatable not reported)"
        );
        assert_eq!(unknown.percent, None);
    }

    #[test]
    fn health_bars_put_trouble_first() {
        let counts = BTreeMap::from([(Health::Ok, 6), (Health::Failing, 2)]);
        let segments = health_segments(&counts);
        assert_eq!(segments[0].label, "2 Failing");
        assert_eq!(segments[0].start_percent, 0.0);
        assert!((segments[0].width_percent - 25.0).abs() < 1e-9);
        assert!((segments[1].start_percent - 25.0).abs() < 1e-9);
        assert!(health_segments(&BTreeMap::new()).is_empty());
    }
}
