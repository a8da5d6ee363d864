//! Server-side apply conflicts: a 409 whose causes name each field another manager owns with
//! a different value (`reason: FieldManagerConflict`). Shown per field with the manager, so
//! the person can drop the field from the apply or force ownership.

use crate::api::errors::ApiError;

/// One field another field manager owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyConflict {
    /// As the server writes it: `.spec.replicas`, `.spec.containers[name="web"].image`.
    pub field: String,
    /// `kubectl-client-side-apply`, `kube-controller-manager`...; the whole message when it
    /// names none.
    pub manager: String,
    pub message: String,
}

const FIELD_MANAGER_CONFLICT: &str = "FieldManagerConflict";

/// The apply conflicts of a failed apply; empty for any other error.
pub fn apply_conflicts(error: &ApiError) -> Vec<ApplyConflict> {
    if !error.is_conflict() {
        return Vec::new();
    }
    let from_causes: Vec<ApplyConflict> = error
        .causes()
        .iter()
        .filter(|cause| cause.reason.as_deref() == Some(FIELD_MANAGER_CONFLICT))
        .map(|cause| {
            let message = cause.message.clone().unwrap_or_default();
            ApplyConflict {
                field: cause.field.clone().unwrap_or_default(),
                manager: manager_in(&message),
                message,
            }
        })
        .collect();
    if !from_causes.is_empty() {
        return from_causes;
    }
    // A Status without causes (a proxy may drop details): the summary message still names
    // the manager.
    match error {
        ApiError::Status { message, .. } if message.starts_with("Apply failed with") => {
            vec![ApplyConflict {
                field: String::new(),
                manager: manager_in(message),
                message: message.clone(),
            }]
        }
        _ => Vec::new(),
    }
}

/// The quoted manager in `conflict with "kubectl-client-side-apply" using apps/v1` (Go's
/// `%q`, so `\"` and `\\` are escapes); the whole message when there is none.
fn manager_in(message: &str) -> String {
    quoted_after(message, "conflict with \"")
        .or_else(|| quoted_after(message, "conflicts with \""))
        .unwrap_or_else(|| message.to_string())
}

fn quoted_after(message: &str, marker: &str) -> Option<String> {
    let start = message.find(marker)? + marker.len();
    let mut manager = String::new();
    let mut characters = message[start..].chars();
    while let Some(character) = characters.next() {
        match character {
            '"' => return Some(manager).filter(|m| !m.is_empty()),
            '\\' => manager.push(characters.next()?),
            other => manager.push(other),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As kube-apiserver answers an apply that conflicts on two fields.
    const TWO_CONFLICTS: &str = r#"{"kind":"Status","apiVersion":"v1","metadata":{},
        "status":"Failure","message":"Apply failed with 2 conflicts: conflicts with \"kubectl-client-side-apply\" using apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name=\"web\"].image",
        "reason":"Conflict","details":{"causes":[
          {"reason":"FieldManagerConflict","message":"conflict with \"kubectl-client-side-apply\" using apps/v1","field":".spec.replicas"},
          {"reason":"FieldManagerConflict","message":"conflict with \"kubelet\" with subresource \"status\" using v1","field":".spec.template.spec.containers[name=\"web\"].image"}]},
        "code":409}"#;

    #[test]
    fn conflicts_name_the_field_and_its_manager() {
        let error = ApiError::from_response(409, TWO_CONFLICTS);
        let conflicts = apply_conflicts(&error);
        assert_eq!(conflicts.len(), 2);
        assert_eq!(conflicts[0].field, ".spec.replicas");
        assert_eq!(conflicts[0].manager, "kubectl-client-side-apply");
        assert_eq!(
            conflicts[0].message,
            "conflict with \"kubectl-client-side-apply\" using apps/v1"
        );
        assert_eq!(conflicts[1].manager, "kubelet");
        assert_eq!(
            conflicts[1].field,
            ".spec.template.spec.containers[name=\"web\"].image"
        );
    }

    #[test]
    fn the_demo_clusters_wording_reads_the_same() {
        // demo-cluster: `format!("conflict with {:?} using {}", manager, api_version)`.
        let body = format!(
            r#"{{"kind":"Status","reason":"Conflict","code":409,
               "message":"Apply failed with 1 conflict: conflict with \"editor\" using v1: .data.k",
               "details":{{"causes":[{{"reason":"FieldManagerConflict","field":".data.k",
               "message":{}}}]}}}}"#,
            serde_json::Value::String(format!("conflict with {:?} using v1", "edi\"tor"))
        );
        let conflicts = apply_conflicts(&ApiError::from_response(409, &body));
        assert_eq!(conflicts.len(), 1);
        assert_eq!(conflicts[0].manager, "edi\"tor");
        assert_eq!(conflicts[0].field, ".data.k");
    }

    #[test]
    fn unreadable_managers_fall_back_to_the_message() {
        let body = r#"{"kind":"Status","reason":"Conflict","code":409,"message":"x",
            "details":{"causes":[{"reason":"FieldManagerConflict","field":".a","message":"owned elsewhere"}]}}"#;
        let conflicts = apply_conflicts(&ApiError::from_response(409, body));
        assert_eq!(conflicts[0].manager, "owned elsewhere");
        assert_eq!(
            manager_in("conflict with \"unterminated"),
            "conflict with \"unterminated"
        );
        assert_eq!(
            manager_in("conflict with \"\" using v1"),
            "conflict with \"\" using v1"
        );
    }

    #[test]
    fn without_causes_the_summary_is_used() {
        let body = r#"{"kind":"Status","reason":"Conflict","code":409,
            "message":"Apply failed with 1 conflict: conflict with \"helm\" using v1: .data.k"}"#;
        let conflicts = apply_conflicts(&ApiError::from_response(409, body));
        assert_eq!(conflicts.len(), 1);
        assert_eq!(conflicts[0].manager, "helm");
        assert_eq!(conflicts[0].field, "");
    }

    #[test]
    fn other_errors_have_no_apply_conflicts() {
        // A resourceVersion conflict of a PUT is a 409 too, without field causes.
        let stale = r#"{"kind":"Status","reason":"Conflict","code":409,
            "message":"Operation cannot be fulfilled on configmaps \"cfg\": the object has been modified; please apply your changes to the latest version and try again"}"#;
        assert!(apply_conflicts(&ApiError::from_response(409, stale)).is_empty());
        let invalid = r#"{"kind":"Status","reason":"Invalid","code":422,"message":"bad",
            "details":{"causes":[{"reason":"FieldManagerConflict","field":".a","message":"conflict with \"x\""}]}}"#;
        assert!(apply_conflicts(&ApiError::from_response(422, invalid)).is_empty());
        assert!(apply_conflicts(&ApiError::Unreachable("down".into())).is_empty());
    }
}
