//! The multiplexer's messages, pure: what the page sends ([`parse`]), the frames it is sent
//! ([`status_frame`], [`data_frame`], [`end_frame`]), and a body's bytes as text that never
//! ends inside a character ([`Utf8Decoder`]).

use serde::Deserialize;
use serde_json::{json, Value};

/// The `Accept` of an `open` that names none.
pub const DEFAULT_ACCEPT: &str = "application/json";

/// `{"op":"open","id":7,"cluster":"dev","path":"/api/v1/pods?watch=true","accept":"…"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Open {
    pub id: u64,
    pub cluster: String,
    /// Path and query as the page sent them (starts with `/`), passed on as
    /// `Route::Cluster`'s `upstream` is.
    pub path: String,
    pub accept: String,
}

/// One message of the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientMessage {
    Open(Open),
    /// `{"op":"close","id":7}`: stop that stream.
    Close {
        id: u64,
    },
    /// Not understood: answered with a 400 when it has an id to answer on, else ignored.
    Malformed {
        id: Option<u64>,
        why: String,
    },
}

#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Wire {
    Open {
        id: u64,
        cluster: String,
        path: String,
        accept: Option<String>,
    },
    Close {
        id: u64,
    },
}

/// Reads one text message of the page.
pub fn parse(text: &str) -> ClientMessage {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(error) => {
            return ClientMessage::Malformed {
                id: None,
                why: format!("not JSON: {error}"),
            }
        }
    };
    let id = value.get("id").and_then(Value::as_u64);
    match serde_json::from_value::<Wire>(value) {
        Ok(Wire::Open { id, path, .. }) if !path.starts_with('/') => ClientMessage::Malformed {
            id: Some(id),
            why: format!("the path {path:?} does not start with /"),
        },
        Ok(Wire::Open {
            id,
            cluster,
            path,
            accept,
        }) => ClientMessage::Open(Open {
            id,
            cluster,
            path,
            accept: accept.unwrap_or_else(|| DEFAULT_ACCEPT.to_string()),
        }),
        Ok(Wire::Close { id }) => ClientMessage::Close { id },
        Err(error) => ClientMessage::Malformed {
            id,
            why: error.to_string(),
        },
    }
}

/// `{"id":7,"status":200}`: the upstream answered with `status`.
pub fn status_frame(id: u64, status: u16) -> String {
    json!({ "id": id, "status": status }).to_string()
}

/// `{"id":7,"data":"…"}`: the next piece of the body.
pub fn data_frame(id: u64, data: &str) -> String {
    json!({ "id": id, "data": data }).to_string()
}

/// `{"id":7,"end":true}`, with `"error"` when the body broke off: the stream is over.
pub fn end_frame(id: u64, error: Option<&str>) -> String {
    match error {
        Some(error) => json!({ "id": id, "end": true, "error": error }),
        None => json!({ "id": id, "end": true }),
    }
    .to_string()
}

/// Turns a body's chunks into text as they come: a character split between chunks is kept
/// until its last byte arrives; invalid bytes become U+FFFD, as `String::from_utf8_lossy`
/// makes them.
#[derive(Debug, Default)]
pub struct Utf8Decoder {
    /// The start of a character whose other bytes have not come yet (at most 3 bytes).
    pending: Vec<u8>,
}

impl Utf8Decoder {
    /// The text of what came so far and has not been returned, up to the last whole
    /// character.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut text = String::with_capacity(self.pending.len());
        let mut rest: &[u8] = &self.pending;
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    rest = &[];
                    break;
                }
                Err(error) => {
                    let (valid, after) = rest.split_at(error.valid_up_to());
                    text.push_str(&String::from_utf8_lossy(valid));
                    match error.error_len() {
                        Some(invalid) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[invalid..];
                        }
                        // An incomplete character at the end: kept for the next chunk.
                        None => {
                            rest = after;
                            break;
                        }
                    }
                }
            }
        }
        self.pending = rest.to_vec();
        text
    }

    /// What is left when the body ends: an incomplete character, as U+FFFD.
    pub fn finish(&mut self) -> String {
        let rest = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_reads_with_its_accept_or_the_default() {
        let table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
        let open = json!({"op": "open", "id": 7, "cluster": "kind-a",
                          "path": "/api/v1/pods?watch=true", "accept": table});
        assert_eq!(
            parse(&open.to_string()),
            ClientMessage::Open(Open {
                id: 7,
                cluster: "kind-a".into(),
                path: "/api/v1/pods?watch=true".into(),
                accept: table.into(),
            })
        );
        assert_eq!(
            parse(r#"{"op":"open","id":1,"cluster":"c","path":"/version"}"#),
            ClientMessage::Open(Open {
                id: 1,
                cluster: "c".into(),
                path: "/version".into(),
                accept: DEFAULT_ACCEPT.into(),
            })
        );
        assert_eq!(
            parse(r#"{"op":"close","id":7}"#),
            ClientMessage::Close { id: 7 }
        );
    }

    #[test]
    fn a_message_not_understood_keeps_its_id_when_it_has_one() {
        for (text, id) in [
            ("not json", None),
            (r#"{"op":"open","cluster":"c","path":"/"}"#, None),
            (r#"{"op":"close","id":-1}"#, None),
            (r#"{"op":"close","id":"7"}"#, None),
            (r#"{"op":"open","id":3,"path":"/"}"#, Some(3)),
            (r#"{"op":"fly","id":4}"#, Some(4)),
            (r#"{"id":5}"#, Some(5)),
            (
                r#"{"op":"open","id":6,"cluster":"c","path":"api/v1"}"#,
                Some(6),
            ),
            (r#"[1,2]"#, None),
        ] {
            match parse(text) {
                ClientMessage::Malformed { id: got, why } => {
                    assert_eq!(got, id, "{text}");
                    assert!(!why.is_empty(), "{text}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn frames_are_json_with_the_documented_fields() {
        let read = |text: String| serde_json::from_str::<Value>(&text).expect("JSON");
        assert_eq!(read(status_frame(7, 403)), json!({"id": 7, "status": 403}));
        assert_eq!(
            read(data_frame(7, "{\"type\":\"ADDED\"}\n")),
            json!({"id": 7, "data": "{\"type\":\"ADDED\"}\n"})
        );
        assert_eq!(read(end_frame(7, None)), json!({"id": 7, "end": true}));
        assert_eq!(
            read(end_frame(7, Some("reset"))),
            json!({"id": 7, "end": true, "error": "reset"})
        );
    }

    #[test]
    fn no_chunk_ends_inside_a_character_wherever_the_body_is_cut() {
        let mut body = "ascii, é, 日本, 🦀 and two bad bytes: ".as_bytes().to_vec();
        body.extend_from_slice(&[0xFF, b'x', 0xE6, 0x97, b'y', 0xF0, 0x9F, 0xA6]);
        let whole = String::from_utf8_lossy(&body).into_owned();
        for cut in 0..=body.len() {
            for second_cut in cut..=body.len() {
                let mut decoder = Utf8Decoder::default();
                let pieces = [
                    decoder.push(&body[..cut]),
                    decoder.push(&body[cut..second_cut]),
                    decoder.push(&body[second_cut..]),
                    decoder.finish(),
                ];
                assert_eq!(pieces.concat(), whole, "cut at {cut} and {second_cut}");
            }
        }
        let mut decoder = Utf8Decoder::default();
        let crab = "🦀".as_bytes();
        assert_eq!(decoder.push(&crab[..1]), "");
        assert_eq!(decoder.push(&crab[1..3]), "");
        assert_eq!(decoder.push(&crab[3..]), "🦀");
        assert_eq!(decoder.finish(), "");
    }
}
