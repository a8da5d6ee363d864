//! core/v1 Secrets: `type` defaults to Opaque; kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::default_field;
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Strategy;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::Secret;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("", "secrets", "secret", "Secret", true).build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Secret>(generator);

pub(crate) static STRATEGY: Secrets = Secrets;

pub struct Secrets;

impl Strategy for Secrets {
    fn field_selectors(&self) -> &'static [&'static str] {
        &["type"]
    }

    /// `type` defaults to Opaque; `stringData` is write-only, as in kube-apiserver's
    /// conversion: each entry is stored base64-encoded in `data` (over a `data` entry of the
    /// same key) and `stringData` itself is never stored.
    fn default_fields(&self, obj: &mut Value) {
        if let Some(m) = obj.as_object_mut() {
            default_field(m, "type", json!("Opaque"));
            if let Some(Value::Object(string_data)) = m.remove("stringData") {
                use base64::Engine as _;
                let data = m.entry("data").or_insert_with(|| json!({}));
                if !data.is_object() {
                    *data = json!({});
                }
                if let Some(data) = data.as_object_mut() {
                    for (key, value) in string_data {
                        let text = value.as_str().unwrap_or_default();
                        data.insert(
                            key,
                            json!(base64::engine::general_purpose::STANDARD.encode(text)),
                        );
                    }
                }
            }
        }
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(COLUMNS, cells))
    }
}

const COLUMNS: &[Col] = &[NAME, column("Type", 0), column("Data", 0), column("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    let entries = o["data"].as_object().map(|m| m.len()).unwrap_or(0);
    named(o, [json!(value_text(&o["type"])), json!(entries), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_defaults_to_opaque_and_prints_with_the_data_count() {
        let mut secret = json!({"metadata": {"name": "creds"},
            "data": {"username": "YQ==", "password": "Yg=="}});
        Secrets.default_fields(&mut secret);
        assert_eq!(secret["type"], "Opaque");
        let row = (Secrets.printer().unwrap().cells)(&secret);
        assert_eq!(row[..3], [json!("creds"), json!("Opaque"), json!(2)]);
        let mut tls = json!({"metadata": {"name": "tls"}, "type": "kubernetes.io/tls"});
        Secrets.default_fields(&mut tls);
        assert_eq!(tls["type"], "kubernetes.io/tls");
        assert_eq!(Secrets.field_selectors(), ["type"]);
        let mut basic = json!({"metadata": {"name": "basic"}, "data": {"username": "eA=="},
            "stringData": {"username": "admin", "password": "s3cret"}});
        Secrets.default_fields(&mut basic);
        assert_eq!(
            basic["data"],
            json!({"username": "YWRtaW4=", "password": "czNjcmV0"})
        );
        assert!(basic.get("stringData").is_none());
    }
}
