//! A log line's severity, guessed from how common loggers write it: klog's `E1207 …` prefix,
//! JSON (`{"level":"warn"}`, `"severity":"ERROR"`, pino's numbers), logfmt (`level=error`),
//! and a level word near the start (`[error]`, `ERROR:`, zap's tab-separated `warn`).
//!
//! A lowercase word counts only when set apart as a level is (brackets, a colon after it,
//! tabs, or the start of the line), so "no error occurred" stays unknown; an uppercase one
//! (`WARN`) counts anywhere near the start.

/// How grave a line is; ordered, so a filter can ask for "warnings and worse".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Severity {
    /// Nothing recognised.
    #[default]
    Unknown,
    Debug,
    Info,
    Warning,
    Error,
}

impl Severity {
    /// The levels a filter offers, gravest first.
    pub const LEVELS: [Severity; 4] = [
        Severity::Error,
        Severity::Warning,
        Severity::Info,
        Severity::Debug,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Severity::Unknown => "Unknown",
            Severity::Debug => "Debug",
            Severity::Info => "Info",
            Severity::Warning => "Warning",
            Severity::Error => "Error",
        }
    }
}

/// Only the start of a line is searched for a level word: a level is written first.
const LEVEL_WORD_WINDOW: usize = 120;

/// The severity of one line's message (its timestamp prefix already removed).
pub fn detect_severity(message: &str) -> Severity {
    klog_severity(message)
        .or_else(|| json_severity(message))
        .or_else(|| logfmt_severity(message))
        .or_else(|| level_word_severity(message))
        .unwrap_or(Severity::Unknown)
}

/// A level's name in any case (`warn`, `WARNING`, `Err`, `fatal`…).
fn named_level(word: &str) -> Option<Severity> {
    const NAMES: [(&str, Severity); 18] = [
        ("error", Severity::Error),
        ("err", Severity::Error),
        ("fatal", Severity::Error),
        ("panic", Severity::Error),
        ("crit", Severity::Error),
        ("critical", Severity::Error),
        ("alert", Severity::Error),
        ("emerg", Severity::Error),
        ("severe", Severity::Error),
        ("warn", Severity::Warning),
        ("warning", Severity::Warning),
        ("info", Severity::Info),
        ("information", Severity::Info),
        ("notice", Severity::Info),
        ("debug", Severity::Debug),
        ("dbg", Severity::Debug),
        ("trace", Severity::Debug),
        ("verbose", Severity::Debug),
    ];
    NAMES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(word))
        .map(|(_, severity)| *severity)
}

/// klog's header: `Lmmdd hh:mm:ss.uuuuuu …` with L one of `IWEF`.
fn klog_severity(message: &str) -> Option<Severity> {
    let bytes = message.as_bytes();
    let digits = bytes.get(1..5)?;
    if !digits.iter().all(u8::is_ascii_digit) || bytes.get(5) != Some(&b' ') {
        return None;
    }
    match bytes[0] {
        b'I' => Some(Severity::Info),
        b'W' => Some(Severity::Warning),
        b'E' | b'F' => Some(Severity::Error),
        _ => None,
    }
}

/// `"level": "warn"` (or `severity`, `lvl`) in a JSON line; pino's numeric levels too.
fn json_severity(message: &str) -> Option<Severity> {
    if !message.trim_start().starts_with('{') {
        return None;
    }
    let keys = ["\"level\"", "\"severity\"", "\"lvl\""];
    keys.iter().find_map(|key| {
        // The key's text may also be a value (`"msg":"level"`): the one followed by `:` counts.
        message.match_indices(key).find_map(|(at, _)| {
            let after_key = &message[at + key.len()..];
            let value = after_key.trim_start().strip_prefix(':')?.trim_start();
            match value.strip_prefix('"') {
                Some(quoted) => named_level(&quoted[..quoted.find('"')?]),
                None => pino_level(value),
            }
        })
    })
}

/// pino's numbers: 10 trace, 20 debug, 30 info, 40 warn, 50 error, 60 fatal.
fn pino_level(value: &str) -> Option<Severity> {
    let digits = value.split(|c: char| !c.is_ascii_digit()).next()?;
    match digits.parse::<u32>().ok()? {
        0..=29 => Some(Severity::Debug),
        30..=39 => Some(Severity::Info),
        40..=49 => Some(Severity::Warning),
        _ => Some(Severity::Error),
    }
}

/// `level=error`, `level="warn"` (or `lvl=`, `severity=`) as a field of its own.
fn logfmt_severity(message: &str) -> Option<Severity> {
    ["level=", "lvl=", "severity="].iter().find_map(|key| {
        let at = message.find(key)?;
        let field_start = at == 0 || message.as_bytes()[at - 1] == b' ';
        if !field_start {
            return None;
        }
        let value = message[at + key.len()..].trim_start_matches('"');
        let end = value
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(value.len());
        named_level(&value[..end])
    })
}

/// The first level word near the start, set apart as a level is (see the module's note).
fn level_word_severity(message: &str) -> Option<Severity> {
    let mut end = message.len().min(LEVEL_WORD_WINDOW);
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    let head = &message[..end];
    let bytes = head.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        if !bytes[start].is_ascii_alphanumeric() {
            start += 1;
            continue;
        }
        let word_end = (start..bytes.len())
            .find(|&i| !bytes[i].is_ascii_alphanumeric())
            .unwrap_or(bytes.len());
        let word = &head[start..word_end];
        if let Some(severity) = named_level(word) {
            let before = start.checked_sub(1).map(|i| bytes[i]);
            let after = bytes.get(word_end).copied();
            let uppercase = word.bytes().all(|b| b.is_ascii_uppercase()) && word.len() >= 3;
            let opened = matches!(before, None | Some(b'[' | b'<' | b'(' | b'\t' | b'|'));
            let closed = matches!(after, Some(b']' | b'>' | b')' | b':' | b'\t' | b'|'));
            if uppercase || opened || closed {
                return Some(severity);
            }
        }
        start = word_end;
    }
    None
}
