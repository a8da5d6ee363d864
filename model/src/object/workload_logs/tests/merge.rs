use crate::object::workload_logs::intake::LineIntake;
use crate::object::workload_logs::merge::{LogLine, MergedLog};
use crate::object::workload_logs::streams::StreamKey;
use crate::test_rng::TestRng;

fn key(pod: &str) -> StreamKey {
    StreamKey::new(pod, "app")
}

/// `pod:text` of each line held, in order.
fn held(log: &MergedLog) -> Vec<String> {
    log.iter()
        .map(|line| format!("{}:{}", line.stream.pod, line.text))
        .collect()
}

fn merge_all(intake: &mut LineIntake, log: &mut MergedLog) -> usize {
    let batch = intake.take_pending(usize::MAX);
    log.merge(batch).placed_before_end
}

#[test]
fn a_lagging_streams_lines_are_placed_by_their_time() {
    let (mut intake, mut log) = (LineIntake::new(), MergedLog::new());
    intake.push_chunk(
        &key("a"),
        "2026-12-07T01:00:01Z a1\n2026-12-07T01:00:03Z a3\n",
    );
    intake.push_chunk(&key("a"), "2026-12-07T01:00:05Z a5\n");
    assert_eq!(merge_all(&mut intake, &mut log), 0);
    // b lags: its lines arrive after a's later ones.
    intake.push_chunk(
        &key("b"),
        "2026-12-07T01:00:02Z b2\n2026-12-07T01:00:04Z b4\n",
    );
    assert_eq!(merge_all(&mut intake, &mut log), 2, "both placed above a5");
    intake.push_chunk(&key("b"), "2026-12-07T01:00:06Z b6\n");
    assert_eq!(merge_all(&mut intake, &mut log), 0);
    assert_eq!(held(&log), ["a:a1", "b:b2", "a:a3", "b:b4", "a:a5", "b:b6"]);
    // Numbers are the arrival order: stable keys for rows, unrelated to the place.
    let numbers: Vec<u64> = log.iter().map(|line| line.number).collect();
    assert_eq!(numbers, [0, 3, 1, 4, 2, 5]);
    assert_eq!(log.end_number(), 6);
    let b4 = log.get(3).map(LogLine::key).expect("four lines");
    assert_eq!(log.index_of(b4), Some(3));
    assert_eq!(log.find(b4).map(|l| l.text.as_str()), Some("b4"));
}

#[test]
fn ties_keep_arrival_order_and_untimed_lines_follow_their_stream() {
    let (mut intake, mut log) = (LineIntake::new(), MergedLog::new());
    // Without a time of its own or before it, a line goes where it arrived.
    intake.push_chunk(&key("a"), "starting\n");
    intake.push_chunk(&key("b"), "2026-12-07T01:00:00Z b first\n");
    intake.push_chunk(&key("a"), "2026-12-07T01:00:00Z a same time\n");
    intake.push_chunk(&key("b"), "2026-12-07T01:00:00Z b same time\n");
    // The server's error text comes without a time: it takes its stream's last one.
    intake.push_chunk(&key("a"), "rpc error: code = Unknown\n");
    intake.push_chunk(&key("b"), "2026-12-07T01:00:09Z b later\n");
    merge_all(&mut intake, &mut log);
    assert_eq!(
        held(&log),
        [
            "a:starting",
            "b:b first",
            "a:a same time",
            "b:b same time",
            "a:rpc error: code = Unknown",
            "b:b later"
        ]
    );
    let error = log.get(4).expect("six lines");
    assert_eq!(error.time, None, "it had no time of its own");
    assert_eq!(
        error.order_time,
        log.get(2).map(|l| l.order_time).unwrap_or(error.order_time)
    );
}

#[test]
fn the_newest_lines_by_time_are_kept_and_the_dropped_counted() {
    let (mut intake, mut log) = (LineIntake::new(), MergedLog::with_capacity(3));
    for second in 1..=5 {
        intake.push_chunk(
            &key("a"),
            &format!("2026-12-07T01:00:0{second}Z a{second}\n"),
        );
    }
    let outcome = log.merge(intake.take_pending(usize::MAX));
    assert_eq!(outcome.dropped, 2);
    assert_eq!(outcome.added.len(), 3, "only the kept are announced");
    assert_eq!(held(&log), ["a:a3", "a:a4", "a:a5"]);
    // Late lines: one older than all held is dropped at once; one among them is placed.
    intake.push_chunk(
        &key("b"),
        "2026-12-07T01:00:00Z b0\n2026-12-07T01:00:04.5Z b4.5\n",
    );
    let outcome = log.merge(intake.take_pending(usize::MAX));
    assert_eq!(
        (
            outcome.dropped,
            outcome.added.len(),
            outcome.placed_before_end
        ),
        (2, 1, 1)
    );
    assert_eq!(held(&log), ["a:a4", "b:b4.5", "a:a5"]);
    assert_eq!(log.dropped(), 4);
    assert_eq!(log.dropped_note().as_deref(), Some("4 older lines dropped"));
    assert!(log.merge(Vec::new()).added.is_empty());
}

/// Lines of `streams` streams with clocks skewed by up to seconds, cut into random chunks and
/// arriving interleaved at random, taken in random batches: the merged log is always their
/// sort by (time, arrival), the same for the same arrivals, whatever the chunks and batches.
#[test]
fn any_chunking_and_batching_gives_the_one_order() {
    for seed in 1..40 {
        let mut rng = TestRng::new(seed);
        let streams = 1 + rng.below(5);
        // Per stream: its lines, times ascending within it, skewed per stream.
        let texts: Vec<Vec<String>> = (0..streams)
            .map(|s| {
                let skew = rng.below(3);
                let mut second = 10 + skew;
                (0..rng.below(30))
                    .map(|i| {
                        second += rng.below(2);
                        let fraction = rng.below(1000);
                        if rng.below(10) == 0 {
                            format!("untimed {s}.{i}\n")
                        } else {
                            format!("2026-12-07T01:00:{second:02}.{fraction:03}000000Z s{s} #{i}\n")
                        }
                    })
                    .collect()
            })
            .collect();
        // Arrival: a random interleaving of whole lines (fixes numbers and untimed places).
        let mut cursors = vec![0; streams];
        let mut arrival = Vec::new();
        loop {
            let open: Vec<usize> = (0..streams)
                .filter(|s| cursors[*s] < texts[*s].len())
                .collect();
            if open.is_empty() {
                break;
            }
            let s = open[rng.below(open.len())];
            arrival.push((s, texts[s][cursors[s]].clone()));
            cursors[s] += 1;
        }
        let run = |rng: &mut TestRng| {
            let (mut intake, mut log) = (LineIntake::new(), MergedLog::with_capacity(40));
            for (s, line) in &arrival {
                // A line cut in two chunks: the line is complete only with the second.
                let cut = rng.below(line.len());
                let stream = StreamKey::new(format!("pod-{s}"), "app");
                let (head, tail) = line.split_at(cut);
                intake.push_chunk(&stream, head);
                intake.push_chunk(&stream, tail);
                if rng.below(4) == 0 {
                    log.merge(intake.take_pending(1 + rng.below(8)));
                }
            }
            log.merge(intake.take_pending(usize::MAX));
            log
        };
        let log = run(&mut rng);
        let again = run(&mut rng);
        let order = |log: &MergedLog| log.iter().map(|l| l.number).collect::<Vec<_>>();
        assert_eq!(order(&log), order(&again), "seed {seed}");
        let keys: Vec<_> = log.iter().map(LogLine::key).collect();
        assert!(
            keys.windows(2).all(|pair| pair[0] < pair[1]),
            "seed {seed}: sorted"
        );
        assert_eq!(
            log.len() as u64 + log.dropped(),
            arrival.len() as u64,
            "seed {seed}"
        );
    }
}
