//! The generic registry: every verb for every kind goes through here, applying the kind's
//! strategy around the dumb store. HTTP handlers and (later) in-process controllers use the
//! same methods, so controllers see exactly the semantics clients see. This module keeps the
//! generic verbs and what they share; the subresources that are not a generic verb live
//! beside it, with their kinds (`scale.rs`, `binding.rs`, `tokens.rs`).

mod binding;
pub mod convert;
pub mod disruption;
pub mod kinds;
pub mod managed_fields;
pub mod patch;
mod scale;
pub mod strategy;
pub mod tokens;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use serde_json::{json, Value};

use crate::errors::{success_status, ApiError, ApiResult, Cause};
use crate::schemas;
use crate::storage::object::{ObjectKey, ObjectRef, StoredObject};
use crate::storage::store::{rv_of, Store};
use kinds::ResourceDef;
use managed_fields::Writer;

pub const CRD_GROUP: &str = "apiextensions.k8s.io";
pub const CRD_RESOURCE: &str = "customresourcedefinitions";
/// Finalizer the server adds for `propagationPolicy: Orphan`.
pub const FINALIZER_ORPHAN: &str = "orphan";
/// Finalizer the server adds for `propagationPolicy: Foreground`.
pub const FINALIZER_FOREGROUND: &str = "foregroundDeletion";

/// The grace period a DELETE gets: only pods bound to a node and still running terminate
/// gracefully (default `spec.terminationGracePeriodSeconds`); everything else goes at once.
fn deletion_grace_seconds(def: &ResourceDef, current: &Value, opts: &DeleteOptions) -> i64 {
    if !strategy::of(def).graceful_deletion() {
        return 0;
    }
    let bound = current["spec"]["nodeName"]
        .as_str()
        .is_some_and(|n| !n.is_empty());
    let terminal = matches!(
        current["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    );
    if !bound || terminal {
        return 0;
    }
    // Capped at ten years so the deadline stays a representable time.
    opts.grace_period_seconds
        .or(current["spec"]["terminationGracePeriodSeconds"].as_i64())
        .unwrap_or(30)
        .clamp(0, 10 * 365 * 24 * 3600)
}

/// Current time as RFC 3339 with second precision, as Kubernetes serializes `Time`.
pub fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Options shared by create/update/patch.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    pub dry_run: bool,
    pub field_manager: String,
    /// "" for the main resource, "status" or "scale" for subresources.
    pub subresource: String,
    pub force: bool,
    /// `Ignore`, `Warn` (default) or `Strict` handling of unknown fields in built-in kinds.
    pub field_validation: String,
    /// Warnings for the response's `Warning` headers.
    pub warnings: Arc<std::sync::Mutex<Vec<String>>>,
    /// Who writes, when the server authenticates (`--token-auth-file`); `None`: the demo's
    /// all-powerful user.
    pub user: Option<crate::auth::RequestUser>,
}

impl WriteOptions {
    fn warn(&self, message: String) {
        self.warnings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(message);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    Json,
    Merge,
    Strategic,
    Apply,
}

#[derive(Debug, Clone, Default)]
pub struct DeleteOptions {
    pub grace_period_seconds: Option<i64>,
    pub propagation_policy: Option<String>,
    pub orphan_dependents: Option<bool>,
    pub precondition_uid: Option<String>,
    pub precondition_resource_version: Option<String>,
    pub dry_run: bool,
}

/// What a DELETE answers: the object (with its HTTP code) or a Success Status.
#[derive(Debug)]
pub enum DeleteOutcome {
    Object(Value, u16),
    Status(Value),
}

enum Ownership {
    /// Record changed fields for the writer (create/update/merge/json/strategic patch).
    Update,
    /// Already handled by server-side apply.
    Recorded,
}

/// Which aggregated discovery document: of the core group (`/api`) or not (`/apis`), and in
/// which apidiscovery version.
pub type DocumentKey = (bool, &'static str);

/// A discovery document as served.
pub struct ServedDocument {
    pub body: String,
    pub etag: String,
}

pub struct Registry {
    pub store: Arc<Store>,
    builtins: Vec<Arc<ResourceDef>>,
    crd_defs: RwLock<Vec<Arc<ResourceDef>>>,
    /// Bumped whenever the served resources change (CRDs come, go or change).
    defs_revision: AtomicU64,
    /// Discovery documents as served, with the [`Self::defs_revision`] each describes.
    discovery_documents: Mutex<HashMap<DocumentKey, (u64, Arc<ServedDocument>)>>,
    next_service_ip: AtomicU32,
    next_node_port: AtomicU32,
    /// The metrics API (`metrics.k8s.io`), served once set ([`Registry::serve_metrics`]).
    metrics: std::sync::OnceLock<crate::metrics::Simulation>,
}

pub(crate) fn random_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    uuid::Uuid::new_v4().as_bytes()[..5]
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect()
}

impl Registry {
    /// A registry serving the built-in resources kube-apiserver serves by default.
    pub fn new(store: Arc<Store>) -> Self {
        Self::with_feature_gated_apis(store, false)
    }

    /// A registry that also serves the [`kinds::FEATURE_GATED`] resources when `feature_gated`
    /// (`--feature-gated-apis`).
    pub fn with_feature_gated_apis(store: Arc<Store>, feature_gated: bool) -> Self {
        Registry {
            store,
            builtins: kinds::served_builtin_resources(feature_gated)
                .into_iter()
                .map(Arc::new)
                .collect(),
            crd_defs: RwLock::new(vec![]),
            defs_revision: AtomicU64::new(0),
            discovery_documents: Mutex::new(HashMap::new()),
            next_service_ip: AtomicU32::new(10),
            next_node_port: AtomicU32::new(0),
            metrics: std::sync::OnceLock::new(),
        }
    }

    /// Every served resource: built-ins first, then custom resources.
    /// Serves the metrics API (as a cluster with metrics-server does), with usage from
    /// `simulation`. Set once, before serving: discovery documents are cached.
    pub fn serve_metrics(&self, simulation: crate::metrics::Simulation) {
        let _ = self.metrics.set(simulation);
    }

    /// The metrics API's simulation, when it is served.
    pub fn metrics(&self) -> Option<crate::metrics::Simulation> {
        self.metrics.get().copied()
    }

    pub fn defs(&self) -> Vec<Arc<ResourceDef>> {
        let crds = self.crd_defs.read().unwrap_or_else(|p| p.into_inner());
        self.builtins.iter().chain(crds.iter()).cloned().collect()
    }

    pub fn resolve(&self, group: &str, version: &str, resource: &str) -> Option<Arc<ResourceDef>> {
        self.defs()
            .into_iter()
            .find(|d| d.group == group && d.version == version && d.resource == resource)
    }

    pub fn builtin(&self, group: &str, resource: &str) -> Option<Arc<ResourceDef>> {
        self.builtins
            .iter()
            .find(|d| d.group == group && d.resource == resource)
            .cloned()
    }

    /// Rebuilds custom resource definitions from the stored CRDs.
    pub fn refresh_crds(&self) {
        let (crds, _) = self.store.list(CRD_GROUP, CRD_RESOURCE, None);
        let defs: Vec<Arc<ResourceDef>> = crds
            .iter()
            .flat_map(kinds::defs_from_crd)
            .map(Arc::new)
            .collect();
        *self.crd_defs.write().unwrap_or_else(|p| p.into_inner()) = defs;
        self.defs_revision.fetch_add(1, Ordering::SeqCst);
    }

    /// The discovery document `key`, from `build` only when the served resources changed
    /// since it was last built: kube-apiserver keeps its documents too, rather than building
    /// them on every page load.
    pub fn discovery_document(
        &self,
        key: DocumentKey,
        build: impl FnOnce() -> ServedDocument,
    ) -> Arc<ServedDocument> {
        // Read before building: a change meanwhile leaves a revision behind, built again
        // next time.
        let revision = self.defs_revision.load(Ordering::SeqCst);
        let mut documents = self
            .discovery_documents
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some((built, document)) = documents.get(&key) {
            if *built == revision {
                return document.clone();
            }
        }
        let document = Arc::new(build());
        documents.insert(key, (revision, document.clone()));
        document
    }

    pub fn key(def: &ResourceDef, namespace: &str, name: &str) -> ObjectKey {
        let ns = if def.namespaced { namespace } else { "" };
        ObjectKey::new(&def.storage_group, &def.resource, ns, name)
    }

    /// Stamps the served apiVersion/kind (custom resources may be read through any version).
    pub fn stamp(def: &ResourceDef, mut obj: Value) -> Value {
        if let Some(m) = obj.as_object_mut() {
            m.insert("apiVersion".into(), json!(def.api_version()));
            m.insert("kind".into(), json!(def.kind));
        }
        obj
    }

    /// A stored object as `def` serves it (shape conversion plus apiVersion/kind).
    pub fn present(def: &ResourceDef, obj: Value) -> Value {
        let mut obj = convert::from_storage(def, obj);
        if let Some(m) = obj.as_object_mut() {
            m.insert("apiVersion".into(), json!(def.api_version()));
            m.insert("kind".into(), json!(def.kind));
        }
        obj
    }

    /// Whether `present` would leave the stored `obj` as it is (so its stored JSON is what
    /// `def` serves); `api_version` is `def.api_version()`, computed once by the caller.
    pub fn presents_as_stored(def: &ResourceDef, api_version: &str, obj: &Value) -> bool {
        !convert::reshapes(def)
            && obj["apiVersion"].as_str() == Some(api_version)
            && obj["kind"].as_str() == Some(def.kind.as_str())
    }

    pub fn get(&self, def: &ResourceDef, namespace: &str, name: &str) -> ApiResult<Value> {
        self.store
            .get(&Self::key(def, namespace, name))
            .map(|o| Self::present(def, o))
            .ok_or_else(|| ApiError::not_found(&def.group, &def.resource, name))
    }

    pub fn list(&self, def: &ResourceDef, namespace: Option<&str>) -> (Vec<Value>, u64) {
        let ns = if def.namespaced { namespace } else { None };
        let (items, rv) = self.store.list(&def.storage_group, &def.resource, ns);
        (
            items.into_iter().map(|o| Self::present(def, o)).collect(),
            rv,
        )
    }

    /// Like `list`, sharing the stored versions instead of copying them (only objects whose
    /// served form differs are copied), for readers such as controllers' reconcile passes.
    pub fn list_shared(&self, def: &ResourceDef, namespace: Option<&str>) -> (Vec<ObjectRef>, u64) {
        let ns = if def.namespaced { namespace } else { None };
        let (items, rv) = self.store.list_refs(&def.storage_group, &def.resource, ns);
        let api_version = def.api_version();
        let items = items
            .into_iter()
            .map(|o| {
                if Self::presents_as_stored(def, &api_version, &o) {
                    o
                } else {
                    Arc::new(StoredObject::new(Self::present(def, o.value().clone())))
                }
            })
            .collect();
        (items, rv)
    }

    fn check_namespace(&self, def: &ResourceDef, namespace: &str, name: &str) -> ApiResult<()> {
        if !def.namespaced {
            return Ok(());
        }
        match self
            .store
            .get_ref(&ObjectKey::new("", "namespaces", "", namespace))
        {
            None => Err(ApiError::not_found("", "namespaces", namespace)),
            Some(ns) if ns["metadata"]["deletionTimestamp"].is_string() => {
                let mut e = ApiError::forbidden(
                    &def.group,
                    &def.resource,
                    name,
                    &format!("unable to create new content in namespace {namespace} because it is being terminated"),
                );
                if let Some(d) = e.details.as_mut() {
                    d["causes"] = json!([{"reason": "NamespaceTerminating", "message": format!("namespace {namespace} is being terminated"), "field": "metadata.namespace"}]);
                }
                Err(e)
            }
            Some(_) => Ok(()),
        }
    }

    /// Drops unknown fields of built-in kinds; Strict rejects them, Warn reports them.
    fn check_unknown_fields(
        &self,
        def: &ResourceDef,
        obj: &mut Value,
        opts: &WriteOptions,
    ) -> ApiResult<()> {
        let unknown = if def.builtin {
            schemas::prune_builtin(&def.group, &def.version, &def.kind, obj)
        } else {
            let (crds, _) = self.store.list(CRD_GROUP, CRD_RESOURCE, None);
            let schema =
                schemas::crd_version_schema(&crds, &def.group, &def.resource, &def.version);
            schemas::prune_custom(schema, obj)
        };
        if unknown.is_empty() || opts.field_validation == "Ignore" {
            return Ok(());
        }
        let messages: Vec<String> = unknown
            .iter()
            .map(|f| format!("unknown field {f:?}"))
            .collect();
        if opts.field_validation == "Strict" {
            return Err(ApiError::bad_request(format!(
                "strict decoding error: {}",
                messages.join(", ")
            )));
        }
        for m in messages {
            opts.warn(m);
        }
        Ok(())
    }

    fn invalid(def: &ResourceDef, name: &str, causes: Vec<Cause>) -> ApiError {
        ApiError::invalid(&def.group, &def.kind, name, causes)
    }

    /// Checks apiVersion/kind of a body against the endpoint, and fixes the namespace.
    fn normalize_body(def: &ResourceDef, namespace: &str, body: &mut Value) -> ApiResult<()> {
        if !body.is_object() {
            return Err(ApiError::bad_request(
                "the body of the request must be a JSON object",
            ));
        }
        // kube-apiserver's decoder's words: the body's kind in its version cannot be
        // converted to the endpoint's kind, or its group has no such kind.
        let api_version = body["apiVersion"].as_str().unwrap_or_default();
        let version = api_version.rsplit('/').next().unwrap_or_default();
        if let Some(kind) = body["kind"].as_str() {
            if !kind.is_empty() && kind != def.kind {
                let internal = def.group.split('.').next().filter(|g| !g.is_empty());
                return Err(ApiError::bad_request(format!(
                    "{kind} in version {version:?} cannot be handled as a {target}: converting \
                     ({version}.{kind}) to ({}.{target}): unknown conversion",
                    internal.unwrap_or("core"),
                    target = def.kind,
                )));
            }
            let body_group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
            if !api_version.is_empty() && body_group != def.group {
                return Err(ApiError::bad_request(format!(
                    "{kind} in version {:?} cannot be handled as a {kind}: no kind {kind:?} is \
                     registered for version {api_version:?} in scheme \"pkg/runtime/scheme.go:111\"",
                    def.version,
                )));
            }
        }
        if body["metadata"].is_null() {
            body["metadata"] = json!({});
        }
        check_shape(def, body)?;
        if def.namespaced {
            match body["metadata"]["namespace"].as_str() {
                Some(ns) if !ns.is_empty() && ns != namespace => {
                    return Err(ApiError::bad_request(
                        "the namespace of the provided object does not match the namespace sent on the request",
                    ))
                }
                _ => body["metadata"]["namespace"] = json!(namespace),
            }
        } else if let Some(m) = body["metadata"].as_object_mut() {
            m.remove("namespace");
        }
        *body = Self::stamp(def, body.clone());
        Ok(())
    }

    pub fn create(
        &self,
        def: &ResourceDef,
        namespace: &str,
        body: Value,
        opts: &WriteOptions,
    ) -> ApiResult<Value> {
        self.create_inner(def, namespace, body, opts, false)
    }

    fn create_inner(
        &self,
        def: &ResourceDef,
        namespace: &str,
        mut body: Value,
        opts: &WriteOptions,
        apply: bool,
    ) -> ApiResult<Value> {
        Self::normalize_body(def, namespace, &mut body)?;
        self.check_unknown_fields(def, &mut body, opts)?;
        // An apply owns what its configuration says, not the defaults and allocations (a
        // Service's cluster IP, type, ports' protocol) the create adds to it.
        let applied_config = apply.then(|| body.clone());
        // Reviews and Bindings are answered, never stored.
        if let Some(answer) = strategy::of(def).answer_create(self, def, namespace, &body, opts) {
            return answer;
        }
        let mut body = convert::to_storage(def, body);
        let meta = &mut body["metadata"];
        let mut name = meta["name"].as_str().unwrap_or_default().to_string();
        if name.is_empty() {
            match meta["generateName"].as_str() {
                Some(prefix) if !prefix.is_empty() => {
                    let base: String = prefix.chars().take(58).collect();
                    name = format!("{base}{}", random_suffix());
                    meta["name"] = json!(name);
                }
                _ => {
                    return Err(Self::invalid(
                        def,
                        "",
                        vec![Cause::new(
                            "FieldValueRequired",
                            "metadata.name",
                            "Required value: name or generateName is required",
                        )],
                    ));
                }
            }
        }
        self.check_namespace(def, namespace, &name)?;
        if let Some(m) = meta.as_object_mut() {
            for k in [
                "resourceVersion",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "selfLink",
            ] {
                m.remove(k);
            }
            m.insert("uid".into(), json!(uuid::Uuid::new_v4().to_string()));
            m.insert("creationTimestamp".into(), json!(now()));
            if def.tracks_generation {
                m.insert("generation".into(), json!(1));
            } else {
                m.remove("generation");
            }
        }
        let allocate_service_ip = || {
            let n = self.next_service_ip.fetch_add(1, Ordering::Relaxed);
            format!("10.96.{}.{}", (n / 250) % 250, n % 250 + 1)
        };
        // kube-apiserver picks node ports at random from 30000-32767; the demo counts down
        // from the top, away from the low ports people choose by hand.
        let allocate_node_port = || {
            let n = self.next_node_port.fetch_add(1, Ordering::Relaxed);
            32767 - i64::from(n % 2768)
        };
        strategy::prepare_for_create(
            def,
            &mut body,
            &strategy::CreateContext {
                allocate_service_ip: &allocate_service_ip,
                allocate_node_port: &allocate_node_port,
            },
        );
        let causes = strategy::validate(def, &body);
        if !causes.is_empty() {
            return Err(Self::invalid(def, &name, causes));
        }
        let api_version = def.api_version();
        let writer = Writer {
            manager: &opts.field_manager,
            api_version: &api_version,
            subresource: "",
            now: &now(),
        };
        if let Some(config) = &applied_config {
            body = managed_fields::apply_created(body, config, &writer);
        } else {
            let reset = body["metadata"]["managedFields"].is_array();
            if let Some(m) = body["metadata"].as_object_mut() {
                m.remove("managedFields");
            }
            managed_fields::record_update(None, &mut body, &writer, reset);
        }
        if opts.dry_run {
            return Ok(body);
        }
        let key = Self::key(def, namespace, &name);
        let created = self.store.create(&key, body)?;
        strategy::of(def).after_write(self);
        Ok(Self::present(def, created))
    }

    /// PUT: replaces the object (or its status) with optimistic concurrency.
    pub fn update(
        &self,
        def: &ResourceDef,
        namespace: &str,
        name: &str,
        mut body: Value,
        opts: &WriteOptions,
    ) -> ApiResult<Value> {
        Self::normalize_body(def, namespace, &mut body)?;
        let body_name = body["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if body_name != name {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            )));
        }
        let key = Self::key(def, namespace, name);
        let current = self
            .store
            .get(&key)
            .ok_or_else(|| ApiError::not_found(&def.group, &def.resource, name))?;
        self.write_update(def, &key, &current, body, opts, Ownership::Update)
    }

    fn write_update(
        &self,
        def: &ResourceDef,
        key: &ObjectKey,
        old: &Value,
        mut new: Value,
        opts: &WriteOptions,
        ownership: Ownership,
    ) -> ApiResult<Value> {
        let name = key.name.as_str();
        check_shape(def, &new)?;
        self.check_unknown_fields(def, &mut new, opts)?;
        // From here on `new` has the stored shape, like `old`.
        let mut new = convert::to_storage(def, new);
        let expected_rv = match new["metadata"]["resourceVersion"].as_str() {
            None | Some("") => None,
            Some(s) => Some(s.parse::<u64>().map_err(|_| {
                Self::invalid(
                    def,
                    name,
                    vec![Cause::invalid(
                        "metadata.resourceVersion",
                        s,
                        "must be a valid resource version",
                    )],
                )
            })?),
        };
        if let Some(rv) = expected_rv {
            if rv_of(old) != Some(rv) {
                return Err(ApiError::stale(&def.group, &def.resource, name));
            }
        }
        strategy::prepare_for_update(def, old, &mut new, &opts.subresource);
        // System metadata is immutable or server-owned.
        for k in [
            "uid",
            "creationTimestamp",
            "namespace",
            "name",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation",
        ] {
            match old["metadata"].get(k) {
                Some(v) => new["metadata"][k] = v.clone(),
                None => {
                    if let Some(m) = new["metadata"].as_object_mut() {
                        m.remove(k);
                    }
                }
            }
        }
        if old["metadata"]["deletionTimestamp"].is_string() {
            let old_f: HashSet<String> = string_list(&old["metadata"]["finalizers"])
                .into_iter()
                .collect();
            if string_list(&new["metadata"]["finalizers"])
                .iter()
                .any(|f| !old_f.contains(f))
            {
                return Err(Self::invalid(
                    def,
                    name,
                    vec![Cause::new(
                        "FieldValueForbidden",
                        "metadata.finalizers",
                        "Forbidden: no new finalizers can be added if the object is being deleted",
                    )],
                ));
            }
        }
        if def.tracks_generation && strategy::generation_changed(def, old, &new, &opts.subresource)
        {
            let g = old["metadata"]["generation"].as_i64().unwrap_or(0) + 1;
            new["metadata"]["generation"] = json!(g);
        }
        let causes = strategy::validate_update(def, old, &new);
        if !causes.is_empty() {
            return Err(Self::invalid(def, name, causes));
        }
        if let Ownership::Update = ownership {
            let api_version = def.api_version();
            let writer = Writer {
                manager: &opts.field_manager,
                api_version: &api_version,
                subresource: &opts.subresource,
                now: &now(),
            };
            let reset = new["metadata"]["managedFields"]
                .as_array()
                .is_some_and(|a| a.len() == 1 && a[0].as_object().is_some_and(|m| m.is_empty()));
            // Entries come from `old` (a client cannot forge them) and replace the body's.
            managed_fields::record_update(Some(old), &mut new, &writer, reset);
        }
        new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
        if opts.dry_run {
            return Ok(Self::present(def, new));
        }
        // kube-apiserver's ShouldDeleteDuringUpdate: marked, no finalizers left and no grace
        // period running (a terminating pod waits for its kubelet); namespaces also wait for
        // their spec.finalizers (the namespace controller's `finalize`).
        let finished = new["metadata"]["deletionTimestamp"].is_string()
            && string_list(&new["metadata"]["finalizers"]).is_empty()
            && new["metadata"]["deletionGracePeriodSeconds"]
                .as_i64()
                .unwrap_or(0)
                == 0
            && !strategy::of(def).deletion_waits(&new);
        let stored = self.store.update(key, new, rv_of(old))?;
        if finished {
            // The last finalizer is gone: the deferred deletion completes now.
            let deleted = self.store.delete(key, None)?;
            self.after_delete(def);
            return Ok(Self::present(def, deleted));
        }
        strategy::of(def).after_write(self);
        Ok(Self::present(def, stored))
    }

    /// GuaranteedUpdate through the kind's strategy, for in-process controllers: read, let
    /// `change` edit a copy, write with the read version as precondition, retry on conflict.
    /// Set `opts.subresource = "status"` to write status.
    pub fn update_with<F>(
        &self,
        def: &ResourceDef,
        namespace: &str,
        name: &str,
        opts: &WriteOptions,
        mut change: F,
    ) -> ApiResult<Value>
    where
        F: FnMut(&mut Value) -> ApiResult<()>,
    {
        let key = Self::key(def, namespace, name);
        for _ in 0..16 {
            // The stored version itself: `change` edits the one copy made here.
            let stored = self
                .store
                .get_ref(&key)
                .ok_or_else(|| ApiError::not_found(&def.group, &def.resource, name))?;
            let mut next = Self::present(def, stored.value().clone());
            change(&mut next)?;
            next["metadata"]["resourceVersion"] = stored["metadata"]["resourceVersion"].clone();
            match self.write_update(def, &key, &stored, next, opts, Ownership::Update) {
                Err(e) if e.reason == "Conflict" => continue,
                other => return other,
            }
        }
        Err(ApiError::stale(&def.group, &def.resource, name))
    }

    /// PATCH in any of the four types. Returns the object and whether it was created (apply).
    pub fn patch(
        &self,
        def: &ResourceDef,
        namespace: &str,
        name: &str,
        patch_type: PatchType,
        body: &[u8],
        opts: &WriteOptions,
    ) -> ApiResult<(Value, bool)> {
        if patch_type == PatchType::Strategic && !def.builtin {
            return Err(ApiError::unsupported_media_type(
                crate::errors::CUSTOM_RESOURCE_PATCH_MEDIA_TYPES,
            ));
        }
        let patch: Value = match patch_type {
            PatchType::Apply => serde_yaml_ng::from_slice(body)
                .map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}")))?,
            _ => serde_json::from_slice(body)
                .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?,
        };
        if patch_type == PatchType::Apply && opts.field_manager.is_empty() {
            return Err(ApiError::invalid(
                "meta.k8s.io",
                "PatchOptions",
                "",
                vec![Cause::new(
                    "FieldValueRequired",
                    "fieldManager",
                    "Required value: is required for apply patch",
                )],
            ));
        }
        let key = Self::key(def, namespace, name);
        for _ in 0..8 {
            let Some(stored) = self.store.get(&key) else {
                if patch_type == PatchType::Apply && opts.subresource.is_empty() {
                    let mut body = patch.clone();
                    if body["metadata"]["name"].as_str().is_some_and(|n| n != name) {
                        return Err(ApiError::bad_request(format!("the name of the object ({}) does not match the name on the URL ({name})", body["metadata"]["name"].as_str().unwrap_or_default())));
                    }
                    if body.is_object() {
                        if !body["metadata"].is_object() {
                            body["metadata"] = json!({});
                        }
                        body["metadata"]["name"] = json!(name);
                    }
                    return self
                        .create_inner(def, namespace, body, opts, true)
                        .map(|o| (o, true));
                }
                return Err(ApiError::not_found(&def.group, &def.resource, name));
            };
            let current = Self::present(def, stored.clone());
            let api_version = def.api_version();
            let (patched, ownership) = match patch_type {
                PatchType::Merge => {
                    let mut doc = current.clone();
                    patch::merge_patch(&mut doc, &patch);
                    (doc, Ownership::Update)
                }
                PatchType::Strategic => {
                    let mut doc = current.clone();
                    patch::strategic_merge(&mut doc, &patch).map_err(ApiError::bad_request)?;
                    (doc, Ownership::Update)
                }
                PatchType::Json => {
                    let ops: json_patch::Patch =
                        serde_json::from_value(patch.clone()).map_err(|e| {
                            ApiError::bad_request(format!("error decoding json patch: {e}"))
                        })?;
                    let mut doc = current.clone();
                    json_patch::patch(&mut doc, &ops)
                        .map_err(|_| ApiError::json_patch_not_applied())?;
                    (doc, Ownership::Update)
                }
                PatchType::Apply => {
                    let mut config = patch.clone();
                    Self::normalize_body(def, namespace, &mut config)?;
                    if let Some(m) = config["metadata"].as_object_mut() {
                        m.remove("namespace");
                        m.remove("name");
                        if m.is_empty() {
                            config.as_object_mut().map(|o| o.remove("metadata"));
                        }
                    }
                    let writer = Writer {
                        manager: &opts.field_manager,
                        api_version: &api_version,
                        subresource: &opts.subresource,
                        now: &now(),
                    };
                    let mut merged =
                        managed_fields::apply(Some(&current), &config, &writer, opts.force)?;
                    merged["metadata"]["resourceVersion"] =
                        current["metadata"]["resourceVersion"].clone();
                    (merged, Ownership::Recorded)
                }
            };
            let retryable =
                patched["metadata"]["resourceVersion"] == current["metadata"]["resourceVersion"];
            match self.write_update(def, &key, &stored, patched, opts, ownership) {
                Err(e)
                    if e.reason == "Conflict"
                        && retryable
                        && e.details
                            .as_ref()
                            .is_some_and(|d| d.get("causes").is_none()) =>
                {
                    continue
                }
                other => return other.map(|o| (o, false)),
            }
        }
        Err(ApiError::stale(&def.group, &def.resource, name))
    }

    pub fn delete(
        &self,
        def: &ResourceDef,
        namespace: &str,
        name: &str,
        opts: &DeleteOptions,
    ) -> ApiResult<DeleteOutcome> {
        let key = Self::key(def, namespace, name);
        let current = self
            .store
            .get(&key)
            .ok_or_else(|| ApiError::not_found(&def.group, &def.resource, name))?;
        let uid = current["metadata"]["uid"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if let Some(want) = &opts.precondition_uid {
            if *want != uid {
                return Err(ApiError::conflict(&def.group, &def.resource, name, &format!("Precondition failed: UID in precondition: {want}, UID in object meta: {uid}")));
            }
        }
        if let Some(want) = &opts.precondition_resource_version {
            let have = current["metadata"]["resourceVersion"]
                .as_str()
                .unwrap_or_default();
            if want != have {
                return Err(ApiError::conflict(&def.group, &def.resource, name, &format!("Precondition failed: ResourceVersion in precondition: {want}, ResourceVersion in object meta: {have}")));
            }
        }
        let policy = opts
            .propagation_policy
            .clone()
            .or(match opts.orphan_dependents {
                Some(true) => Some("Orphan".into()),
                _ => None,
            });
        let already_deleting = current["metadata"]["deletionTimestamp"].is_string();
        let mut finalizers = string_list(&current["metadata"]["finalizers"]);
        // Orphan and Foreground are carried out by the garbage collector, which finds its
        // instructions in these finalizers (as in kube-apiserver's `updateForGracefulDeletionAndFinalizers`).
        let propagation_finalizer = match policy.as_deref() {
            Some("Orphan") => Some(FINALIZER_ORPHAN),
            Some("Foreground") => Some(FINALIZER_FOREGROUND),
            _ => None,
        };
        if let Some(f) = propagation_finalizer {
            if !already_deleting && !finalizers.iter().any(|x| x == f) {
                finalizers.push(f.to_string());
            }
        }
        let grace = deletion_grace_seconds(def, &current, opts);
        let strategy = strategy::of(def);
        let held = strategy.deletion_waits(&current);
        let pod_deletion_finished = already_deleting && grace == 0;
        let deferred = !finalizers.is_empty() || held || (grace > 0 && !pod_deletion_finished);
        if deferred {
            // Deferred deletion: mark and let the kubelet / finalizers' owners finish it.
            let mut marked = current.clone();
            marked["metadata"]["finalizers"] = json!(finalizers);
            if finalizers.is_empty() {
                marked["metadata"]
                    .as_object_mut()
                    .map(|m| m.remove("finalizers"));
            }
            let previous_grace = current["metadata"]["deletionGracePeriodSeconds"].as_i64();
            // The grace period may only shorten once deletion has started.
            if !already_deleting || previous_grace.is_some_and(|g| grace < g) {
                let deadline = chrono::Utc::now() + chrono::Duration::seconds(grace);
                marked["metadata"]["deletionTimestamp"] =
                    json!(deadline.format("%Y-%m-%dT%H:%M:%SZ").to_string());
                marked["metadata"]["deletionGracePeriodSeconds"] = json!(grace);
            }
            strategy.mark_terminating(&mut marked);
            let code = if opts.orphan_dependents == Some(false) {
                202
            } else {
                200
            };
            if opts.dry_run {
                return Ok(DeleteOutcome::Object(Self::present(def, marked), code));
            }
            let stored = self.store.update(&key, marked, rv_of(&current))?;
            return Ok(DeleteOutcome::Object(Self::present(def, stored), code));
        }
        if opts.dry_run {
            return Ok(self.delete_outcome(def, current));
        }
        strategy.before_delete(self, &current);
        let deleted = self.store.delete(&key, rv_of(&current))?;
        self.after_delete(def);
        Ok(self.delete_outcome(def, deleted))
    }

    fn delete_outcome(&self, def: &ResourceDef, deleted: Value) -> DeleteOutcome {
        if def.returns_deleted_object {
            DeleteOutcome::Object(Self::present(def, deleted), 200)
        } else {
            let meta = &deleted["metadata"];
            let mut details = json!({"name": meta["name"], "group": def.group, "kind": def.resource, "uid": meta["uid"]});
            if def.group.is_empty() {
                if let Some(m) = details.as_object_mut() {
                    m.remove("group");
                }
            }
            DeleteOutcome::Status(success_status(details, None))
        }
    }

    /// Dependents are left to the garbage collector controller, as in a real cluster.
    fn after_delete(&self, def: &ResourceDef) {
        strategy::of(def).after_write(self);
    }
}

/// Rejects bodies whose top-level shape cannot be a Kubernetes object (decoding errors in
/// kube-apiserver), so later code can index `metadata`, `spec` and `status` safely.
fn check_shape(def: &ResourceDef, obj: &Value) -> ApiResult<()> {
    let bad = |field: &str| {
        ApiError::bad_request(format!(
            "unable to decode {} object: {field} must be an object",
            def.kind
        ))
    };
    if !obj.is_object() {
        return Err(bad("the body"));
    }
    if !obj["metadata"].is_object() {
        return Err(bad("metadata"));
    }
    for field in ["spec", "status"] {
        let v = &obj[field];
        if !(v.is_null() || v.is_object()) && (def.builtin || def.has_status()) {
            return Err(bad(field));
        }
    }
    Ok(())
}

pub fn string_list(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> Registry {
        let r = Registry::new(Arc::new(Store::new(100)));
        crate::seed::seed_system_objects(&r);
        r
    }

    #[test]
    fn controllers_update_status_in_process_and_see_the_watch_event() {
        let r = registry();
        let def = r.builtin("apps", "deployments").unwrap();
        let opts = WriteOptions {
            field_manager: "test".into(),
            ..Default::default()
        };
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}},
            "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
        r.create(&def, "default", d, &opts).unwrap();
        let mut sub = r
            .store
            .subscribe("apps", "deployments", None, Some(r.store.current_rv()))
            .unwrap();
        let status_opts = WriteOptions {
            field_manager: "kube-controller-manager".into(),
            subresource: "status".into(),
            ..Default::default()
        };
        let updated = r
            .update_with(&def, "default", "web", &status_opts, |d| {
                d["status"] = json!({"replicas": 1, "observedGeneration": 1});
                d["spec"]["replicas"] = json!(9); // ignored by the status strategy
                Ok(())
            })
            .unwrap();
        assert_eq!(updated["status"]["replicas"], 1);
        assert_eq!(updated["spec"]["replicas"], 1);
        assert_eq!(updated["metadata"]["generation"], 1);
        let ev = sub.receiver.try_recv().unwrap();
        assert_eq!(
            ev.event_type,
            crate::storage::watch_cache::EventType::Modified
        );
        let entries = managed_fields::read_entries(&updated);
        assert!(entries
            .iter()
            .any(|e| e.manager == "kube-controller-manager" && e.subresource == "status"));
    }

    #[test]
    fn bound_pods_terminate_gracefully_and_unbound_ones_go_at_once() {
        let r = registry();
        let pods = r.builtin("", "pods").unwrap();
        let opts = WriteOptions::default();
        let pod = |name: &str, node: Option<&str>| {
            let mut p = json!({"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
            if let Some(node) = node {
                p["spec"]["nodeName"] = json!(node);
            }
            p
        };
        r.create(&pods, "default", pod("loose", None), &opts)
            .unwrap();
        let gone = r
            .delete(&pods, "default", "loose", &DeleteOptions::default())
            .unwrap();
        assert!(matches!(gone, DeleteOutcome::Object(_, 200)));
        assert!(r.get(&pods, "default", "loose").is_err());

        r.create(&pods, "default", pod("bound", Some("demo-node-1")), &opts)
            .unwrap();
        let DeleteOutcome::Object(marked, 200) = r
            .delete(&pods, "default", "bound", &DeleteOptions::default())
            .unwrap()
        else {
            panic!("graceful deletion returns the pod");
        };
        assert_eq!(marked["metadata"]["deletionGracePeriodSeconds"], 30);
        assert!(marked["metadata"]["deletionTimestamp"].is_string());
        // Status writes while terminating keep the pod (the kubelet is still stopping it).
        let status_opts = WriteOptions {
            subresource: "status".into(),
            ..Default::default()
        };
        r.update_with(&pods, "default", "bound", &status_opts, |p| {
            p["status"]["phase"] = json!("Running");
            Ok(())
        })
        .unwrap();
        assert!(r.get(&pods, "default", "bound").is_ok());
        // A shorter grace period replaces the longer one; grace 0 finishes the deletion.
        let shorter = DeleteOptions {
            grace_period_seconds: Some(5),
            ..Default::default()
        };
        let DeleteOutcome::Object(again, _) =
            r.delete(&pods, "default", "bound", &shorter).unwrap()
        else {
            panic!("still terminating");
        };
        assert_eq!(again["metadata"]["deletionGracePeriodSeconds"], 5);
        let now = DeleteOptions {
            grace_period_seconds: Some(0),
            precondition_uid: again["metadata"]["uid"].as_str().map(String::from),
            ..Default::default()
        };
        r.delete(&pods, "default", "bound", &now).unwrap();
        assert!(r.get(&pods, "default", "bound").is_err());
    }

    #[test]
    fn namespace_deletion_waits_for_its_finalizer() {
        let r = registry();
        let namespaces = r.builtin("", "namespaces").unwrap();
        let opts = WriteOptions::default();
        r.create(&namespaces, "", json!({"metadata": {"name": "tmp"}}), &opts)
            .unwrap();
        let DeleteOutcome::Object(ns, 200) = r
            .delete(&namespaces, "", "tmp", &DeleteOptions::default())
            .unwrap()
        else {
            panic!("namespace deletion is deferred");
        };
        assert_eq!(ns["status"]["phase"], "Terminating");
        assert_eq!(ns["spec"]["finalizers"], json!(["kubernetes"]));
        r.update_with(&namespaces, "", "tmp", &opts, |n| {
            n["spec"]["finalizers"] = json!([]);
            Ok(())
        })
        .unwrap();
        assert!(r.get(&namespaces, "", "tmp").is_err());
    }

    #[test]
    fn background_deletion_collects_dependents_and_orphan_keeps_them() {
        let r = registry();
        let cms = r.builtin("", "configmaps").unwrap();
        let opts = WriteOptions::default();
        let owner = r
            .create(
                &cms,
                "default",
                json!({"metadata": {"name": "owner"}}),
                &opts,
            )
            .unwrap();
        let uid = owner["metadata"]["uid"].clone();
        let dep = json!({"metadata": {"name": "dep", "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": uid}]}});
        r.create(&cms, "default", dep.clone(), &opts).unwrap();
        r.delete(&cms, "default", "owner", &DeleteOptions::default())
            .unwrap();
        // Dependents are the garbage collector's job, not the DELETE's.
        assert!(r.get(&cms, "default", "dep").is_ok());
        crate::controllers::gc::collect_garbage(&r);
        assert!(r.get(&cms, "default", "dep").is_err());

        let owner = r
            .create(
                &cms,
                "default",
                json!({"metadata": {"name": "owner"}}),
                &opts,
            )
            .unwrap();
        let mut dep = dep;
        dep["metadata"]["ownerReferences"][0]["uid"] = owner["metadata"]["uid"].clone();
        r.create(&cms, "default", dep, &opts).unwrap();
        let orphan = DeleteOptions {
            propagation_policy: Some("Orphan".into()),
            ..Default::default()
        };
        let marked = r.delete(&cms, "default", "owner", &orphan).unwrap();
        let DeleteOutcome::Object(marked, 200) = marked else {
            panic!("orphan deletion is deferred: {marked:?}");
        };
        assert_eq!(marked["metadata"]["finalizers"], json!(["orphan"]));
        crate::controllers::gc::collect_garbage(&r);
        assert!(r.get(&cms, "default", "owner").is_err());
        let kept = r.get(&cms, "default", "dep").unwrap();
        assert!(kept["metadata"].get("ownerReferences").is_none());
    }
}
