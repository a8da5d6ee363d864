//! What the page shows and saves: tags, the downloaded text, and the whole path from chunks
//! to shown lines through `WorkloadLog`.

use crate::object::workload_logs::download::{download_file_name, download_text};
use crate::object::workload_logs::filter::{LineFilter, TextMode, TextPattern};
use crate::object::workload_logs::log::{DownloadScope, WorkloadLog};
use crate::object::workload_logs::streams::StreamKey;
use crate::object::workload_logs::tags::{
    preferred_colour, short_pod_name, TagPalette, PALETTE_SIZE,
};

#[test]
fn tags_name_the_pod_by_its_generated_suffix() {
    assert_eq!(short_pod_name("web-7d4b9c-x2x9q"), "x2x9q");
    assert_eq!(short_pod_name("fluentd-p6v8z"), "p6v8z");
    assert_eq!(short_pod_name("backup-28900000-k7wzt"), "k7wzt");
    // Not a generated suffix: the name whole.
    assert_eq!(short_pod_name("db-0"), "db-0");
    assert_eq!(short_pod_name("my-service"), "my-service");
    assert_eq!(
        short_pod_name("web-abcde"),
        "web-abcde",
        "vowels are never generated"
    );
    assert_eq!(short_pod_name("web"), "web");

    let mut palette = TagPalette::new();
    let app = StreamKey::new("web-7d4b9c-x2x9q", "app");
    let tag = palette.tag(&app, false).clone();
    assert_eq!(
        (tag.short.as_str(), tag.full.as_str()),
        ("x2x9q", "web-7d4b9c-x2x9q/app")
    );
    assert_eq!(tag.colour, preferred_colour(&app));
    let sidecar = palette
        .tag(&StreamKey::new("web-7d4b9c-x2x9q", "sidecar"), true)
        .clone();
    assert_eq!(sidecar.short, "x2x9q/sidecar");
    assert_ne!(sidecar.colour, tag.colour, "a free colour while any is");
    // Another pod with the same suffix is told by its whole name.
    let twin = palette
        .tag(&StreamKey::new("api-5f6b7-x2x9q", "app"), false)
        .clone();
    assert_eq!(twin.short, "api-5f6b7-x2x9q");
    // Decided once: asking again gives the same tag.
    assert_eq!(palette.tag(&app, true), &tag);
    assert_eq!(palette.get(&app), Some(&tag));
}

#[test]
fn colours_are_distinct_until_the_palette_is_used_up() {
    let mut palette = TagPalette::new();
    let colours: Vec<u8> = (0..PALETTE_SIZE)
        .map(|i| {
            palette
                .tag(&StreamKey::new(format!("web-{i}"), "app"), false)
                .colour
        })
        .collect();
    let mut distinct = colours.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), usize::from(PALETTE_SIZE));
    let ninth = StreamKey::new("web-9", "app");
    assert_eq!(palette.tag(&ninth, false).colour, preferred_colour(&ninth));
    // The same stream has the same preferred colour in every view and session.
    assert_eq!(preferred_colour(&ninth), preferred_colour(&ninth.clone()));
    assert!(colours.iter().all(|c| *c < PALETTE_SIZE));
}

#[test]
fn a_workload_log_goes_from_chunks_to_shown_lines_and_a_download() {
    let mut log = WorkloadLog::new();
    let a = StreamKey::new("web-7d4b9c-x2x9q", "app");
    let b = StreamKey::new("web-7d4b9c-p6v8z", "app");
    log.start_stream(&a);
    log.push_chunk(
        &a,
        "2026-12-07T01:02:03.2Z ERROR db down\n2026-12-07T01:02:04Z ok\n",
    );
    log.push_chunk(&b, "2026-12-07T01:02:03.1Z starting\nno time");
    assert_eq!(log.finish_stream(&b), 1);
    let frame = log.merge_pending(3);
    assert_eq!(frame.merged.added.len(), 3);
    assert_eq!(frame.shown.added, 3);
    assert_eq!(log.intake().pending_len(), 1);
    // `no time` (b's, so placed after b's `starting`) goes above a's lines.
    let frame = log.merge_pending(100);
    assert_eq!((frame.shown.added, frame.shown.placed_before_end), (1, 1));
    assert!(log.merge_pending(100).is_empty());
    assert_eq!(log.view().len(), 4);
    assert_eq!(log.merged().len(), 4);
    assert_eq!(log.shown_line(0).map(|l| l.text.as_str()), Some("starting"));
    assert_eq!(
        log.download(DownloadScope::All),
        "[web-7d4b9c-p6v8z/app] 2026-12-07T01:02:03.100000000Z starting\n\
         [web-7d4b9c-p6v8z/app] no time\n\
         [web-7d4b9c-x2x9q/app] 2026-12-07T01:02:03.200000000Z ERROR db down\n\
         [web-7d4b9c-x2x9q/app] 2026-12-07T01:02:04.000000000Z ok\n"
    );
    log.set_filter(LineFilter {
        text: TextPattern::new("down", TextMode::Plain).expect("a pattern"),
        ..LineFilter::default()
    });
    assert_eq!(
        log.download(DownloadScope::Shown),
        "[web-7d4b9c-x2x9q/app] 2026-12-07T01:02:03.200000000Z ERROR db down\n"
    );
    log.pause();
    log.push_chunk(&a, "2026-12-07T01:02:05Z down again\n");
    log.merge_pending(100);
    assert_eq!(log.view().len(), 1);
    log.follow();
    assert_eq!(log.view().len(), 2);
    assert!(log.notes().is_empty());
    assert_eq!(download_text([]), "");
}

#[test]
fn losses_are_noted_for_the_status_line() {
    let mut log = WorkloadLog::with_limits(2, 3);
    let a = StreamKey::new("web-1", "app");
    let chunk: String = (0..6)
        .map(|i| format!("2026-12-07T01:02:0{i}Z line {i}\n"))
        .collect();
    log.push_chunk(&a, &chunk);
    log.merge_pending(100);
    assert_eq!(
        log.notes(),
        [
            "1 older line dropped",
            "3 lines dropped: arriving faster than they can be drawn"
        ]
    );
}

#[test]
fn download_names_say_the_kind_and_name() {
    assert_eq!(
        download_file_name("Deployment", "web"),
        "deployment-web-logs.txt"
    );
    assert_eq!(
        download_file_name("CronJob", "nightly backup"),
        "cronjob-nightly_backup-logs.txt"
    );
    assert_eq!(download_file_name("", ""), "workload-logs.txt");
    assert_eq!(download_file_name("Job", ""), "job-logs.txt");
}
