//! YAML text of API objects, as `kubectl get -o yaml` shows them, through serde-saphyr.

use serde_json::Value;

/// The object as YAML. Strings that would read as another type (`"yes"`, `"1"`, `"null"`) stay
/// quoted, so the text means what the JSON means.
pub fn to_yaml(value: &Value) -> Result<String, String> {
    serde_saphyr::to_string(value).map_err(|e| format!("cannot write YAML: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
