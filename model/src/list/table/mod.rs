//! Lists as kubectl shows them: the server's `meta.k8s.io/v1` Table (columns chosen by the
//! server, so no per-kind code), decoded defensively, kept as rows keyed by uid so watch
//! events can update single rows, then formatted, sorted and filtered for a view.
//!
//! Flow: [`decode_table`] turns one response (a Table, or a plain list when the server does
//! not print Tables) into a [`TablePage`]; [`Table::append_page`] adds the pages of a list;
//! [`Table::view`] gives the rows to show (filtered, sorted); [`Table::format_cell`] the text
//! of a cell. Watch events: decode the event's Table with [`decode_table_value`] (same
//! options), then [`Table::upsert_rows`] for ADDED/MODIFIED, [`Table::remove_row`] of each
//! row's key for DELETED; for a plain (fallback) watch use [`fallback_row`] and
//! [`row_key_of_object`].
//! Ask with [`crate::api::request::TABLE_ACCEPT`], which lets a server without Tables answer with
//! a plain list.
//!
//! By concern: the column and row types here; responses decoded (`decode.rs`);
//! the rows kept in arrival order (`row_store.rs`); the [`Table`] of a list, its pages, watch
//! updates and the filtered, sorted view (`rows.rs`); cells as text (`format.rs`); sorting
//! and natural order (`sort.rs`).

mod decode;
#[cfg(test)]
mod fixtures;
mod format;
mod row_store;
mod rows;
mod sort;

pub use decode::{
    decode_table, decode_table_value, fallback_row, row_key_of_object, DecodeOptions,
    TableDecodeError,
};
pub use format::{format_cell, parse_human_duration, FormattedCell};
pub use row_store::{RowPosition, RowStore};
pub use rows::Table;
pub use sort::{natural_cmp, SortDirection, SortSpec};

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::object::meta::{text_field, ObjectMeta};

/// `metadata` of a list or Table response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ListMeta {
    /// The snapshot the list was read at: where a watch starts.
    pub resource_version: Option<String>,
    /// Present while more pages remain.
    #[serde(rename = "continue")]
    pub continue_token: Option<String>,
    /// The server's estimate of the items after this page (absent with selectors).
    pub remaining_item_count: Option<u64>,
}

impl ListMeta {
    fn from_value(metadata: Option<&Value>) -> ListMeta {
        let Some(metadata) = metadata else {
            return ListMeta::default();
        };
        let non_empty = |key: &str| text_field(metadata, key).filter(|s| !s.is_empty());
        ListMeta {
            resource_version: non_empty("resourceVersion"),
            continue_token: non_empty("continue"),
            remaining_item_count: metadata.get("remainingItemCount").and_then(Value::as_u64),
        }
    }
}

/// One `columnDefinitions` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ColumnDefinition {
    pub name: String,
    /// OpenAPI type: `string`, `integer`, `number`, `boolean`, `date` (CRD columns).
    #[serde(rename = "type")]
    pub type_name: String,
    /// OpenAPI format: `name` marks the object name; `date`, `int32`...
    pub format: String,
    pub description: String,
    /// 0: always shown; above 0: only in the wide view (`-o wide`).
    pub priority: i64,
}

/// How a column's cells are shown and sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// The object name (`format: name`).
    Name,
    /// Cells are timestamps, shown as ages (`type` or `format` `date`, e.g. CRD columns).
    Date,
    /// The server's preformatted `Age` text; shown afresh from `creationTimestamp` when the
    /// row has it, because the server's text was true only when the page was read.
    Age,
    Integer,
    Number,
    Boolean,
    String,
}

impl ColumnDefinition {
    /// A column of the client-side fallback table.
    fn synthetic(name: &str, type_name: &str, format: &str, description: &str) -> Self {
        ColumnDefinition {
            name: name.into(),
            type_name: type_name.into(),
            format: format.into(),
            description: description.into(),
            priority: 0,
        }
    }

    pub fn kind(&self) -> ColumnKind {
        match (self.type_name.as_str(), self.format.as_str()) {
            (_, "name") => ColumnKind::Name,
            ("date", _) | (_, "date") | (_, "date-time") => ColumnKind::Date,
            ("string", _) if self.name.eq_ignore_ascii_case("age") => ColumnKind::Age,
            ("integer", _) => ColumnKind::Integer,
            ("number", _) => ColumnKind::Number,
            ("boolean", _) => ColumnKind::Boolean,
            _ => ColumnKind::String,
        }
    }

    /// Shown only in the wide view.
    pub fn is_wide_only(&self) -> bool {
        self.priority > 0
    }

    /// Numbers are right-aligned, as in kubectl's output and spreadsheets.
    pub fn align(&self) -> Align {
        match self.kind() {
            ColumnKind::Integer | ColumnKind::Number => Align::Right,
            _ => Align::Left,
        }
    }
}

/// Identity of a row in a [`Table`]: the object's uid when known, so watch events find it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RowKey {
    Uid(String),
    /// No uid (e.g. `includeObject=None`): matched by namespace (empty if none) and name.
    Named {
        namespace: String,
        name: String,
    },
    /// Neither uid nor name: never matches another row. The number is given by the table.
    Anonymous(u64),
}

/// Something odd about one row; the row is still shown, flagged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowProblem {
    /// More or fewer cells than columns: padded with empty cells or cut to fit.
    CellCount { expected: usize, found: usize },
    /// No uid in `row.object.metadata`: live updates match the row by name.
    NoUid,
    /// The row was not an object with a `cells` array; shown with empty cells.
    Malformed(String),
    /// A later page or watch event came with other columns; cells were matched by name.
    ColumnsChanged,
}

impl fmt::Display for RowProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowProblem::CellCount { expected, found } if found < expected => write!(
                f,
                "the server sent {found} cells for {expected} columns; the missing ones are empty"
            ),
            RowProblem::CellCount { expected, found } => write!(
                f,
                "the server sent {found} cells for {expected} columns; the extra ones are hidden"
            ),
            RowProblem::NoUid => f.write_str("the row has no uid; live updates match it by name"),
            RowProblem::Malformed(what) => write!(f, "the row could not be read: {what}"),
            RowProblem::ColumnsChanged => {
                f.write_str("the row came with other columns; cells were matched by name")
            }
        }
    }
}

/// One row: exactly one cell per column of its table, whatever the server sent.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRow {
    pub key: RowKey,
    /// Strings, numbers, booleans or `null`, as the server sent them.
    pub cells: Vec<Value>,
    /// From `row.object.metadata` (PartialObjectMetadata, or the item of a plain list).
    pub meta: ObjectMeta,
    pub problems: Vec<RowProblem>,
}

impl TableRow {
    /// The object name: from metadata, else from the name column.
    pub fn name<'a>(&'a self, columns: &[ColumnDefinition]) -> &'a str {
        if !self.meta.name.is_empty() {
            return &self.meta.name;
        }
        columns
            .iter()
            .position(|c| c.kind() == ColumnKind::Name)
            .and_then(|i| self.cells.get(i))
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

/// Where a page's columns came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableSource {
    /// The server printed a Table.
    Server,
    /// The server answered a plain list (`kind` is e.g. `PodList`); the columns are ours.
    ClientFallback { list_kind: String },
}

/// One decoded response.
#[derive(Debug, Clone, PartialEq)]
pub struct TablePage {
    pub columns: Vec<ColumnDefinition>,
    pub rows: Vec<TableRow>,
    pub list_meta: ListMeta,
    pub source: TableSource,
}

impl TablePage {
    /// Rows that came with a problem.
    pub fn problem_rows(&self) -> impl Iterator<Item = &TableRow> {
        self.rows.iter().filter(|r| !r.problems.is_empty())
    }
}

/// Cell alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}
