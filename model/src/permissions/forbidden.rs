//! A 403 in words: kube-apiserver's RBAC refusal names the user, the verb, the resource and
//! where (`pods is forbidden: User "viewer" cannot list resource "pods" in API group "" at
//! the cluster scope`). Read back into a [`Question`], a view can say what is missing and
//! look for where the user may do it instead.

use super::review::{Question, Scope};

/// A refusal read from a 403 Status message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forbidden {
    /// Who the server says asked (None when the message does not name a user).
    pub user: Option<String>,
    /// What was refused (None when the message is not kube-apiserver's RBAC wording, e.g. a
    /// webhook's own words).
    pub question: Option<Question>,
    /// The server's words, whole.
    pub message: String,
}

impl Forbidden {
    pub fn from_message(message: &str) -> Forbidden {
        Forbidden {
            user: quoted_after(message, "User \""),
            question: refused_question(message),
            message: message.to_string(),
        }
    }

    /// "You may not list pods across all namespaces." or the server's words when they do not
    /// parse.
    pub fn explain(&self, namespaced: bool) -> String {
        match &self.question {
            Some(question) => {
                let who = self
                    .user
                    .as_deref()
                    .map(|user| format!(" (signed in as {user})"))
                    .unwrap_or_default();
                let denial = question.denial(namespaced);
                let denial = denial.trim_end_matches('.');
                format!("{denial}{who}.")
            }
            None => self.message.clone(),
        }
    }
}

fn quoted_after(text: &str, marker: &str) -> Option<String> {
    let start = text.find(marker)? + marker.len();
    let end = text[start..].find('"')?;
    Some(text[start..start + end].to_string())
}

fn refused_question(message: &str) -> Option<Question> {
    let after_cannot = &message[message.find(" cannot ")? + " cannot ".len()..];
    let (verb, rest) = after_cannot.split_once(' ')?;
    let resource = quoted_after(rest, "resource \"")?;
    let group = quoted_after(rest, "in API group \"")?;
    let scope = if rest.contains("at the cluster scope") {
        Scope::Cluster
    } else {
        Scope::Namespace(quoted_after(rest, "in the namespace \"")?)
    };
    let (resource, subresource) = match resource.split_once('/') {
        Some((resource, subresource)) => (resource.to_string(), subresource.to_string()),
        None => (resource, String::new()),
    };
    let name = message
        .split_once(" is forbidden:")
        .and_then(|(head, _)| quoted_after(head, "\""))
        .unwrap_or_default();
    Some(
        Question::new(scope, verb, &group, &resource)
            .subresource(&subresource)
            .named(&name),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_wide_list_refused() {
        let refused = Forbidden::from_message(
            r#"pods is forbidden: User "viewer" cannot list resource "pods" in API group "" at the cluster scope"#,
        );
        assert_eq!(refused.user.as_deref(), Some("viewer"));
        assert_eq!(
            refused.question,
            Some(Question::new(Scope::Cluster, "list", "", "pods"))
        );
        assert_eq!(
            refused.explain(true),
            "You may not list pods across all namespaces (signed in as viewer)."
        );
    }

    #[test]
    fn a_subresource_of_a_named_object_in_a_namespace() {
        let refused = Forbidden::from_message(
            r#"deployments.apps "x" is forbidden: User "viewer" cannot patch resource "deployments/scale" in API group "apps" in the namespace "default""#,
        );
        assert_eq!(
            refused.question,
            Some(
                Question::new(Scope::of(Some("default")), "patch", "apps", "deployments")
                    .subresource("scale")
                    .named("x")
            )
        );
    }

    #[test]
    fn other_words_are_kept_as_they_are() {
        let refused = Forbidden::from_message("denied by the policy webhook");
        assert_eq!(refused.question, None);
        assert_eq!(refused.explain(true), "denied by the policy webhook");
    }
}
