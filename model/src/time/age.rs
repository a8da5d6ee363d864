//! Kubernetes timestamps and kubectl's ages (`5m30s`, `2d3h`, `3y`), pure: the clock is an
//! argument (`now`, epoch milliseconds as `Date.now()` gives them), so ages are testable.

/// Milliseconds since the Unix epoch, UTC.
pub type EpochMillis = i64;

/// Parses an RFC 3339 timestamp as Kubernetes writes them (`2024-05-01T12:00:00Z`, with
/// optional fraction `…:00.123456Z` or offset `+02:00`). `None` for anything else, never a panic.
pub fn parse_timestamp(text: &str) -> Option<EpochMillis> {
    let (seconds, nanos) = parse_timestamp_nanos(text)?;
    Some(seconds * 1000 + i64::from(nanos / 1_000_000))
}

/// [`parse_timestamp`] to the nanosecond, as log lines are stamped (RFC 3339 with up to nine
/// fraction digits; more are cut off): seconds since the epoch and the nanoseconds within.
pub fn parse_timestamp_nanos(text: &str) -> Option<(i64, u32)> {
    let bytes = text.trim().as_bytes();
    let number = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = bytes.get(range)?;
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        digits
            .iter()
            .try_fold(0i64, |acc, d| Some(acc * 10 + i64::from(d - b'0')))
    };
    let separator_ok =
        |at: usize, allowed: &[u8]| bytes.get(at).is_some_and(|b| allowed.contains(b));
    if !(separator_ok(4, b"-")
        && separator_ok(7, b"-")
        && separator_ok(10, b"Tt ")
        && separator_ok(13, b":")
        && separator_ok(16, b":"))
    {
        return None;
    }
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    // 60 is a leap second, which Go's parser also accepts.
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut at = 19;
    let mut nanos = 0u32;
    if bytes.get(at) == Some(&b'.') {
        let start = at + 1;
        let end = start
            + bytes[start..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
        if end == start {
            return None;
        }
        // Digits past the ninth are below a nanosecond: cut off, as Go's parser rounds down.
        let mut scale = 100_000_000;
        for digit in bytes[start..end].iter().take(9) {
            nanos += u32::from(digit - b'0') * scale;
            scale /= 10;
        }
        at = end;
    }
    let offset_minutes = match bytes.get(at..) {
        Some(b"Z") | Some(b"z") => 0,
        Some([sign @ (b'+' | b'-'), ..]) if bytes.len() == at + 6 && bytes[at + 3] == b':' => {
            let (h, m) = (number(at + 1..at + 3)?, number(at + 4..at + 6)?);
            if h > 23 || m > 59 {
                return None;
            }
            let minutes = h * 60 + m;
            if *sign == b'-' {
                -minutes
            } else {
                minutes
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some((seconds, nanos))
}

fn is_leap_year(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The proleptic Gregorian date (year, month, day) of a day counted from 1970-01-01, the
/// inverse of `days_from_civil` (Howard Hinnant's `civil_from_days`).
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// kubectl's age text for a duration in milliseconds: a port of
/// `k8s.io/apimachinery/pkg/util/duration.HumanDuration` (2-3 significant figures; a clock
/// skew of under two seconds reads `0s`, more reads `<invalid>`).
pub fn human_duration(millis: i64) -> String {
    // Go truncates toward zero (`int(d.Seconds())`), as Rust's integer division does.
    let seconds = millis / 1000;
    if seconds < -1 {
        return "<invalid>".into();
    }
    if seconds < 0 {
        return "0s".into();
    }
    if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        return with_remainder(minutes, "m", seconds % 60, "s");
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        return with_remainder(hours, "h", minutes % 60, "m");
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return with_remainder(hours / 24, "d", hours % 24, "h");
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return with_remainder(hours / 24 / 365, "y", (hours / 24) % 365, "d");
    }
    format!("{}y", hours / 24 / 365)
}

/// `3m10s`, or just `3m` when the smaller unit is zero.
fn with_remainder(value: i64, unit: &str, rest: i64, rest_unit: &str) -> String {
    if rest == 0 {
        format!("{value}{unit}")
    } else {
        format!("{value}{unit}{rest}{rest_unit}")
    }
}

/// The age of `timestamp` at `now`, as kubectl prints it; `None` when it is not a timestamp.
pub fn age_of(timestamp: &str, now: EpochMillis) -> Option<String> {
    parse_timestamp(timestamp).map(|then| human_duration(now.saturating_sub(then)))
}

/// An instant as RFC 3339 in UTC to the second (`2026-12-07T04:22:48Z`), as
/// `kubectl rollout restart` stamps `restartedAt` (Go's `time.RFC3339`); the inverse of
/// [`parse_timestamp`] for whole seconds.
pub fn format_timestamp(at: EpochMillis) -> String {
    let seconds = at.div_euclid(1000);
    let (days, second_of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_format_as_kubectl_stamps_them_and_parse_back() {
        assert_eq!(format_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_timestamp(1_796_617_368_999), "2026-12-07T04:22:48Z");
        for text in [
            "2000-02-29T23:59:59Z",
            "2024-12-31T00:00:00Z",
            "1969-12-31T23:59:59Z",
        ] {
            let parsed = parse_timestamp(text).expect("parses");
            assert_eq!(format_timestamp(parsed), text);
        }
    }

    const SECOND: i64 = 1000;
    const MINUTE: i64 = 60 * SECOND;
    const HOUR: i64 = 60 * MINUTE;
    const DAY: i64 = 24 * HOUR;
    const YEAR: i64 = 365 * DAY;

    #[test]
    fn timestamps_parse_to_the_nanosecond() {
        assert_eq!(
            parse_timestamp_nanos("2026-12-07T01:02:03.123456789Z"),
            parse_timestamp_nanos("2026-12-07T03:02:03.1234567891+02:00")
        );
        let (seconds, nanos) = parse_timestamp_nanos("1970-01-01T00:00:01.5Z").unwrap_or_default();
        assert_eq!((seconds, nanos), (1, 500_000_000));
        // Milliseconds are the nanoseconds cut, as before.
        assert_eq!(parse_timestamp("1970-01-01T00:00:01.9999Z"), Some(1999));
        assert_eq!(parse_timestamp_nanos("1970-01-01T00:00:01.Z"), None);
    }

    #[test]
    fn civil_dates_round_trip_through_days() {
        for days in (-800_000..800_000).step_by(997) {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(
                days_from_civil(year, month, day),
                days,
                "{year}-{month}-{day}"
            );
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn human_duration_matches_apimachinery_examples() {
        // The cases of apimachinery's duration_test.go (TestHumanDuration).
        let cases = [
            (SECOND, "1s"),
            (70 * SECOND, "70s"),
            (190 * SECOND, "3m10s"),
            (70 * MINUTE, "70m"),
            (47 * HOUR, "47h"),
            (49 * HOUR, "2d1h"),
            ((8 * 24 + 2) * HOUR, "8d"),
            (367 * DAY, "367d"),
            ((365 * 2 * 24 + 25) * HOUR, "2y1d"),
            ((365 * 8 * 24 + 2) * HOUR, "8y"),
        ];
        for (millis, want) in cases {
            assert_eq!(human_duration(millis), want, "{millis}ms");
        }
    }

    #[test]
    fn human_duration_boundaries_match_apimachinery() {
        // TestHumanDurationBoundaries, with Go's nanosecond offsets as one millisecond.
        let cases = [
            (-2 * SECOND, "<invalid>"),
            (-2 * SECOND + 1, "0s"),
            (0, "0s"),
            (SECOND - 1, "0s"),
            (2 * MINUTE - 1, "119s"),
            (2 * MINUTE, "2m"),
            (2 * MINUTE + SECOND, "2m1s"),
            (10 * MINUTE - 1, "9m59s"),
            (10 * MINUTE, "10m"),
            (10 * MINUTE + SECOND, "10m"),
            (3 * HOUR - 1, "179m"),
            (3 * HOUR, "3h"),
            (3 * HOUR + MINUTE, "3h1m"),
            (8 * HOUR - 1, "7h59m"),
            (8 * HOUR, "8h"),
            (8 * HOUR + 59 * MINUTE, "8h"),
            (2 * DAY - 1, "47h"),
            (2 * DAY, "2d"),
            (2 * DAY + HOUR, "2d1h"),
            (8 * DAY - 1, "7d23h"),
            (8 * DAY, "8d"),
            (8 * DAY + 23 * HOUR, "8d"),
            (2 * YEAR - 1, "729d"),
            (2 * YEAR, "2y"),
            (2 * YEAR + 23 * HOUR + 59 * MINUTE, "2y"),
            (2 * YEAR + DAY - 1, "2y"),
            (2 * YEAR + DAY, "2y1d"),
            (3 * YEAR, "3y"),
            (7 * YEAR, "7y"),
            (8 * YEAR - 1, "7y364d"),
            (8 * YEAR, "8y"),
            (8 * YEAR + 364 * DAY, "8y"),
            (9 * YEAR, "9y"),
        ];
        for (millis, want) in cases {
            assert_eq!(human_duration(millis), want, "{millis}ms");
        }
        assert_eq!(human_duration(i64::MAX), format!("{}y", i64::MAX / YEAR));
        assert_eq!(human_duration(i64::MIN), "<invalid>");
    }

    #[test]
    fn parses_kubernetes_timestamps() {
        assert_eq!(parse_timestamp("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_timestamp("2024-05-01T12:00:00Z"),
            Some(1_714_564_800_000)
        );
        // MicroTime: six fractional digits.
        assert_eq!(
            parse_timestamp("2024-05-01T12:00:00.123456Z"),
            Some(1_714_564_800_123)
        );
        assert_eq!(
            parse_timestamp("2024-05-01T14:30:00+02:30"),
            Some(1_714_564_800_000)
        );
        assert_eq!(
            parse_timestamp("2024-02-29T00:00:00Z"),
            Some(1_709_164_800_000)
        );
        assert_eq!(parse_timestamp("1969-12-31T23:59:59Z"), Some(-1000));
    }

    #[test]
    fn rejects_anything_else_without_panicking() {
        for text in [
            "",
            "2024",
            "2024-05-01",
            "2024-05-01T12:00:00",
            "2024-13-01T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2024-05-01T24:00:00Z",
            "2024-05-01T12:00:00.Z",
            "2024-05-01T12:00:00+0200",
            "2024-05-01T12:00:00+25:00",
            "2024-05-01T12:00:00Zjunk",
            "２０２４-05-01T12:00:00Z",
            "+024-05-01T12:00:00Z",
            "null",
        ] {
            assert_eq!(parse_timestamp(text), None, "{text:?}");
        }
    }

    #[test]
    fn age_of_a_timestamp() {
        let created = "2024-05-01T12:00:00Z";
        let now = 1_714_564_800_000 + 5 * MINUTE + 30 * SECOND;
        assert_eq!(age_of(created, now).as_deref(), Some("5m30s"));
        assert_eq!(age_of("yesterday", now), None);
        assert_eq!(age_of(created, i64::MIN).as_deref(), Some("<invalid>"));
    }
}
