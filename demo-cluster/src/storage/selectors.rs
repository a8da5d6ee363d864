//! Label selectors (equality and set-based) and field selectors, string form as sent in
//! `labelSelector` / `fieldSelector`, plus the structured `matchLabels`/`matchExpressions` form.

use serde_json::Value;
use std::collections::BTreeMap;

use crate::names::{is_label_value, is_qualified_name};

#[derive(Debug, Clone, PartialEq)]
enum LabelOp {
    Eq(String),
    NotEq(String),
    In(Vec<String>),
    NotIn(Vec<String>),
    Exists,
    DoesNotExist,
}

#[derive(Debug, Clone, PartialEq)]
struct LabelRequirement {
    key: String,
    op: LabelOp,
}

/// A parsed label selector; the empty selector matches everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelSelector {
    requirements: Vec<LabelRequirement>,
}

/// Splits on commas that are not inside parentheses.
fn split_top_level(s: &str) -> Vec<String> {
    let mut parts = vec![];
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            parts.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    parts.push(cur);
    parts
}

impl LabelSelector {
    pub fn parse(input: &str) -> Result<Self, String> {
        let mut requirements = vec![];
        if input.trim().is_empty() {
            return Ok(LabelSelector::default());
        }
        for raw in split_top_level(input) {
            let part = raw.trim();
            if part.is_empty() {
                return Err(format!(
                    "unable to parse requirement: found '', expected: identifier in {input:?}"
                ));
            }
            let err = || format!("unable to parse requirement: {part:?}");
            let req = if let Some(key) = part.strip_prefix('!') {
                LabelRequirement {
                    key: key.trim().into(),
                    op: LabelOp::DoesNotExist,
                }
            } else if let Some((k, v)) = part.split_once("!=") {
                LabelRequirement {
                    key: k.trim().into(),
                    op: LabelOp::NotEq(v.trim().into()),
                }
            } else if let Some((k, v)) = part.split_once("==") {
                LabelRequirement {
                    key: k.trim().into(),
                    op: LabelOp::Eq(v.trim().into()),
                }
            } else if let Some((k, v)) = part.split_once('=') {
                LabelRequirement {
                    key: k.trim().into(),
                    op: LabelOp::Eq(v.trim().into()),
                }
            } else if let Some(open) = part.find('(') {
                let close = part.rfind(')').ok_or_else(err)?;
                // Nothing may follow the set but the next requirement.
                if close < open || !part[close + 1..].trim().is_empty() {
                    return Err(err());
                }
                let head: Vec<&str> = part[..open].split_whitespace().collect();
                let values: Vec<String> = part[open + 1..close]
                    .split(',')
                    .map(|v| v.trim().to_string())
                    .filter(|v| !v.is_empty())
                    .collect();
                match head.as_slice() {
                    [k, "in"] => LabelRequirement {
                        key: k.to_string(),
                        op: LabelOp::In(values),
                    },
                    [k, "notin"] => LabelRequirement {
                        key: k.to_string(),
                        op: LabelOp::NotIn(values),
                    },
                    _ => return Err(err()),
                }
            } else {
                LabelRequirement {
                    key: part.into(),
                    op: LabelOp::Exists,
                }
            };
            if !is_qualified_name(&req.key) {
                return Err(format!("invalid label key {:?}", req.key));
            }
            let values: Vec<&String> = match &req.op {
                LabelOp::Eq(v) | LabelOp::NotEq(v) => vec![v],
                LabelOp::In(vs) | LabelOp::NotIn(vs) => vs.iter().collect(),
                _ => vec![],
            };
            if let Some(bad) = values.iter().find(|v| !is_label_value(v)) {
                return Err(format!("invalid label value: {bad:?}"));
            }
            requirements.push(req);
        }
        Ok(LabelSelector { requirements })
    }

    /// From the structured form used in object specs. `None` (a null selector) matches nothing,
    /// which callers handle; here an absent selector yields the empty one.
    pub fn from_structured(sel: &Value) -> Result<Self, String> {
        let mut requirements = vec![];
        if let Some(m) = sel["matchLabels"].as_object() {
            for (k, v) in m {
                requirements.push(LabelRequirement {
                    key: k.clone(),
                    op: LabelOp::Eq(v.as_str().unwrap_or_default().into()),
                });
            }
        }
        for e in sel["matchExpressions"].as_array().into_iter().flatten() {
            let key = e["key"].as_str().unwrap_or_default().to_string();
            let values: Vec<String> = e["values"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            let op = match e["operator"].as_str() {
                Some("In") => LabelOp::In(values),
                Some("NotIn") => LabelOp::NotIn(values),
                Some("Exists") => LabelOp::Exists,
                Some("DoesNotExist") => LabelOp::DoesNotExist,
                other => return Err(format!("{other:?} is not a valid label selector operator")),
            };
            requirements.push(LabelRequirement { key, op });
        }
        Ok(LabelSelector { requirements })
    }

    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    pub fn matches_labels(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|r| {
            let v = labels.get(&r.key);
            match &r.op {
                LabelOp::Eq(x) => v == Some(x),
                LabelOp::NotEq(x) => v != Some(x),
                LabelOp::In(xs) => v.is_some_and(|v| xs.contains(v)),
                LabelOp::NotIn(xs) => !v.is_some_and(|v| xs.contains(v)),
                LabelOp::Exists => v.is_some(),
                LabelOp::DoesNotExist => v.is_none(),
            }
        })
    }

    pub fn matches(&self, obj: &Value) -> bool {
        if self.is_empty() {
            return true;
        }
        self.matches_labels(&labels_of(obj))
    }

    /// The string form (`app=nginx,tier in (web)`), as Scale.status.selector shows it.
    pub fn to_string_form(&self) -> String {
        self.requirements
            .iter()
            .map(|r| match &r.op {
                LabelOp::Eq(v) => format!("{}={v}", r.key),
                LabelOp::NotEq(v) => format!("{}!={v}", r.key),
                LabelOp::In(vs) => format!("{} in ({})", r.key, vs.join(",")),
                LabelOp::NotIn(vs) => format!("{} notin ({})", r.key, vs.join(",")),
                LabelOp::Exists => r.key.clone(),
                LabelOp::DoesNotExist => format!("!{}", r.key),
            })
            .collect::<Vec<_>>()
            .join(",")
    }
}

pub fn labels_of(obj: &Value) -> BTreeMap<String, String> {
    obj["metadata"]["labels"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

#[derive(Debug, Clone, PartialEq)]
struct FieldRequirement {
    field: String,
    equal: bool,
    value: String,
}

/// A parsed field selector (`metadata.name=foo,status.phase!=Running`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldSelector {
    requirements: Vec<FieldRequirement>,
}

impl FieldSelector {
    /// Parses `input` for a kind whose selectable fields, besides `metadata.name` and
    /// `metadata.namespace`, are `extra` (its strategy's `field_selectors`).
    pub fn parse(input: &str, extra: &[&str]) -> Result<Self, String> {
        let mut requirements = vec![];
        if input.trim().is_empty() {
            return Ok(FieldSelector::default());
        }
        for raw in input.split(',') {
            let part = raw.trim();
            let (field, equal, value) = if let Some((f, v)) = part.split_once("!=") {
                (f, false, v)
            } else if let Some((f, v)) = part.split_once("==") {
                (f, true, v)
            } else if let Some((f, v)) = part.split_once('=') {
                (f, true, v)
            } else {
                return Err(format!(
                    "invalid selector: '{input}'; can't understand '{part}'"
                ));
            };
            let field = field.trim();
            if field != "metadata.name" && field != "metadata.namespace" && !extra.contains(&field)
            {
                let mut known = vec![
                    "\"metadata.name\"".to_string(),
                    "\"metadata.namespace\"".to_string(),
                ];
                known.extend(extra.iter().map(|f| format!("{f:?}")));
                return Err(format!(
                    "{field:?} is not a known field selector: only {}",
                    known.join(", ")
                ));
            }
            requirements.push(FieldRequirement {
                field: field.into(),
                equal,
                value: value.trim().into(),
            });
        }
        Ok(FieldSelector { requirements })
    }

    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// The single `metadata.name=X` value, if the selector pins one (lets lookups skip scans).
    pub fn pinned_name(&self) -> Option<&str> {
        self.requirements
            .iter()
            .find(|r| r.equal && r.field == "metadata.name")
            .map(|r| r.value.as_str())
    }

    pub fn matches(&self, obj: &Value) -> bool {
        self.requirements
            .iter()
            .all(|r| (field_value(obj, &r.field) == r.value) == r.equal)
    }
}

/// The string a field selector compares against (missing fields compare as "").
fn field_value(obj: &Value, field: &str) -> String {
    if field == "source" {
        return obj["source"]["component"]
            .as_str()
            .unwrap_or_default()
            .to_string();
    }
    if field == "status.podIPs" {
        return obj["status"]["podIPs"][0]["ip"]
            .as_str()
            .unwrap_or_default()
            .to_string();
    }
    let mut cur = obj;
    for seg in field.split('.') {
        cur = &cur[seg];
    }
    match cur {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Null if field == "spec.unschedulable" || field == "spec.hostNetwork" => {
            "false".into()
        }
        Value::Null if field == "status.replicas" || field == "status.successful" => "0".into(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(labels: Value) -> Value {
        json!({"metadata": {"name": "a", "namespace": "ns", "labels": labels}, "spec": {"nodeName": "n1"}})
    }

    #[test]
    fn label_selector_equality_and_sets() {
        let o = obj(json!({"app": "web", "env": "prod"}));
        for (sel, want) in [
            ("app=web", true),
            ("app==web", true),
            ("app!=web", false),
            ("env in (prod,staging)", true),
            ("env notin (prod)", false),
            ("app,env", true),
            ("!release", true),
            ("release", false),
            ("app=web,env in (dev)", false),
            ("", true),
        ] {
            assert_eq!(
                LabelSelector::parse(sel).unwrap().matches(&o),
                want,
                "{sel}"
            );
        }
        assert!(LabelSelector::parse("a in (x").is_err());
        assert!(LabelSelector::parse("a=b c").is_err());
    }

    #[test]
    fn structured_selector_round_trips_to_string() {
        let s = LabelSelector::from_structured(&json!({"matchLabels": {"app": "nginx"}})).unwrap();
        assert_eq!(s.to_string_form(), "app=nginx");
    }

    #[test]
    fn field_selector_known_fields_only() {
        let o = obj(json!({}));
        let s =
            FieldSelector::parse("metadata.name=a,spec.nodeName=n1", &["spec.nodeName"]).unwrap();
        assert!(s.matches(&o));
        assert!(!FieldSelector::parse("metadata.name!=a", &[])
            .unwrap()
            .matches(&o));
        let err = FieldSelector::parse("foo.bar=x", &[]).unwrap_err();
        assert_eq!(err, "\"foo.bar\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
    }
}
