//! Standard 5-field cron schedules (minute hour day-of-month month day-of-week) with `*`,
//! lists, ranges, steps and the `@hourly`-style macros, in UTC.

use chrono::{DateTime, Datelike, Duration, Timelike, Utc};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    minutes: Vec<bool>,
    hours: Vec<bool>,
    days: Vec<bool>,
    months: Vec<bool>,
    weekdays: Vec<bool>,
    /// Day-of-month and day-of-week both restricted: either may match (cron's rule).
    either_day: bool,
}

/// One field: which values in `min..=max` it selects, and whether it was `*`.
fn parse_field(field: &str, min: u32, max: u32) -> Result<(Vec<bool>, bool), String> {
    let mut selected = vec![false; max as usize + 1];
    let wildcard = field == "*" || field == "?";
    for part in field.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((r, s)) => (
                r,
                s.parse::<u32>()
                    .ok()
                    .filter(|s| *s > 0)
                    .ok_or(format!("bad step in {part:?}"))?,
            ),
            None => (part, 1),
        };
        let (low, high) = if range == "*" || range == "?" {
            (min, max)
        } else if let Some((a, b)) = range.split_once('-') {
            let a = a
                .parse::<u32>()
                .map_err(|_| format!("bad range {part:?}"))?;
            let b = b
                .parse::<u32>()
                .map_err(|_| format!("bad range {part:?}"))?;
            (a, b)
        } else {
            let v = range
                .parse::<u32>()
                .map_err(|_| format!("bad value {part:?}"))?;
            // "5/15" means from 5 to the end in steps of 15.
            (v, if part.contains('/') { max } else { v })
        };
        if low < min || high > max || low > high {
            return Err(format!("{part:?} is out of range {min}-{max}"));
        }
        let mut v = Some(low);
        while let Some(value) = v.filter(|value| *value <= high) {
            selected[value as usize] = true;
            v = value.checked_add(step);
        }
    }
    Ok((selected, wildcard))
}

impl Schedule {
    pub fn parse(spec: &str) -> Result<Self, String> {
        let expanded = match spec.trim() {
            "@yearly" | "@annually" => "0 0 1 1 *",
            "@monthly" => "0 0 1 * *",
            "@weekly" => "0 0 * * 0",
            "@daily" | "@midnight" => "0 0 * * *",
            "@hourly" => "0 * * * *",
            other => other,
        };
        let fields: Vec<&str> = expanded.split_whitespace().collect();
        if fields.len() != 5 {
            return Err(format!(
                "expected exactly 5 fields, found {}: {spec}",
                fields.len()
            ));
        }
        let (minutes, _) = parse_field(fields[0], 0, 59)?;
        let (hours, _) = parse_field(fields[1], 0, 23)?;
        let (days, any_day) = parse_field(fields[2], 1, 31)?;
        let (months, _) = parse_field(fields[3], 1, 12)?;
        let (mut weekdays, any_weekday) = parse_field(fields[4], 0, 7)?;
        // 7 is another name for Sunday.
        if weekdays[7] {
            weekdays[0] = true;
        }
        Ok(Schedule {
            minutes,
            hours,
            days,
            months,
            weekdays,
            either_day: !any_day && !any_weekday,
        })
    }

    pub fn matches(&self, t: DateTime<Utc>) -> bool {
        let day = self.days[t.day() as usize];
        let weekday = self.weekdays[t.weekday().num_days_from_sunday() as usize];
        let day_ok = if self.either_day {
            day || weekday
        } else {
            day && weekday
        };
        self.minutes[t.minute() as usize]
            && self.hours[t.hour() as usize]
            && self.months[t.month() as usize]
            && day_ok
    }

    /// The latest scheduled minute in `(after, now]`, looking back at most a day (like the
    /// real controller, which gives up on long-missed schedules and just runs the latest).
    pub fn most_recent(&self, after: DateTime<Utc>, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let floor = |t: DateTime<Utc>| {
            t.with_second(0)
                .and_then(|t| t.with_nanosecond(0))
                .unwrap_or(t)
        };
        let earliest = floor(after.max(now - Duration::days(1))) + Duration::minutes(1);
        let mut t = floor(now);
        while t >= earliest {
            if t > after && self.matches(t) {
                return Some(t);
            }
            t -= Duration::minutes(1);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn parses_fields_and_rejects_garbage() {
        assert!(Schedule::parse("*/5 * * * *").is_ok());
        assert!(Schedule::parse("0 9-17 * * 1-5").is_ok());
        assert!(Schedule::parse("@hourly").is_ok());
        assert!(Schedule::parse("* * *").is_err());
        assert!(Schedule::parse("61 * * * *").is_err());
        assert!(Schedule::parse("*/0 * * * *").is_err());
        assert!(Schedule::parse("5/4294967295 * * * *").is_ok());
        assert!(Schedule::parse("a * * * *").is_err());
    }

    #[test]
    fn finds_the_latest_missed_run() {
        let every_minute = Schedule::parse("* * * * *").unwrap();
        assert_eq!(
            every_minute.most_recent(at("2024-05-01T12:00:10Z"), at("2024-05-01T12:03:20Z")),
            Some(at("2024-05-01T12:03:00Z"))
        );
        assert_eq!(
            every_minute.most_recent(at("2024-05-01T12:03:00Z"), at("2024-05-01T12:03:59Z")),
            None
        );
        let quarter = Schedule::parse("*/15 9 * * 1-5").unwrap();
        // 2024-05-03 is a Friday, 2024-05-04 a Saturday.
        assert_eq!(
            quarter.most_recent(at("2024-05-03T00:00:00Z"), at("2024-05-03T12:00:00Z")),
            Some(at("2024-05-03T09:45:00Z"))
        );
        assert_eq!(
            quarter.most_recent(at("2024-05-04T00:00:00Z"), at("2024-05-04T12:00:00Z")),
            None
        );
        let weekly = Schedule::parse("0 0 * * 7").unwrap();
        assert!(weekly.matches(at("2024-05-05T00:00:00Z")));
    }
}
