//! core/v1 ConfigMaps: kubectl's columns (data count).

use serde_json::{json, Value};

use super::printing::{age, c, named, Col, Printer, NAME};
use super::Printed;

pub static CONFIG_MAPS: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, c("Data", 0), c("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    let entries = o["data"].as_object().map(|m| m.len()).unwrap_or(0)
        + o["binaryData"].as_object().map(|m| m.len()).unwrap_or(0);
    named(o, [json!(entries), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_counts_both_text_and_binary_entries() {
        let cm = json!({"metadata": {"name": "cfg"}, "data": {"a": "1", "b": "2"},
            "binaryData": {"c": "AA=="}});
        assert_eq!(cells(&cm)[..2], [json!("cfg"), json!(3)]);
        assert_eq!(cells(&json!({"metadata": {"name": "empty"}}))[1], 0);
        // Declared `string` by kube-apiserver's printer, the cell a number all the same.
        assert_eq!(COLUMNS[1].kind, "string");
    }
}
