//! One-label and one-annotation edits as JSON merge patches (`kubectl label` /
//! `kubectl annotate`), with the key and value checked as the server would.

use serde_json::{json, Value};

/// Which string map of the metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataMap {
    Labels,
    Annotations,
}

impl MetadataMap {
    pub fn field(self) -> &'static str {
        match self {
            MetadataMap::Labels => "labels",
            MetadataMap::Annotations => "annotations",
        }
    }
}

/// The merge patch (`application/merge-patch+json`) that sets `key` to `value`, or with
/// `None` removes it: `{"metadata":{"labels":{"app":"web"}}}`, `{"metadata":{"labels":{"app":null}}}`.
pub fn metadata_entry_patch(map: MetadataMap, key: &str, value: Option<&str>) -> Value {
    let value = value.map_or(Value::Null, |v| Value::String(v.to_string()));
    json!({"metadata": {map.field(): {key: value}}})
}

/// Longest name part of a key, and of a label value.
const MAX_NAME: usize = 63;
/// Longest key prefix (a DNS subdomain).
const MAX_PREFIX: usize = 253;
/// All annotations of an object together.
const MAX_ANNOTATIONS_BYTES: usize = 256 * 1024;

/// Whether the server would accept `key` = `value` in `map`, with its reason when not.
pub fn check_metadata_entry(map: MetadataMap, key: &str, value: &str) -> Result<(), String> {
    check_key(key)?;
    match map {
        MetadataMap::Labels if value.is_empty() => Ok(()),
        MetadataMap::Labels => check_name_part(value, "a label value"),
        MetadataMap::Annotations if key.len() + value.len() > MAX_ANNOTATIONS_BYTES => Err(
            format!("annotations may hold {MAX_ANNOTATIONS_BYTES} bytes in all"),
        ),
        MetadataMap::Annotations => Ok(()),
    }
}

/// `[prefix/]name`: a DNS subdomain prefix, then a name part.
fn check_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        check_prefix(prefix)?;
    }
    if name.is_empty() {
        return Err("the key needs a name".into());
    }
    check_name_part(name, "the key's name")
}

fn check_prefix(prefix: &str) -> Result<(), String> {
    let lowercase_label = |label: &str| {
        !label.is_empty()
            && label
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    if prefix.len() > MAX_PREFIX || !prefix.split('.').all(lowercase_label) {
        return Err(format!(
            "the key's prefix {prefix:?} must be a DNS subdomain (lowercase letters, digits, \
             '-' and '.', at most {MAX_PREFIX} characters)"
        ));
    }
    Ok(())
}

/// At most 63 characters of letters, digits, `-`, `_` and `.`, starting and ending with a
/// letter or digit.
fn check_name_part(text: &str, what: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let edges = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let valid = text.len() <= MAX_NAME
        && text.chars().all(allowed)
        && edges(text.chars().next())
        && edges(text.chars().last());
    if valid {
        Ok(())
    } else {
        Err(format!(
            "{what} {text:?} must be at most {MAX_NAME} letters, digits, '-', '_' or '.', \
             starting and ending with a letter or digit"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_set_and_remove_one_entry() {
        assert_eq!(
            metadata_entry_patch(MetadataMap::Labels, "app", Some("web")).to_string(),
            r#"{"metadata":{"labels":{"app":"web"}}}"#
        );
        assert_eq!(
            metadata_entry_patch(MetadataMap::Annotations, "example.com/note", None).to_string(),
            r#"{"metadata":{"annotations":{"example.com/note":null}}}"#
        );
    }

    #[test]
    fn label_keys_and_values_are_checked_as_the_server_does() {
        let label = |key: &str, value: &str| check_metadata_entry(MetadataMap::Labels, key, value);
        assert_eq!(label("app", "web"), Ok(()));
        assert_eq!(label("app.kubernetes.io/name", "web-1.2_x"), Ok(()));
        assert_eq!(label("app", ""), Ok(()));
        assert!(label("", "x").is_err());
        assert!(label("bad key", "x").is_err());
        assert!(label("Example.com/app", "x").is_err(), "uppercase prefix");
        assert!(label("example.com/", "x").is_err());
        assert!(label("app", "-web").is_err());
        assert!(label("app", &"x".repeat(64)).is_err());
        assert!(label(&"k".repeat(64), "x").is_err());
        let refused = label("app", "has space").expect_err("refused");
        assert!(refused.contains("label value"), "{refused}");
    }

    #[test]
    fn annotation_values_are_free_text() {
        let annotate =
            |key: &str, value: &str| check_metadata_entry(MetadataMap::Annotations, key, value);
        assert_eq!(annotate("note", "any text: with spaces\nand lines"), Ok(()));
        assert!(annotate("bad key", "x").is_err());
        assert!(annotate("note", &"x".repeat(300 * 1024)).is_err());
    }
}
