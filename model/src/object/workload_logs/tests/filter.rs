use std::collections::BTreeSet;

use crate::object::pod_logs::Segment;
use crate::object::workload_logs::filter::{LineFilter, TextMode, TextPattern};
use crate::object::workload_logs::intake::LineIntake;
use crate::object::workload_logs::merge::LogLine;
use crate::object::workload_logs::severity::Severity;
use crate::object::workload_logs::streams::StreamKey;

fn lines() -> Vec<LogLine> {
    let mut intake = LineIntake::new();
    intake.push_chunk(
        &StreamKey::new("web-1", "app"),
        "2026-12-07T01:00:00Z level=error msg=\"db down\" code=503\n\
         2026-12-07T01:00:01Z GET /healthz 200\n",
    );
    intake.push_chunk(
        &StreamKey::new("web-2", "sidecar"),
        "2026-12-07T01:00:02Z WARN retrying 3 times\n",
    );
    intake.take_pending(usize::MAX)
}

fn shown(filter: &LineFilter) -> Vec<String> {
    lines()
        .iter()
        .filter(|line| filter.matches(line))
        .map(|line| line.text.clone())
        .collect()
}

fn text(query: &str, mode: TextMode) -> Option<TextPattern> {
    TextPattern::new(query, mode).expect("a valid pattern")
}

#[test]
fn filters_by_pod_container_severity_and_text_together() {
    let all = LineFilter::default();
    assert!(all.is_empty());
    assert_eq!(shown(&all).len(), 3);
    let pod = LineFilter {
        pods: BTreeSet::from(["web-1".to_string()]),
        ..LineFilter::default()
    };
    assert_eq!(shown(&pod).len(), 2);
    let container = LineFilter {
        containers: BTreeSet::from(["sidecar".to_string()]),
        ..LineFilter::default()
    };
    assert_eq!(shown(&container), ["WARN retrying 3 times"]);
    let warnings = LineFilter {
        min_severity: Some(Severity::Warning),
        ..LineFilter::default()
    };
    assert_eq!(
        shown(&warnings).len(),
        2,
        "errors and warnings, not the unknown line"
    );
    let errors_of_web_2 = LineFilter {
        min_severity: Some(Severity::Error),
        ..container
    };
    assert!(shown(&errors_of_web_2).is_empty());
    let healthz = LineFilter {
        text: text("HEALTHZ", TextMode::Plain),
        ..LineFilter::default()
    };
    assert!(!healthz.is_empty());
    assert_eq!(shown(&healthz), ["GET /healthz 200"]);
}

#[test]
fn regex_matches_are_ranges_to_highlight() {
    let digits = LineFilter {
        text: text(r"\d{3}", TextMode::Regex),
        ..LineFilter::default()
    };
    assert_eq!(shown(&digits).len(), 2);
    let line = "GET /healthz 200 in 503ms";
    assert_eq!(digits.highlights(line), [13..16, 20..23]);
    assert_eq!(
        digits.segments("took 200"),
        [
            Segment {
                text: "took ",
                is_match: false
            },
            Segment {
                text: "200",
                is_match: true
            }
        ]
    );
    // A pattern that matches empty text matches every line but highlights nothing.
    let empty_match = text("x*", TextMode::Regex).expect("a pattern");
    assert!(empty_match.is_match("abc"));
    assert!(empty_match.find("abc").is_empty());
    // Plain text ignores ASCII case; a regex does not unless it asks.
    let plain = text("error", TextMode::Plain).expect("a pattern");
    assert_eq!(plain.find("ERROR and error"), [0..5, 10..15]);
    assert_eq!(plain.mode(), TextMode::Plain);
    let exact = text("error", TextMode::Regex).expect("a pattern");
    let found = exact.find("ERROR and error");
    assert_eq!((found.len(), found.first()), (1, Some(&(10..15))));
    assert_eq!(exact.query(), "error");
    assert_ne!(plain, exact);
    assert!(LineFilter::default().highlights(line).is_empty());
    assert_eq!(TextPattern::new("", TextMode::Regex), Ok(None));
}

#[test]
fn an_invalid_regex_is_a_sentence_not_a_panic() {
    let problem = |query: &str| {
        TextPattern::new(query, TextMode::Regex)
            .err()
            .unwrap_or_default()
    };
    assert_eq!(
        problem("(ab"),
        "Not a valid regular expression: found open group without closing ')'"
    );
    let range = problem("[z-a]");
    assert!(
        range.starts_with("Not a valid regular expression: ") && range.contains("range"),
        "{range}"
    );
    let huge = problem("a{1000}{1000}");
    assert!(
        huge.starts_with("The regular expression is too large") || huge.starts_with("Not a valid"),
        "{huge}"
    );
    assert!(
        TextPattern::new("(ab", TextMode::Plain).is_ok(),
        "plain text is never invalid"
    );
}
