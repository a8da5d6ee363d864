use crate::object::workload_logs::filter::{LineFilter, TextMode, TextPattern};
use crate::object::workload_logs::intake::LineIntake;
use crate::object::workload_logs::merge::{LineKey, MergedLog};
use crate::object::workload_logs::streams::StreamKey;
use crate::object::workload_logs::view::{LogView, ViewChange};
use crate::test_rng::TestRng;

fn texts(view: &LogView, log: &MergedLog) -> Vec<String> {
    view.lines(log).map(|line| line.text.clone()).collect()
}

fn errors_only() -> LineFilter {
    LineFilter {
        text: TextPattern::new("error", TextMode::Plain).expect("a pattern"),
        ..LineFilter::default()
    }
}

#[test]
fn a_paused_view_keeps_what_it_had_while_the_buffer_moves_on() {
    let (mut intake, mut log, mut view) = (
        LineIntake::new(),
        MergedLog::with_capacity(4),
        LogView::default(),
    );
    let app = StreamKey::new("web-1", "app");
    let feed = |intake: &mut LineIntake, log: &mut MergedLog, view: &mut LogView, text: &str| {
        intake.push_chunk(&app, text);
        let outcome = log.merge(intake.take_pending(usize::MAX));
        view.sync(log, &outcome)
    };
    feed(
        &mut intake,
        &mut log,
        &mut view,
        "2026-12-07T01:00:01Z one\n2026-12-07T01:00:02Z two\n",
    );
    assert!(view.is_following());
    view.pause(&log);
    feed(
        &mut intake,
        &mut log,
        &mut view,
        "2026-12-07T01:00:03Z three\n",
    );
    assert_eq!(texts(&view, &log), ["one", "two"]);
    assert_eq!(view.waiting_note().as_deref(), Some("1 new line"));
    // A late line that arrived after the pause waits too, though older by time.
    let late = StreamKey::new("web-2", "app");
    intake.push_chunk(&late, "2026-12-07T01:00:01.5Z late\n");
    let outcome = log.merge(intake.take_pending(usize::MAX));
    view.sync(&log, &outcome);
    assert_eq!(texts(&view, &log), ["one", "two"]);
    assert_eq!(view.waiting(), 2);
    // The buffer keeps the newest: the oldest leaves the paused view too.
    let change = feed(
        &mut intake,
        &mut log,
        &mut view,
        "2026-12-07T01:00:04Z four\n",
    );
    assert_eq!(
        change,
        ViewChange {
            removed_from_start: 1,
            added: 0,
            placed_before_end: 0
        }
    );
    assert_eq!(texts(&view, &log), ["two"]);
    assert_eq!(view.waiting_note().as_deref(), Some("3 new lines"));
    view.follow(&log);
    assert_eq!(texts(&view, &log), ["late", "two", "three", "four"]);
    assert_eq!((view.waiting(), view.waiting_note()), (0, None));
    assert_eq!(view.count_note(), "4 lines");
    assert_eq!(view.index_of_number(0), None, "`one` was dropped");
    assert_eq!(view.line(0, &log).map(|l| l.number), Some(3));
    assert_eq!(view.index_of_number(3), Some(0));
}

#[test]
fn a_new_filter_checks_every_line_held() {
    let (mut intake, mut log, mut view) = (LineIntake::new(), MergedLog::new(), LogView::default());
    intake.push_chunk(
        &StreamKey::new("web-1", "app"),
        "2026-12-07T01:00:01Z ok\n2026-12-07T01:00:02Z error one\n2026-12-07T01:00:03Z ok\n",
    );
    let outcome = log.merge(intake.take_pending(usize::MAX));
    view.sync(&log, &outcome);
    assert_eq!(view.len(), 3);
    view.set_filter(errors_only(), &log);
    assert_eq!(texts(&view, &log), ["error one"]);
    assert_eq!(view.count_note(), "1 matching line");
    assert!(view.filter().text.is_some());
    assert!(!view.is_empty());
    assert_eq!(view.key(1), None);
}

/// After any merges, drops and pauses, the view kept up line by line shows what checking
/// every line held again shows.
#[test]
fn kept_up_equals_rebuilt() {
    for seed in 1..30 {
        let mut rng = TestRng::new(seed);
        let (mut intake, mut log) = (LineIntake::new(), MergedLog::with_capacity(25));
        let mut view = LogView::new(errors_only());
        for step in 0..60 {
            let stream = StreamKey::new(format!("pod-{}", rng.below(3)), "app");
            let second = 10 + rng.below(40);
            let word = ["error", "ok", "ERROR!", "fine"][rng.below(4)];
            intake.push_chunk(
                &stream,
                &format!("2026-12-07T01:00:{second:02}Z {word} {step}\n"),
            );
            if rng.below(3) == 0 {
                let outcome = log.merge(intake.take_pending(1 + rng.below(5)));
                view.sync(&log, &outcome);
            }
            match rng.below(12) {
                0 => view.pause(&log),
                1 => view.follow(&log),
                _ => {}
            }
            let kept: Vec<LineKey> = (0..view.len()).filter_map(|i| view.key(i)).collect();
            let mut rebuilt = view.clone();
            rebuilt.rebuild(&log);
            let expected: Vec<LineKey> =
                (0..rebuilt.len()).filter_map(|i| rebuilt.key(i)).collect();
            assert_eq!(kept, expected, "seed {seed} step {step}");
        }
    }
}
