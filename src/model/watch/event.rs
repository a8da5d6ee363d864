//! Watch events as they arrive: one JSON event per WebSocket message, or per line of a
//! chunked HTTP body.

use serde_json::Value;

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
            .pointer("/metadata/resourceVersion")
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
                .pointer("/details/retryAfterSeconds")
                .and_then(Value::as_u64)
                .and_then(|s| u32::try_from(s).ok()),
        })
    }

    /// A BOOKMARK that ends the initial events of a streaming list (`sendInitialEvents`).
    pub fn is_initial_events_end(&self) -> bool {
        self.event_type == EventType::Bookmark
            && self
                .object
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(INITIAL_EVENTS_END))
                .and_then(Value::as_str)
                == Some("true")
    }
}

/// Splits a chunked watch body into events: chunks end anywhere, events end at `\n`.
#[derive(Debug, Default)]
pub struct LineDecoder {
    pending: String,
}

impl LineDecoder {
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
            .map(decode_event)
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
