//! Decoding one list response into a [`TablePage`]: a server Table (its columns, each row made
//! one cell per column wide and keyed), or a plain list (kubectl's Name, Namespace, Age) when
//! the server does not print Tables; hostile bodies give errors, not panics.

use std::fmt;

use serde_json::Value;

use crate::object::meta::ObjectMeta;

use super::{
    ColumnDefinition, ColumnKind, ListMeta, RowKey, RowProblem, TablePage, TableRow, TableSource,
};

/// Why a response could not be read as a table at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableDecodeError {
    NotJson(String),
    /// Neither a Table nor a list (e.g. a `Status`).
    NotATable {
        kind: String,
    },
    /// A Table whose `columnDefinitions` or `rows` have the wrong shape.
    BadShape(String),
}

impl fmt::Display for TableDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableDecodeError::NotJson(e) => write!(f, "the list is not JSON: {e}"),
            TableDecodeError::NotATable { kind } if kind.is_empty() => {
                f.write_str("the answer is neither a Table nor a list")
            }
            TableDecodeError::NotATable { kind } => {
                write!(f, "expected a Table or a list, got a {kind}")
            }
            TableDecodeError::BadShape(e) => write!(f, "the Table is malformed: {e}"),
        }
    }
}

/// How to decode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Add a `Namespace` column after the name (from each row's metadata), as `kubectl get -A`
    /// does. Pass `resource.namespaced && all_namespaces`.
    pub show_namespace: bool,
}

/// Decodes a list response: a `Table`, or a plain list (`{"kind":"PodList","items":[…]}`)
/// turned into a Table-shaped page with Name, Namespace (if asked) and Age columns.
pub fn decode_table(body: &str, options: DecodeOptions) -> Result<TablePage, TableDecodeError> {
    let value: Value =
        serde_json::from_str(body).map_err(|e| TableDecodeError::NotJson(e.to_string()))?;
    decode_table_value(&value, options)
}

/// [`decode_table`] of an already parsed value (e.g. the object of a watch event).
pub fn decode_table_value(
    value: &Value,
    options: DecodeOptions,
) -> Result<TablePage, TableDecodeError> {
    let kind = value
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if kind == "Table" {
        return decode_server_table(value, options);
    }
    match value.get("items") {
        Some(Value::Array(items)) => Ok(fallback_page(kind, items, value, options)),
        Some(Value::Null) if kind.ends_with("List") => Ok(fallback_page(kind, &[], value, options)),
        _ => Err(TableDecodeError::NotATable { kind: kind.into() }),
    }
}

fn decode_server_table(
    value: &Value,
    options: DecodeOptions,
) -> Result<TablePage, TableDecodeError> {
    let mut columns: Vec<ColumnDefinition> = match value.get("columnDefinitions") {
        None | Some(Value::Null) => Vec::new(),
        Some(defs) => serde_json::from_value(defs.clone())
            .map_err(|e| TableDecodeError::BadShape(format!("columnDefinitions: {e}")))?,
    };
    let raw_rows: &[Value] = match value.get("rows") {
        None | Some(Value::Null) => &[],
        Some(Value::Array(rows)) => rows,
        Some(_) => return Err(TableDecodeError::BadShape("rows is not a list".into())),
    };
    let mut rows: Vec<TableRow> = raw_rows
        .iter()
        .map(|raw| decode_row(raw, &columns))
        .collect();
    let has_namespace_column = columns
        .iter()
        .any(|c| c.name.eq_ignore_ascii_case("namespace"));
    // A headerless Table (a watch event after the first) gets its Namespace cell from the
    // Table it is applied to, which knows where that column is.
    if options.show_namespace && !has_namespace_column && !columns.is_empty() {
        // After the name column, where kubectl -A puts it (first when there is no name).
        let at = columns
            .iter()
            .position(|c| c.kind() == ColumnKind::Name)
            .map_or(0, |i| i + 1);
        columns.insert(at, namespace_column());
        for row in &mut rows {
            let namespace = row.meta.namespace.clone().unwrap_or_default();
            row.cells.insert(at, Value::String(namespace));
        }
    }
    Ok(TablePage {
        columns,
        rows,
        list_meta: ListMeta::from_value(value.get("metadata")),
        source: TableSource::Server,
    })
}

/// Marks the Namespace column we add, so rows of headerless pages can get theirs.
pub(super) const ADDED_NAMESPACE_DESCRIPTION: &str =
    "The object's namespace (added by Kube Atlas).";

fn namespace_column() -> ColumnDefinition {
    ColumnDefinition::synthetic("Namespace", "string", "", ADDED_NAMESPACE_DESCRIPTION)
}

/// One row, made exactly one cell per column wide (kept as sent when the Table has no
/// columns: [`Table::append_page`](super::Table::append_page) fits it).
pub(super) fn decode_row(raw: &Value, columns: &[ColumnDefinition]) -> TableRow {
    let width = columns.len();
    let meta = raw
        .get("object")
        .map(ObjectMeta::of_object)
        .unwrap_or_default();
    let mut problems = Vec::new();
    let mut cells = match raw.get("cells") {
        Some(Value::Array(cells)) => cells.clone(),
        Some(_) => {
            problems.push(RowProblem::Malformed("cells is not a list".into()));
            Vec::new()
        }
        None if raw.is_object() => {
            problems.push(RowProblem::Malformed("no cells".into()));
            Vec::new()
        }
        None => {
            problems.push(RowProblem::Malformed("the row is not an object".into()));
            Vec::new()
        }
    };
    if width > 0 {
        fit_width(&mut cells, width, &mut problems);
    }
    let name_cell = columns
        .iter()
        .position(|c| c.kind() == ColumnKind::Name)
        .and_then(|i| cells.get(i))
        .and_then(Value::as_str)
        .map(str::to_string);
    TableRow::keyed(cells, meta, name_cell.as_deref(), problems)
}

impl TableRow {
    /// A row keyed by its uid, else by namespace and name (the name cell when metadata has
    /// none); a row without uid is flagged.
    fn keyed(
        cells: Vec<Value>,
        meta: ObjectMeta,
        name_cell: Option<&str>,
        mut problems: Vec<RowProblem>,
    ) -> TableRow {
        let key = row_key(&meta, name_cell);
        if !matches!(key, RowKey::Uid(_)) {
            problems.push(RowProblem::NoUid);
        }
        TableRow {
            key,
            cells,
            meta,
            problems,
        }
    }
}

/// Pads or cuts `cells` to `width`, flagging the row (unless already flagged as malformed).
pub(super) fn fit_width(cells: &mut Vec<Value>, width: usize, problems: &mut Vec<RowProblem>) {
    if cells.len() != width && problems.is_empty() {
        problems.push(RowProblem::CellCount {
            expected: width,
            found: cells.len(),
        });
    }
    cells.resize(width, Value::Null);
}

/// The key of a row of this metadata; `fallback_name` is the name cell when metadata has none.
fn row_key(meta: &ObjectMeta, fallback_name: Option<&str>) -> RowKey {
    if let Some(uid) = &meta.uid {
        return RowKey::Uid(uid.clone());
    }
    let name = Some(meta.name.as_str())
        .filter(|n| !n.is_empty())
        .or(fallback_name.filter(|n| !n.is_empty()));
    match name {
        Some(name) => RowKey::Named {
            namespace: meta.namespace.clone().unwrap_or_default(),
            name: name.to_string(),
        },
        None => RowKey::Anonymous(0),
    }
}

/// The key the row of `object` (a full object, as in a plain watch event) has in a table.
pub fn row_key_of_object(object: &Value) -> RowKey {
    row_key(&ObjectMeta::of_object(object), None)
}

/// Name, Namespace (if asked) and Age, as kubectl prints a list without server printing.
fn fallback_page(
    list_kind: &str,
    items: &[Value],
    list: &Value,
    options: DecodeOptions,
) -> TablePage {
    let mut columns = vec![ColumnDefinition::synthetic(
        "Name",
        "string",
        "name",
        "The object's name.",
    )];
    if options.show_namespace {
        columns.push(namespace_column());
    }
    columns.push(ColumnDefinition::synthetic(
        "Age",
        "date",
        "",
        "Time since the object was created (metadata.creationTimestamp).",
    ));
    let rows = items
        .iter()
        .map(|item| fallback_row(item, options))
        .collect();
    TablePage {
        columns,
        rows,
        list_meta: ListMeta::from_value(list.get("metadata")),
        source: TableSource::ClientFallback {
            list_kind: list_kind.to_string(),
        },
    }
}

/// The row of one full object in a fallback table (Name, Namespace if asked, Age): for the
/// events of a plain watch, when the server does not print Tables.
pub fn fallback_row(item: &Value, options: DecodeOptions) -> TableRow {
    let meta = ObjectMeta::of_object(item);
    let mut cells = vec![Value::String(meta.name.clone())];
    if options.show_namespace {
        cells.push(Value::String(meta.namespace.clone().unwrap_or_default()));
    }
    cells.push(
        meta.creation_timestamp
            .clone()
            .map_or(Value::Null, Value::String),
    );
    let mut problems = Vec::new();
    if !item.is_object() {
        problems.push(RowProblem::Malformed("the item is not an object".into()));
    }
    TableRow::keyed(cells, meta, None, problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list::table::fixtures::*;
    use crate::list::table::*;

    use serde_json::json;

    #[test]
    fn decodes_a_server_table() {
        let page = decode(&pod_table());
        assert_eq!(page.source, TableSource::Server);
        assert_eq!(page.columns.len(), 7);
        assert_eq!(page.columns[0].kind(), ColumnKind::Name);
        assert_eq!(page.columns[3].kind(), ColumnKind::Integer);
        assert_eq!(page.columns[4].kind(), ColumnKind::Age);
        assert_eq!(page.rows.len(), 3);
        assert_eq!(page.rows[0].key, RowKey::Uid("u10".into()));
        assert_eq!(page.rows[0].meta.namespace.as_deref(), Some("default"));
        assert_eq!(page.problem_rows().count(), 0);
        assert_eq!(
            page.list_meta,
            ListMeta {
                resource_version: Some("10245".into()),
                continue_token: Some("tok".into()),
                remaining_item_count: Some(753),
            }
        );
    }

    #[test]
    fn rows_of_the_wrong_width_are_padded_or_cut_and_flagged() {
        let table = json!({
            "kind": "Table",
            "columnDefinitions": [{"name": "Name", "type": "string", "format": "name"},
                                  {"name": "Value", "type": "string"}],
            "rows": [
                {"cells": ["short"], "object": {"metadata": {"name": "short", "uid": "a"}}},
                {"cells": ["long", "v", "extra", 4], "object": {"metadata": {"name": "long", "uid": "b"}}},
                {"cells": "nope", "object": {"metadata": {"uid": "c"}}},
                "not a row",
                {"cells": ["no-object", "v"]}
            ]
        });
        let page = decode(&table);
        assert!(page.rows.iter().all(|r| r.cells.len() == 2));
        assert_eq!(
            page.rows[0].problems,
            [RowProblem::CellCount {
                expected: 2,
                found: 1
            }]
        );
        assert_eq!(page.rows[0].cells[1], Value::Null);
        assert_eq!(
            page.rows[1].problems,
            [RowProblem::CellCount {
                expected: 2,
                found: 4
            }]
        );
        assert!(matches!(page.rows[2].problems[0], RowProblem::Malformed(_)));
        assert!(matches!(page.rows[3].problems[0], RowProblem::Malformed(_)));
        assert_eq!(page.rows[3].key, RowKey::Anonymous(0));
        // No object: the name cell gives the name; the uid is missing.
        assert_eq!(page.rows[4].problems, [RowProblem::NoUid]);
        assert_eq!(
            page.rows[4].key,
            RowKey::Named {
                namespace: String::new(),
                name: "no-object".into()
            }
        );
        assert_eq!(page.rows[4].name(&page.columns), "no-object");
        assert!(page.rows[0].problems[0]
            .to_string()
            .contains("1 cells for 2"));
        assert!(page.rows[1].problems[0].to_string().contains("hidden"));
    }

    #[test]
    fn hostile_bodies_give_errors_not_panics() {
        let options = DecodeOptions::default();
        assert!(matches!(
            decode_table("<html>", options),
            Err(TableDecodeError::NotJson(_))
        ));
        assert_eq!(
            decode_table(r#"{"kind":"Status","code":500}"#, options),
            Err(TableDecodeError::NotATable {
                kind: "Status".into()
            })
        );
        assert!(decode_table("[1,2]", options).is_err());
        assert!(matches!(
            decode_table(r#"{"kind":"Table","columnDefinitions":"x"}"#, options),
            Err(TableDecodeError::BadShape(_))
        ));
        assert!(matches!(
            decode_table(
                r#"{"kind":"Table","columnDefinitions":[{"name":1}]}"#,
                options
            ),
            Err(TableDecodeError::BadShape(_))
        ));
        assert!(decode_table(r#"{"kind":"Table","rows":{}}"#, options).is_err());
        // An empty Table, and odd metadata, are fine.
        let empty = decode_table(
            r#"{"kind":"Table","columnDefinitions":null,"rows":null,"metadata":{"remainingItemCount":"many","continue":""}}"#,
            options,
        )
        .expect("empty table");
        assert!(empty.rows.is_empty());
        assert_eq!(empty.list_meta, ListMeta::default());
        assert!(TableDecodeError::NotJson("x".into())
            .to_string()
            .contains("not JSON"));
    }

    #[test]
    fn plain_lists_become_a_fallback_table() {
        let list = json!({
            "kind": "WidgetList", "apiVersion": "example.com/v1",
            "metadata": {"resourceVersion": "7", "continue": "next"},
            "items": [
                {"metadata": {"name": "b", "namespace": "ns1", "uid": "ub", "creationTimestamp": CREATED}},
                {"metadata": {"name": "a", "namespace": "ns2", "uid": "ua"}},
                7
            ]
        });
        let page = decode_table(
            &list.to_string(),
            DecodeOptions {
                show_namespace: true,
            },
        )
        .expect("fallback");
        assert_eq!(
            page.source,
            TableSource::ClientFallback {
                list_kind: "WidgetList".into()
            }
        );
        let names: Vec<&str> = page.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["Name", "Namespace", "Age"]);
        assert_eq!(
            page.rows[0].cells,
            [json!("b"), json!("ns1"), json!(CREATED)]
        );
        assert_eq!(page.rows[1].cells[2], Value::Null);
        assert_eq!(page.list_meta.continue_token.as_deref(), Some("next"));
        assert!(matches!(page.rows[2].problems[0], RowProblem::Malformed(_)));
        let table = Table::from_page(page);
        let now = CREATED_MS + 49 * 3_600_000;
        let first = table.row(&RowKey::Uid("ub".into())).expect("row");
        assert_eq!(table.format_cell(first, 2, now).text, "2d1h");
        // Cluster-scoped: no Namespace column.
        let nodes = json!({"kind": "NodeList", "items": []});
        let page = decode(&nodes);
        assert_eq!(page.columns.len(), 2);
        let null_items = decode(&json!({"kind": "NodeList", "items": null}));
        assert!(null_items.rows.is_empty());
    }

    #[test]
    fn server_tables_get_a_namespace_column_when_asked() {
        let page = decode_table(
            &pod_table().to_string(),
            DecodeOptions {
                show_namespace: true,
            },
        )
        .expect("decodes");
        assert_eq!(page.columns[1].name, "Namespace");
        assert_eq!(page.columns.len(), 8);
        assert_eq!(page.rows[0].cells[1], json!("default"));
        assert_eq!(page.rows[0].cells[2], json!("1/1"));
    }

    #[test]
    fn fallback_rows_come_from_plain_watch_objects() {
        let options = DecodeOptions {
            show_namespace: true,
        };
        let mut table = Table::from_page(
            decode_table(r#"{"kind":"WidgetList","items":[]}"#, options).expect("list"),
        );
        let widget = json!({"kind": "Widget", "metadata": {"name": "w", "namespace": "ns",
            "uid": "uw", "creationTimestamp": CREATED}});
        let key = table.upsert_row(fallback_row(&widget, options));
        assert_eq!(key, row_key_of_object(&widget));
        let row = table.row(&key).expect("row");
        assert_eq!(row.cells, [json!("w"), json!("ns"), json!(CREATED)]);
        assert_eq!(table.format_cell(row, 2, CREATED_MS + 5_000).text, "5s");
    }
}
