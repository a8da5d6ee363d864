//! resource.k8s.io/v1 DeviceClasses (dynamic resource allocation): Name and Age only, as
//! kubectl prints them (ResourceClaimTemplates too).

use serde_json::Value;

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::resource::v1::DeviceClass;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("resource.k8s.io", "deviceclasses", "DeviceClass", false).build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<DeviceClass>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(AGE_COLUMNS, age_cells));

const AGE_COLUMNS: &[Col] = &[NAME, column("Age", 0)];

fn age_cells(o: &Value) -> Vec<Value> {
    named(o, [age(o)])
}
