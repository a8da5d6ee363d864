//! Warning Event objects over the last hour, in time buckets by reason: the overview's
//! small histogram. A repeated Event (one object, `count` occurrences between its first and
//! last time) is spread evenly over that span, so a crash loop's BackOff reported 12 times
//! over 20 minutes fills the buckets it happened in, not only the last one.

use std::collections::BTreeMap;

use crate::object::events::EventRecord;
use crate::time::age::EpochMillis;

/// Five-minute buckets.
pub const BUCKET_MS: EpochMillis = 5 * 60_000;
/// Twelve of them: the last hour (Event objects live about an hour).
pub const BUCKETS: usize = 12;
/// Reasons drawn on their own; the rest are "Other".
pub const TOP_REASONS: usize = 4;

/// One reason's counts per bucket (or every other reason's, `reason` None).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReasonSeries {
    pub reason: Option<String>,
    pub counts: Vec<u64>,
    pub total: u64,
}

impl ReasonSeries {
    pub fn label(&self) -> &str {
        self.reason.as_deref().unwrap_or("Other")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarningHistogram {
    /// The first bucket's start; buckets are aligned to the wall clock's five minutes, the
    /// last one holding `now`.
    pub start_ms: EpochMillis,
    pub bucket_ms: EpochMillis,
    pub buckets: usize,
    /// The top reasons, most Warnings first, then "Other" when there are more reasons.
    pub series: Vec<ReasonSeries>,
    /// The reasons inside "Other".
    pub other_reasons: Vec<String>,
    pub total: u64,
}

impl WarningHistogram {
    /// Bucket `i`'s start and end.
    pub fn bucket_span(&self, i: usize) -> (EpochMillis, EpochMillis) {
        let start = self.start_ms + self.bucket_ms * i as EpochMillis;
        (start, start + self.bucket_ms)
    }

    /// The sum over reasons of bucket `i`.
    pub fn bucket_total(&self, i: usize) -> u64 {
        self.series.iter().map(|s| s.counts[i]).sum()
    }
}

/// How many of `n` evenly spread occurrences over `[first, last]` fall in `[from, to)`.
fn occurrences_in(
    first: EpochMillis,
    last: EpochMillis,
    n: u64,
    from: EpochMillis,
    to: EpochMillis,
) -> u64 {
    if n == 0 {
        return 0;
    }
    if n == 1 || last <= first {
        // All at the last time.
        return if (from..to).contains(&last) { n } else { 0 };
    }
    // Occurrence i is at first + span * i / (n - 1); the i with from <= t_i < to.
    let span = i128::from(last - first);
    let steps = i128::from(n - 1);
    // Smallest i with first + span*i/steps >= x: ceil((x - first) * steps / span).
    let index_at = |x: EpochMillis| -> i128 {
        let offset = i128::from(x - first) * steps;
        let i = offset.div_euclid(span) + i128::from(offset.rem_euclid(span) != 0);
        i.clamp(0, steps + 1)
    };
    (index_at(to) - index_at(from)).max(0) as u64
}

/// The Warning Events among `records` in the last [`BUCKETS`] × [`BUCKET_MS`] before `now`.
pub fn warning_histogram<'a>(
    records: impl IntoIterator<Item = &'a EventRecord>,
    now: EpochMillis,
) -> WarningHistogram {
    let end = (now.div_euclid(BUCKET_MS) + 1) * BUCKET_MS;
    let start = end - BUCKET_MS * BUCKETS as EpochMillis;
    let mut by_reason: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for record in records {
        if !record.event_type.is_warning() {
            continue;
        }
        let Some(last) = record.last_seen_ms else {
            continue;
        };
        let first = record.first_seen_ms.unwrap_or(last).min(last);
        if last < start || first >= end {
            continue;
        }
        let counts = by_reason
            .entry(record.reason.as_str())
            .or_insert_with(|| vec![0; BUCKETS]);
        let n = u64::from(record.count.max(1));
        for (i, count) in counts.iter_mut().enumerate() {
            let from = start + BUCKET_MS * i as EpochMillis;
            *count += occurrences_in(first, last, n, from, from + BUCKET_MS);
        }
    }
    let mut ranked: Vec<(&str, Vec<u64>, u64)> = by_reason
        .into_iter()
        .map(|(reason, counts)| {
            let total = counts.iter().sum();
            (reason, counts, total)
        })
        .filter(|(_, _, total)| *total > 0)
        .collect();
    crate::list::stable_sort::sort_by(&mut ranked, |a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(b.0)));
    // Five series fit; a fifth reason is drawn itself rather than as a one-reason "Other".
    let shown = if ranked.len() <= TOP_REASONS + 1 {
        ranked.len()
    } else {
        TOP_REASONS
    };
    let mut series: Vec<ReasonSeries> = ranked[..shown]
        .iter()
        .map(|(reason, counts, total)| ReasonSeries {
            reason: Some((*reason).to_string()),
            counts: counts.clone(),
            total: *total,
        })
        .collect();
    let rest = &ranked[shown..];
    if !rest.is_empty() {
        let mut counts = vec![0; BUCKETS];
        for (_, c, _) in rest {
            for (sum, n) in counts.iter_mut().zip(c) {
                *sum += n;
            }
        }
        series.push(ReasonSeries {
            reason: None,
            total: counts.iter().sum(),
            counts,
        });
    }
    WarningHistogram {
        start_ms: start,
        bucket_ms: BUCKET_MS,
        buckets: BUCKETS,
        total: series.iter().map(|s| s.total).sum(),
        other_reasons: rest.iter().map(|(r, _, _)| (*r).to_string()).collect(),
        series,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evenly_spread_occurrences_land_in_their_buckets() {
        // 5 occurrences at 0, 25, 50, 75, 100.
        assert_eq!(occurrences_in(0, 100, 5, 0, 50), 2);
        assert_eq!(occurrences_in(0, 100, 5, 50, 100), 2);
        assert_eq!(occurrences_in(0, 100, 5, 100, 150), 1);
        assert_eq!(occurrences_in(0, 100, 5, -50, 0), 0);
        assert_eq!(occurrences_in(0, 100, 5, -1000, 1000), 5);
        // One occurrence: at its last time.
        assert_eq!(occurrences_in(0, 100, 1, 0, 100), 0);
        assert_eq!(occurrences_in(0, 100, 1, 100, 101), 1);
        // Several at one instant.
        assert_eq!(occurrences_in(70, 70, 3, 60, 80), 3);
        // A huge count does not loop.
        assert_eq!(
            occurrences_in(0, 1_000, u64::from(u32::MAX), 0, 2_000),
            u64::from(u32::MAX)
        );
    }
}
