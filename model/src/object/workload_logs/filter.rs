//! Which merged lines a view shows: by pod, by container, by text or regular expression (with
//! the matches to highlight), by severity.

use std::collections::BTreeSet;
use std::fmt;
use std::ops::Range;

use regex_lite::{Regex, RegexBuilder};

use crate::object::pod_logs::{find_matches, segments_at, Segment};
use crate::object::workload_logs::merge::LogLine;
use crate::object::workload_logs::severity::Severity;

/// A compiled regex is kept under this size: a pattern that would take more is refused
/// rather than let it slow every line.
const REGEX_SIZE_LIMIT: usize = 4 << 20;

/// How the text of a filter is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TextMode {
    /// The text as typed, ignoring ASCII case (as the pod logs' search).
    #[default]
    Plain,
    /// A regular expression (Rust's `regex` syntax), case-sensitive unless it says `(?i)`.
    Regex,
}

/// Text to look for in a line's message.
#[derive(Clone)]
pub struct TextPattern {
    query: String,
    /// Set in regex mode.
    regex: Option<Regex>,
}

impl TextPattern {
    /// `None` for an empty query (no text filter); an error sentence for a regex that does
    /// not compile.
    pub fn new(query: &str, mode: TextMode) -> Result<Option<TextPattern>, String> {
        if query.is_empty() {
            return Ok(None);
        }
        let regex = match mode {
            TextMode::Plain => None,
            TextMode::Regex => Some(
                RegexBuilder::new(query)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .map_err(|error| regex_problem(&error))?,
            ),
        };
        Ok(Some(TextPattern {
            query: query.to_string(),
            regex,
        }))
    }

    pub fn query(&self) -> &str {
        &self.query
    }

    pub fn mode(&self) -> TextMode {
        match self.regex {
            Some(_) => TextMode::Regex,
            None => TextMode::Plain,
        }
    }

    pub fn is_match(&self, text: &str) -> bool {
        match &self.regex {
            Some(regex) => regex.is_match(text),
            None => !find_matches(text, &self.query).is_empty(),
        }
    }

    /// The byte ranges to highlight in `text`: non-empty, ascending, non-overlapping.
    pub fn find(&self, text: &str) -> Vec<Range<usize>> {
        match &self.regex {
            Some(regex) => regex
                .find_iter(text)
                .map(|found| found.range())
                .filter(|range| !range.is_empty())
                .collect(),
            None => find_matches(text, &self.query),
        }
    }
}

impl fmt::Debug for TextPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TextPattern")
            .field("query", &self.query)
            .field("mode", &self.mode())
            .finish()
    }
}

impl PartialEq for TextPattern {
    fn eq(&self, other: &Self) -> bool {
        self.query == other.query && self.mode() == other.mode()
    }
}

impl Eq for TextPattern {}

/// The regex engine's error as one sentence: its last line names the problem and its caret
/// line where (`regex parse error:\n    (ab\n    ^\nerror: unclosed group`).
fn regex_problem(error: &regex_lite::Error) -> String {
    let text = error.to_string();
    if text.contains("exceeds size limit") || text.contains("too big") {
        return "The regular expression is too large to run on every line: make it simpler".into();
    }
    let problem = text
        .lines()
        .filter_map(|line| line.strip_prefix("error: "))
        .next_back()
        .unwrap_or(text.as_str());
    let column = text
        .lines()
        .find(|line| line.trim_start().starts_with('^'))
        .and_then(|line| line.find('^'))
        .and_then(|at| at.checked_sub(4))
        .map(|at| format!(" at column {}", at + 1))
        .unwrap_or_default();
    format!("Not a valid regular expression{column}: {problem}")
}

/// What a view shows; the default shows every line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineFilter {
    /// Only these pods' lines (none listed: every pod).
    pub pods: BTreeSet<String>,
    /// Only these containers' lines, by container name (none listed: every container).
    pub containers: BTreeSet<String>,
    pub text: Option<TextPattern>,
    /// Only lines at least this grave; lines of unknown severity are then hidden.
    pub min_severity: Option<Severity>,
}

impl LineFilter {
    /// Shows everything.
    pub fn is_empty(&self) -> bool {
        self.pods.is_empty()
            && self.containers.is_empty()
            && self.text.is_none()
            && self.min_severity.is_none()
    }

    pub fn matches(&self, line: &LogLine) -> bool {
        let stream = &line.stream;
        (self.pods.is_empty() || self.pods.contains(&stream.pod))
            && (self.containers.is_empty() || self.containers.contains(&stream.container))
            && self
                .min_severity
                .is_none_or(|min| line.severity != Severity::Unknown && line.severity >= min)
            && self
                .text
                .as_ref()
                .is_none_or(|text| text.is_match(&line.text))
    }

    /// The ranges of `text` the filter's text matches, to highlight.
    pub fn highlights(&self, text: &str) -> Vec<Range<usize>> {
        self.text
            .as_ref()
            .map(|pattern| pattern.find(text))
            .unwrap_or_default()
    }

    /// `text` cut into plain and highlighted pieces, covering all of it.
    pub fn segments<'a>(&self, text: &'a str) -> Vec<Segment<'a>> {
        segments_at(text, &self.highlights(text))
    }
}
