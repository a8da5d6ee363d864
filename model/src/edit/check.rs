//! Checks of an edited document against the page it was edited on, before anything is sent:
//! the server would refuse most of these too, but later and in its own words, and a changed
//! name or namespace would silently become a create.

use std::fmt;

use serde_json::{Map, Value};

use crate::api::endpoints::MappingError;
use crate::api::tree::ResourceRef;
use crate::object::yaml::{parse_documents, YamlError};

/// The object a page edits or creates: a document saved there must be of this kind, and keep
/// this name and namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditTarget {
    /// `v1`, `apps/v1`.
    pub api_version: String,
    pub kind: String,
    pub namespaced: bool,
    /// The page's namespace; `None` on a cluster-scoped kind, or when creating from an
    /// all-namespaces list.
    pub namespace: Option<String>,
    /// The object being edited; `None` when creating.
    pub name: Option<String>,
}

impl EditTarget {
    /// The target for `resource`, in `namespace` (ignored for a cluster-scoped kind), editing
    /// `name` or creating when `name` is `None`.
    pub fn new(resource: &ResourceRef<'_>, namespace: Option<&str>, name: Option<&str>) -> Self {
        let namespaced = resource.resource.namespaced;
        EditTarget {
            api_version: resource.api_version(),
            kind: resource.resource.kind.clone(),
            namespaced,
            namespace: namespace.filter(|_| namespaced).map(str::to_string),
            name: name.map(str::to_string),
        }
    }

    pub fn is_create(&self) -> bool {
        self.name.is_none()
    }
}

/// Why a document cannot be saved as it is, in words for the person who typed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditProblem {
    /// The text is not YAML (nor JSON).
    Yaml(YamlError),
    /// One object is saved at a time; this many documents were found.
    DocumentCount {
        found: usize,
    },
    /// A list, a string, a number...: what the document is instead.
    NotAnObject {
        found: &'static str,
    },
    MetadataNotAnObject,
    /// `apiVersion` or `kind`.
    MissingField {
        field: &'static str,
    },
    WrongApiVersion {
        expected: String,
        found: String,
    },
    WrongKind {
        expected: String,
        found: String,
    },
    /// An existing object's name was changed or removed.
    NameChanged {
        expected: String,
        found: Option<String>,
    },
    /// A new object has neither `metadata.name` nor `metadata.generateName`.
    MissingName,
    /// A namespaced kind without a namespace; `expected` is the edited object's.
    MissingNamespace {
        kind: String,
        expected: Option<String>,
    },
    WrongNamespace {
        expected: String,
        found: String,
    },
    NamespaceOnClusterScoped {
        kind: String,
        namespace: String,
    },
    /// Discovery has no such apiVersion and kind.
    UnknownKind {
        api_version: String,
        kind: String,
        error: MappingError,
    },
    /// The resource's verbs do not include `create`.
    NotCreatable {
        kind: String,
        resource: String,
    },
}

impl fmt::Display for EditProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditProblem::Yaml(error) => write!(
                f,
                "The YAML cannot be read at line {}, column {}: {}",
                error.line, error.column, error.message
            ),
            EditProblem::DocumentCount { found: 0 } => {
                f.write_str("The document is empty: there is nothing to save.")
            }
            EditProblem::DocumentCount { found } => write!(
                f,
                "The text holds {found} documents: save one object at a time (several are \
                 created from YAML on the create page)."
            ),
            EditProblem::NotAnObject { found } => write!(
                f,
                "The document is {found}, not an object: it needs apiVersion, kind and metadata \
                 at the top level."
            ),
            EditProblem::MetadataNotAnObject => f.write_str(
                "metadata must be a map of fields (name, namespace, labels, ...), not a single value.",
            ),
            EditProblem::MissingField { field } => {
                write!(f, "The document has no {field}.")
            }
            EditProblem::WrongApiVersion { expected, found } => write!(
                f,
                "apiVersion must be {expected:?} (the version this page edits), not {found:?}."
            ),
            EditProblem::WrongKind { expected, found } => write!(
                f,
                "kind must be {expected:?} (the kind this page edits), not {found:?}."
            ),
            EditProblem::NameChanged {
                expected,
                found: Some(found),
            } => write!(
                f,
                "metadata.name must stay {expected:?}, not {found:?}: an object cannot be \
                 renamed (create a copy under the new name instead)."
            ),
            EditProblem::NameChanged {
                expected,
                found: None,
            } => write!(
                f,
                "metadata.name is missing: it must stay {expected:?}, the name of this object."
            ),
            EditProblem::MissingName => f.write_str(
                "metadata.name (or metadata.generateName) is needed to create an object.",
            ),
            EditProblem::MissingNamespace {
                kind,
                expected: Some(expected),
            } => write!(
                f,
                "metadata.namespace is missing: this {kind} is in namespace {expected:?}."
            ),
            EditProblem::MissingNamespace {
                kind,
                expected: None,
            } => write!(
                f,
                "{kind} objects live in a namespace: set metadata.namespace (no namespace is \
                 selected to default to)."
            ),
            EditProblem::WrongNamespace { expected, found } => write!(
                f,
                "metadata.namespace must be {expected:?} (the namespace of this page), not \
                 {found:?}: objects cannot move between namespaces."
            ),
            EditProblem::NamespaceOnClusterScoped { kind, namespace } => write!(
                f,
                "{kind} objects are cluster-scoped: remove metadata.namespace ({namespace:?})."
            ),
            EditProblem::UnknownKind {
                api_version,
                kind,
                error: MappingError::GroupVersionNotServed { .. },
            } => write!(
                f,
                "The server does not serve {api_version:?}, so it has no {kind:?} (check the \
                 apiVersion; a custom kind needs its CustomResourceDefinition installed)."
            ),
            EditProblem::UnknownKind {
                api_version,
                kind,
                error: MappingError::NoKind { .. },
            } => write!(
                f,
                "The server has no kind {kind:?} in {api_version:?} (check the kind's spelling; \
                 a custom kind needs its CustomResourceDefinition installed)."
            ),
            EditProblem::UnknownKind { error, .. } => write!(f, "{error}."),
            EditProblem::NotCreatable { kind, resource } => write!(
                f,
                "The server does not allow creating {kind} objects ({resource} has no create \
                 verb)."
            ),
        }
    }
}

impl std::error::Error for EditProblem {}

/// Whether `document` can be saved on the page of `target`. The first problem found is
/// returned. On create, a missing namespace is fine when the page has one to default to
/// (see [`fill_default_namespace`]).
pub fn check_document(target: &EditTarget, document: &Value) -> Result<(), EditProblem> {
    let fields = as_object(document)?;
    let metadata = metadata_of(fields)?;
    let api_version = required_text(fields, "apiVersion")?;
    if api_version != target.api_version {
        return Err(EditProblem::WrongApiVersion {
            expected: target.api_version.clone(),
            found: api_version,
        });
    }
    let kind = required_text(fields, "kind")?;
    if kind != target.kind {
        return Err(EditProblem::WrongKind {
            expected: target.kind.clone(),
            found: kind,
        });
    }
    check_name(target, metadata)?;
    check_namespace(target, metadata)
}

/// The editor's text as the object to save on the page of `target`: one YAML (or JSON)
/// document, its namespace defaulted when creating, checked by [`check_document`].
pub fn document_to_save(target: &EditTarget, text: &str) -> Result<Value, EditProblem> {
    let mut documents = parse_documents(text).map_err(EditProblem::Yaml)?;
    let mut document = match documents.len() {
        1 => documents.remove(0),
        found => return Err(EditProblem::DocumentCount { found }),
    };
    if target.is_create() {
        fill_default_namespace(&mut document, target);
    }
    check_document(target, &document)?;
    Ok(document)
}

/// Sets `metadata.namespace` to the page's namespace when a document for a namespaced kind
/// has none, as kubectl does with the current namespace. Returns whether it did.
pub fn fill_default_namespace(document: &mut Value, target: &EditTarget) -> bool {
    match (&target.namespace, target.namespaced) {
        (Some(namespace), true) => set_namespace_if_missing(document, namespace),
        _ => false,
    }
}

pub(crate) fn set_namespace_if_missing(document: &mut Value, namespace: &str) -> bool {
    let Some(fields) = document.as_object_mut() else {
        return false;
    };
    let metadata = fields
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(metadata) = metadata.as_object_mut() else {
        return false;
    };
    if text_of(metadata.get("namespace")).is_some() {
        return false;
    }
    metadata.insert("namespace".into(), Value::String(namespace.to_string()));
    true
}

pub(crate) fn as_object(document: &Value) -> Result<&Map<String, Value>, EditProblem> {
    let found = match document {
        Value::Object(fields) => return Ok(fields),
        Value::Array(_) => "a list",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "true or false",
        Value::Null => "empty",
    };
    Err(EditProblem::NotAnObject { found })
}

/// The metadata map, `None` when absent (then the missing name is what gets reported).
pub(crate) fn metadata_of(fields: &Map<String, Value>) -> Result<Option<&Metadata>, EditProblem> {
    match fields.get("metadata") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(metadata)) => Ok(Some(metadata)),
        Some(_) => Err(EditProblem::MetadataNotAnObject),
    }
}

pub(crate) type Metadata = Map<String, Value>;

/// One metadata field as text (see [`text_of`]).
pub(crate) fn metadata_text(metadata: Option<&Metadata>, field: &str) -> Option<String> {
    text_of(metadata?.get(field))
}

pub(crate) fn required_text(
    fields: &Map<String, Value>,
    field: &'static str,
) -> Result<String, EditProblem> {
    text_of(fields.get(field)).ok_or(EditProblem::MissingField { field })
}

/// A field as text: strings as they are, other values as JSON; absent, null and `""` as
/// `None`.
pub(crate) fn text_of(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::Null => None,
        Value::String(text) if text.is_empty() => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

pub(crate) fn has_name(metadata: Option<&Metadata>) -> bool {
    metadata_text(metadata, "name").is_some() || metadata_text(metadata, "generateName").is_some()
}

fn check_name(target: &EditTarget, metadata: Option<&Metadata>) -> Result<(), EditProblem> {
    match &target.name {
        None if has_name(metadata) => Ok(()),
        None => Err(EditProblem::MissingName),
        Some(expected) => {
            let found = metadata_text(metadata, "name");
            if found.as_ref() == Some(expected) {
                Ok(())
            } else {
                Err(EditProblem::NameChanged {
                    expected: expected.clone(),
                    found,
                })
            }
        }
    }
}

fn check_namespace(target: &EditTarget, metadata: Option<&Metadata>) -> Result<(), EditProblem> {
    let found = metadata_text(metadata, "namespace");
    if !target.namespaced {
        return match found {
            Some(namespace) => Err(EditProblem::NamespaceOnClusterScoped {
                kind: target.kind.clone(),
                namespace,
            }),
            None => Ok(()),
        };
    }
    match (found, &target.namespace) {
        (Some(found), Some(expected)) if &found != expected => Err(EditProblem::WrongNamespace {
            expected: expected.clone(),
            found,
        }),
        (Some(_), _) => Ok(()),
        // Creating: the page's namespace will be filled in.
        (None, Some(_)) if target.is_create() => Ok(()),
        (None, expected) => Err(EditProblem::MissingNamespace {
            kind: target.kind.clone(),
            expected: expected.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::tree::tests::sample_tree;
    use crate::api::tree::ResourceId;
    use serde_json::json;

    fn editing_web() -> EditTarget {
        EditTarget {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespaced: true,
            namespace: Some("default".into()),
            name: Some("web".into()),
        }
    }

    fn creating() -> EditTarget {
        EditTarget {
            name: None,
            ..editing_web()
        }
    }

    fn web() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "web", "namespace": "default"}, "spec": {}})
    }

    fn problem(target: &EditTarget, document: Value) -> EditProblem {
        check_document(target, &document).expect_err("a problem")
    }

    #[test]
    fn the_edited_object_passes() {
        assert_eq!(check_document(&editing_web(), &web()), Ok(()));
    }

    #[test]
    fn documents_that_are_not_objects_are_refused() {
        let refused = problem(&editing_web(), json!([web()]));
        assert_eq!(refused, EditProblem::NotAnObject { found: "a list" });
        assert!(refused.to_string().contains("is a list, not an object"));
        assert_eq!(
            problem(&editing_web(), json!("web")),
            EditProblem::NotAnObject { found: "a string" }
        );
        let mut odd = web();
        odd["metadata"] = json!("web");
        assert_eq!(
            problem(&editing_web(), odd),
            EditProblem::MetadataNotAnObject
        );
    }

    #[test]
    fn kind_and_api_version_must_be_the_pages() {
        let mut other = web();
        other["kind"] = json!("StatefulSet");
        let refused = problem(&editing_web(), other);
        assert!(
            refused.to_string().contains("\"Deployment\"")
                && refused.to_string().contains("\"StatefulSet\""),
            "{refused}"
        );
        let mut other = web();
        other["apiVersion"] = json!("apps/v1beta1");
        assert!(matches!(
            problem(&editing_web(), other),
            EditProblem::WrongApiVersion { .. }
        ));
        let mut missing = web();
        missing.as_object_mut().map(|f| f.remove("kind"));
        let refused = problem(&editing_web(), missing);
        assert_eq!(refused, EditProblem::MissingField { field: "kind" });
        assert_eq!(refused.to_string(), "The document has no kind.");
    }

    #[test]
    fn existing_objects_keep_their_name() {
        let mut renamed = web();
        renamed["metadata"]["name"] = json!("web-2");
        let refused = problem(&editing_web(), renamed);
        assert!(
            refused.to_string().contains("cannot be renamed"),
            "{refused}"
        );
        let mut unnamed = web();
        unnamed["metadata"]
            .as_object_mut()
            .map(|m| m.remove("name"));
        assert_eq!(
            problem(&editing_web(), unnamed),
            EditProblem::NameChanged {
                expected: "web".into(),
                found: None
            }
        );
    }

    #[test]
    fn namespaces_must_match_the_page() {
        let mut moved = web();
        moved["metadata"]["namespace"] = json!("kube-system");
        let refused = problem(&editing_web(), moved.clone());
        assert!(refused.to_string().contains("\"kube-system\""), "{refused}");
        assert!(matches!(
            problem(&creating(), moved),
            EditProblem::WrongNamespace { .. }
        ));
        let mut without = web();
        without["metadata"]
            .as_object_mut()
            .map(|m| m.remove("namespace"));
        assert_eq!(
            problem(&editing_web(), without.clone()),
            EditProblem::MissingNamespace {
                kind: "Deployment".into(),
                expected: Some("default".into())
            }
        );
        // Creating defaults to the page's namespace.
        assert_eq!(check_document(&creating(), &without), Ok(()));
        let mut filled = without.clone();
        assert!(fill_default_namespace(&mut filled, &creating()));
        assert_eq!(filled["metadata"]["namespace"], json!("default"));
        assert!(
            !fill_default_namespace(&mut filled, &creating()),
            "already set"
        );
        // With no namespace to default to, it must be written.
        let nowhere = EditTarget {
            namespace: None,
            ..creating()
        };
        assert!(!fill_default_namespace(&mut without.clone(), &nowhere));
        let refused = problem(&nowhere, without);
        assert!(
            refused.to_string().contains("set metadata.namespace"),
            "{refused}"
        );
    }

    #[test]
    fn cluster_scoped_kinds_have_no_namespace() {
        let target = EditTarget {
            api_version: "v1".into(),
            kind: "Namespace".into(),
            namespaced: false,
            namespace: None,
            name: None,
        };
        let mut document = json!({"apiVersion": "v1", "kind": "Namespace",
                                  "metadata": {"name": "team-a"}});
        assert_eq!(check_document(&target, &document), Ok(()));
        assert!(!fill_default_namespace(&mut document, &target));
        document["metadata"]["namespace"] = json!("default");
        let refused = problem(&target, document);
        assert!(refused.to_string().contains("cluster-scoped"), "{refused}");
    }

    #[test]
    fn new_objects_need_a_name_or_generate_name() {
        let mut unnamed = web();
        unnamed["metadata"] = json!({"namespace": "default"});
        assert_eq!(
            problem(&creating(), unnamed.clone()),
            EditProblem::MissingName
        );
        unnamed["metadata"]["generateName"] = json!("web-");
        assert_eq!(check_document(&creating(), &unnamed), Ok(()));
        let bare = json!({"apiVersion": "apps/v1", "kind": "Deployment"});
        assert_eq!(problem(&creating(), bare), EditProblem::MissingName);
    }

    #[test]
    fn the_editors_text_becomes_one_checked_document() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n";
        let document = document_to_save(&creating(), text).expect("saved");
        assert_eq!(document["metadata"]["namespace"], json!("default"));
        // Editing: the namespace is not filled in, so its absence is reported.
        assert!(matches!(
            document_to_save(&editing_web(), text),
            Err(EditProblem::MissingNamespace { .. })
        ));
        let refused = document_to_save(&creating(), "kind: [").expect_err("bad yaml");
        assert!(matches!(refused, EditProblem::Yaml(_)));
        assert!(refused.to_string().contains("line 1, column"), "{refused}");
        let two = format!("{text}---\n{text}");
        assert_eq!(
            document_to_save(&creating(), &two),
            Err(EditProblem::DocumentCount { found: 2 })
        );
        let refused = document_to_save(&creating(), "# nothing\n").expect_err("empty");
        assert!(refused.to_string().contains("empty"), "{refused}");
        // JSON is YAML too.
        let json_text = r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"}}"#;
        assert!(document_to_save(&editing_web(), json_text).is_ok());
    }

    #[test]
    fn targets_come_from_discovery() {
        let tree = sample_tree();
        let deployments = tree
            .find(&ResourceId::new("apps", "v1", "deployments"))
            .expect("deployments");
        let target = EditTarget::new(&deployments, Some("default"), Some("web"));
        assert_eq!(target, editing_web());
        let namespaces = tree
            .find(&ResourceId::new("", "v1", "namespaces"))
            .expect("namespaces");
        let target = EditTarget::new(&namespaces, Some("default"), None);
        assert!(target.is_create() && !target.namespaced && target.namespace.is_none());
    }
}
