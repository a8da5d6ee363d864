//! Tables the tests of this module decode: a page of pods as a server sends it.

use super::*;
use serde_json::{json, Value};

pub(super) const CREATED: &str = "2024-05-01T12:00:00Z";
pub(super) const CREATED_MS: i64 = 1_714_564_800_000;

pub(super) fn pod_table() -> Value {
    json!({
        "kind": "Table", "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": "10245", "continue": "tok", "remainingItemCount": 753},
        "columnDefinitions": [
            {"name": "Name", "type": "string", "format": "name", "description": "", "priority": 0},
            {"name": "Ready", "type": "string", "format": "", "priority": 0},
            {"name": "Status", "type": "string", "format": "", "priority": 0},
            {"name": "Restarts", "type": "integer", "format": "", "priority": 0},
            {"name": "Age", "type": "string", "format": "", "priority": 0},
            {"name": "IP", "type": "string", "format": "", "priority": 1},
            {"name": "Node", "type": "string", "format": "", "priority": 1}
        ],
        "rows": [
            pod_row("web-10", "u10", "1/1", 0, "2024-05-01T11:00:00Z"),
            pod_row("web-2", "u2", "0/1", 12, "2024-05-01T11:59:00Z"),
            pod_row("web-9", "u9", "10/10", 3, CREATED)
        ]
    })
}

pub(super) fn pod_row(name: &str, uid: &str, ready: &str, restarts: i64, created: &str) -> Value {
    json!({
        "cells": [name, ready, "Running", restarts, "5m", "10.0.0.1", "node-1"],
        "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"name": name, "namespace": "default", "uid": uid,
                         "resourceVersion": "1", "creationTimestamp": created}}
    })
}

pub(super) fn decode(value: &Value) -> TablePage {
    decode_table(&value.to_string(), DecodeOptions::default()).expect("decodes")
}

pub(super) fn names(table: &Table, rows: &[&TableRow]) -> Vec<String> {
    rows.iter()
        .map(|r| r.name(table.columns()).to_string())
        .collect()
}
