//! Decoding of Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`) into
//! JSON, for the kinds kubectl's typed clients send that way (`kubectl create deployment`,
//! `create configmap`, `run`, ...). The envelope is `k8s\0` + runtime.Unknown{typeMeta, raw};
//! `raw` is decoded with hand-written field tables of the generated.proto messages. Fields not in
//! the tables are skipped, so the result is the object minus fields generators never set.
//! Responses are always JSON (clients accept it as the fallback).

use serde_json::{json, Map, Value};

const MAGIC: &[u8] = b"k8s\x00";

#[derive(Clone, Copy)]
enum Ty {
    Str,
    Int,
    Bool,
    Msg(&'static str),
    /// map<string,string>
    MapStr,
    /// bytes, base64 in JSON
    Bytes,
    /// map<string,bytes>
    MapBytes,
    /// map<string,Quantity>
    MapQuantity,
    /// resource.Quantity, a string in JSON
    Quantity,
    Time,
    IntOrString,
}

/// (field number, JSON name, type, repeated)
type Field = (u64, &'static str, Ty, bool);

/// The JSON name of an embedded Go struct: its fields are merged into the enclosing object.
const INLINE: &str = "";

fn fields(message: &str) -> Option<&'static [Field]> {
    use Ty::*;
    Some(match message {
        "ObjectMeta" => &[
            (1, "name", Str, false),
            (2, "generateName", Str, false),
            (3, "namespace", Str, false),
            (5, "uid", Str, false),
            (6, "resourceVersion", Str, false),
            (7, "generation", Int, false),
            (8, "creationTimestamp", Time, false),
            (11, "labels", MapStr, false),
            (12, "annotations", MapStr, false),
            (13, "ownerReferences", Msg("OwnerReference"), true),
            (14, "finalizers", Str, true),
        ],
        "OwnerReference" => &[
            (1, "kind", Str, false),
            (3, "name", Str, false),
            (4, "uid", Str, false),
            (5, "apiVersion", Str, false),
            (6, "controller", Bool, false),
            (7, "blockOwnerDeletion", Bool, false),
        ],
        "LabelSelector" => &[
            (1, "matchLabels", MapStr, false),
            (2, "matchExpressions", Msg("LabelSelectorRequirement"), true),
        ],
        "LabelSelectorRequirement" => &[
            (1, "key", Str, false),
            (2, "operator", Str, false),
            (3, "values", Str, true),
        ],
        // What typed clients send with DELETE and evictions (`kubectl drain`).
        "DeleteOptions" => &[
            (1, "gracePeriodSeconds", Int, false),
            (2, "preconditions", Msg("Preconditions"), false),
            (3, "orphanDependents", Bool, false),
            (4, "propagationPolicy", Str, false),
            (5, "dryRun", Str, true),
        ],
        "Eviction" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "deleteOptions", Msg("DeleteOptions"), false),
        ],
        // What `kubectl auth can-i` and `kubectl auth whoami` send.
        "SelfSubjectAccessReview" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("SelfSubjectAccessReviewSpec"), false),
        ],
        "SelfSubjectAccessReviewSpec" => &[
            (1, "resourceAttributes", Msg("ResourceAttributes"), false),
            (
                2,
                "nonResourceAttributes",
                Msg("NonResourceAttributes"),
                false,
            ),
        ],
        "SubjectAccessReview" | "LocalSubjectAccessReview" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("SubjectAccessReviewSpec"), false),
        ],
        "SubjectAccessReviewSpec" => &[
            (1, "resourceAttributes", Msg("ResourceAttributes"), false),
            (
                2,
                "nonResourceAttributes",
                Msg("NonResourceAttributes"),
                false,
            ),
            (3, "user", Str, false),
            (4, "groups", Str, true),
            (6, "uid", Str, false),
        ],
        "ResourceAttributes" => &[
            (1, "namespace", Str, false),
            (2, "verb", Str, false),
            (3, "group", Str, false),
            (4, "version", Str, false),
            (5, "resource", Str, false),
            (6, "subresource", Str, false),
            (7, "name", Str, false),
        ],
        "NonResourceAttributes" => &[(1, "path", Str, false), (2, "verb", Str, false)],
        "SelfSubjectRulesReview" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("SelfSubjectRulesReviewSpec"), false),
        ],
        "SelfSubjectRulesReviewSpec" => &[(1, "namespace", Str, false)],
        "SelfSubjectReview" => &[(1, "metadata", Msg("ObjectMeta"), false)],
        "TokenReview" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("TokenReviewSpec"), false),
        ],
        // What `kubectl certificate approve|deny` sends to `/approval`.
        "CertificateSigningRequest" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("CertificateSigningRequestSpec"), false),
            (3, "status", Msg("CertificateSigningRequestStatus"), false),
        ],
        "CertificateSigningRequestSpec" => &[
            (1, "request", Bytes, false),
            (2, "username", Str, false),
            (3, "uid", Str, false),
            (4, "groups", Str, true),
            (5, "usages", Str, true),
            (7, "signerName", Str, false),
            (8, "expirationSeconds", Int, false),
        ],
        "CertificateSigningRequestStatus" => &[
            (
                1,
                "conditions",
                Msg("CertificateSigningRequestCondition"),
                true,
            ),
            (2, "certificate", Bytes, false),
        ],
        "CertificateSigningRequestCondition" => &[
            (1, "type", Str, false),
            (2, "reason", Str, false),
            (3, "message", Str, false),
            (4, "lastUpdateTime", Time, false),
            (5, "lastTransitionTime", Time, false),
            (6, "status", Str, false),
        ],
        // What `kubectl create token` sends to `serviceaccounts/token`.
        "TokenRequest" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("TokenRequestSpec"), false),
        ],
        "TokenRequestSpec" => &[
            (1, "audiences", Str, true),
            (3, "boundObjectRef", Msg("BoundObjectReference"), false),
            (4, "expirationSeconds", Int, false),
        ],
        "BoundObjectReference" => &[
            (1, "kind", Str, false),
            (2, "apiVersion", Str, false),
            (3, "name", Str, false),
            (4, "uid", Str, false),
        ],
        "TokenReviewSpec" => &[(1, "token", Str, false), (2, "audiences", Str, true)],
        // `kubectl create quota | priorityclass | poddisruptionbudget | ingress`.
        "ResourceQuota" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("ResourceQuotaSpec"), false),
        ],
        "ResourceQuotaSpec" => &[
            (1, "hard", MapQuantity, false),
            (2, "scopes", Str, true),
            (3, "scopeSelector", Msg("ScopeSelector"), false),
        ],
        "ScopeSelector" => &[(
            1,
            "matchExpressions",
            Msg("ScopedResourceSelectorRequirement"),
            true,
        )],
        "ScopedResourceSelectorRequirement" => &[
            (1, "scopeName", Str, false),
            (2, "operator", Str, false),
            (3, "values", Str, true),
        ],
        "PriorityClass" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "value", Int, false),
            (3, "globalDefault", Bool, false),
            (4, "description", Str, false),
            (5, "preemptionPolicy", Str, false),
        ],
        "PodDisruptionBudget" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("PodDisruptionBudgetSpec"), false),
        ],
        "PodDisruptionBudgetSpec" => &[
            (1, "minAvailable", IntOrString, false),
            (2, "selector", Msg("LabelSelector"), false),
            (3, "maxUnavailable", IntOrString, false),
            (4, "unhealthyPodEvictionPolicy", Str, false),
        ],
        "Ingress" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("IngressSpec"), false),
        ],
        "IngressSpec" => &[
            (1, "defaultBackend", Msg("IngressBackend"), false),
            (2, "tls", Msg("IngressTLS"), true),
            (3, "rules", Msg("IngressRule"), true),
            (4, "ingressClassName", Str, false),
        ],
        "IngressBackend" => &[(4, "service", Msg("IngressServiceBackend"), false)],
        "IngressServiceBackend" => &[
            (1, "name", Str, false),
            (2, "port", Msg("ServiceBackendPort"), false),
        ],
        "ServiceBackendPort" => &[(1, "name", Str, false), (2, "number", Int, false)],
        "IngressTLS" => &[(1, "hosts", Str, true), (2, "secretName", Str, false)],
        // `ingressRuleValue` is embedded in Go: its fields sit on the rule in JSON.
        "IngressRule" => &[
            (1, "host", Str, false),
            (2, INLINE, Msg("IngressRuleValue"), false),
        ],
        "IngressRuleValue" => &[(1, "http", Msg("HTTPIngressRuleValue"), false)],
        "HTTPIngressRuleValue" => &[(1, "paths", Msg("HTTPIngressPath"), true)],
        "HTTPIngressPath" => &[
            (1, "path", Str, false),
            (2, "backend", Msg("IngressBackend"), false),
            (3, "pathType", Str, false),
        ],
        "Preconditions" => &[(1, "uid", Str, false), (2, "resourceVersion", Str, false)],
        "ConfigMap" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "data", MapStr, false),
            (3, "binaryData", MapBytes, false),
            (4, "immutable", Bool, false),
        ],
        "Secret" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "data", MapBytes, false),
            (3, "type", Str, false),
            (4, "stringData", MapStr, false),
            (5, "immutable", Bool, false),
        ],
        "Namespace" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("NamespaceSpec"), false),
        ],
        "NamespaceSpec" => &[(1, "finalizers", Str, true)],
        "ServiceAccount" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (3, "imagePullSecrets", Msg("LocalObjectReference"), true),
            (4, "automountServiceAccountToken", Bool, false),
        ],
        "LocalObjectReference" => &[(1, "name", Str, false)],
        "Pod" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("PodSpec"), false),
        ],
        "PodTemplateSpec" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("PodSpec"), false),
        ],
        "PodSpec" => &[
            (2, "containers", Msg("Container"), true),
            (3, "restartPolicy", Str, false),
            (4, "terminationGracePeriodSeconds", Int, false),
            (6, "dnsPolicy", Str, false),
            (7, "nodeSelector", MapStr, false),
            (8, "serviceAccountName", Str, false),
            (10, "nodeName", Str, false),
            (11, "hostNetwork", Bool, false),
            (14, "securityContext", Msg("Empty"), false),
            (15, "imagePullSecrets", Msg("LocalObjectReference"), true),
            (16, "hostname", Str, false),
            (19, "schedulerName", Str, false),
            (20, "initContainers", Msg("Container"), true),
            (24, "priorityClassName", Str, false),
        ],
        "Container" => &[
            (1, "name", Str, false),
            (2, "image", Str, false),
            (3, "command", Str, true),
            (4, "args", Str, true),
            (5, "workingDir", Str, false),
            (6, "ports", Msg("ContainerPort"), true),
            (7, "env", Msg("EnvVar"), true),
            (8, "resources", Msg("ResourceRequirements"), false),
            (13, "terminationMessagePath", Str, false),
            (14, "imagePullPolicy", Str, false),
            (16, "stdin", Bool, false),
            (17, "stdinOnce", Bool, false),
            (18, "tty", Bool, false),
            (20, "terminationMessagePolicy", Str, false),
        ],
        "ContainerPort" => &[
            (1, "name", Str, false),
            (2, "hostPort", Int, false),
            (3, "containerPort", Int, false),
            (4, "protocol", Str, false),
            (5, "hostIP", Str, false),
        ],
        "EnvVar" => &[(1, "name", Str, false), (2, "value", Str, false)],
        "ResourceRequirements" => &[
            (1, "limits", MapQuantity, false),
            (2, "requests", MapQuantity, false),
        ],
        "Deployment" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("DeploymentSpec"), false),
        ],
        "DeploymentSpec" => &[
            (1, "replicas", Int, false),
            (2, "selector", Msg("LabelSelector"), false),
            (3, "template", Msg("PodTemplateSpec"), false),
            (4, "strategy", Msg("DeploymentStrategy"), false),
            (5, "minReadySeconds", Int, false),
            (6, "revisionHistoryLimit", Int, false),
            (7, "paused", Bool, false),
            (9, "progressDeadlineSeconds", Int, false),
        ],
        "DeploymentStrategy" => &[
            (1, "type", Str, false),
            (2, "rollingUpdate", Msg("RollingUpdateDeployment"), false),
        ],
        "RollingUpdateDeployment" => &[
            (1, "maxUnavailable", IntOrString, false),
            (2, "maxSurge", IntOrString, false),
        ],
        "Job" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("JobSpec"), false),
        ],
        "JobSpec" => &[
            (1, "parallelism", Int, false),
            (2, "completions", Int, false),
            (3, "activeDeadlineSeconds", Int, false),
            (4, "selector", Msg("LabelSelector"), false),
            (5, "manualSelector", Bool, false),
            (6, "template", Msg("PodTemplateSpec"), false),
            (7, "backoffLimit", Int, false),
            (8, "ttlSecondsAfterFinished", Int, false),
            (9, "completionMode", Str, false),
            (10, "suspend", Bool, false),
        ],
        "CronJob" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("CronJobSpec"), false),
        ],
        "CronJobSpec" => &[
            (1, "schedule", Str, false),
            (2, "startingDeadlineSeconds", Int, false),
            (3, "concurrencyPolicy", Str, false),
            (4, "suspend", Bool, false),
            (5, "jobTemplate", Msg("JobTemplateSpec"), false),
            (6, "successfulJobsHistoryLimit", Int, false),
            (7, "failedJobsHistoryLimit", Int, false),
            (8, "timeZone", Str, false),
        ],
        "JobTemplateSpec" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("JobSpec"), false),
        ],
        "Service" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("ServiceSpec"), false),
        ],
        "ServiceSpec" => &[
            (1, "ports", Msg("ServicePort"), true),
            (2, "selector", MapStr, false),
            (3, "clusterIP", Str, false),
            (4, "type", Str, false),
            (5, "externalIPs", Str, true),
            (7, "sessionAffinity", Str, false),
            (10, "externalName", Str, false),
        ],
        "ServicePort" => &[
            (1, "name", Str, false),
            (2, "protocol", Str, false),
            (3, "port", Int, false),
            (4, "targetPort", IntOrString, false),
            (5, "nodePort", Int, false),
        ],
        "Role" | "ClusterRole" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "rules", Msg("PolicyRule"), true),
        ],
        "PolicyRule" => &[
            (1, "verbs", Str, true),
            (2, "apiGroups", Str, true),
            (3, "resources", Str, true),
            (4, "resourceNames", Str, true),
            (5, "nonResourceURLs", Str, true),
        ],
        "RoleBinding" | "ClusterRoleBinding" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "subjects", Msg("Subject"), true),
            (3, "roleRef", Msg("RoleRef"), false),
        ],
        "Subject" => &[
            (1, "kind", Str, false),
            (2, "apiGroup", Str, false),
            (3, "name", Str, false),
            (4, "namespace", Str, false),
        ],
        "RoleRef" => &[
            (1, "apiGroup", Str, false),
            (2, "kind", Str, false),
            (3, "name", Str, false),
        ],
        // `kubectl autoscale` (v1.32 sends autoscaling/v1); autoscaling/v2 for clients that
        // send it.
        "HorizontalPodAutoscaler" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("HorizontalPodAutoscalerSpec"), false),
        ],
        "HorizontalPodAutoscalerV1" => &[
            (1, "metadata", Msg("ObjectMeta"), false),
            (2, "spec", Msg("HorizontalPodAutoscalerSpecV1"), false),
        ],
        "HorizontalPodAutoscalerSpecV1" => &[
            (
                1,
                "scaleTargetRef",
                Msg("CrossVersionObjectReference"),
                false,
            ),
            (2, "minReplicas", Int, false),
            (3, "maxReplicas", Int, false),
            (4, "targetCPUUtilizationPercentage", Int, false),
        ],
        "HorizontalPodAutoscalerSpec" => &[
            (
                1,
                "scaleTargetRef",
                Msg("CrossVersionObjectReference"),
                false,
            ),
            (2, "minReplicas", Int, false),
            (3, "maxReplicas", Int, false),
            (4, "metrics", Msg("MetricSpec"), true),
            (5, "behavior", Msg("HorizontalPodAutoscalerBehavior"), false),
        ],
        "CrossVersionObjectReference" => &[
            (1, "kind", Str, false),
            (2, "name", Str, false),
            (3, "apiVersion", Str, false),
        ],
        "MetricSpec" => &[
            (1, "type", Str, false),
            (2, "object", Msg("ObjectMetricSource"), false),
            (3, "pods", Msg("PodsMetricSource"), false),
            (4, "resource", Msg("ResourceMetricSource"), false),
            (5, "external", Msg("ExternalMetricSource"), false),
            (
                7,
                "containerResource",
                Msg("ContainerResourceMetricSource"),
                false,
            ),
        ],
        "ResourceMetricSource" => &[
            (1, "name", Str, false),
            (2, "target", Msg("MetricTarget"), false),
        ],
        "ContainerResourceMetricSource" => &[
            (1, "name", Str, false),
            (2, "target", Msg("MetricTarget"), false),
            (3, "container", Str, false),
        ],
        "PodsMetricSource" | "ExternalMetricSource" => &[
            (1, "metric", Msg("MetricIdentifier"), false),
            (2, "target", Msg("MetricTarget"), false),
        ],
        "ObjectMetricSource" => &[
            (
                1,
                "describedObject",
                Msg("CrossVersionObjectReference"),
                false,
            ),
            (2, "target", Msg("MetricTarget"), false),
            (3, "metric", Msg("MetricIdentifier"), false),
        ],
        "MetricIdentifier" => &[
            (1, "name", Str, false),
            (2, "selector", Msg("LabelSelector"), false),
        ],
        "MetricTarget" => &[
            (1, "type", Str, false),
            (2, "value", Quantity, false),
            (3, "averageValue", Quantity, false),
            (4, "averageUtilization", Int, false),
        ],
        "HorizontalPodAutoscalerBehavior" => &[
            (1, "scaleUp", Msg("HPAScalingRules"), false),
            (2, "scaleDown", Msg("HPAScalingRules"), false),
        ],
        "HPAScalingRules" => &[
            (1, "selectPolicy", Str, false),
            (2, "policies", Msg("HPAScalingPolicy"), true),
            (3, "stabilizationWindowSeconds", Int, false),
            (4, "tolerance", Quantity, false),
        ],
        "HPAScalingPolicy" => &[
            (1, "type", Str, false),
            (2, "value", Int, false),
            (3, "periodSeconds", Int, false),
        ],
        "Empty" => &[],
        _ => return None,
    })
}

/// Fields whose zero value is meaningful (Go pointers), so 0 is kept instead of dropped.
fn keeps_zero(name: &str) -> bool {
    matches!(
        name,
        "replicas" | "parallelism" | "completions" | "backoffLimit" | "gracePeriodSeconds"
    )
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, String> {
        let mut out = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.buf.get(self.pos).ok_or("truncated varint")?;
            self.pos += 1;
            out |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(out);
            }
        }
        Err("varint too long".into())
    }

    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let len = usize::try_from(self.varint()?).map_err(|_| "length overflow")?;
        let end = self.pos.checked_add(len).ok_or("length overflow")?;
        let out = self.buf.get(self.pos..end).ok_or("truncated field")?;
        self.pos = end;
        Ok(out)
    }

    fn skip(&mut self, wire: u64) -> Result<(), String> {
        match wire {
            0 => self.varint().map(|_| ()),
            1 => self.advance(8),
            2 => self.bytes().map(|_| ()),
            5 => self.advance(4),
            other => Err(format!("unsupported wire type {other}")),
        }
    }

    fn advance(&mut self, n: usize) -> Result<(), String> {
        if self.pos + n > self.buf.len() {
            return Err("truncated field".into());
        }
        self.pos += n;
        Ok(())
    }

    fn done(&self) -> bool {
        self.pos >= self.buf.len()
    }
}

fn utf8(b: &[u8]) -> Result<String, String> {
    String::from_utf8(b.to_vec()).map_err(|_| "invalid UTF-8 in string field".to_string())
}

fn map_entry(b: &[u8], value_ty: Ty) -> Result<(String, Value), String> {
    let mut r = Reader { buf: b, pos: 0 };
    let (mut key, mut value) = (String::new(), Value::String(String::new()));
    while !r.done() {
        let tag = r.varint()?;
        match (tag >> 3, tag & 7) {
            (1, 2) => key = utf8(r.bytes()?)?,
            (2, 2) => {
                let raw = r.bytes()?;
                value = match value_ty {
                    Ty::MapBytes => Value::String(base64_encode(raw)),
                    Ty::MapQuantity => quantity(raw)?,
                    _ => Value::String(utf8(raw)?),
                };
            }
            (_, wire) => r.skip(wire)?,
        }
    }
    Ok((key, value))
}

fn base64_encode(b: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(b)
}

fn quantity(b: &[u8]) -> Result<Value, String> {
    let mut r = Reader { buf: b, pos: 0 };
    let mut s = String::new();
    while !r.done() {
        let tag = r.varint()?;
        match (tag >> 3, tag & 7) {
            (1, 2) => s = utf8(r.bytes()?)?,
            (_, wire) => r.skip(wire)?,
        }
    }
    Ok(Value::String(s))
}

fn time(b: &[u8]) -> Result<Value, String> {
    let mut r = Reader { buf: b, pos: 0 };
    let mut seconds = 0i64;
    while !r.done() {
        let tag = r.varint()?;
        match (tag >> 3, tag & 7) {
            (1, 0) => seconds = r.varint()? as i64,
            (_, wire) => r.skip(wire)?,
        }
    }
    if seconds == 0 {
        return Ok(Value::Null);
    }
    Ok(chrono::DateTime::from_timestamp(seconds, 0)
        .map(|t| Value::String(t.format("%Y-%m-%dT%H:%M:%SZ").to_string()))
        .unwrap_or(Value::Null))
}

fn int_or_string(b: &[u8]) -> Result<Value, String> {
    let mut r = Reader { buf: b, pos: 0 };
    let (mut kind, mut int_val, mut str_val) = (0u64, 0i64, String::new());
    while !r.done() {
        let tag = r.varint()?;
        match (tag >> 3, tag & 7) {
            (1, 0) => kind = r.varint()?,
            (2, 0) => int_val = r.varint()? as i32 as i64,
            (3, 2) => str_val = utf8(r.bytes()?)?,
            (_, wire) => r.skip(wire)?,
        }
    }
    Ok(if kind == 1 {
        json!(str_val)
    } else {
        json!(int_val)
    })
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Bool(b) => !b,
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

fn message(name: &str, b: &[u8], depth: usize) -> Result<Value, String> {
    if depth > 32 {
        return Err("message nesting too deep".into());
    }
    let table = fields(name).ok_or_else(|| format!("no protobuf schema for {name}"))?;
    let mut out = Map::new();
    let mut r = Reader { buf: b, pos: 0 };
    while !r.done() {
        let tag = r.varint()?;
        let (num, wire) = (tag >> 3, tag & 7);
        let Some(&(_, json_name, ty, repeated)) = table.iter().find(|f| f.0 == num) else {
            r.skip(wire)?;
            continue;
        };
        let value = match (ty, wire) {
            (Ty::Int, 0) => json!(r.varint()? as i64),
            (Ty::Bool, 0) => json!(r.varint()? != 0),
            (Ty::Str, 2) => json!(utf8(r.bytes()?)?),
            (Ty::Bytes, 2) => json!(base64_encode(r.bytes()?)),
            (Ty::Msg(inner), 2) => message(inner, r.bytes()?, depth + 1)?,
            (Ty::Time, 2) => time(r.bytes()?)?,
            (Ty::IntOrString, 2) => int_or_string(r.bytes()?)?,
            (Ty::Quantity, 2) => quantity(r.bytes()?)?,
            (Ty::MapStr | Ty::MapBytes | Ty::MapQuantity, 2) => {
                let (k, v) = map_entry(r.bytes()?, ty)?;
                let entry = out
                    .entry(json_name.to_string())
                    .or_insert_with(|| json!({}));
                if let Some(m) = entry.as_object_mut() {
                    m.insert(k, v);
                }
                continue;
            }
            (_, wire) => {
                r.skip(wire)?;
                continue;
            }
        };
        if repeated {
            let entry = out
                .entry(json_name.to_string())
                .or_insert_with(|| json!([]));
            if let Some(a) = entry.as_array_mut() {
                a.push(value);
            }
        } else if json_name == INLINE {
            if let Value::Object(embedded) = value {
                out.extend(embedded);
            }
        } else {
            // Go marshals non-pointer zero values; JSON omits them (omitempty).
            let keep = match &value {
                Value::Number(n) => n.as_i64() != Some(0) || keeps_zero(json_name),
                Value::Object(m) => !m.is_empty() || json_name == "securityContext",
                other => !is_empty(other),
            };
            if keep {
                out.insert(json_name.to_string(), value);
            }
        }
    }
    Ok(Value::Object(out))
}

/// Decodes a protobuf request body into the JSON object it stands for.
pub fn decode(body: &[u8]) -> Result<Value, String> {
    let rest = body
        .strip_prefix(MAGIC)
        .ok_or("protobuf body lacks the k8s\\0 prefix")?;
    let mut r = Reader { buf: rest, pos: 0 };
    let (mut api_version, mut kind, mut raw) = (String::new(), String::new(), &[][..]);
    while !r.done() {
        let tag = r.varint()?;
        match (tag >> 3, tag & 7) {
            (1, 2) => {
                let mut tm = Reader {
                    buf: r.bytes()?,
                    pos: 0,
                };
                while !tm.done() {
                    let t = tm.varint()?;
                    match (t >> 3, t & 7) {
                        (1, 2) => api_version = utf8(tm.bytes()?)?,
                        (2, 2) => kind = utf8(tm.bytes()?)?,
                        (_, wire) => tm.skip(wire)?,
                    }
                }
            }
            (2, 2) => raw = r.bytes()?,
            (_, wire) => r.skip(wire)?,
        }
    }
    // Message names are the Go types'; the one kind whose versions differ in shape here.
    let schema = match (kind.as_str(), api_version.as_str()) {
        ("HorizontalPodAutoscaler", "autoscaling/v1") => "HorizontalPodAutoscalerV1",
        _ => kind.as_str(),
    };
    let mut obj = message(schema, raw, 0)?;
    obj["apiVersion"] = json!(api_version);
    obj["kind"] = json!(kind);
    Ok(obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }
    fn field_bytes(num: u64, data: &[u8], out: &mut Vec<u8>) {
        varint(num << 3 | 2, out);
        varint(data.len() as u64, out);
        out.extend_from_slice(data);
    }
    fn field_varint(num: u64, v: u64, out: &mut Vec<u8>) {
        varint(num << 3, out);
        varint(v, out);
    }

    /// `k8s\0` + runtime.Unknown{typeMeta: {v1, kind}, raw, contentEncoding: ""}.
    fn envelope(kind: &str, raw: &[u8]) -> Vec<u8> {
        envelope_in("v1", kind, raw)
    }

    /// The same envelope for a kind of another group-version.
    fn envelope_in(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
        let mut tm = vec![];
        field_bytes(1, api_version.as_bytes(), &mut tm);
        field_bytes(2, kind.as_bytes(), &mut tm);
        let mut unknown = b"k8s\x00".to_vec();
        field_bytes(1, &tm, &mut unknown);
        field_bytes(2, raw, &mut unknown);
        field_bytes(3, b"", &mut unknown);
        unknown
    }

    #[test]
    fn decodes_delete_options_keeping_a_zero_grace_period() {
        let mut pre = vec![];
        field_bytes(1, b"uid-1", &mut pre);
        let mut opts = vec![];
        field_varint(1, 0, &mut opts);
        field_bytes(2, &pre, &mut opts);
        field_bytes(4, b"Foreground", &mut opts);
        field_bytes(5, b"All", &mut opts);
        assert_eq!(
            decode(&envelope("DeleteOptions", &opts)).unwrap(),
            json!({"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0,
                   "preconditions": {"uid": "uid-1"}, "propagationPolicy": "Foreground", "dryRun": ["All"]})
        );
    }

    /// An autoscaling/v2 HorizontalPodAutoscaler (kubectl v1.32's autoscaling/v1 one is
    /// held to kube-apiserver by tests/differential.rs).
    #[test]
    fn decodes_a_v2_horizontal_pod_autoscaler() {
        let mut meta = vec![];
        field_bytes(1, b"web", &mut meta);
        let mut target_ref = vec![];
        field_bytes(1, b"Deployment", &mut target_ref);
        field_bytes(2, b"web", &mut target_ref);
        field_bytes(3, b"apps/v1", &mut target_ref);
        let mut target = vec![];
        field_bytes(1, b"Utilization", &mut target);
        field_varint(4, 80, &mut target);
        let mut resource = vec![];
        field_bytes(1, b"cpu", &mut resource);
        field_bytes(2, &target, &mut resource);
        let mut metric = vec![];
        field_bytes(1, b"Resource", &mut metric);
        field_bytes(4, &resource, &mut metric);
        let mut spec = vec![];
        field_bytes(1, &target_ref, &mut spec);
        field_varint(2, 2, &mut spec);
        field_varint(3, 5, &mut spec);
        field_bytes(4, &metric, &mut spec);
        let mut hpa = vec![];
        field_bytes(1, &meta, &mut hpa);
        field_bytes(2, &spec, &mut hpa);
        let body = envelope_in("autoscaling/v2", "HorizontalPodAutoscaler", &hpa);
        assert_eq!(
            decode(&body).unwrap(),
            json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": "web"}, "spec": {
                "scaleTargetRef": {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
                "minReplicas": 2, "maxReplicas": 5, "metrics": [{"type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}]}})
        );
    }

    #[test]
    fn decodes_a_configmap_envelope() {
        let mut meta = vec![];
        field_bytes(1, b"cfg", &mut meta);
        field_bytes(2, b"", &mut meta);
        field_bytes(8, &[], &mut meta);
        let mut entry = vec![];
        field_bytes(1, b"k", &mut entry);
        field_bytes(2, b"v", &mut entry);
        let mut cm = vec![];
        field_bytes(1, &meta, &mut cm);
        field_bytes(2, &entry, &mut cm);
        field_varint(4, 0, &mut cm);
        let v = decode(&envelope("ConfigMap", &cm)).unwrap();
        assert_eq!(
            v,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"k": "v"}})
        );
        assert!(decode(b"k8s\x00\x0a\xff").is_err());
        assert!(decode(b"nope").is_err());
    }
}
