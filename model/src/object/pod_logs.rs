//! Pod logs (`GET pods/{name}/log`) as data: the options and the request they make, the
//! containers a pod can show logs of, a bounded buffer that turns streamed chunks into lines,
//! and search over it. Pure, so the view only draws what this holds.
//!
//! Lines are numbered from the start of the stream (0-based here, shown 1-based): a number
//! stays with its line when older lines are dropped, so views can key rows and searches can
//! keep their place by number while the buffer slides.

use std::collections::VecDeque;
use std::ops::Range;

use serde_json::Value;

use crate::api::request::ApiRequest;

/// Lines kept at most; older ones are dropped (and counted) as new ones arrive.
pub const MAX_LINES: usize = 50_000;

/// A longer line without a newline is cut into pieces of this many bytes: a container that
/// prints megabytes without a newline must not grow one line without bound.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// What the log endpoint answers (`text/plain`); `*/*` so an error Status in JSON is accepted.
pub const LOG_ACCEPT: &str = "text/plain, */*";

/// `tailLines`: how many of the last lines to ask for first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TailLines {
    Last(u32),
    All,
}

impl TailLines {
    /// In display order.
    pub const CHOICES: [TailLines; 4] = [
        TailLines::Last(100),
        TailLines::Last(1000),
        TailLines::Last(10_000),
        TailLines::All,
    ];

    /// The `tailLines` value; None asks for the whole log.
    pub fn param(self) -> Option<String> {
        match self {
            TailLines::Last(n) => Some(n.to_string()),
            TailLines::All => None,
        }
    }

    pub fn label(self) -> String {
        match self {
            TailLines::Last(n) => format!("Last {}", with_thousands(u64::from(n))),
            TailLines::All => "All".to_string(),
        }
    }

    /// The inverse of [`TailLines::param`] (`""` is all), for a `<select>` value.
    pub fn from_param(value: &str) -> Option<TailLines> {
        if value.is_empty() {
            return Some(TailLines::All);
        }
        value.parse().ok().map(TailLines::Last)
    }
}

/// The query options of one log request; changing any of them starts a new stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogOptions {
    /// None lets the server choose (it only can when the pod has one container).
    pub container: Option<String>,
    /// `follow=true`: the response stays open and lines arrive as the container prints them.
    pub follow: bool,
    pub timestamps: bool,
    /// The log of the container's previous (terminated) instance, e.g. before a crash.
    pub previous: bool,
    pub tail: TailLines,
}

impl Default for LogOptions {
    fn default() -> Self {
        LogOptions {
            container: None,
            follow: true,
            timestamps: false,
            previous: false,
            tail: TailLines::Last(1000),
        }
    }
}

/// The request for the log of the pod at `pod_path` (its object path,
/// `/api/v1/namespaces/default/pods/web-1`). Options left at the server's default are left out
/// of the query, as kubectl does.
pub fn log_request(pod_path: &str, options: &LogOptions) -> ApiRequest {
    let flag = |on: bool| if on { "true" } else { "" };
    ApiRequest::get(&format!("{}/log", pod_path.trim_end_matches('/')))
        .accept(LOG_ACCEPT)
        .query(
            "container",
            options.container.as_deref().unwrap_or_default(),
        )
        .query("follow", flag(options.follow))
        .query("timestamps", flag(options.timestamps))
        .query("previous", flag(options.previous))
        .query("tailLines", &options.tail.param().unwrap_or_default())
}

/// Where a container is declared in the pod spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerKind {
    Init,
    Regular,
    Ephemeral,
}

/// A container whose log can be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogContainer {
    pub name: String,
    pub kind: ContainerKind,
}

impl LogContainer {
    /// The name, with the kind when it is not a regular container.
    pub fn label(&self) -> String {
        match self.kind {
            ContainerKind::Init => format!("{} (init)", self.name),
            ContainerKind::Regular => self.name.clone(),
            ContainerKind::Ephemeral => format!("{} (ephemeral)", self.name),
        }
    }
}

/// The pod's containers in the order they run: init containers, containers, then ephemeral
/// (debug) containers. Entries without a name are skipped.
pub fn log_containers(pod: &Value) -> Vec<LogContainer> {
    [
        ("initContainers", ContainerKind::Init),
        ("containers", ContainerKind::Regular),
        ("ephemeralContainers", ContainerKind::Ephemeral),
    ]
    .into_iter()
    .flat_map(|(field, kind)| {
        pod["spec"][field]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(move |c| {
                let name = c["name"].as_str().filter(|n| !n.is_empty())?;
                Some(LogContainer {
                    name: name.to_string(),
                    kind,
                })
            })
    })
    .collect()
}

/// The annotation kubectl reads to pick a pod's container when none is named.
pub const DEFAULT_CONTAINER_ANNOTATION: &str = "kubectl.kubernetes.io/default-container";

/// The container shown first: the one the pod's default-container annotation names (as kubectl
/// does), else the first regular container, else the first of any kind.
pub fn default_container(pod: &Value, containers: &[LogContainer]) -> Option<String> {
    let annotated = pod["metadata"]["annotations"][DEFAULT_CONTAINER_ANNOTATION].as_str();
    annotated
        .and_then(|name| containers.iter().find(|c| c.name == name))
        .or_else(|| containers.iter().find(|c| c.kind == ContainerKind::Regular))
        .or_else(|| containers.first())
        .map(|c| c.name.clone())
}

/// What one append did to a [`LogBuffer`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Appended {
    /// Complete lines added.
    pub added: usize,
    /// Old lines dropped to stay within the bound.
    pub dropped: usize,
}

/// Turns a stream's chunks into lines. Chunks may end anywhere, in the middle of a line too;
/// the unfinished line waits for the rest (or the end of the stream, [`LineSplitter::finish`]).
/// A line is given without its `\n` or `\r\n`; one longer than [`MAX_LINE_BYTES`] is cut into
/// pieces on character boundaries.
#[derive(Debug, Clone, Default)]
pub struct LineSplitter {
    /// The end of the stream so far that has no newline yet.
    partial: String,
}

impl LineSplitter {
    pub fn new() -> LineSplitter {
        LineSplitter::default()
    }

    /// Splits `chunk`, giving each completed line to `on_line` in order.
    pub fn push(&mut self, chunk: &str, mut on_line: impl FnMut(String)) {
        let mut rest = chunk;
        while let Some(end) = rest.find('\n') {
            let piece = &rest[..end];
            let line = if self.partial.is_empty() {
                piece.to_string()
            } else {
                let mut line = std::mem::take(&mut self.partial);
                line.push_str(piece);
                line
            };
            on_line(without_carriage_return(line));
            rest = &rest[end + 1..];
        }
        self.partial.push_str(rest);
        while self.partial.len() > MAX_LINE_BYTES {
            let mut cut = MAX_LINE_BYTES;
            while !self.partial.is_char_boundary(cut) {
                cut -= 1;
            }
            let tail = self.partial.split_off(cut);
            let head = std::mem::replace(&mut self.partial, tail);
            on_line(without_carriage_return(head));
        }
    }

    /// The stream ended: an unfinished last line becomes a line.
    pub fn finish(&mut self) -> Option<String> {
        (!self.partial.is_empty())
            .then(|| without_carriage_return(std::mem::take(&mut self.partial)))
    }

    /// The text that arrived after the last newline.
    pub fn partial(&self) -> &str {
        &self.partial
    }

    /// Forgets the unfinished line (a new stream starts).
    pub fn clear(&mut self) {
        self.partial.clear();
    }
}

fn without_carriage_return(mut line: String) -> String {
    if line.ends_with('\r') {
        line.pop();
    }
    line
}

/// The lines of one log stream, at most `capacity` of them: the oldest are dropped (and
/// counted) as new ones arrive. Chunks may end anywhere, in the middle of a line too; the
/// unfinished line waits for the rest (or the end of the stream, [`LogBuffer::finish`]).
#[derive(Debug, Clone)]
pub struct LogBuffer {
    lines: VecDeque<String>,
    capacity: usize,
    /// Lines dropped from the front since the last clear: also the number of the first line.
    dropped: u64,
    splitter: LineSplitter,
    /// Changes on every clear, so derived state (a search) knows to start over.
    epoch: u64,
}

impl Default for LogBuffer {
    fn default() -> Self {
        LogBuffer::with_capacity(MAX_LINES)
    }
}

impl LogBuffer {
    pub fn new() -> LogBuffer {
        LogBuffer::default()
    }

    /// A buffer of at most `capacity` lines (at least one).
    pub fn with_capacity(capacity: usize) -> LogBuffer {
        let capacity = capacity.max(1);
        LogBuffer {
            lines: VecDeque::with_capacity(capacity.min(4096)),
            capacity,
            dropped: 0,
            splitter: LineSplitter::new(),
            epoch: 0,
        }
    }

    /// Adds a chunk of the stream: every completed line, with `\n` or `\r\n` removed.
    pub fn push_chunk(&mut self, chunk: &str) -> Appended {
        let mut appended = Appended::default();
        let Self {
            splitter,
            lines,
            capacity,
            dropped,
            ..
        } = self;
        splitter.push(chunk, |line| {
            push_bounded(lines, *capacity, dropped, line, &mut appended);
        });
        appended
    }

    /// The stream ended: an unfinished last line becomes a line.
    pub fn finish(&mut self) -> Appended {
        let mut appended = Appended::default();
        if let Some(line) = self.splitter.finish() {
            push_bounded(
                &mut self.lines,
                self.capacity,
                &mut self.dropped,
                line,
                &mut appended,
            );
        }
        appended
    }

    /// Empties the buffer for a new stream; numbering starts again at 0.
    pub fn clear(&mut self) {
        self.lines.clear();
        self.splitter.clear();
        self.dropped = 0;
        self.epoch += 1;
    }

    /// Complete lines held.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Older lines dropped to stay within the bound.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The line at `index` among those held (0 is the oldest held).
    pub fn line(&self, index: usize) -> Option<&str> {
        self.lines.get(index).map(String::as_str)
    }

    /// The stream-wide number of the line at `index`.
    pub fn number_of(&self, index: usize) -> u64 {
        self.dropped + index as u64
    }

    /// Where the line numbered `number` is held, if it still is.
    pub fn index_of(&self, number: u64) -> Option<usize> {
        let index = usize::try_from(number.checked_sub(self.dropped)?).ok()?;
        (index < self.lines.len()).then_some(index)
    }

    /// The number the next complete line will get.
    pub fn end_number(&self) -> u64 {
        self.dropped + self.lines.len() as u64
    }

    /// The text that arrived after the last newline (not shown as a line yet).
    pub fn partial(&self) -> &str {
        self.splitter.partial()
    }

    /// Everything held as one text, a newline after each line (for a download).
    pub fn text(&self) -> String {
        let partial = self.splitter.partial();
        let size = self.lines.iter().map(|l| l.len() + 1).sum::<usize>() + partial.len();
        let mut text = String::with_capacity(size);
        for line in &self.lines {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(partial);
        text
    }
}

/// Appends `line`, dropping (and counting) the oldest when `lines` is full.
fn push_bounded(
    lines: &mut VecDeque<String>,
    capacity: usize,
    dropped: &mut u64,
    line: String,
    appended: &mut Appended,
) {
    if lines.len() == capacity {
        lines.pop_front();
        *dropped += 1;
        appended.dropped += 1;
    }
    lines.push_back(line);
    appended.added += 1;
}

/// "N older lines dropped", when any were.
pub fn dropped_note(dropped: u64) -> Option<String> {
    match dropped {
        0 => None,
        1 => Some("1 older line dropped".to_string()),
        n => Some(format!("{} older lines dropped", with_thousands(n))),
    }
}

/// `50000` as `50,000`.
pub fn with_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Byte ranges of the non-overlapping occurrences of `query` in `line`, ignoring ASCII case
/// (log levels and identifiers are mostly ASCII; other characters must match exactly). The
/// ranges are on character boundaries, since the query is valid UTF-8.
pub fn find_matches(line: &str, query: &str) -> Vec<Range<usize>> {
    let (hay, needle) = (line.as_bytes(), query.as_bytes());
    let mut found = Vec::new();
    if needle.is_empty() || needle.len() > hay.len() {
        return found;
    }
    let mut at = 0;
    while at + needle.len() <= hay.len() {
        if hay[at..at + needle.len()].eq_ignore_ascii_case(needle) {
            found.push(at..at + needle.len());
            at += needle.len();
        } else {
            at += 1;
        }
    }
    found
}

fn line_matches(line: &str, query: &str) -> bool {
    !find_matches(line, query).is_empty()
}

/// A piece of a line as drawn: plain, or a search match (highlighted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment<'a> {
    pub text: &'a str,
    pub is_match: bool,
}

/// `line` cut into plain and matching pieces, in order, covering all of it.
pub fn segments<'a>(line: &'a str, query: &str) -> Vec<Segment<'a>> {
    segments_at(line, &find_matches(line, query))
}

/// `line` cut into plain pieces and the pieces at `matches` (ascending, non-overlapping byte
/// ranges on character boundaries, as [`find_matches`] or a regex gives them).
pub fn segments_at<'a>(line: &'a str, matches: &[Range<usize>]) -> Vec<Segment<'a>> {
    let mut out = Vec::new();
    let mut from = 0;
    for range in matches {
        // An empty range, one out of order or off a boundary is skipped, never a panic.
        if range.is_empty() || range.start < from || line.get(range.clone()).is_none() {
            continue;
        }
        if range.start > from {
            out.push(Segment {
                text: &line[from..range.start],
                is_match: false,
            });
        }
        out.push(Segment {
            text: &line[range.clone()],
            is_match: true,
        });
        from = range.end;
    }
    if from < line.len() || out.is_empty() {
        out.push(Segment {
            text: &line[from..],
            is_match: false,
        });
    }
    out
}

/// The lines of a [`LogBuffer`] that contain a query, kept up to date as lines arrive and old
/// ones are dropped (only new lines are scanned), and a current match to step through.
#[derive(Debug, Clone, Default)]
pub struct LogSearch {
    query: String,
    /// Numbers of matching lines, ascending.
    matches: VecDeque<u64>,
    /// Lines before this number have been scanned.
    scanned_to: u64,
    epoch: u64,
    current: Option<u64>,
}

impl LogSearch {
    pub fn new() -> LogSearch {
        LogSearch::default()
    }

    pub fn query(&self) -> &str {
        &self.query
    }

    /// Searches for `query` (case-insensitive) from scratch.
    pub fn set_query(&mut self, query: &str, buffer: &LogBuffer) {
        self.query = query.to_string();
        self.matches.clear();
        self.current = None;
        self.epoch = buffer.epoch();
        self.scanned_to = buffer.number_of(0);
        self.sync(buffer);
    }

    /// Catches up with `buffer`: forgets dropped lines, scans the new ones.
    pub fn sync(&mut self, buffer: &LogBuffer) {
        if self.epoch != buffer.epoch() || self.scanned_to > buffer.end_number() {
            // A new stream: nothing found before applies.
            self.matches.clear();
            self.current = None;
            self.epoch = buffer.epoch();
            self.scanned_to = 0;
        }
        let first = buffer.number_of(0);
        while self.matches.front().is_some_and(|n| *n < first) {
            self.matches.pop_front();
        }
        if self.current.is_some_and(|n| n < first) {
            self.current = None;
        }
        let from = self.scanned_to.max(first);
        if !self.query.is_empty() {
            for number in from..buffer.end_number() {
                let matched = buffer
                    .index_of(number)
                    .and_then(|i| buffer.line(i))
                    .is_some_and(|line| line_matches(line, &self.query));
                if matched {
                    self.matches.push_back(number);
                }
            }
        }
        self.scanned_to = buffer.end_number();
    }

    /// Matching lines held.
    pub fn count(&self) -> usize {
        self.matches.len()
    }

    /// The number of the current match's line.
    pub fn current(&self) -> Option<u64> {
        self.current
    }

    /// The current match's place among all (0-based).
    pub fn position(&self) -> Option<usize> {
        let current = self.current?;
        self.matches.binary_search(&current).ok()
    }

    /// Moves to the next match (after the current one, wrapping to the first); returns its
    /// line number.
    pub fn next_match(&mut self) -> Option<u64> {
        let next = match self.current {
            Some(current) => self
                .matches
                .iter()
                .find(|n| **n > current)
                .or(self.matches.front()),
            None => self.matches.front(),
        };
        self.current = next.copied();
        self.current
    }

    /// Moves to the previous match (before the current one, wrapping to the last).
    pub fn previous_match(&mut self) -> Option<u64> {
        let previous = match self.current {
            Some(current) => self
                .matches
                .iter()
                .rev()
                .find(|n| **n < current)
                .or(self.matches.back()),
            None => self.matches.back(),
        };
        self.current = previous.copied();
        self.current
    }

    /// "3 of 17 lines", "No matches", or nothing without a query.
    pub fn summary(&self) -> String {
        if self.query.is_empty() {
            return String::new();
        }
        let count = with_thousands(self.count() as u64);
        match (self.count(), self.position()) {
            (0, _) => "No matches".to_string(),
            (1, _) => "1 line".to_string(),
            (_, Some(at)) => format!("{} of {count} lines", with_thousands(at as u64 + 1)),
            (_, None) => format!("{count} lines"),
        }
    }
}

/// `<pod>-<container>.log`, with anything but letters, digits, `.`, `-` and `_` replaced, so
/// the name is safe on every file system.
pub fn download_file_name(pod: &str, container: Option<&str>) -> String {
    let stem = match container {
        Some(container) => format!("{pod}-{container}"),
        None => pod.to_string(),
    };
    format!("{}.log", safe_file_stem(&stem, "pod"))
}

/// `stem` with anything but letters, digits, `.`, `-` and `_` replaced by `_`; `fallback`
/// when empty.
pub(crate) fn safe_file_stem(stem: &str, fallback: &str) -> String {
    let safe: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() {
        fallback.to_string()
    } else {
        safe
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(buffer: &LogBuffer) -> Vec<&str> {
        (0..buffer.len()).filter_map(|i| buffer.line(i)).collect()
    }

    #[test]
    fn options_become_the_query_kubectl_sends() {
        let path = "/api/v1/namespaces/default/pods/web-1";
        let request = log_request(path, &LogOptions::default());
        assert_eq!(request.path, "/api/v1/namespaces/default/pods/web-1/log");
        assert_eq!(request.accept, LOG_ACCEPT);
        assert_eq!(
            request.url(),
            "/api/v1/namespaces/default/pods/web-1/log?follow=true&tailLines=1000"
        );
        let all = LogOptions {
            container: Some("sidecar".into()),
            follow: true,
            timestamps: true,
            previous: true,
            tail: TailLines::Last(100),
        };
        assert_eq!(
            log_request(path, &all).url(),
            "/api/v1/namespaces/default/pods/web-1/log?container=sidecar&follow=true\
             &timestamps=true&previous=true&tailLines=100"
        );
        // Off and "all" are the server's defaults: left out.
        let none = LogOptions {
            container: None,
            follow: false,
            timestamps: false,
            previous: false,
            tail: TailLines::All,
        };
        assert_eq!(
            log_request(&format!("{path}/"), &none).url(),
            format!("{path}/log")
        );
    }

    #[test]
    fn tail_choices_round_trip_through_their_values() {
        for tail in TailLines::CHOICES {
            let value = tail.param().unwrap_or_default();
            assert_eq!(TailLines::from_param(&value), Some(tail));
        }
        assert_eq!(TailLines::Last(1000).label(), "Last 1,000");
        assert_eq!(TailLines::All.label(), "All");
        assert_eq!(TailLines::from_param("x"), None);
    }

    #[test]
    fn containers_come_in_run_order_and_the_default_is_the_first_regular_one() {
        let pod = json!({"spec": {
            "initContainers": [{"name": "migrate"}, {"name": ""}],
            "containers": [{"name": "web"}, {"name": "sidecar"}],
            "ephemeralContainers": [{"name": "debugger"}],
        }});
        let containers = log_containers(&pod);
        let labels: Vec<String> = containers.iter().map(LogContainer::label).collect();
        assert_eq!(
            labels,
            ["migrate (init)", "web", "sidecar", "debugger (ephemeral)"]
        );
        assert_eq!(default_container(&pod, &containers).as_deref(), Some("web"));
        // kubectl's annotation wins when it names a container of the pod.
        let mut annotated = pod.clone();
        annotated["metadata"] = json!({"annotations": {DEFAULT_CONTAINER_ANNOTATION: "sidecar"}});
        assert_eq!(
            default_container(&annotated, &containers).as_deref(),
            Some("sidecar")
        );
        annotated["metadata"] = json!({"annotations": {DEFAULT_CONTAINER_ANNOTATION: "gone"}});
        assert_eq!(
            default_container(&annotated, &containers).as_deref(),
            Some("web")
        );
        // Only init containers (a pod stuck initializing); nothing at all.
        let init_only = json!({"spec": {"initContainers": [{"name": "wait"}]}});
        let containers = log_containers(&init_only);
        assert_eq!(
            default_container(&init_only, &containers).as_deref(),
            Some("wait")
        );
        assert_eq!(default_container(&json!({}), &[]), None);
    }

    #[test]
    fn lines_split_across_chunks_are_joined() {
        let mut buffer = LogBuffer::new();
        assert_eq!(buffer.push_chunk("first li").added, 0);
        assert!(buffer.is_empty());
        assert_eq!(buffer.partial(), "first li");
        assert_eq!(buffer.push_chunk("ne\nsecond\r").added, 1);
        // `\r\n` split between chunks is still one line end.
        assert_eq!(buffer.push_chunk("\n\nthird").added, 2);
        assert_eq!(lines(&buffer), ["first line", "second", ""]);
        assert_eq!(buffer.text(), "first line\nsecond\n\nthird");
        // The end of the stream completes the last line.
        assert_eq!(buffer.finish().added, 1);
        assert_eq!(buffer.finish().added, 0);
        assert_eq!(lines(&buffer), ["first line", "second", "", "third"]);
        // Character by character gives the same lines as the whole text at once.
        let text = "ünïcode ✓\r\nb\n\nc";
        let mut by_char = LogBuffer::new();
        for c in text.chars() {
            by_char.push_chunk(&c.to_string());
        }
        by_char.finish();
        let mut whole = LogBuffer::new();
        whole.push_chunk(text);
        whole.finish();
        assert_eq!(lines(&by_char), lines(&whole));
        assert_eq!(lines(&whole), ["ünïcode ✓", "b", "", "c"]);
    }

    #[test]
    fn an_endless_line_is_cut_on_a_character_boundary() {
        let mut buffer = LogBuffer::new();
        let long = "é".repeat(MAX_LINE_BYTES); // two bytes each
        let appended = buffer.push_chunk(&long);
        assert_eq!(appended.added, 1);
        assert!(buffer.line(0).is_some_and(|l| l.len() == MAX_LINE_BYTES));
        assert_eq!(buffer.partial().len(), MAX_LINE_BYTES);
    }

    #[test]
    fn the_buffer_keeps_the_newest_lines_and_counts_the_dropped_ones() {
        let mut buffer = LogBuffer::with_capacity(3);
        let appended = buffer.push_chunk("1\n2\n3\n4\n5\n");
        assert_eq!(
            appended,
            Appended {
                added: 5,
                dropped: 2
            }
        );
        assert_eq!(lines(&buffer), ["3", "4", "5"]);
        assert_eq!(buffer.dropped(), 2);
        assert_eq!(buffer.number_of(0), 2);
        assert_eq!(buffer.end_number(), 5);
        assert_eq!(buffer.index_of(4), Some(2));
        assert_eq!(buffer.index_of(1), None);
        assert_eq!(buffer.index_of(5), None);
        assert_eq!(
            dropped_note(buffer.dropped()).as_deref(),
            Some("2 older lines dropped")
        );
        assert_eq!(dropped_note(1).as_deref(), Some("1 older line dropped"));
        assert_eq!(dropped_note(0), None);
        assert_eq!(
            dropped_note(1_234_567).as_deref(),
            Some("1,234,567 older lines dropped")
        );
        let epoch = buffer.epoch();
        buffer.clear();
        assert!(buffer.is_empty());
        assert_eq!((buffer.dropped(), buffer.partial()), (0, ""));
        assert_ne!(buffer.epoch(), epoch);
    }

    #[test]
    fn the_default_bound_is_fifty_thousand_lines() {
        let mut buffer = LogBuffer::new();
        let chunk: String = (0..60_000).map(|i| format!("line {i}\n")).collect();
        // In uneven chunks, as a network delivers them.
        let mut rest = chunk.as_str();
        while !rest.is_empty() {
            let mut cut = rest.len().min(4093);
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            buffer.push_chunk(&rest[..cut]);
            rest = &rest[cut..];
        }
        assert_eq!(buffer.len(), MAX_LINES);
        assert_eq!(buffer.dropped(), 10_000);
        assert_eq!(buffer.line(0), Some("line 10000"));
        assert_eq!(buffer.line(MAX_LINES - 1), Some("line 59999"));
    }

    #[test]
    fn matches_ignore_ascii_case_and_cover_the_line() {
        assert_eq!(find_matches("Error: an ERROR", "error"), [0..5, 10..15]);
        assert_eq!(find_matches("aaaa", "aa"), [0..2, 2..4]);
        assert!(find_matches("abc", "").is_empty());
        assert!(find_matches("ab", "abc").is_empty());
        // Only ASCII folds: `Ü` is not `ü`.
        assert_eq!(find_matches("Grüße GRÜSSE", "grü"), vec![0..4]);
        let parts = segments("<b>x</b> and <B>", "<b>");
        assert_eq!(
            parts,
            [
                Segment {
                    text: "<b>",
                    is_match: true
                },
                Segment {
                    text: "x</b> and ",
                    is_match: false
                },
                Segment {
                    text: "<B>",
                    is_match: true
                },
            ]
        );
        let joined: String = parts.iter().map(|s| s.text).collect();
        assert_eq!(joined, "<b>x</b> and <B>");
        assert_eq!(
            segments("", "x"),
            [Segment {
                text: "",
                is_match: false
            }]
        );
    }

    #[test]
    fn search_follows_new_and_dropped_lines_and_steps_through_matches() {
        let mut buffer = LogBuffer::with_capacity(4);
        buffer.push_chunk("ok\nerror 1\nok\n");
        let mut search = LogSearch::new();
        assert_eq!(search.summary(), "");
        search.set_query("ERROR", &buffer);
        assert_eq!((search.count(), search.summary().as_str()), (1, "1 line"));
        buffer.push_chunk("error 2\n");
        search.sync(&buffer);
        assert_eq!(search.count(), 2);
        assert_eq!(search.summary(), "2 lines");
        assert_eq!(search.next_match(), Some(1));
        assert_eq!(search.summary(), "1 of 2 lines");
        assert_eq!(search.next_match(), Some(3));
        assert_eq!(search.next_match(), Some(1), "wraps to the first");
        assert_eq!(search.previous_match(), Some(3), "wraps to the last");
        assert_eq!(search.position(), Some(1));
        // "error 1" (line 1) and the line before it drop out: the count follows.
        buffer.push_chunk("x\nerror 3\n");
        search.sync(&buffer);
        assert_eq!(search.count(), 2);
        assert_eq!(search.current(), Some(3));
        assert_eq!(search.previous_match(), Some(5));
        buffer.push_chunk("a\nb\nc\nd\n");
        search.sync(&buffer);
        assert_eq!((search.count(), search.current()), (0, None));
        assert_eq!(search.summary(), "No matches");
        assert_eq!(search.next_match(), None);
        // A new stream starts the search over.
        buffer.clear();
        buffer.push_chunk("error again\n");
        search.sync(&buffer);
        assert_eq!(search.count(), 1);
        search.set_query("", &buffer);
        assert_eq!((search.count(), search.summary().as_str()), (0, ""));
    }

    #[test]
    fn the_splitter_gives_lines_as_they_complete() {
        let mut splitter = LineSplitter::new();
        let mut lines = Vec::new();
        splitter.push("a\r", |line| lines.push(line));
        splitter.push("\nb\nc", |line| lines.push(line));
        assert_eq!(lines, ["a", "b"]);
        assert_eq!(splitter.partial(), "c");
        assert_eq!(splitter.finish().as_deref(), Some("c"));
        assert_eq!(splitter.finish(), None);
        splitter.push("cut", |_| {});
        splitter.clear();
        assert_eq!(splitter.partial(), "");
    }

    #[test]
    fn segments_at_skips_ranges_it_cannot_cut_at() {
        let parts = segments_at("aé b", &[0..1, 1..2, 0..1, 2..2, 4..9]);
        let texts: Vec<(&str, bool)> = parts.iter().map(|s| (s.text, s.is_match)).collect();
        // 1..2 is inside `é`, 0..1 again is out of order, 2..2 is empty, 4..9 is past the end.
        assert_eq!(texts, [("a", true), ("é b", false)]);
    }

    #[test]
    fn download_names_are_pod_and_container() {
        assert_eq!(
            download_file_name("web-7d9f", Some("nginx")),
            "web-7d9f-nginx.log"
        );
        assert_eq!(download_file_name("a/b c", None), "a_b_c.log");
        assert_eq!(download_file_name("", None), "pod.log");
    }

    #[test]
    fn thousands_are_grouped() {
        for (n, text) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (50_000, "50,000"),
            (1_000_000, "1,000,000"),
        ] {
            assert_eq!(with_thousands(n), text);
        }
    }
}
