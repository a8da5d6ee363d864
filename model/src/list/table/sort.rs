//! Sorting rows: the sort a header click asks for ([`SortSpec`], kept in the URL), what a cell
//! sorts by (by column kind; empty cells last) and natural order (`pod-2` < `pod-10`).

use std::cmp::Ordering;

use serde_json::Value;

use crate::object::meta::ObjectMeta;
use crate::time::age::{parse_timestamp, EpochMillis};

use super::format::plain_text;
use super::{parse_human_duration, ColumnDefinition, ColumnKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortDirection {
    #[default]
    Ascending,
    Descending,
}

/// Sort by the column of this name (matched case-insensitively).
///
/// Ages and dates sort by age: ascending is youngest first. Empty cells go last in both
/// directions; ties are broken by row key (uid) so the order never flickers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortSpec {
    pub column: String,
    pub direction: SortDirection,
}

impl SortSpec {
    pub fn ascending(column: impl Into<String>) -> SortSpec {
        SortSpec {
            column: column.into(),
            direction: SortDirection::Ascending,
        }
    }

    pub fn descending(column: impl Into<String>) -> SortSpec {
        SortSpec {
            column: column.into(),
            direction: SortDirection::Descending,
        }
    }

    /// The sort after a click on `column`'s header while `current` holds: the same column
    /// turns around, another column sorts ascending.
    pub fn after_click(current: Option<SortSpec>, column: impl Into<String>) -> SortSpec {
        let column = column.into();
        match current {
            Some(s) if s.column.eq_ignore_ascii_case(&column) => match s.direction {
                SortDirection::Ascending => SortSpec::descending(column),
                SortDirection::Descending => SortSpec::ascending(column),
            },
            _ => SortSpec::ascending(column),
        }
    }

    /// The URL form: `Age` ascending, `-Age` descending.
    pub fn to_param(&self) -> String {
        match self.direction {
            SortDirection::Ascending => self.column.clone(),
            SortDirection::Descending => format!("-{}", self.column),
        }
    }

    /// Inverse of [`SortSpec::to_param`]; `None` for an empty column name.
    pub fn from_param(param: &str) -> Option<SortSpec> {
        let spec = match param.strip_prefix('-') {
            Some(column) => SortSpec::descending(column),
            None => SortSpec::ascending(param),
        };
        (!spec.column.trim().is_empty()).then_some(spec)
    }
}

/// What a cell is sorted by.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum SortValue {
    /// Numbers, and ages in milliseconds.
    Number(f64),
    Bool(bool),
    Text(String),
    Missing,
}

pub(super) fn sort_value(
    column: &ColumnDefinition,
    cell: &Value,
    meta: &ObjectMeta,
    now: EpochMillis,
) -> SortValue {
    if cell.is_null() && column.kind() != ColumnKind::Age {
        return SortValue::Missing;
    }
    let text = plain_text(cell);
    let age_from = |timestamp: &str| {
        parse_timestamp(timestamp).map(|then| SortValue::Number(now.saturating_sub(then) as f64))
    };
    let value = match column.kind() {
        ColumnKind::Date => age_from(&text),
        ColumnKind::Age => meta
            .creation_timestamp
            .as_deref()
            .and_then(age_from)
            .or_else(|| parse_human_duration(&text).map(|ms| SortValue::Number(ms as f64))),
        ColumnKind::Integer | ColumnKind::Number => match cell {
            Value::Number(n) => n.as_f64().map(SortValue::Number),
            _ => text.trim().parse::<f64>().ok().map(SortValue::Number),
        },
        ColumnKind::Boolean => cell.as_bool().map(SortValue::Bool),
        ColumnKind::Name | ColumnKind::String => None,
    };
    match value {
        Some(value) => value,
        None if text.is_empty() => SortValue::Missing,
        None => SortValue::Text(text),
    }
}

/// Missing values last whatever the direction; otherwise numbers < booleans < text.
pub(super) fn compare_sort_values(
    a: &SortValue,
    b: &SortValue,
    direction: SortDirection,
) -> Ordering {
    fn rank(value: &SortValue) -> u8 {
        match value {
            SortValue::Number(_) => 0,
            SortValue::Bool(_) => 1,
            SortValue::Text(_) => 2,
            SortValue::Missing => 3,
        }
    }
    let ordering = match (a, b) {
        (SortValue::Missing, SortValue::Missing) => return Ordering::Equal,
        (SortValue::Missing, _) => return Ordering::Greater,
        (_, SortValue::Missing) => return Ordering::Less,
        (SortValue::Number(x), SortValue::Number(y)) => x.total_cmp(y),
        (SortValue::Bool(x), SortValue::Bool(y)) => x.cmp(y),
        (SortValue::Text(x), SortValue::Text(y)) => natural_cmp(x, y),
        _ => rank(a).cmp(&rank(b)),
    };
    match direction {
        SortDirection::Ascending => ordering,
        SortDirection::Descending => ordering.reverse(),
    }
}

/// "Natural" order: case-insensitive, with runs of digits compared as numbers, so `pod-2` <
/// `pod-10` and READY `9/10` < `10/10`.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.chars().peekable(), b.chars().peekable());
    loop {
        match (x.peek().copied(), y.peek().copied()) {
            (None, None) => break,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(cx), Some(cy)) if cx.is_ascii_digit() && cy.is_ascii_digit() => {
                let run_x = take_digits(&mut x);
                let run_y = take_digits(&mut y);
                let (trim_x, trim_y) =
                    (run_x.trim_start_matches('0'), run_y.trim_start_matches('0'));
                let ordering = trim_x
                    .len()
                    .cmp(&trim_y.len())
                    .then_with(|| trim_x.cmp(trim_y))
                    .then_with(|| run_x.len().cmp(&run_y.len()));
                if ordering != Ordering::Equal {
                    return ordering;
                }
            }
            (Some(cx), Some(cy)) => {
                let ordering = cx.to_lowercase().cmp(cy.to_lowercase());
                if ordering != Ordering::Equal {
                    return ordering;
                }
                x.next();
                y.next();
            }
        }
    }
    // Equal but for case: a total order still.
    a.cmp(b)
}

fn take_digits(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> String {
    let mut run = String::new();
    while let Some(c) = chars.next_if(char::is_ascii_digit) {
        run.push(c);
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list::table::fixtures::*;
    use crate::list::table::*;

    use serde_json::json;

    #[test]
    fn a_header_click_turns_its_sort_around_and_another_column_starts_ascending() {
        let age = SortSpec::after_click(None, "Age");
        assert_eq!(age, SortSpec::ascending("Age"));
        let age = SortSpec::after_click(Some(age), "AGE");
        assert_eq!(age, SortSpec::descending("AGE"));
        assert_eq!(
            SortSpec::after_click(Some(age.clone()), "Age"),
            SortSpec::ascending("Age")
        );
        assert_eq!(
            SortSpec::after_click(Some(age), "Name"),
            SortSpec::ascending("Name")
        );
    }

    #[test]
    fn sorts_by_type() {
        let table = Table::from_page(decode(&pod_table()));
        let now = CREATED_MS;
        assert_eq!(
            names(&table, &table.view(None, "", now)),
            ["web-10", "web-2", "web-9"]
        );
        let cases = [
            // An unknown column leaves arrival order.
            (SortSpec::ascending("Nope"), ["web-10", "web-2", "web-9"]),
            // Natural: web-2 < web-9 < web-10.
            (SortSpec::ascending("name"), ["web-2", "web-9", "web-10"]),
            (SortSpec::descending("Name"), ["web-10", "web-9", "web-2"]),
            // Integers numerically.
            (
                SortSpec::ascending("Restarts"),
                ["web-10", "web-9", "web-2"],
            ),
            // Ages by time: youngest first when ascending.
            (SortSpec::ascending("Age"), ["web-9", "web-2", "web-10"]),
            (SortSpec::descending("Age"), ["web-10", "web-2", "web-9"]),
            // READY: 0/1 < 1/1 < 10/10.
            (SortSpec::ascending("Ready"), ["web-2", "web-10", "web-9"]),
            // Ties (all Running) fall back to the uid: u10 < u2 < u9.
            (SortSpec::descending("Status"), ["web-10", "web-2", "web-9"]),
        ];
        for (spec, want) in cases {
            assert_eq!(
                names(&table, &table.view(Some(&spec), "", now)),
                want,
                "{spec:?}"
            );
        }
    }

    #[test]
    fn empty_cells_sort_last_both_ways_and_mixed_types_do_not_panic() {
        let table = Table::from_page(decode(&json!({
            "kind": "Table",
            "columnDefinitions": [{"name": "Name", "type": "string", "format": "name"},
                                  {"name": "N", "type": "integer"},
                                  {"name": "When", "type": "date"}],
            "rows": [
                {"cells": ["a", null, null], "object": {"metadata": {"name": "a", "uid": "1"}}},
                {"cells": ["b", 5, "2024-05-01T11:00:00Z"], "object": {"metadata": {"name": "b", "uid": "2"}}},
                {"cells": ["c", "lots", "later"], "object": {"metadata": {"name": "c", "uid": "3"}}},
                {"cells": ["d", "2", CREATED], "object": {"metadata": {"name": "d", "uid": "4"}}},
                {"cells": ["e", 1e300, true], "object": {"metadata": {"name": "e", "uid": "5"}}}
            ]
        })));
        let now = CREATED_MS;
        let sorted = |spec: SortSpec| names(&table, &table.view(Some(&spec), "", now));
        assert_eq!(sorted(SortSpec::ascending("N")), ["d", "b", "e", "c", "a"]);
        assert_eq!(sorted(SortSpec::descending("N")), ["c", "e", "b", "d", "a"]);
        assert_eq!(
            sorted(SortSpec::ascending("When")),
            ["d", "b", "c", "e", "a"]
        );
        assert_eq!(
            sorted(SortSpec::descending("When"))
                .last()
                .map(String::as_str),
            Some("a")
        );
    }

    #[test]
    fn natural_order_and_age_parsing() {
        assert_eq!(natural_cmp("pod-2", "pod-10"), Ordering::Less);
        assert_eq!(natural_cmp("9/10", "10/10"), Ordering::Less);
        assert_eq!(natural_cmp("a", "B"), Ordering::Less);
        assert_eq!(natural_cmp("x01", "x1"), Ordering::Greater);
        assert_eq!(natural_cmp("same", "same"), Ordering::Equal);
        assert_ne!(natural_cmp("Same", "same"), Ordering::Equal);
        assert_eq!(natural_cmp("a", "a1"), Ordering::Less);
        let long = "9".repeat(400);
        assert_eq!(natural_cmp(&long, "1"), Ordering::Greater);
        assert_eq!(parse_human_duration("5m30s"), Some(330_000));
        assert_eq!(parse_human_duration("2d3h"), Some((2 * 24 + 3) * 3_600_000));
        assert_eq!(parse_human_duration("3y"), Some(3 * 365 * 86_400_000));
        for bad in ["", "5", "m", "5x", "<invalid>", &"9".repeat(40)] {
            assert_eq!(parse_human_duration(bad), None, "{bad}");
        }
    }

    #[test]
    fn sort_specs_round_trip_as_url_params() {
        let spec = SortSpec::descending("Up-to-date");
        assert_eq!(spec.to_param(), "-Up-to-date");
        assert_eq!(SortSpec::from_param("-Up-to-date"), Some(spec));
        assert_eq!(
            SortSpec::from_param("Age"),
            Some(SortSpec::ascending("Age"))
        );
        assert_eq!(SortSpec::from_param(""), None);
        assert_eq!(SortSpec::from_param("-"), None);
    }
}
