//! The timestamp kube-apiserver puts before each log line when asked (`timestamps=true`):
//! `2026-12-07T01:02:03.123456789Z message`, RFC 3339 with up to nine fraction digits, as the
//! kubelet wrote it. Parsed without a date library, to the nanosecond, so lines of one
//! millisecond keep their order.

use std::fmt;

use crate::time::age::{civil_from_days, parse_timestamp_nanos};

/// When a log line was written, to the nanosecond (UTC); ordered as time goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LogTime {
    /// Seconds since 1970-01-01T00:00:00Z.
    seconds: i64,
    /// Within the second, below 1,000,000,000.
    nanos: u32,
}

impl LogTime {
    /// Before every real time: where a line with no time of its own, and none to inherit, sorts.
    pub const MIN: LogTime = LogTime {
        seconds: i64::MIN,
        nanos: 0,
    };

    /// A time from seconds and nanoseconds since the epoch (nanoseconds past a second carry).
    pub fn from_unix(seconds: i64, nanos: u32) -> LogTime {
        LogTime {
            seconds: seconds.saturating_add(i64::from(nanos / 1_000_000_000)),
            nanos: nanos % 1_000_000_000,
        }
    }

    /// Parses an RFC 3339 time (`…Z` or an offset such as `+02:00`, with or without a
    /// fraction); `None` for anything else.
    pub fn parse(text: &str) -> Option<LogTime> {
        let (seconds, nanos) = parse_timestamp_nanos(text)?;
        Some(LogTime { seconds, nanos })
    }

    pub fn seconds(self) -> i64 {
        self.seconds
    }

    pub fn nanos(self) -> u32 {
        self.nanos
    }

    /// Nanoseconds since the epoch.
    pub fn unix_nanos(self) -> i128 {
        i128::from(self.seconds) * 1_000_000_000 + i128::from(self.nanos)
    }

    /// `2026-12-07T01:02:03.123456789Z`, in UTC with all nine digits, so times line up.
    pub fn rfc3339_nano(self) -> String {
        let (date, clock) = self.civil();
        format!("{date}T{clock}.{:09}Z", self.nanos)
    }

    /// `01:02:03.123`, the time of day in UTC, for a narrow column.
    pub fn time_of_day(self) -> String {
        let (_, clock) = self.civil();
        format!("{clock}.{:03}", self.nanos / 1_000_000)
    }

    /// (`2026-12-07`, `01:02:03`).
    fn civil(self) -> (String, String) {
        let days = self.seconds.div_euclid(86_400);
        let second_of_day = self.seconds.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        let (hour, minute, second) = (
            second_of_day / 3600,
            second_of_day % 3600 / 60,
            second_of_day % 60,
        );
        (
            format!("{year:04}-{month:02}-{day:02}"),
            format!("{hour:02}:{minute:02}:{second:02}"),
        )
    }
}

impl fmt::Display for LogTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rfc3339_nano())
    }
}

/// Splits the timestamp prefix from a streamed line: `(Some(time), message)`, with the one
/// space after the time removed, or `(None, line)` when the line does not start with a time
/// (an error text of the server's, or a stream read without `timestamps=true`).
pub fn split_timestamp(line: &str) -> (Option<LogTime>, &str) {
    let (token, message) = line.split_once(' ').unwrap_or((line, ""));
    // A time is 20 characters at least: skip the parse for words that cannot be one.
    if token.len() < 20 || !token.as_bytes()[0].is_ascii_digit() {
        return (None, line);
    }
    match LogTime::parse(token) {
        Some(time) => (Some(time), message),
        None => (None, line),
    }
}
