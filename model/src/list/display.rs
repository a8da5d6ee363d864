//! What a live list draws: which columns it shows, its header cells and each row's cells,
//! from the server's Table and the marks of recent changes. Views only lay these out.

use crate::diagnosis::rows::has_health;
use crate::diagnosis::Health;
use crate::list::table::{Align, ColumnKind, RowPosition, SortDirection, SortSpec, Table};
use crate::metrics::columns::UsageColumns;
use crate::metrics::{Resource, UsageCell};
use crate::navigation::route::{ObjectRoute, Page};
use crate::time::age::EpochMillis;
use crate::time::clock::Monotonic;
use crate::watch::LiveTable;
use crate::ResourceId;

/// One visible column: an index into the table's columns, or the synthetic name column
/// shown when the server's name column is wide-only (Events).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShownColumn {
    Server(usize),
    Name,
    /// The row's health (from its STATUS and READY cells), last.
    Health,
    /// Usage from the metrics API (pods and nodes lists), before the health.
    Usage(Resource),
    /// The object's labels, as `kubectl get --show-labels` prints them, before the health.
    Labels,
}

/// The columns a list shows: the server's visible ones (priority 0, or all when `wide`), led
/// by a name column of its own when the server's is not among them, and the rows' health
/// last when the table has a STATUS or READY column.
pub fn shown_columns(table: &Table, wide: bool) -> Vec<ShownColumn> {
    let visible = table.visible_columns(wide);
    let has_name = visible
        .iter()
        .any(|&i| table.columns()[i].kind() == ColumnKind::Name);
    let mut shown: Vec<ShownColumn> = Vec::with_capacity(visible.len() + 2);
    if !has_name && !table.columns().is_empty() {
        shown.push(ShownColumn::Name);
    }
    shown.extend(visible.into_iter().map(ShownColumn::Server));
    // Last, so the server's columns keep kubectl's order and positions.
    if has_health(table.columns()) {
        shown.push(ShownColumn::Health);
    }
    shown
}

/// `shown` with the CPU and MEMORY columns (`kubectl top`'s) added before the health.
pub fn with_usage_columns(mut shown: Vec<ShownColumn>) -> Vec<ShownColumn> {
    let at = shown
        .iter()
        .position(|c| *c == ShownColumn::Health)
        .unwrap_or(shown.len());
    shown.splice(
        at..at,
        [
            ShownColumn::Usage(Resource::Cpu),
            ShownColumn::Usage(Resource::Memory),
        ],
    );
    shown
}

/// `shown` with the LABELS column (`kubectl get --show-labels`) before the health.
pub fn with_labels_column(mut shown: Vec<ShownColumn>) -> Vec<ShownColumn> {
    let at = shown
        .iter()
        .position(|c| *c == ShownColumn::Health)
        .unwrap_or(shown.len());
    shown.insert(at, ShownColumn::Labels);
    shown
}

/// A row's labels as kubectl prints them: `app=web,tier=front`, or `<none>`.
pub fn labels_text(labels: &std::collections::BTreeMap<String, String>) -> String {
    if labels.is_empty() {
        return "<none>".to_string();
    }
    labels
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// A column's header.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderCell {
    /// Stable id, given back when the user sorts by it: the column's name.
    pub id: String,
    pub label: String,
    pub description: String,
    pub numeric: bool,
    /// Current sort on this column: Some(true) ascending, Some(false) descending.
    pub sorted: Option<bool>,
}

/// The header cells of `shown`, with the current sort marked.
pub fn header_cells(
    table: &Table,
    shown: &[ShownColumn],
    sort: Option<&SortSpec>,
) -> Vec<HeaderCell> {
    shown
        .iter()
        .map(|column| {
            let (name, description, numeric) = match *column {
                ShownColumn::Name => ("Name".to_string(), "The object's name.".to_string(), false),
                ShownColumn::Health => (
                    "Health".to_string(),
                    "How the object is doing, from its STATUS and READY: OK, Progressing, Warning, Failing.".to_string(),
                    false,
                ),
                ShownColumn::Usage(resource) => (
                    resource.label().to_string(),
                    format!("{} in use (the metrics API, as kubectl top), of the limit, the request or the node's allocatable.", resource.label()),
                    true,
                ),
                ShownColumn::Labels => (
                    "Labels".to_string(),
                    "The object's labels (kubectl get --show-labels).".to_string(),
                    false,
                ),
                ShownColumn::Server(i) => {
                    let c = &table.columns()[i];
                    (
                        c.name.clone(),
                        c.description.clone(),
                        c.align() == Align::Right,
                    )
                }
            };
            let sorted = sort
                .filter(|s| s.column.eq_ignore_ascii_case(&name))
                .map(|s| s.direction == SortDirection::Ascending);
            HeaderCell {
                id: name.clone(),
                label: name.to_uppercase(),
                description,
                numeric,
                sorted,
            }
        })
        .collect()
}

/// One row ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayRow {
    /// The object's identity (its uid): the selection follows it when rows move.
    pub id: String,
    /// Unique and stable for the object (its uid) plus what changes when it must be redrawn
    /// (its revision); texts that change on their own (ages) update in place.
    pub key: String,
    /// Where Enter goes (a `#/...` route); the cell with `link` set draws it as a link.
    pub href: String,
    /// Cells in column order.
    pub cells: Vec<DisplayCell>,
    /// A problem with this row (e.g. cells that did not match the columns).
    pub problem: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DisplayCell {
    pub text: String,
    pub numeric: bool,
    /// Drawn as a link to the row's object (the name cell).
    pub link: bool,
    /// Changed a moment ago (or the row is new): briefly marked.
    pub changed: bool,
    /// The health cell's health (drawn as an icon with its word).
    pub health: Option<Health>,
    /// A warning drawn beside the text as an icon with this word (a usage near its limit).
    pub flag: Option<&'static str>,
}

/// The clocks a row is drawn at: ages count from the wall clock; change marks fade by the
/// page's monotonic clock, which they were stamped with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DrawnAt {
    pub wall: EpochMillis,
    pub monotonic: Monotonic,
}

/// The row at `position` of `live`'s table, as `shown`, linking to its object of `resource`,
/// with its usage from `usage` where usage columns are shown.
pub fn display_row(
    live: &LiveTable,
    position: RowPosition,
    shown: &[ShownColumn],
    resource: &ResourceId,
    at: DrawnAt,
    usage: Option<&UsageColumns>,
) -> Option<DisplayRow> {
    let table = live.table();
    let row = table.at(position)?;
    let key = &row.key;
    let mark = live.mark(key, at.monotonic);
    let name = row.name(table.columns()).to_string();
    let href = Page::Object(ObjectRoute::new(
        resource.clone(),
        row.meta.namespace.clone(),
        name.clone(),
    ))
    .to_hash();
    let cells: Vec<DisplayCell> = shown
        .iter()
        .map(|column| match *column {
            ShownColumn::Name => DisplayCell {
                text: name.clone(),
                numeric: false,
                link: true,
                changed: mark.is_some_and(|m| m.added),
                health: None,
                flag: None,
            },
            ShownColumn::Health => {
                let health = live.health(key).unwrap_or(Health::Unknown);
                DisplayCell {
                    text: health.label().to_string(),
                    numeric: false,
                    link: false,
                    changed: false,
                    health: Some(health),
                    flag: None,
                }
            }
            ShownColumn::Usage(resource) => {
                let cell = usage
                    .and_then(|u| u.row(row.meta.namespace.as_deref(), &name))
                    .map(|u| u.cell(resource));
                DisplayCell {
                    // No sample (yet): kubectl top leaves such pods out.
                    text: cell.map_or_else(|| "—".to_string(), |c| c.text.clone()),
                    numeric: true,
                    link: false,
                    changed: false,
                    health: None,
                    flag: cell.filter(|c| c.marked).map(|_| UsageCell::MARK_WORD),
                }
            }
            ShownColumn::Labels => DisplayCell {
                text: labels_text(&row.meta.labels),
                numeric: false,
                link: false,
                changed: false,
                health: None,
                flag: None,
            },
            ShownColumn::Server(i) => {
                let cell = table.format_cell(row, i, at.wall);
                let is_name = table.columns()[i].kind() == ColumnKind::Name;
                // A row whose cells could not be read still shows whose row it is.
                let text = if is_name && cell.text.is_empty() {
                    name.clone()
                } else {
                    cell.text
                };
                DisplayCell {
                    text,
                    numeric: cell.align == Align::Right,
                    link: is_name,
                    changed: mark.is_some_and(|m| m.cells.contains(&i)),
                    health: None,
                    flag: None,
                }
            }
        })
        .collect();
    let problem = (!row.problems.is_empty()).then(|| {
        row.problems
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    });
    Some(DisplayRow {
        id: format!("{key:?}"),
        // Redrawn when the object or the columns changed; an age that ticks updates its text
        // in place.
        // and when its health changed (a verdict about what it controls).
        // and when its usage changed.
        key: format!(
            "{key:?}|{}|{}|{:?}|{}",
            row.meta.resource_version.as_deref().unwrap_or_default(),
            cells.len(),
            live.health(key),
            usage_key(shown, &cells),
        ),
        href,
        cells,
        problem,
    })
}

/// The texts of a row's usage cells (what redraws it when its usage changes).
fn usage_key(shown: &[ShownColumn], cells: &[DisplayCell]) -> String {
    shown
        .iter()
        .zip(cells)
        .filter(|(column, _)| matches!(column, ShownColumn::Usage(_)))
        .map(|(_, cell)| cell.text.as_str())
        .collect::<Vec<_>>()
        .join("|")
}

/// Whether the order of the rows follows from which rows there are alone: arrival order or
/// by name or namespace (which never change for a row), no filter (cells decide matches).
pub fn order_depends_only_on_rows(sort: Option<&SortSpec>, filter: &str) -> bool {
    filter.trim().is_empty()
        && sort.is_none_or(|s| {
            s.column.eq_ignore_ascii_case("name") || s.column.eq_ignore_ascii_case("namespace")
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::list::table::DecodeOptions;
    use crate::watch::{StoreChange, WatchStore};

    fn pods() -> ResourceId {
        ResourceId::new("", "v1", "pods")
    }

    /// A Table as kube-apiserver sends it for pods: NAME, READY, STATUS, RESTARTS, AGE, and
    /// the wide-only IP and NODE.
    fn pod_table(rows: serde_json::Value) -> serde_json::Value {
        json!({
            "kind": "Table", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "10"},
            "columnDefinitions": [
                {"name": "Name", "type": "string", "format": "name", "description": "Name of the pod.", "priority": 0},
                {"name": "Ready", "type": "string", "format": "", "description": "Ready containers.", "priority": 0},
                {"name": "Restarts", "type": "string", "format": "", "description": "Restarts.", "priority": 0},
                {"name": "Age", "type": "string", "format": "", "description": "Age.", "priority": 0},
                {"name": "IP", "type": "string", "format": "", "description": "Pod IP.", "priority": 1}
            ],
            "rows": rows,
        })
    }

    fn pod_row(name: &str, uid: &str, rv: &str, ready: &str) -> serde_json::Value {
        json!({
            "cells": [name, ready, "0", "5m", "10.0.0.1"],
            "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                "metadata": {"name": name, "namespace": "default", "uid": uid, "resourceVersion": rv,
                    "creationTimestamp": "2026-11-25T10:00:00Z"}},
        })
    }

    fn live_with(rows: serde_json::Value) -> LiveTable {
        let mut live = LiveTable::new(DecodeOptions::default());
        live.apply(StoreChange::Replace(vec![pod_table(rows)]), 0.0);
        live
    }

    const AT: DrawnAt = DrawnAt {
        wall: 1_795_000_000_000,
        monotonic: Monotonic(100_000.0),
    };

    #[test]
    fn wide_shows_every_column_and_narrow_the_priority_zero_ones() {
        let live = live_with(json!([pod_row("web-1", "u1", "5", "1/1")]));
        let narrow = shown_columns(live.table(), false);
        let wide = shown_columns(live.table(), true);
        assert_eq!(narrow.len(), 5);
        assert_eq!(wide.len(), 6);
        assert!(
            !narrow.contains(&ShownColumn::Name),
            "the server's name column leads"
        );
        let headers = header_cells(live.table(), &narrow, Some(&SortSpec::descending("ready")));
        let labels: Vec<&str> = headers.iter().map(|h| h.label.as_str()).collect();
        assert_eq!(labels, ["NAME", "READY", "RESTARTS", "AGE", "HEALTH"]);
        assert_eq!(
            headers[1].sorted,
            Some(false),
            "sorted by READY, descending"
        );
        assert_eq!(headers[0].sorted, None);
    }

    #[test]
    fn show_labels_adds_kubectls_labels_column_before_the_health() {
        let mut labelled = pod_row("web-1", "u1", "5", "1/1");
        labelled["object"]["metadata"]["labels"] = json!({"tier": "front", "app": "web"});
        let live = live_with(json!([labelled, pod_row("bare", "u2", "6", "1/1")]));
        let shown = with_labels_column(shown_columns(live.table(), false));
        let headers = header_cells(live.table(), &shown, None);
        let labels: Vec<&str> = headers.iter().map(|h| h.label.as_str()).collect();
        assert_eq!(
            labels,
            ["NAME", "READY", "RESTARTS", "AGE", "LABELS", "HEALTH"]
        );
        let texts: Vec<String> = (0..2)
            .map(|at| {
                let row = display_row(&live, at, &shown, &pods(), AT, None).expect("a row");
                row.cells[4].text.clone()
            })
            .collect();
        assert_eq!(texts, ["app=web,tier=front", "<none>"]);
    }

    #[test]
    fn a_table_without_a_shown_name_column_gets_one_of_its_own() {
        let mut table = pod_table(json!([pod_row("web-1", "u1", "5", "1/1")]));
        table["columnDefinitions"][0]["priority"] = json!(1);
        let mut live = LiveTable::new(DecodeOptions::default());
        live.apply(StoreChange::Replace(vec![table]), 0.0);
        let shown = shown_columns(live.table(), false);
        assert_eq!(shown[0], ShownColumn::Name);
        assert_eq!(shown.last(), Some(&ShownColumn::Health));
        let row = display_row(&live, 0, &shown, &pods(), AT, None).expect("a row at 0");
        assert_eq!(row.cells[0].text, "web-1");
        assert!(row.cells[0].link);
    }

    #[test]
    fn rows_link_to_their_object_and_mark_the_cells_that_changed() {
        let mut live = live_with(json!([pod_row("web-1", "u1", "5", "0/1")]));
        let shown = shown_columns(live.table(), false);
        let before = display_row(&live, 0, &shown, &pods(), AT, None).expect("a row at 0");
        assert_eq!(before.href, "#/obj/core/v1/pods/default/web-1");
        assert_eq!(before.cells[1].text, "0/1");
        assert!(before.cells[0].link && !before.cells[1].link);
        assert_eq!(before.cells[4].health, Some(Health::Progressing));

        // The pod became ready a moment ago: its READY cell is marked, the others are not,
        // and the row's key changes so it is drawn again.
        let changed = pod_table(json!([pod_row("web-1", "u1", "6", "1/1")]));
        live.apply(StoreChange::Apply(changed), AT.monotonic.ms() - 100.0);
        let after = display_row(&live, 0, &shown, &pods(), AT, None).expect("a row at 0");
        assert_eq!(after.cells[1].text, "1/1");
        assert!(after.cells[1].changed);
        assert!(!after.cells[0].changed && !after.cells[2].changed);
        assert_eq!(
            after.cells[4].health,
            Some(Health::Ok),
            "the health follows the row"
        );
        assert_eq!(live.health_counts().get(&Health::Ok), Some(&1));
        assert_eq!(live.health_counts().get(&Health::Progressing), None);
        assert_eq!(after.id, before.id, "the same object");
        assert_ne!(after.key, before.key, "drawn again");

        // Long after, the mark has faded.
        let later = DrawnAt {
            monotonic: Monotonic(AT.monotonic.ms() + 60_000.0),
            ..AT
        };
        let faded = display_row(&live, 0, &shown, &pods(), later, None).expect("a row at 0");
        assert!(faded.cells.iter().all(|c| !c.changed));
        assert!(display_row(&live, 1, &shown, &pods(), AT, None).is_none());
    }

    #[test]
    fn rows_that_do_not_match_their_columns_say_so() {
        let live = live_with(json!([{
            "cells": ["web-1"],
            "object": {"metadata": {"name": "web-1", "namespace": "default", "uid": "u1"}},
        }]));
        let shown = shown_columns(live.table(), false);
        let row = display_row(&live, 0, &shown, &pods(), AT, None).expect("a row at 0");
        assert_eq!(row.cells[0].text, "web-1");
        assert!(row.problem.is_some(), "{row:?}");
    }

    #[test]
    fn health_counts_follow_rows_as_they_come_change_and_go() {
        let mut live = live_with(json!([
            pod_row("web-1", "u1", "5", "1/1"),
            pod_row("web-2", "u2", "5", "0/1"),
            pod_row("web-3", "u3", "5", "0/1"),
        ]));
        let counts = |live: &LiveTable| {
            live.health_counts()
                .iter()
                .map(|(h, n)| (*h, *n))
                .collect::<Vec<_>>()
        };
        assert_eq!(counts(&live), [(Health::Ok, 1), (Health::Progressing, 2)]);
        live.apply(
            StoreChange::Apply(pod_table(json!([pod_row("web-2", "u2", "6", "1/1")]))),
            1.0,
        );
        assert_eq!(counts(&live), [(Health::Ok, 2), (Health::Progressing, 1)]);
        live.apply(
            StoreChange::Delete(pod_table(json!([pod_row("web-3", "u3", "7", "0/1")]))),
            2.0,
        );
        assert_eq!(counts(&live), [(Health::Ok, 2)]);
        live.apply(
            StoreChange::Append(vec![pod_table(json!([pod_row("web-4", "u4", "8", "0/1")]))]),
            3.0,
        );
        assert_eq!(counts(&live), [(Health::Ok, 2), (Health::Progressing, 1)]);
        assert_eq!(
            live.health(&live.table().at(0).expect("row").key),
            Some(Health::Ok)
        );
    }

    #[test]
    fn only_name_namespace_or_arrival_order_without_a_filter_follow_from_the_rows() {
        assert!(order_depends_only_on_rows(None, " "));
        assert!(order_depends_only_on_rows(
            Some(&SortSpec::ascending("NAME")),
            ""
        ));
        assert!(!order_depends_only_on_rows(
            Some(&SortSpec::ascending("age")),
            ""
        ));
        assert!(!order_depends_only_on_rows(None, "web"));
    }

    #[test]
    fn usage_columns_show_top_beside_the_limit_mark_a_near_limit_and_sort() {
        use crate::metrics::columns::{sort_by_usage, UsageColumns};
        use crate::metrics::decode::ContainerUsage;
        use crate::metrics::{PodMetrics, Usage};
        let live = live_with(json!([
            pod_row("web-1", "u1", "5", "1/1"),
            pod_row("web-2", "u2", "6", "1/1"),
            pod_row("web-3", "u3", "7", "1/1"),
        ]));
        const MI: i64 = 1024 * 1024;
        let metrics = |name: &str, millis: i64, mib: i64| PodMetrics {
            namespace: "default".into(),
            name: name.into(),
            timestamp_ms: None,
            window_ms: None,
            containers: vec![ContainerUsage {
                name: "app".into(),
                usage: Usage::new(millis * 1_000_000, mib * MI),
            }],
        };
        let objects = [json!({
            "metadata": {"namespace": "default", "name": "web-1"},
            "spec": {"containers": [{"name": "app",
                "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}}}]}
        })];
        let usage = UsageColumns::of_pods(
            &[metrics("web-1", 120, 120), metrics("web-2", 5, 300)],
            &objects,
        );
        let shown = with_usage_columns(shown_columns(live.table(), false));
        let labels: Vec<String> = header_cells(live.table(), &shown, None)
            .into_iter()
            .map(|h| h.label)
            .collect();
        assert_eq!(
            labels,
            ["NAME", "READY", "RESTARTS", "AGE", "CPU", "MEMORY", "HEALTH"]
        );
        let cells = |position| {
            display_row(&live, position, &shown, &pods(), AT, Some(&usage))
                .expect("a row")
                .cells
        };
        let first = cells(0);
        assert_eq!(first[4].text, "120m / 500m limit");
        assert_eq!(first[5].text, "120Mi / 128Mi limit");
        assert_eq!(
            first[5].flag,
            Some("Near limit"),
            "over 90 % of the memory limit"
        );
        assert_eq!(cells(1)[5].text, "300Mi", "no limit known: usage alone");
        assert_eq!(cells(1)[5].flag, None);
        assert_eq!(cells(2)[4].text, "—", "no sample");
        let mut positions = live.table().view_positions(None, "", AT.wall);
        sort_by_usage(
            &mut positions,
            live.table(),
            &usage,
            crate::metrics::Resource::Memory,
            SortDirection::Descending,
        );
        let names: Vec<&str> = positions
            .iter()
            .filter_map(|p| live.table().at(*p))
            .map(|row| row.meta.name.as_str())
            .collect();
        assert_eq!(names, ["web-2", "web-1", "web-3"], "no sample last");
    }
}
