//! Creating objects from YAML, `kubectl apply -f` style: each document of the text becomes a
//! POST to the collection its apiVersion and kind map to through discovery (never a plural
//! built from the kind: `Endpoints`, `Ingress` and custom resources would go wrong).

use serde_json::{Map, Value};

use super::check::{
    as_object, has_name, metadata_of, metadata_text, required_text, set_namespace_if_missing,
    EditProblem,
};
use crate::api::endpoints::{kind_to_resource, split_api_version, NamespaceArg};
use crate::api::request::ApiRequest;
use crate::api::tree::{ApiTree, ResourceId, ResourceRef};

/// One object to create: where to POST what.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatePlan {
    pub resource: ResourceId,
    pub api_version: String,
    pub kind: String,
    /// `None` for a cluster-scoped kind.
    pub namespace: Option<String>,
    /// `metadata.name`, or `None` when the server generates it from `generate_name`.
    pub name: Option<String>,
    pub generate_name: Option<String>,
    /// The collection to POST to: `/apis/apps/v1/namespaces/default/deployments`.
    pub path: String,
    /// The document as sent, its namespace filled in where it was defaulted.
    pub body: Value,
    /// How kubectl names it in its output: `deployment.apps/web`, `configmap/cfg`.
    pub label: String,
}

impl CreatePlan {
    /// The POST that creates it (add query options with [`ApiRequest::with_options`]).
    pub fn request(&self) -> ApiRequest {
        ApiRequest::create(&self.path, self.body.to_string())
    }
}

/// A plan per object of `documents`, in order; `kind: List` documents count as their items.
/// Namespaced objects without a namespace go to `default_namespace`.
pub fn plan_creates(
    tree: &ApiTree,
    documents: Vec<Value>,
    default_namespace: Option<&str>,
) -> Vec<Result<CreatePlan, EditProblem>> {
    expand_lists(documents)
        .into_iter()
        .map(|document| plan_create(tree, document, default_namespace))
        .collect()
}

/// Replaces each list document (`kind: List`, `PodList`... with `items`) by its items, as
/// `kubectl get -o yaml` of several objects prints them. Items of a typed list without their
/// own apiVersion and kind (as the API lists them) take the list's.
pub fn expand_lists(documents: Vec<Value>) -> Vec<Value> {
    documents.into_iter().flat_map(list_items).collect()
}

fn list_items(document: Value) -> Vec<Value> {
    let Value::Object(mut fields) = document else {
        return vec![document];
    };
    let Some(item_kind) = list_item_kind(&fields) else {
        return vec![Value::Object(fields)];
    };
    let api_version = fields.get("apiVersion").cloned();
    let Some(Value::Array(items)) = fields.remove("items") else {
        return Vec::new();
    };
    items
        .into_iter()
        .map(|mut item| {
            if let (Some(item_fields), false) = (item.as_object_mut(), item_kind.is_empty()) {
                default_field(item_fields, "kind", Some(Value::String(item_kind.clone())));
                default_field(item_fields, "apiVersion", api_version.clone());
            }
            item
        })
        .collect()
}

/// For a list document, the kind of its items (`Pod` for `PodList`, empty for `List`).
fn list_item_kind(fields: &Map<String, Value>) -> Option<String> {
    let kind = fields.get("kind")?.as_str()?.strip_suffix("List")?;
    fields
        .get("items")
        .is_some_and(Value::is_array)
        .then(|| kind.to_string())
}

fn default_field(fields: &mut Map<String, Value>, field: &str, value: Option<Value>) {
    if let (false, Some(value)) = (fields.contains_key(field), value) {
        fields.insert(field.to_string(), value);
    }
}

fn plan_create(
    tree: &ApiTree,
    mut document: Value,
    default_namespace: Option<&str>,
) -> Result<CreatePlan, EditProblem> {
    let fields = as_object(&document)?;
    let metadata = metadata_of(fields)?;
    let api_version = required_text(fields, "apiVersion")?;
    let kind = required_text(fields, "kind")?;
    let resource = resolve_kind(tree, &api_version, &kind)?;
    if !resource.resource.supports("create") {
        return Err(EditProblem::NotCreatable {
            kind,
            resource: resource.resource.plural.clone(),
        });
    }
    if !has_name(metadata) {
        return Err(EditProblem::MissingName);
    }
    let namespace = namespace_for(
        &resource,
        metadata_text(metadata, "namespace"),
        default_namespace,
    )?;
    let name = metadata_text(metadata, "name");
    let generate_name = metadata_text(metadata, "generateName");
    if let Some(namespace) = &namespace {
        set_namespace_if_missing(&mut document, namespace);
    }
    let scope = namespace
        .as_deref()
        .map_or(NamespaceArg::All, NamespaceArg::Named);
    Ok(CreatePlan {
        resource: resource.id(),
        label: label(&resource, name.as_deref(), generate_name.as_deref()),
        path: resource.collection_path(scope).template(),
        api_version,
        kind,
        namespace,
        name,
        generate_name,
        body: document,
    })
}

fn resolve_kind<'a>(
    tree: &'a ApiTree,
    api_version: &str,
    kind: &str,
) -> Result<ResourceRef<'a>, EditProblem> {
    let (group, version) = split_api_version(api_version);
    kind_to_resource(tree, group, version, kind).map_err(|error| EditProblem::UnknownKind {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        error,
    })
}

/// The namespace to create in: the document's, else the default; none for cluster scope.
fn namespace_for(
    resource: &ResourceRef<'_>,
    written: Option<String>,
    default_namespace: Option<&str>,
) -> Result<Option<String>, EditProblem> {
    let kind = &resource.resource.kind;
    match (resource.resource.namespaced, written) {
        (true, Some(namespace)) => Ok(Some(namespace)),
        (true, None) => default_namespace
            .filter(|namespace| !namespace.is_empty())
            .map(|namespace| Some(namespace.to_string()))
            .ok_or_else(|| EditProblem::MissingNamespace {
                kind: kind.clone(),
                expected: None,
            }),
        (false, Some(namespace)) => Err(EditProblem::NamespaceOnClusterScoped {
            kind: kind.clone(),
            namespace,
        }),
        (false, None) => Ok(None),
    }
}

fn label(resource: &ResourceRef<'_>, name: Option<&str>, generate_name: Option<&str>) -> String {
    let singular = match resource.resource.singular.as_str() {
        "" => resource.resource.kind.to_ascii_lowercase(),
        singular => singular.to_string(),
    };
    let group = &resource.group.name;
    let kind = if group.is_empty() {
        singular
    } else {
        format!("{singular}.{group}")
    };
    match (name, generate_name) {
        (Some(name), _) => format!("{kind}/{name}"),
        (None, Some(prefix)) => format!("{kind}/{prefix}*"),
        (None, None) => kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::discovery::{
        parse_aggregated, parse_resource_list, resources_from_legacy, tree_from_aggregated,
    };
    use crate::api::tree::tests::sample_tree;
    use crate::api::tree::{ApiGroup, GroupVersion, TreeErrors};
    use crate::object::yaml::parse_documents;
    use serde_json::json;

    const FIXTURES: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/fixtures/discovery"
    );

    /// The tree a client sees of the recorded cluster: core from `/api/v1`, groups from
    /// aggregated `/apis`. The build script ignores the tests using it when the fixtures
    /// are absent (never in CI), so reaching here without them is a failure.
    fn fixture_tree() -> ApiTree {
        let read = |name: &str| {
            std::fs::read_to_string(format!("{FIXTURES}/{name}"))
                .unwrap_or_else(|e| panic!("the shared discovery fixture {name}: {e}"))
        };
        let apis = parse_aggregated(&read("aggregated_v2.json")).expect("aggregated_v2.json");
        let mut tree = tree_from_aggregated(None, apis).tree;
        let core = parse_resource_list(&read("api__v1.json")).expect("api__v1.json");
        let resources = resources_from_legacy(&core, "", "v1", &mut TreeErrors::default());
        tree.merge_group(ApiGroup::new(
            "",
            vec![GroupVersion::new("v1", false, resources)],
            Some("v1"),
        ));
        ApiTree::new(std::sync::Arc::unwrap_or_clone(tree.groups))
    }

    fn planned(results: Vec<Result<CreatePlan, EditProblem>>) -> Vec<CreatePlan> {
        results
            .into_iter()
            .map(|result| result.unwrap_or_else(|problem| panic!("{problem}")))
            .collect()
    }

    #[test]
    #[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
    fn documents_map_to_collections_through_discovery() {
        let tree = fixture_tree();
        let text = r#"
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data: {a: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: prod}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {generateName: web-}
---
apiVersion: v1
kind: Endpoints
metadata: {name: db}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"#;
        let documents = parse_documents(text).expect("yaml");
        let plans = planned(plan_creates(&tree, documents, Some("team-a")));
        let paths: Vec<&str> = plans.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            vec![
                "/api/v1/namespaces/team-a/configmaps",
                "/apis/apps/v1/namespaces/prod/deployments",
                "/apis/networking.k8s.io/v1/namespaces/team-a/ingresses",
                "/api/v1/namespaces/team-a/endpoints",
                "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                "/apis/scheduling.k8s.io/v1/priorityclasses",
            ]
        );
        let labels: Vec<&str> = plans.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(
            labels,
            vec![
                "configmap/cfg",
                "deployment.apps/web",
                "ingress.networking.k8s.io/web-*",
                "endpoints/db",
                "clusterrole.rbac.authorization.k8s.io/reader",
                "priorityclass.scheduling.k8s.io/high",
            ]
        );
        // The defaulted namespace is in the body, so body and URL agree.
        assert_eq!(plans[0].body["metadata"]["namespace"], json!("team-a"));
        assert_eq!(plans[0].namespace.as_deref(), Some("team-a"));
        assert_eq!(plans[2].name, None);
        assert_eq!(plans[2].generate_name.as_deref(), Some("web-"));
        assert_eq!(plans[4].namespace, None);
        assert_eq!(plans[4].body.pointer("/metadata/namespace"), None);
        let request = plans[1].request();
        assert_eq!(request.path, "/apis/apps/v1/namespaces/prod/deployments");
        assert_eq!(request.verb.method(), "POST");
    }

    #[test]
    #[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
    fn documents_that_cannot_be_created_say_why() {
        let tree = fixture_tree();
        let documents = vec![
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}),
            json!({"apiVersion": "apps/v1", "kind": "Deployment"}),
            json!({"apiVersion": "v1", "kind": "Namespace",
                   "metadata": {"name": "n", "namespace": "default"}}),
            json!({"apiVersion": "v1", "kind": "ComponentStatus", "metadata": {"name": "c"}}),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}),
            json!("just text"),
            json!({"kind": "Secret", "metadata": {"name": "s"}}),
        ];
        let results = plan_creates(&tree, documents, None);
        let problems: Vec<EditProblem> = results
            .into_iter()
            .map(|result| result.expect_err("a problem"))
            .collect();
        assert!(matches!(problems[0], EditProblem::UnknownKind { .. }));
        assert_eq!(
            problems[0].to_string(),
            "The server does not serve \"example.com/v1\", so it has no \"Widget\" (check the \
             apiVersion; a custom kind needs its CustomResourceDefinition installed)."
        );
        assert_eq!(problems[1], EditProblem::MissingName);
        assert!(matches!(
            problems[2],
            EditProblem::NamespaceOnClusterScoped { .. }
        ));
        assert!(matches!(problems[3], EditProblem::NotCreatable { .. }));
        assert_eq!(
            problems[4],
            EditProblem::MissingNamespace {
                kind: "Secret".into(),
                expected: None
            }
        );
        assert_eq!(problems[5], EditProblem::NotAnObject { found: "a string" });
        assert_eq!(
            problems[6],
            EditProblem::MissingField {
                field: "apiVersion"
            }
        );
    }

    #[test]
    fn lists_are_created_item_by_item() {
        let mut tree = sample_tree();
        let documents = vec![
            json!({"apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}},
                {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "b"}}]}),
            json!({"apiVersion": "example.com/v1", "kind": "WidgetList",
                   "items": [{"metadata": {"name": "w", "namespace": "x"}}]}),
        ];
        let plans = planned(plan_creates(&tree, documents.clone(), Some("default")));
        let paths: Vec<&str> = plans.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            vec![
                "/api/v1/namespaces/default/pods",
                "/apis/apps/v1/namespaces/default/deployments",
                "/apis/example.com/v1/namespaces/x/widgets",
            ]
        );
        assert_eq!(plans[2].body["kind"], json!("Widget"));
        // A resource whose verbs leave out create.
        let core = std::sync::Arc::make_mut(&mut tree.groups)
            .iter_mut()
            .find(|g| g.is_core())
            .expect("core");
        for resource in &mut core.versions[0].resources {
            resource.verbs.retain(|verb| verb != "create");
        }
        let results = plan_creates(&tree, documents, Some("default"));
        assert!(matches!(results[0], Err(EditProblem::NotCreatable { .. })));
        assert!(results[1].is_ok());
    }

    #[test]
    fn a_version_the_server_does_not_serve_is_named() {
        let tree = sample_tree();
        let documents = vec![json!({"apiVersion": "apps/v1beta9", "kind": "Deployment",
                                    "metadata": {"name": "web"}})];
        let results = plan_creates(&tree, documents, Some("default"));
        let Err(problem) = &results[0] else {
            panic!("{results:?}")
        };
        assert!(problem.to_string().contains("apps/v1beta9"), "{problem}");
        let documents = vec![json!({"apiVersion": "apps/v1", "kind": "Deploymnet",
                                    "metadata": {"name": "web"}})];
        let results = plan_creates(&tree, documents, Some("default"));
        let Err(problem) = &results[0] else {
            panic!("{results:?}")
        };
        assert!(
            problem.to_string().contains("no kind \"Deploymnet\""),
            "{problem}"
        );
    }
}
