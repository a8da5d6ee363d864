//! Cells as text: ages for dates, numbers as written, `null` as empty, cluster text with its
//! controls made visible; and kubectl's age text read back.

use serde_json::Value;

use crate::object::meta::ObjectMeta;
use crate::object::visible_text::with_visible_controls;
use crate::time::age::{age_of, EpochMillis};

use super::{Align, ColumnDefinition, ColumnKind};

/// The text of one cell as shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormattedCell {
    pub text: String,
    pub align: Align,
}

/// The text of one cell: ages for dates, numbers as written, `null` as empty.
pub fn format_cell(
    column: &ColumnDefinition,
    cell: &Value,
    meta: &ObjectMeta,
    now: EpochMillis,
) -> FormattedCell {
    let plain = plain_text(cell);
    let text = match column.kind() {
        ColumnKind::Date => age_of(&plain, now).unwrap_or(plain),
        ColumnKind::Age => meta
            .creation_timestamp
            .as_deref()
            .and_then(|created| age_of(created, now))
            .unwrap_or(plain),
        _ => plain,
    };
    FormattedCell {
        text,
        align: column.align(),
    }
}

/// A JSON cell as text: strings bare, `null` empty, lists and objects as compact JSON.
pub(super) fn plain_text(cell: &Value) -> String {
    match cell {
        Value::Null => String::new(),
        Value::String(s) => with_visible_controls(s).into_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// Reads kubectl's age text back (`5m30s`, `2d3h`, `3y`) as milliseconds, for `Age` cells of
/// rows without a creationTimestamp.
pub fn parse_human_duration(text: &str) -> Option<i64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut total: i64 = 0;
    let mut number: Option<i64> = None;
    for c in text.chars() {
        if let Some(digit) = c.to_digit(10) {
            number = Some(
                number
                    .unwrap_or(0)
                    .checked_mul(10)?
                    .checked_add(i64::from(digit))?,
            );
            continue;
        }
        let unit_seconds: i64 = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'y' => 365 * 86_400,
            _ => return None,
        };
        total = total.checked_add(number.take()?.checked_mul(unit_seconds * 1000)?)?;
    }
    // A trailing number without a unit is not an age.
    number.is_none().then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list::table::fixtures::*;
    use crate::list::table::*;

    use serde_json::json;

    #[test]
    fn formats_cells_by_type() {
        let table = Table::from_page(decode(&pod_table()));
        let now = CREATED_MS + 190_000;
        let row = table.row(&RowKey::Uid("u9".into())).expect("row");
        let cell = |i| table.format_cell(row, i, now);
        assert_eq!(cell(0).text, "web-9");
        // The server said 5m when it answered; the age is recomputed from creationTimestamp.
        assert_eq!(cell(4).text, "3m10s");
        assert_eq!(cell(3).text, "3");
        assert_eq!(cell(3).align, Align::Right);
        assert_eq!(cell(1).align, Align::Left);
        assert_eq!(cell(99).text, "");
        let meta = ObjectMeta::default();
        let column = |type_name: &str, format: &str| ColumnDefinition {
            name: "X".into(),
            type_name: type_name.into(),
            format: format.into(),
            ..ColumnDefinition::default()
        };
        let text = |c: &ColumnDefinition, v: Value| format_cell(c, &v, &meta, now).text;
        assert_eq!(text(&column("boolean", ""), json!(true)), "true");
        assert_eq!(text(&column("number", ""), json!(1.5)), "1.5");
        assert_eq!(text(&column("string", ""), Value::Null), "");
        assert_eq!(text(&column("string", ""), json!(["a", 1])), r#"["a",1]"#);
        assert_eq!(text(&column("date", ""), json!(CREATED)), "3m10s");
        assert_eq!(text(&column("string", "date"), json!("soon")), "soon");
        // A custom column's text cannot hide or reorder itself.
        assert_eq!(
            text(&column("string", ""), json!("\u{202E}gnp.exe\u{1b}")),
            r"\u202egnp.exe\u001b"
        );
        // An Age cell without a creationTimestamp keeps the server's text.
        let age = ColumnDefinition {
            name: "Age".into(),
            type_name: "string".into(),
            ..ColumnDefinition::default()
        };
        assert_eq!(text(&age, json!("5m")), "5m");
    }
}
