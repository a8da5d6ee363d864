//! YAML text of API objects, as `kubectl get -o yaml` shows them, and YAML the user typed read
//! back into JSON values, through serde-saphyr.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;
use serde_saphyr::options::AliasLimits;
use serde_saphyr::{Budget, DeserializeError, MessageFormatter, Options, UserMessageFormatter};

/// The object as YAML. Strings that would read as another type (`"yes"`, `"1"`, `"null"`) stay
/// quoted, so the text means what the JSON means.
pub fn to_yaml(value: &Value) -> Result<String, String> {
    serde_saphyr::to_string(value).map_err(|e| format!("cannot write YAML: {e}"))
}

/// The server's JSON text as YAML with its keys in the server's order (`apiVersion`, `kind`,
/// `metadata`, `spec`, `status`), which a `Value` loses: it sorts keys. Streamed, so no tree
/// is built.
pub fn to_yaml_in_server_order(json_text: &str) -> Result<String, String> {
    let mut json = serde_json::Deserializer::from_str(json_text);
    let mut yaml = String::new();
    let mut serializer = serde_saphyr::Serializer::new(&mut yaml);
    serde_transcode::transcode(&mut json, &mut serializer)
        .map_err(|e| format!("cannot write YAML: {e}"))?;
    json.end()
        .map_err(|e| format!("cannot read the server's JSON: {e}"))?;
    Ok(yaml)
}

/// Why YAML text could not be read, and where (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for YamlError {}

/// Every document of a `---` separated stream as JSON values; empty documents are skipped.
/// Anchors and aliases are expanded within tight limits, so an alias bomb ("billion laughs")
/// fails in milliseconds instead of filling memory.
pub fn parse_documents(text: &str) -> Result<Vec<Value>, YamlError> {
    serde_saphyr::from_multiple_with_options(text, read_options()).map_err(|e| yaml_error(&e))
}

/// Alias replays allowed per parse: far above what a hand-written manifest uses (anchors
/// are rare in Kubernetes YAML), far below what an alias bomb needs.
const MAX_ALIAS_REPLAYED_EVENTS: usize = 100_000;
/// Nesting allowed: deep enough for large CRD schemas, shallow enough for the stack (also
/// serde_json's own limit when the value is sent).
const MAX_DEPTH: usize = 128;

fn read_options() -> Options {
    let mut budget = Budget::default();
    budget.max_depth = MAX_DEPTH;
    let mut alias_limits = AliasLimits::default();
    alias_limits.max_total_replayed_events = MAX_ALIAS_REPLAYED_EVENTS;
    let mut options = Options::default();
    options.budget = Some(budget);
    options.alias_limits = alias_limits;
    // kubectl reads YAML 1.1 (`defaultMode: 0644` is 420); so do we.
    options.legacy_octal_numbers = true;
    // The message names line and column; the editor shows the text itself.
    options.with_snippet = false;
    options
}

fn yaml_error(error: &DeserializeError) -> YamlError {
    let (line, column) = error
        .location()
        .map(|at| (at.line() as usize, at.column() as usize))
        .filter(|(line, column)| *line > 0 && *column > 0)
        // Errors without a position (rare: the whole input) point at its start.
        .unwrap_or((1, 1));
    let cause = innermost(error);
    let message = UserMessageFormatter.format_message(cause);
    let message = if is_expansion_limit(cause) {
        Cow::Owned(format!(
            "the YAML expands too much through anchors and aliases (&name / *name), as an alias \
             bomb does: {message}"
        ))
    } else {
        message
    };
    YamlError {
        line,
        column,
        message: message.into_owned(),
    }
}

/// The error itself, without the wrappers that only add alias positions or a snippet (the
/// formatter expects them removed).
fn innermost(error: &DeserializeError) -> &DeserializeError {
    let mut error = error;
    while let DeserializeError::AliasError { error: inner, .. }
    | DeserializeError::WithSnippet { error: inner, .. } = error
    {
        error = inner;
    }
    error
}

fn is_expansion_limit(error: &DeserializeError) -> bool {
    matches!(
        error,
        DeserializeError::AliasReplayLimitExceeded { .. }
            | DeserializeError::AliasExpansionLimitExceeded { .. }
            | DeserializeError::AliasReplayStackDepthExceeded { .. }
            | DeserializeError::AliasReplayCounterOverflow { .. }
            | DeserializeError::Budget { .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::{Duration, Instant};

    #[test]
    fn objects_print_as_yaml_that_keeps_types() {
        let object = json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "web", "annotations": {"note": "<img src=x onerror=alert(1)>"}},
            "data": {"enabled": "yes", "port": "8080", "empty": "", "script": "line 1\nline 2\n"}
        });
        let text = to_yaml(&object).expect("yaml");
        assert!(text.contains("kind: ConfigMap"), "{text}");
        assert!(text.contains("name: web"), "{text}");
        // Strings that look like booleans or numbers stay strings.
        assert!(!text.contains("enabled: yes\n"), "{text}");
        assert!(!text.contains("port: 8080\n"), "{text}");
        assert!(text.contains("<img src=x onerror=alert(1)>"), "{text}");
        assert!(text.contains("line 1"), "{text}");
    }

    #[test]
    fn objects_survive_yaml_and_back() {
        let object = json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"},
                         "annotations": {"a": "yes", "b": "1", "c": "null", "d": "0644",
                                         "e": "~", "f": "", "g": " lead", "h": "a: b", "i": "#x",
                                         "j": "line 1\nline 2", "k": "2024-01-01", "l": "1e3",
                                         "m": "true", "n": "- x", "o": "*alias", "p": "é\t\"q\""}},
            "spec": {"replicas": 3, "paused": false, "progressDeadlineSeconds": 600,
                     "ratio": 0.25, "big": 12345678901234567890u64, "negative": -5,
                     "nothing": null, "empty": {}, "list": [],
                     "template": {"spec": {"containers": [{"name": "web", "image": "nginx",
                                  "args": ["--port", "80"]}]}}}
        });
        let text = to_yaml(&object).expect("yaml");
        let back = parse_documents(&text).expect("parse");
        assert_eq!(back, vec![object]);
    }

    #[test]
    fn server_order_is_kept_and_look_alike_strings_stay_quoted() {
        let json_text = r#"{"kind":"ConfigMap","apiVersion":"v1",
            "metadata":{"name":"web","namespace":"default"},
            "data":{"z":"yes","a":"1","m":"null","n":"no","b":"true","e":""}}"#;
        let text = to_yaml_in_server_order(json_text).expect("yaml");
        let position = |needle: &str| text.find(needle).unwrap_or(usize::MAX);
        assert!(position("kind:") < position("apiVersion:"), "{text}");
        assert!(position("apiVersion:") < position("metadata:"), "{text}");
        assert!(position("name: web") < position("namespace:"), "{text}");
        assert!(position("  z:") < position("  a:"), "{text}");
        for quoted in [
            r#"z: "yes""#,
            r#"a: "1""#,
            r#"m: "null""#,
            r#"b: "true""#,
            r#"e: """#,
        ] {
            assert!(text.contains(quoted), "{quoted} in {text}");
        }
        let expected: Value = serde_json::from_str(json_text).expect("json");
        assert_eq!(parse_documents(&text).expect("parse"), vec![expected]);
    }

    #[test]
    fn bad_json_is_an_error_in_server_order() {
        assert!(to_yaml_in_server_order("{\"a\": ").is_err());
        assert!(to_yaml_in_server_order("{\"a\": 1} trailing").is_err());
    }

    #[test]
    fn streams_split_on_separators_and_skip_empty_documents() {
        let text = "---\n# only a comment\n---\napiVersion: v1\nkind: ConfigMap\n---\n\n---\n\
                    apiVersion: v1\nkind: Secret\n...\n";
        let documents = parse_documents(text).expect("parse");
        assert_eq!(
            documents,
            vec![
                json!({"apiVersion": "v1", "kind": "ConfigMap"}),
                json!({"apiVersion": "v1", "kind": "Secret"})
            ]
        );
        assert_eq!(parse_documents("").expect("empty"), Vec::<Value>::new());
    }

    #[test]
    fn yaml_1_1_octal_numbers_read_as_kubectl_reads_them() {
        let documents = parse_documents("defaultMode: 0644\nother: 0o644\n").expect("parse");
        assert_eq!(documents, vec![json!({"defaultMode": 420, "other": 420})]);
    }

    #[test]
    fn errors_carry_line_and_column() {
        let error = parse_documents("a: 1\n---\nb: 2\nc: [1, 2\n").expect_err("unclosed");
        assert_eq!((error.line, error.column), (4, 4), "{error}");
        assert!(error.message.contains('['), "{error}");
        assert!(
            error.to_string().starts_with("line 4, column 4: "),
            "{error}"
        );
        let error = parse_documents("metadata:\n  name: a\n  name: b\n").expect_err("duplicate");
        assert_eq!(error.line, 3, "{error}");
        assert!(error.message.contains("duplicate"), "{error}");
        let error = parse_documents("a: b: c\n").expect_err("bad mapping");
        assert_eq!((error.line, error.column), (1, 5), "{error}");
    }

    /// The process's peak resident memory (Linux), in KiB.
    fn peak_memory_kib() -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    fn billion_laughs() -> String {
        let mut text = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        for pair in names.windows(2) {
            let aliases = vec![format!("*{}", pair[0]); 9].join(",");
            text.push_str(&format!("{}: &{} [{aliases}]\n", pair[1], pair[1]));
        }
        text
    }

    #[test]
    fn alias_bombs_fail_fast_with_a_clear_message() {
        // 9^9 (387 million) strings if expanded.
        let bomb = billion_laughs();
        assert!(bomb.len() < 1_000, "the bomb is small: {}", bomb.len());
        let peak_before = peak_memory_kib();
        let started = Instant::now();
        let error = parse_documents(&bomb).expect_err("alias bomb");
        // A debug build takes ~0.3 s; unbounded expansion would take minutes and gigabytes.
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        // The process's peak grew by less than 256 MiB (other tests run alongside, so this
        // is a loose bound; the expanded bomb would need tens of gigabytes).
        if let (Some(before), Some(after)) = (peak_before, peak_memory_kib()) {
            assert!(
                after - before < 256 * 1024,
                "peak grew {} KiB",
                after - before
            );
        }
        assert!(error.message.contains("anchors and aliases"), "{error}");
        assert!(error.line >= 1 && error.column >= 1, "{error}");
        // Many aliases of one wide anchor are caught the same way.
        let wide = format!(
            "a: &a [{}]\nb: [{}]\n",
            vec!["\"xxxxxxxxxxxxxxxx\""; 1_000].join(","),
            vec!["*a"; 5_000].join(",")
        );
        let error = parse_documents(&wide).expect_err("wide alias bomb");
        assert!(error.message.contains("anchors and aliases"), "{error}");
        // Ordinary anchors still work.
        let documents = parse_documents("base: &base {a: 1}\ncopy: *base\n").expect("anchors");
        assert_eq!(documents, vec![json!({"base": {"a": 1}, "copy": {"a": 1}})]);
    }
}
