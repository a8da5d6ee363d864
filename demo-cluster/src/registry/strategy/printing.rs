//! What Table printers share: the column type and kubectl's cell formatting (ages, counts,
//! `<none>`, selectors, container lists).

use serde_json::{json, Value};

use crate::storage::selectors::LabelSelector;

/// A kind's Table printer: its columns (after Name) and the cells of one object, declared
/// together in the kind's module so they cannot drift apart.
#[derive(Clone, Copy)]
pub struct Printer {
    pub columns: &'static [Col],
    pub cells: fn(&Value) -> Vec<Value>,
}

impl Printer {
    pub const fn new(columns: &'static [Col], cells: fn(&Value) -> Vec<Value>) -> Printer {
        Printer { columns, cells }
    }
}

/// One column as kubectl's printers declare it.
pub struct Col {
    pub name: &'static str,
    pub kind: &'static str,
    pub format: &'static str,
    pub priority: i64,
}

/// A column kubectl's printers declare as `string`, the type of most.
pub const fn column(name: &'static str, priority: i64) -> Col {
    Col {
        name,
        kind: "string",
        format: "",
        priority,
    }
}

/// A column kubectl's printers declare as `integer` (counts), so clients align and sort
/// its cells as numbers.
pub const fn count(name: &'static str, priority: i64) -> Col {
    Col {
        kind: "integer",
        ..column(name, priority)
    }
}

/// A column declared `boolean` (kube-apiserver's printers: a CronJob's SUSPEND, a
/// PriorityClass's GLOBAL-DEFAULT).
pub const fn boolean(name: &'static str, priority: i64) -> Col {
    Col {
        kind: "boolean",
        ..column(name, priority)
    }
}

/// A column declared `date` (CREATED AT of the kinds without a printer of their own).
pub const fn date(name: &'static str, priority: i64) -> Col {
    Col {
        kind: "date",
        ..column(name, priority)
    }
}

/// A `string` column of format `name` (an event's NAME, a VolumeAttachment's ATTACHER).
pub const fn name_format(name: &'static str, priority: i64) -> Col {
    Col {
        format: "name",
        ..column(name, priority)
    }
}

/// kubectl's HumanDuration.
pub fn human_duration(secs: i64) -> String {
    let s = secs.max(0);
    let m = s / 60;
    let h = s / 3600;
    let d = h / 24;
    let y = d / 365;
    if s < 120 {
        format!("{s}s")
    } else if m < 10 {
        if s % 60 == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{}s", s % 60)
        }
    } else if m < 180 {
        format!("{m}m")
    } else if h < 8 {
        if m % 60 == 0 {
            format!("{h}h")
        } else {
            format!("{h}h{}m", m % 60)
        }
    } else if h < 48 {
        format!("{h}h")
    } else if h < 24 * 8 {
        if h % 24 == 0 {
            format!("{d}d")
        } else {
            format!("{d}d{}h", h % 24)
        }
    } else if d < 365 * 2 {
        format!("{d}d")
    } else if y < 8 {
        if d % 365 == 0 {
            format!("{y}y")
        } else {
            format!("{y}y{}d", d % 365)
        }
    } else {
        format!("{y}y")
    }
}

pub fn age_of(ts: &Value) -> Value {
    match ts
        .as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
    {
        Some(t) => json!(human_duration(
            (chrono::Utc::now() - t.with_timezone(&chrono::Utc)).num_seconds()
        )),
        None => json!("<unknown>"),
    }
}

/// kubectl's Job DURATION: start to completion, or start to now while running.
pub fn job_duration(status: &Value) -> String {
    let time = |v: &Value| {
        v.as_str()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&chrono::Utc))
    };
    match time(&status["startTime"]) {
        Some(start) => {
            let end = time(&status["completionTime"]).unwrap_or_else(chrono::Utc::now);
            human_duration((end - start).num_seconds().max(0))
        }
        None => String::new(),
    }
}

/// A JSON value as a cell's text: a string as it is, null as nothing, anything else as
/// JSON.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(x) => x.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// An object reference as kubectl prints it, `first/second` of its fields (`namespace/name`,
/// `kind/name`); None when there is no reference.
pub fn reference(r: &Value, first: &str, second: &str) -> Option<String> {
    r.is_object()
        .then(|| format!("{}/{}", value_text(&r[first]), value_text(&r[second])))
}

pub fn or_none(x: String) -> Value {
    json!(if x.is_empty() {
        "<none>".to_string()
    } else {
        x
    })
}

pub fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or(0)
}

/// The Containers and Images cells of a pod template's spec.
pub fn template_cells(spec: &Value) -> [Value; 2] {
    let containers = spec["containers"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let joined = |field: &str| {
        containers
            .iter()
            .map(|c| value_text(&c[field]))
            .collect::<Vec<_>>()
            .join(",")
    };
    [json!(joined("name")), json!(joined("image"))]
}

/// `ready/desired`, as kubectl prints replica counts.
pub fn fraction(done: i64, wanted: i64) -> Value {
    json!(format!("{done}/{wanted}"))
}

pub fn selector_string(sel: &Value) -> String {
    LabelSelector::from_structured(sel)
        .map(|s| s.to_string_form())
        .unwrap_or_default()
}

/// The column every built-in printer starts with.
pub const NAME: Col = Col {
    name: "Name",
    kind: "string",
    format: "name",
    priority: 0,
};

/// The object's age, as kubectl prints it.
pub fn age(o: &Value) -> Value {
    age_of(&o["metadata"]["creationTimestamp"])
}

/// The name cell, then the kind's cells.
pub fn named(o: &Value, rest: impl IntoIterator<Item = Value>) -> Vec<Value> {
    let mut cells = vec![o["metadata"]["name"].clone()];
    cells.extend(rest);
    cells
}

/// `k=v,...` of a string map (selectors, node selectors); empty when absent.
pub fn key_values(map: &Value) -> String {
    map.as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", value_text(v)))
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
}

/// Name and creation time, as kubectl prints kinds whose printer shows nothing else
/// (Roles, CustomResourceDefinitions).
pub const CREATED_AT: Printer = Printer {
    columns: &[NAME, date("Created At", 0)],
    cells: |o| named(o, [o["metadata"]["creationTimestamp"].clone()]),
};
