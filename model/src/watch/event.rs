//! Watch events as they arrive: one JSON event per WebSocket message, or per line of a
//! chunked HTTP body.

use crate::object::pointer::Pointer;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
}

/// One event of a watch stream: `{"type": "...", "object": {...}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchEvent {
    pub event_type: EventType,
    pub object: Value,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchDecodeError {
    NotJson(String),
    UnknownType(String),
    MissingObject,
}

impl std::fmt::Display for WatchDecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WatchDecodeError::NotJson(e) => write!(f, "watch event is not JSON: {e}"),
            WatchDecodeError::UnknownType(t) => write!(f, "unknown watch event type {t:?}"),
            WatchDecodeError::MissingObject => f.write_str("watch event has no object"),
        }
    }
}

/// The Status carried by an ERROR event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorStatus {
    pub code: u16,
    pub reason: String,
    pub message: String,
    /// `details.retryAfterSeconds` (429 and some 5xx).
    pub retry_after_seconds: Option<u32>,
}

/// The annotation a streaming list's bookmark carries once the initial state is sent.
pub const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

/// Decodes one event (a WebSocket message or one line of a chunked body).
pub fn decode_event(text: &str) -> Result<WatchEvent, WatchDecodeError> {
    let value: Value =
        serde_json::from_str(text.trim()).map_err(|e| WatchDecodeError::NotJson(e.to_string()))?;
    event_of(value)
}

/// Like [`decode_event`], leaving out every `managedFields` on the way: a list's rows never
/// show them, and they are most of a pod row's bytes (each entry a tree of `f:` keys), so
/// they are skipped while parsing instead of being built and thrown away.
pub fn decode_event_without_managed_fields(text: &str) -> Result<WatchEvent, WatchDecodeError> {
    let mut parser = serde_json::Deserializer::from_str(text.trim());
    let value = WithoutManagedFields
        .deserialize(&mut parser)
        .and_then(|value| parser.end().map(|()| value))
        .map_err(|e| WatchDecodeError::NotJson(e.to_string()))?;
    event_of(value)
}

/// Builds a JSON value as `serde_json::Value` does, skipping every `managedFields` member.
struct WithoutManagedFields;

impl<'de> DeserializeSeed<'de> for WithoutManagedFields {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for WithoutManagedFields {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(WithoutManagedFields)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "managedFields" {
                map.next_value::<IgnoredAny>()?;
            } else {
                members.insert(key, map.next_value_seed(WithoutManagedFields)?);
            }
        }
        Ok(Value::Object(members))
    }
}

fn event_of(value: Value) -> Result<WatchEvent, WatchDecodeError> {
    let event_type = match value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
    {
        "ADDED" => EventType::Added,
        "MODIFIED" => EventType::Modified,
        "DELETED" => EventType::Deleted,
        "BOOKMARK" => EventType::Bookmark,
        "ERROR" => EventType::Error,
        other => return Err(WatchDecodeError::UnknownType(other.to_string())),
    };
    let object = match value {
        Value::Object(mut map) => map
            .remove("object")
            .ok_or(WatchDecodeError::MissingObject)?,
        _ => return Err(WatchDecodeError::MissingObject),
    };
    Ok(WatchEvent { event_type, object })
}

impl WatchEvent {
    pub fn resource_version(&self) -> Option<&str> {
        self.object
            .at("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .filter(|rv| !rv.is_empty())
    }

    /// The Status of an ERROR event.
    pub fn status(&self) -> Option<ErrorStatus> {
        if self.event_type != EventType::Error {
            return None;
        }
        let text = |key: &str| {
            self.object
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        Some(ErrorStatus {
            code: self
                .object
                .get("code")
                .and_then(Value::as_u64)
                .and_then(|c| u16::try_from(c).ok())
                .unwrap_or(500),
            reason: text("reason"),
            message: text("message"),
            retry_after_seconds: self
                .object
                .at("/details/retryAfterSeconds")
                .and_then(Value::as_u64)
                .and_then(|s| u32::try_from(s).ok()),
        })
    }

    /// A BOOKMARK that ends the initial events of a streaming list (`sendInitialEvents`).
    pub fn is_initial_events_end(&self) -> bool {
        self.event_type == EventType::Bookmark
            && self
                .object
                .at("/metadata/annotations")
                .and_then(|a| a.get(INITIAL_EVENTS_END))
                .and_then(Value::as_str)
                == Some("true")
    }
}

/// Splits a chunked watch body into events: chunks end anywhere, events end at `\n`.
#[derive(Debug, Default)]
pub struct LineDecoder {
    pending: String,
    without_managed_fields: bool,
}

impl LineDecoder {
    /// A decoder for a list's rows: events come without their `managedFields` (see
    /// [`decode_event_without_managed_fields`]).
    pub fn without_managed_fields() -> LineDecoder {
        LineDecoder {
            pending: String::new(),
            without_managed_fields: true,
        }
    }

    pub fn push(&mut self, chunk: &str) -> Vec<Result<WatchEvent, WatchDecodeError>> {
        // Only the new chunk can hold a line's end: a big object arriving in many chunks is
        // scanned once, not once per chunk.
        let Some(last_end) = chunk.rfind('\n') else {
            self.pending.push_str(chunk);
            return Vec::new();
        };
        self.pending.push_str(&chunk[..=last_end]);
        let complete = std::mem::replace(&mut self.pending, chunk[last_end + 1..].to_string());
        complete
            .split('\n')
            .filter(|line| !line.trim().is_empty())
            .map(|line| {
                if self.without_managed_fields {
                    decode_event_without_managed_fields(line)
                } else {
                    decode_event(line)
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(ns: &str, name: &str, rv: u64) -> Value {
        json!({"metadata": {"namespace": ns, "name": name, "resourceVersion": rv.to_string()}})
    }

    fn event(kind: &str, object: Value) -> WatchEvent {
        decode_event(&json!({"type": kind, "object": object}).to_string()).expect("valid event")
    }

    #[test]
    fn list_rows_are_decoded_without_managed_fields_and_otherwise_the_same() {
        let managed = json!([{"manager": "kubelet", "fieldsV1": {"f:status": {"f:phase": {}}}}]);
        let row_object = json!({"kind": "PartialObjectMetadata", "metadata": {
            "name": "web-1", "namespace": "default", "resourceVersion": "7",
            "managedFields": managed, "labels": {"app": "web"}}});
        let table = json!({"kind": "Table", "columnDefinitions": null, "rows": [
            {"cells": ["web-1", "1/1", 3, 1.5, true, null, [], {}], "object": row_object}]});
        let text = json!({"type": "MODIFIED", "object": table}).to_string();
        let lean = decode_event_without_managed_fields(&text).expect("an event");
        let mut expected = decode_event(&text).expect("an event");
        let metadata = expected
            .object
            .pointer_mut("/rows/0/object/metadata")
            .and_then(Value::as_object_mut)
            .expect("row metadata");
        assert!(metadata.remove("managedFields").is_some());
        assert_eq!(lean, expected);
        assert_eq!(
            lean.resource_version(),
            None,
            "a Table's own version is in metadata"
        );
        for garbage in [
            "{\"type\":\"ADDED\"",
            "{\"type\":\"ADDED\",\"object\":{}} x",
            "[1,",
        ] {
            assert!(
                matches!(
                    decode_event_without_managed_fields(garbage),
                    Err(WatchDecodeError::NotJson(_))
                ),
                "{garbage}"
            );
        }
        let mut decoder = LineDecoder::without_managed_fields();
        let events = decoder.push(&format!("{text}\n{text}\n"));
        assert_eq!(events, vec![Ok(lean.clone()), Ok(lean)]);
    }

    #[test]
    fn decodes_events_and_rejects_garbage() {
        let e = event("ADDED", obj("default", "a", 5));
        assert_eq!(e.event_type, EventType::Added);
        assert_eq!(e.resource_version(), Some("5"));
        assert!(matches!(
            decode_event("{nope"),
            Err(WatchDecodeError::NotJson(_))
        ));
        assert_eq!(
            decode_event(r#"{"type":"SURPRISE","object":{}}"#),
            Err(WatchDecodeError::UnknownType("SURPRISE".into()))
        );
        assert_eq!(
            decode_event(r#"{"type":"ADDED"}"#),
            Err(WatchDecodeError::MissingObject)
        );
        let error = event(
            "ERROR",
            json!({"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 1 (5)"}),
        );
        assert_eq!(error.status().map(|s| s.code), Some(410));
    }

    #[test]
    fn line_decoder_handles_events_split_across_chunks() {
        let mut decoder = LineDecoder::default();
        let line1 = json!({"type":"ADDED","object":obj("ns","a",1)}).to_string();
        let line2 = json!({"type":"DELETED","object":obj("ns","a",2)}).to_string();
        let all = format!("{line1}\n{line2}\n");
        let (first, second) = all.split_at(line1.len() / 2);
        assert!(decoder.push(first).is_empty());
        let events = decoder.push(second);
        assert_eq!(events.len(), 2);
        assert!(events.iter().all(Result::is_ok));
    }
}
