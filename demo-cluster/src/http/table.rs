//! Server-side printing (meta.k8s.io/v1 Table) with kubectl's column sets for common kinds,
//! CRD additionalPrinterColumns, and PartialObjectMetadata conversion.

use serde_json::{json, Value};

use super::negotiate::IncludeObject;
use crate::registry::kinds::ResourceDef;
use crate::storage::selectors::LabelSelector;
use crate::storage::store::{write_partial_metadata, StoredObject};

struct Col {
    name: &'static str,
    kind: &'static str,
    format: &'static str,
    priority: i64,
}

const fn c(name: &'static str, priority: i64) -> Col {
    Col {
        name,
        kind: "string",
        format: "",
        priority,
    }
}

/// A column kubectl's printers declare as `integer` (counts), so clients align and sort
/// its cells as numbers.
const fn count(name: &'static str, priority: i64) -> Col {
    Col {
        kind: "integer",
        ..c(name, priority)
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

fn age_of(ts: &Value) -> Value {
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
fn job_duration(status: &Value) -> String {
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

fn s(v: &Value) -> String {
    match v {
        Value::String(x) => x.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn or_none(x: String) -> Value {
    json!(if x.is_empty() {
        "<none>".to_string()
    } else {
        x
    })
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or(0)
}

fn containers_images(spec: &Value) -> (String, String) {
    let cs = spec["containers"].as_array().cloned().unwrap_or_default();
    let names: Vec<String> = cs.iter().map(|c| s(&c["name"])).collect();
    let images: Vec<String> = cs.iter().map(|c| s(&c["image"])).collect();
    (names.join(","), images.join(","))
}

fn selector_string(sel: &Value) -> String {
    LabelSelector::from_structured(sel)
        .map(|s| s.to_string_form())
        .unwrap_or_default()
}

fn builtin_columns(def: &ResourceDef) -> Option<Vec<Col>> {
    let cols = match (def.group.as_str(), def.resource.as_str()) {
        ("", "pods") => vec![
            c("Ready", 0),
            c("Status", 0),
            c("Restarts", 0),
            c("Age", 0),
            c("IP", 1),
            c("Node", 1),
            c("Nominated Node", 1),
            c("Readiness Gates", 1),
        ],
        ("apps", "deployments") => vec![
            c("Ready", 0),
            count("Up-to-date", 0),
            count("Available", 0),
            c("Age", 0),
            c("Containers", 1),
            c("Images", 1),
            c("Selector", 1),
        ],
        ("apps", "replicasets") => vec![
            count("Desired", 0),
            count("Current", 0),
            count("Ready", 0),
            c("Age", 0),
            c("Containers", 1),
            c("Images", 1),
            c("Selector", 1),
        ],
        ("apps", "statefulsets") => vec![
            c("Ready", 0),
            c("Age", 0),
            c("Containers", 1),
            c("Images", 1),
        ],
        ("apps", "daemonsets") => vec![
            count("Desired", 0),
            count("Current", 0),
            count("Ready", 0),
            count("Up-to-date", 0),
            count("Available", 0),
            c("Node Selector", 0),
            c("Age", 0),
            c("Containers", 1),
            c("Images", 1),
            c("Selector", 1),
        ],
        ("batch", "jobs") => vec![
            c("Status", 0),
            c("Completions", 0),
            c("Duration", 0),
            c("Age", 0),
            c("Containers", 1),
            c("Images", 1),
            c("Selector", 1),
        ],
        ("batch", "cronjobs") => vec![
            c("Schedule", 0),
            c("Timezone", 0),
            c("Suspend", 0),
            count("Active", 0),
            c("Last Schedule", 0),
            c("Age", 0),
            c("Containers", 1),
            c("Images", 1),
            c("Selector", 1),
        ],
        ("", "namespaces") => vec![c("Status", 0), c("Age", 0)],
        ("", "nodes") => vec![
            c("Status", 0),
            c("Roles", 0),
            c("Age", 0),
            c("Version", 0),
            c("Internal-IP", 1),
            c("External-IP", 1),
            c("OS-Image", 1),
            c("Kernel-Version", 1),
            c("Container-Runtime", 1),
        ],
        ("", "services") => vec![
            c("Type", 0),
            c("Cluster-IP", 0),
            c("External-IP", 0),
            c("Port(s)", 0),
            c("Age", 0),
            c("Selector", 1),
        ],
        ("", "configmaps") => vec![count("Data", 0), c("Age", 0)],
        ("", "secrets") => vec![c("Type", 0), count("Data", 0), c("Age", 0)],
        ("", "serviceaccounts") => vec![count("Secrets", 0), c("Age", 0)],
        ("", "endpoints") => vec![c("Endpoints", 0), c("Age", 0)],
        ("" | "events.k8s.io", "events") => {
            return Some(vec![
                c("Last Seen", 0),
                c("Type", 0),
                c("Reason", 0),
                c("Object", 0),
                c("Subobject", 1),
                c("Source", 1),
                c("Message", 0),
                c("First Seen", 1),
                c("Count", 1),
                c("Name", 1),
            ])
        }
        ("coordination.k8s.io", "leases") => vec![c("Holder", 0), c("Age", 0)],
        ("apiextensions.k8s.io", "customresourcedefinitions") => vec![c("Created At", 0)],
        ("rbac.authorization.k8s.io", "roles" | "clusterroles") => vec![c("Created At", 0)],
        ("rbac.authorization.k8s.io", "rolebindings" | "clusterrolebindings") => vec![
            c("Role", 0),
            c("Age", 0),
            c("Users", 1),
            c("Groups", 1),
            c("ServiceAccounts", 1),
        ],
        _ => return None,
    };
    let mut all = vec![Col {
        name: "Name",
        kind: "string",
        format: "name",
        priority: 0,
    }];
    all.extend(cols);
    Some(all)
}

fn builtin_cells(def: &ResourceDef, o: &Value) -> Vec<Value> {
    // events.k8s.io Events print like core ones, from the core field names.
    let core_shape;
    let o = if def.group == "events.k8s.io" {
        core_shape = crate::registry::convert::to_storage(def, o.clone());
        &core_shape
    } else {
        o
    };
    let name = o["metadata"]["name"].clone();
    let age = age_of(&o["metadata"]["creationTimestamp"]);
    let spec = &o["spec"];
    let st = &o["status"];
    let rest: Vec<Value> = match (def.group.as_str(), def.resource.as_str()) {
        ("", "pods") => {
            // Borrowed: this runs for every row of a (possibly huge) pod Table.
            let cs: &[Value] = st["containerStatuses"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default();
            let total = spec["containers"].as_array().map(Vec::len).unwrap_or(0);
            let ready = cs
                .iter()
                .filter(|c| c["ready"].as_bool() == Some(true))
                .count();
            let restarts: i64 = cs.iter().map(|c| int(&c["restartCount"])).sum();
            let mut status = s(&st["phase"]);
            for c in cs {
                if let Some(r) = c["state"]["waiting"]["reason"].as_str() {
                    status = r.into();
                } else if let Some(r) = c["state"]["terminated"]["reason"].as_str() {
                    status = r.into();
                }
            }
            if o["metadata"]["deletionTimestamp"].is_string() {
                status = "Terminating".into();
            }
            vec![
                json!(format!("{ready}/{total}")),
                json!(status),
                json!(restarts.to_string()),
                age,
                or_none(s(&st["podIP"])),
                or_none(s(&spec["nodeName"])),
                or_none(s(&st["nominatedNodeName"])),
                json!("<none>"),
            ]
        }
        ("apps", "deployments") => {
            let (cn, im) = containers_images(&spec["template"]["spec"]);
            vec![
                json!(format!(
                    "{}/{}",
                    int(&st["readyReplicas"]),
                    int(&spec["replicas"])
                )),
                json!(int(&st["updatedReplicas"])),
                json!(int(&st["availableReplicas"])),
                age,
                json!(cn),
                json!(im),
                json!(selector_string(&spec["selector"])),
            ]
        }
        ("apps", "replicasets") => {
            let (cn, im) = containers_images(&spec["template"]["spec"]);
            vec![
                json!(int(&spec["replicas"])),
                json!(int(&st["replicas"])),
                json!(int(&st["readyReplicas"])),
                age,
                json!(cn),
                json!(im),
                json!(selector_string(&spec["selector"])),
            ]
        }
        ("apps", "statefulsets") => {
            let (cn, im) = containers_images(&spec["template"]["spec"]);
            vec![
                json!(format!(
                    "{}/{}",
                    int(&st["readyReplicas"]),
                    int(&spec["replicas"])
                )),
                age,
                json!(cn),
                json!(im),
            ]
        }
        ("apps", "daemonsets") => {
            let (cn, im) = containers_images(&spec["template"]["spec"]);
            let ns = spec["template"]["spec"]["nodeSelector"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| format!("{k}={}", s(v)))
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .unwrap_or_default();
            vec![
                json!(int(&st["desiredNumberScheduled"])),
                json!(int(&st["currentNumberScheduled"])),
                json!(int(&st["numberReady"])),
                json!(int(&st["updatedNumberScheduled"])),
                json!(int(&st["numberAvailable"])),
                or_none(ns),
                age,
                json!(cn),
                json!(im),
                json!(selector_string(&spec["selector"])),
            ]
        }
        ("batch", "jobs") => {
            let (cn, im) = containers_images(&spec["template"]["spec"]);
            let succeeded = int(&st["succeeded"]);
            let completions = spec["completions"].as_i64().unwrap_or(1);
            let status = if succeeded >= completions {
                "Complete"
            } else if int(&st["failed"]) > 0 {
                "Failed"
            } else {
                "Running"
            };
            vec![
                json!(status),
                json!(format!("{succeeded}/{completions}")),
                json!(job_duration(st)),
                age,
                json!(cn),
                json!(im),
                json!(selector_string(&spec["selector"])),
            ]
        }
        ("batch", "cronjobs") => {
            let (cn, im) = containers_images(&spec["jobTemplate"]["spec"]["template"]["spec"]);
            let active = st["active"].as_array().map(Vec::len).unwrap_or(0);
            let last = if st["lastScheduleTime"].is_string() {
                age_of(&st["lastScheduleTime"])
            } else {
                json!("<none>")
            };
            vec![
                json!(s(&spec["schedule"])),
                or_none(s(&spec["timeZone"])),
                json!(spec["suspend"].as_bool().unwrap_or(false).to_string()),
                json!(active),
                last,
                age,
                json!(cn),
                json!(im),
                json!("<none>"),
            ]
        }
        ("", "namespaces") => {
            let phase = if o["metadata"]["deletionTimestamp"].is_string() {
                "Terminating".to_string()
            } else {
                s(&st["phase"])
            };
            vec![json!(phase), age]
        }
        ("", "nodes") => {
            let ready = st["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|c| c["type"] == "Ready");
            let mut status = match ready.map(|c| s(&c["status"])) {
                Some(x) if x == "True" => "Ready".to_string(),
                _ => "NotReady".to_string(),
            };
            if spec["unschedulable"].as_bool() == Some(true) {
                status.push_str(",SchedulingDisabled");
            }
            let roles: Vec<String> = o["metadata"]["labels"]
                .as_object()
                .map(|m| {
                    m.keys()
                        .filter_map(|k| {
                            k.strip_prefix("node-role.kubernetes.io/").map(String::from)
                        })
                        .collect()
                })
                .unwrap_or_default();
            let addr = |t: &str| {
                st["addresses"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|a| a["type"] == t)
                    .map(|a| s(&a["address"]))
                    .unwrap_or_default()
            };
            let info = &st["nodeInfo"];
            vec![
                json!(status),
                or_none(roles.join(",")),
                age,
                json!(s(&info["kubeletVersion"])),
                or_none(addr("InternalIP")),
                or_none(addr("ExternalIP")),
                json!(s(&info["osImage"])),
                json!(s(&info["kernelVersion"])),
                json!(s(&info["containerRuntimeVersion"])),
            ]
        }
        ("", "services") => {
            let ports: Vec<String> = spec["ports"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| match p["nodePort"].as_i64() {
                    Some(np) => format!("{}:{np}/{}", s(&p["port"]), s(&p["protocol"])),
                    None => format!("{}/{}", s(&p["port"]), s(&p["protocol"])),
                })
                .collect();
            let sel = spec["selector"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| format!("{k}={}", s(v)))
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .unwrap_or_default();
            vec![
                json!(s(&spec["type"])),
                json!(s(&spec["clusterIP"])),
                json!("<none>"),
                or_none(ports.join(",")),
                age,
                or_none(sel),
            ]
        }
        ("", "configmaps") => {
            let n = o["data"].as_object().map(|m| m.len()).unwrap_or(0)
                + o["binaryData"].as_object().map(|m| m.len()).unwrap_or(0);
            vec![json!(n), age]
        }
        ("", "secrets") => vec![
            json!(s(&o["type"])),
            json!(o["data"].as_object().map(|m| m.len()).unwrap_or(0)),
            age,
        ],
        ("", "serviceaccounts") => vec![
            json!(o["secrets"].as_array().map(Vec::len).unwrap_or(0)),
            age,
        ],
        ("", "endpoints") => {
            let mut eps = vec![];
            for subset in o["subsets"].as_array().into_iter().flatten() {
                for a in subset["addresses"].as_array().into_iter().flatten() {
                    for p in subset["ports"].as_array().into_iter().flatten() {
                        eps.push(format!("{}:{}", s(&a["ip"]), s(&p["port"])));
                    }
                }
            }
            vec![or_none(eps.join(",")), age]
        }
        ("" | "events.k8s.io", "events") => {
            let io = &o["involvedObject"];
            let last = if o["lastTimestamp"].is_string() {
                &o["lastTimestamp"]
            } else if o["eventTime"].is_string() {
                &o["eventTime"]
            } else {
                &o["metadata"]["creationTimestamp"]
            };
            let source = if o["source"]["component"].is_string() {
                s(&o["source"]["component"])
            } else {
                s(&o["reportingComponent"])
            };
            return vec![
                age_of(last),
                json!(s(&o["type"])),
                json!(s(&o["reason"])),
                json!(format!(
                    "{}/{}",
                    s(&io["kind"]).to_lowercase(),
                    s(&io["name"])
                )),
                json!(s(&io["fieldPath"])),
                json!(source),
                json!(s(&o["message"])),
                age_of(&o["firstTimestamp"]),
                json!(o["count"].as_i64().unwrap_or(1)),
                name,
            ];
        }
        ("coordination.k8s.io", "leases") => vec![or_none(s(&spec["holderIdentity"])), age],
        ("apiextensions.k8s.io", "customresourcedefinitions")
        | ("rbac.authorization.k8s.io", "roles" | "clusterroles") => {
            vec![o["metadata"]["creationTimestamp"].clone()]
        }
        ("rbac.authorization.k8s.io", _) => {
            let subjects = o["subjects"].as_array().cloned().unwrap_or_default();
            let of = |k: &str| {
                subjects
                    .iter()
                    .filter(|x| x["kind"] == k)
                    .map(|x| s(&x["name"]))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            vec![
                json!(format!(
                    "{}/{}",
                    s(&o["roleRef"]["kind"]),
                    s(&o["roleRef"]["name"])
                )),
                age,
                json!(of("User")),
                json!(of("Group")),
                json!(of("ServiceAccount")),
            ]
        }
        _ => vec![],
    };
    let mut cells = vec![name];
    cells.extend(rest);
    cells
}

/// Evaluates the simple JSONPath of printer columns (`.spec.size`, `.status.conditions[0].type`,
/// `.status.conditions[?(@.type=="Ready")].status`).
pub fn simple_json_path(obj: &Value, path: &str) -> Value {
    let mut cur = obj.clone();
    let trimmed = path
        .trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .trim_start_matches('.');
    let mut segments = vec![];
    let mut depth = 0;
    let mut cur_seg = String::new();
    for ch in trimmed.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            '.' if depth == 0 => {
                segments.push(std::mem::take(&mut cur_seg));
                continue;
            }
            _ => {}
        }
        cur_seg.push(ch);
    }
    segments.push(cur_seg);
    for raw in &segments {
        if raw.is_empty() {
            continue;
        }
        let (field, index) = match raw.find('[') {
            Some(i) => (
                &raw[..i],
                Some(raw[i + 1..].strip_suffix(']').unwrap_or(&raw[i + 1..])),
            ),
            None => (raw.as_str(), None),
        };
        if !field.is_empty() {
            cur = cur[field].clone();
        }
        if let Some(idx) = index {
            if let Ok(n) = idx.parse::<usize>() {
                cur = cur[n].clone();
            } else if let Some(filter) = idx.strip_prefix("?(@.").and_then(|f| f.strip_suffix(')'))
            {
                let (k, v) = filter.split_once("==").unwrap_or((filter, ""));
                let v = v.trim_matches(|c| c == '"' || c == '\'');
                cur = cur
                    .as_array()
                    .and_then(|a| a.iter().find(|i| s(&i[k.trim()]) == v).cloned())
                    .unwrap_or(Value::Null);
            }
        }
    }
    cur
}

pub fn column_definitions(def: &ResourceDef) -> Vec<Value> {
    let to_json = |name: &str, kind: &str, format: &str, description: &str, priority: i64| json!({"name": name, "type": kind, "format": format, "description": description, "priority": priority});
    if !def.builtin {
        let mut cols = vec![to_json(
            "Name",
            "string",
            "name",
            "Name must be unique within a namespace.",
            0,
        )];
        for c in &def.printer_columns {
            cols.push(to_json(
                &c.name,
                &c.column_type,
                &c.format,
                &c.description,
                c.priority,
            ));
        }
        return cols;
    }
    match builtin_columns(def) {
        Some(cols) => cols
            .iter()
            .map(|c| to_json(c.name, c.kind, c.format, c.name, c.priority))
            .collect(),
        None => vec![
            to_json("Name", "string", "name", "Name must be unique within a namespace.", 0),
            to_json("Created At", "date", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0),
        ],
    }
}

fn row_cells(def: &ResourceDef, obj: &Value) -> Vec<Value> {
    if !def.builtin {
        let mut cells = vec![obj["metadata"]["name"].clone()];
        for c in &def.printer_columns {
            let v = simple_json_path(obj, &c.json_path);
            cells.push(if c.column_type == "date" && !v.is_null() {
                age_of(&v)
            } else {
                v
            });
        }
        return cells;
    }
    if builtin_columns(def).is_some() {
        builtin_cells(def, obj)
    } else {
        vec![
            obj["metadata"]["name"].clone(),
            obj["metadata"]["creationTimestamp"].clone(),
        ]
    }
}

pub fn partial_metadata(obj: &Value) -> Value {
    json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj["metadata"]})
}

pub fn row(def: &ResourceDef, obj: &Value, include: IncludeObject) -> Value {
    let mut r = json!({"cells": row_cells(def, obj)});
    match include {
        IncludeObject::None => {}
        IncludeObject::Metadata => r["object"] = partial_metadata(obj),
        IncludeObject::Object => r["object"] = obj.clone(),
    }
    if let Some(conditions) = row_conditions(def, obj) {
        r["conditions"] = conditions;
    }
    r
}

/// The row's `conditions` (kubectl greys out completed Jobs).
fn row_conditions(def: &ResourceDef, obj: &Value) -> Option<Value> {
    (def.resource == "jobs"
        && int(&obj["status"]["succeeded"]) >= obj["spec"]["completions"].as_i64().unwrap_or(1))
    .then(|| json!([{"type": "Completed", "status": "True"}]))
}

/// The same Table as [`table`], written straight into bytes: cells are serialized per row,
/// and the row object is borrowed — for items whose served form is the stored version
/// (`stored` is `Some`), its cached JSON or PartialObjectMetadata rendering is copied.
pub fn table_bytes<'a>(
    def: &ResourceDef,
    objs: impl IntoIterator<Item = (&'a Value, Option<&'a StoredObject>)>,
    include: IncludeObject,
    list_meta: &Value,
) -> Vec<u8> {
    let objs = objs.into_iter();
    let mut buf = Vec::with_capacity(256 + objs.size_hint().0 * 1536);
    let head = json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": list_meta,
                      "columnDefinitions": column_definitions(def)});
    let head = head.to_string();
    // `head` is a JSON object: reopen it to append the rows.
    buf.extend_from_slice(&head.as_bytes()[..head.len() - 1]);
    buf.extend_from_slice(b",\"rows\":[");
    for (i, (obj, stored)) in objs.enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(b"{\"cells\":");
        // Writing `Value`s into a Vec cannot fail (their map keys are strings).
        let _ = serde_json::to_writer(&mut buf, &row_cells(def, obj));
        match (include, stored) {
            (IncludeObject::None, _) => {}
            (IncludeObject::Metadata, Some(stored)) => {
                buf.extend_from_slice(b",\"object\":");
                buf.extend_from_slice(stored.metadata_json());
            }
            (IncludeObject::Metadata, None) => {
                buf.extend_from_slice(b",\"object\":");
                write_partial_metadata(&mut buf, obj);
            }
            (IncludeObject::Object, Some(stored)) => {
                buf.extend_from_slice(b",\"object\":");
                buf.extend_from_slice(stored.json());
            }
            (IncludeObject::Object, None) => {
                buf.extend_from_slice(b",\"object\":");
                let _ = serde_json::to_writer(&mut buf, obj);
            }
        }
        if let Some(conditions) = row_conditions(def, obj) {
            buf.extend_from_slice(b",\"conditions\":");
            let _ = serde_json::to_writer(&mut buf, &conditions);
        }
        buf.push(b'}');
    }
    buf.extend_from_slice(b"]}");
    buf
}

pub fn table<'a>(
    def: &ResourceDef,
    objs: impl IntoIterator<Item = &'a Value>,
    include: IncludeObject,
    list_meta: Value,
) -> Value {
    let rows: Vec<Value> = objs.into_iter().map(|o| row(def, o, include)).collect();
    json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": list_meta,
           "columnDefinitions": column_definitions(def), "rows": rows})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_durations_match_kubectl() {
        assert_eq!(human_duration(5), "5s");
        assert_eq!(human_duration(150), "2m30s");
        assert_eq!(human_duration(600), "10m");
        assert_eq!(human_duration(3 * 3600 + 60 * 5), "3h5m");
        assert_eq!(human_duration(30 * 3600), "30h");
        assert_eq!(human_duration(3 * 86400 + 3600), "3d1h");
    }

    #[test]
    fn json_path_filters() {
        let o = json!({"status": {"conditions": [{"type": "A", "status": "x"}, {"type": "Ready", "status": "True"}]}});
        assert_eq!(
            simple_json_path(&o, ".status.conditions[?(@.type==\"Ready\")].status"),
            json!("True")
        );
        assert_eq!(
            simple_json_path(&o, ".status.conditions[0].type"),
            json!("A")
        );
        assert_eq!(simple_json_path(&o, ".spec.missing"), Value::Null);
    }

    #[test]
    fn table_bytes_equal_the_table_value() {
        let store = std::sync::Arc::new(crate::storage::store::Store::new(16));
        let registry = crate::registry::Registry::new(store);
        let def = registry.builtin("batch", "jobs").expect("jobs");
        let objs = [
            json!({"apiVersion": "batch/v1", "kind": "Job",
                   "metadata": {"name": "a", "namespace": "d", "creationTimestamp": "2020-01-01T00:00:00Z",
                                "managedFields": [{"manager": "m"}]},
                   "spec": {"completions": 1}, "status": {"succeeded": 1}}),
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "b"}}),
        ];
        let stored: Vec<StoredObject> = objs.iter().cloned().map(StoredObject::new).collect();
        let meta = json!({"resourceVersion": "7"});
        for include in [
            IncludeObject::None,
            IncludeObject::Metadata,
            IncludeObject::Object,
        ] {
            let expected = table(&def, objs.iter(), include, meta.clone());
            let borrowed = table_bytes(&def, objs.iter().map(|o| (o, None)), include, &meta);
            let cached = table_bytes(
                &def,
                objs.iter().zip(&stored).map(|(o, s)| (o, Some(s))),
                include,
                &meta,
            );
            for bytes in [borrowed, cached] {
                let got: Value = serde_json::from_slice(&bytes).expect("valid JSON");
                assert_eq!(got, expected);
            }
        }
    }
}
