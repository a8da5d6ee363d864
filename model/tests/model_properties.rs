//! Randomized (property) tests of the pure model's decoders and merges, with generated input
//! (proptest: a failing case is shrunk to a small one and its seed kept under
//! `proptest-regressions/`, so it replays). What comes from the network or the user must
//! never panic, and the merge that reapplies an edit after a 409 must keep both sides.

#![cfg(not(target_arch = "wasm32"))]

use kube_atlas_model::api::errors::ApiError;
use kube_atlas_model::edit::three_way;
use kube_atlas_model::list::table::{decode_table_value, DecodeOptions, RowProblem};
use kube_atlas_model::object::visible_text::with_visible_controls;
use kube_atlas_model::object::yaml::{parse_documents, to_yaml};
use kube_atlas_model::watch::{decode_event, LineDecoder};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Any JSON value, a few levels deep, with keys from a small set so trees overlap.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        any::<String>().prop_map(Value::String),
        prop::sample::select(vec![
            "yes", "no", "on", "~", "null", "0x1F", "1e3", "- a", "a: b", "#", "'", "\""
        ])
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A JSON object (what a watch event carries) with fields of any shape.
fn any_object() -> impl Strategy<Value = Value> {
    prop::collection::btree_map(key(), any_json(), 0..5)
        .prop_map(|fields| Value::Object(fields.into_iter().collect()))
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "a", "b", "name", "image", "replicas", "x.y/z", "true", "1"
        ])
        .prop_map(str::to_string),
        "[a-z]{1,6}",
    ]
}

/// A ConfigMap-like object: the fields a merge sees, with nested `spec` of any shape.
fn object() -> impl Strategy<Value = Value> {
    (
        prop::collection::btree_map("[a-d]", "[a-z0-9]{0,3}", 0..4),
        prop::collection::btree_map("[a-f]", "[a-z0-9 ]{0,4}", 0..6),
        any_json(),
    )
        .prop_map(|(labels, data, spec)| {
            json!({
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "settings", "namespace": "default", "labels": labels},
                "data": data,
                "spec": spec,
            })
        })
}

/// `text` cut into pieces at the given char positions.
fn split_at(text: &str, cuts: &[usize]) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut positions: Vec<usize> = cuts.iter().map(|c| c % (chars.len() + 1)).collect();
    positions.sort_unstable();
    let mut pieces = Vec::new();
    let mut start = 0;
    for position in positions.into_iter().chain([chars.len()]) {
        pieces.push(chars[start..position].iter().collect());
        start = position;
    }
    pieces
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn watch_lines_decode_alike_however_the_stream_is_cut(
        objects in prop::collection::vec(any_object(), 1..6),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        garbage in "[^\n]{0,40}",
    ) {
        let mut body = String::new();
        for (i, object) in objects.iter().enumerate() {
            let event_type = ["ADDED", "MODIFIED", "DELETED", "BOOKMARK"][i % 4];
            body.push_str(&json!({"type": event_type, "object": object}).to_string());
            body.push('\n');
        }
        body.push_str(&garbage);
        body.push('\n');
        let whole: Vec<_> = LineDecoder::default().push(&body);
        let mut decoder = LineDecoder::default();
        let pieces: Vec<_> = split_at(&body, &cuts)
            .iter()
            .flat_map(|piece| decoder.push(piece))
            .collect();
        prop_assert_eq!(&pieces, &whole);
        // Every well-formed line decoded to its object, in order; the garbage line alone may
        // fail.
        prop_assert!(whole.len() >= objects.len());
        for (decoded, object) in whole.iter().zip(&objects) {
            let event = decoded
                .as_ref()
                .map_err(|e| TestCaseError::fail(format!("{e:?} for {object}")))?;
            // As the wire carries it: serde_json may print a float that reads back a bit off.
            let sent: Value = serde_json::from_str(&object.to_string())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&event.object, &sent);
        }
    }

    #[test]
    fn any_text_as_a_watch_event_or_an_error_answer_never_panics(text in any::<String>(), code in 100u16..600) {
        let _ = decode_event(&text);
        let error = ApiError::from_response(code, &text);
        prop_assert_eq!(error.code(), Some(code));
        let _ = error.to_string();
    }

    #[test]
    fn tables_of_any_shape_decode_or_fail_with_a_reason(
        // A Table without columns is a headerless watch event's: its rows are kept as sent.
        columns in 1usize..5,
        rows in prop::collection::vec((prop::collection::vec(any_json(), 0..7), any_json()), 0..8),
        anything in any_json(),
    ) {
        let _ = decode_table_value(&anything, DecodeOptions::default());
        let table = json!({
            "kind": "Table",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "7"},
            "columnDefinitions": (0..columns)
                .map(|i| json!({"name": if i == 0 { "Name".to_string() } else { format!("C{i}") }, "type": "string", "format": if i == 0 { "name" } else { "" }}))
                .collect::<Vec<_>>(),
            "rows": rows.iter().map(|(cells, object)| json!({"cells": cells, "object": object})).collect::<Vec<_>>(),
        });
        // A well-formed Table decodes whatever its rows hold: every row kept, in order, and
        // flagged exactly when its cells do not match the columns.
        let page = decode_table_value(&table, DecodeOptions::default())
            .map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(page.rows.len(), rows.len());
        for (row, (cells, _)) in page.rows.iter().zip(&rows) {
            let flagged = row.problems.iter().any(|p| matches!(p, RowProblem::CellCount { .. }));
            prop_assert_eq!(flagged, cells.len() != columns, "{:?}", row);
        }
    }

    #[test]
    fn yaml_written_reads_back_as_the_same_value(
        fields in prop::collection::btree_map(key(), any_json(), 0..6),
    ) {
        let value = Value::Object(fields.into_iter().collect());
        let text = to_yaml(&value).map_err(TestCaseError::fail)?;
        let read = parse_documents(&text).map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
        prop_assert_eq!(read.len(), 1, "{}", text);
        prop_assert_eq!(&read[0], &value, "{}", text);
    }

    #[test]
    fn any_text_as_yaml_parses_or_fails_with_a_position(text in "[ a-z0-9:\\-\\[\\]{},&*!|>'\"#\n]{0,200}") {
        if let Err(error) = parse_documents(&text) {
            // The position is in the text: a line of it, and a column on that line (or just
            // past its end, where the text stops too early).
            let lines: Vec<&str> = text.split('\n').collect();
            prop_assert!(
                (1..=lines.len()).contains(&error.line),
                "line {} of {} lines: {:?} in {:?}", error.line, lines.len(), error, text
            );
            let width = lines[error.line - 1].chars().count();
            prop_assert!(
                (1..=width + 1).contains(&error.column),
                "column {} of a line {} wide: {:?} in {:?}", error.column, width, error, text
            );
            prop_assert!(!error.message.trim().is_empty(), "{:?}", error);
        }
    }

    #[test]
    fn shown_text_hides_no_control_characters(text in any::<String>()) {
        let shown = with_visible_controls(&text);
        let hidden = |c: char| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
        };
        let shown_hides = shown.chars().any(hidden);
        prop_assert!(!shown_hides, "{:?}", shown);
    }

    #[test]
    fn a_merge_with_no_change_on_one_side_takes_the_other(base in object(), other in object()) {
        // Nobody else wrote: your edit is saved as it is.
        let merge = three_way(&base, &other, &base, false);
        prop_assert!(merge.is_clean(), "{:?}", merge.conflicts);
        prop_assert!(merge.theirs.is_empty());
        prop_assert_eq!(&merge.merged, &other);
        // You changed nothing: the latest is taken as it is.
        let merge = three_way(&base, &base, &other, false);
        prop_assert!(merge.is_clean(), "{:?}", merge.conflicts);
        prop_assert!(merge.yours.is_empty());
        prop_assert_eq!(&merge.merged, &other);
        // Both made the same change: nothing to ask.
        prop_assert!(three_way(&base, &other, &other, false).is_clean());
    }

    #[test]
    fn changes_to_different_keys_both_survive_a_merge(
        base in object(),
        yours_value in "[a-z]{1,5}",
        theirs_value in "[a-z]{1,5}",
    ) {
        let mut yours = base.clone();
        yours["data"]["yours"] = json!(yours_value);
        let mut theirs = base.clone();
        theirs["data"]["theirs"] = json!(theirs_value);
        theirs["metadata"]["labels"]["changed-by"] = json!("controller");
        let merge = three_way(&base, &yours, &theirs, false);
        prop_assert!(merge.is_clean(), "{:?}", merge.conflicts);
        prop_assert_eq!(&merge.merged["data"]["yours"], &json!(yours_value));
        prop_assert_eq!(&merge.merged["data"]["theirs"], &json!(theirs_value));
        prop_assert_eq!(&merge.merged["metadata"]["labels"]["changed-by"], &json!("controller"));
    }

    #[test]
    fn the_same_key_changed_differently_is_asked_never_decided(
        base in object(),
        yours_value in "[a-z]{1,5}",
        theirs_value in "[0-9]{1,5}",
    ) {
        let mut yours = base.clone();
        yours["data"]["shared"] = json!(yours_value);
        let mut theirs = base.clone();
        theirs["data"]["shared"] = json!(theirs_value);
        let merge = three_way(&base, &yours, &theirs, false);
        prop_assert_eq!(merge.conflicts.len(), 1, "{:?}", merge.conflicts);
        prop_assert_eq!(&merge.conflicts[0].yours, &Some(json!(yours_value)));
        prop_assert_eq!(&merge.conflicts[0].theirs, &Some(json!(theirs_value)));
    }
}
