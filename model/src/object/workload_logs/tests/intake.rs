use crate::object::workload_logs::intake::LineIntake;
use crate::object::workload_logs::severity::Severity;
use crate::object::workload_logs::streams::StreamKey;

fn texts(intake: &mut LineIntake) -> Vec<String> {
    intake
        .take_pending(usize::MAX)
        .into_iter()
        .map(|line| line.text)
        .collect()
}

#[test]
fn chunks_become_lines_without_their_timestamps() {
    let mut intake = LineIntake::new();
    let app = StreamKey::new("web-1", "app");
    assert_eq!(intake.push_chunk(&app, "2026-12-07T01:02:03.1Z hel"), 0);
    assert_eq!(intake.push_chunk(&app, "lo\r\n2026-12-07T01:02:03.2Z "), 1);
    assert_eq!(intake.push_chunk(&app, "\n2026-12-07T01:02:04Z tail"), 1);
    assert_eq!(intake.finish_stream(&app), 1);
    assert_eq!(intake.finish_stream(&app), 0);
    let lines = intake.take_pending(usize::MAX);
    let shown: Vec<(&str, Option<String>)> = lines
        .iter()
        .map(|l| (l.text.as_str(), l.time.map(|t| t.time_of_day())))
        .collect();
    assert_eq!(
        shown,
        [
            ("hello", Some("01:02:03.100".to_string())),
            ("", Some("01:02:03.200".to_string())),
            ("tail", Some("01:02:04.000".to_string()))
        ]
    );
    assert!(lines.iter().all(|l| *l.stream == app));
    // A new response forgets an unfinished line of the one before.
    intake.push_chunk(&app, "2026-12-07T01:02:05Z cut off");
    intake.start_stream(&app);
    intake.push_chunk(&app, "2026-12-07T01:02:06Z fresh\n");
    assert_eq!(texts(&mut intake), ["fresh"]);
    intake.finish_stream(&StreamKey::new("never", "seen"));
    intake.start_stream(&StreamKey::new("never", "seen"));
    assert_eq!(intake.pending_len(), 0);
}

#[test]
fn a_flood_keeps_the_newest_waiting_lines_and_counts_the_rest() {
    let mut intake = LineIntake::with_limit(3);
    let app = StreamKey::new("web-1", "app");
    let chunk: String = (0..10)
        .map(|i| format!("2026-12-07T01:02:03Z line {i}\n"))
        .collect();
    intake.push_chunk(&app, &chunk);
    assert_eq!(intake.pending_len(), 3);
    assert_eq!(intake.dropped(), 7);
    assert_eq!(
        intake.dropped_note().as_deref(),
        Some("7 lines dropped: arriving faster than they can be drawn")
    );
    // Taken a frame at a time, oldest first.
    let first: Vec<String> = intake.take_pending(2).into_iter().map(|l| l.text).collect();
    assert_eq!(first, ["line 7", "line 8"]);
    assert_eq!(texts(&mut intake), ["line 9"]);
    let mut flood = LineIntake::with_limit(1);
    flood.push_chunk(&app, &"x\n".repeat(1_235));
    assert_eq!(
        flood.dropped_note().as_deref(),
        Some("1,234 lines dropped: arriving faster than they can be drawn")
    );
    assert_eq!(LineIntake::new().dropped_note(), None);
}

#[test]
fn indented_lines_continue_the_severity_of_the_line_before() {
    let mut intake = LineIntake::new();
    let app = StreamKey::new("web-1", "app");
    intake.push_chunk(
        &app,
        "2026-12-07T01:02:03Z ERROR request failed\n\
         2026-12-07T01:02:03Z \tat com.example.Handler.run(Handler.java:42)\n\
         2026-12-07T01:02:04Z served /healthz\n\
         2026-12-07T01:02:04Z   continued\n",
    );
    let severities: Vec<Severity> = intake
        .take_pending(usize::MAX)
        .iter()
        .map(|l| l.severity)
        .collect();
    assert_eq!(
        severities,
        [
            Severity::Error,
            Severity::Error,
            Severity::Unknown,
            Severity::Unknown
        ]
    );
}
