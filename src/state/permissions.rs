//! What the signed-in user may do, asked of the API server as views need it: the rules of a
//! namespace (one SelfSubjectRulesReview answers every question about it), single questions
//! about the cluster scope (SelfSubjectAccessReview), and who the user is
//! (SelfSubjectReview). Each is asked once; [`PermissionsState::refresh`] forgets them all
//! (a 403 where the rules said yes, the user's "check again").
//!
//! Also the namespace the user last worked in, remembered across visits, for people who may
//! not list across namespaces.

use std::collections::HashSet;

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::api::{self, ApiError};
use crate::browser::{local_storage_get, local_storage_set};
use crate::model::api::request::ApiRequest;
use crate::model::permissions::{
    access_review_answer, rules_review_request, self_subject_review_request, Lookup, Permission,
    Permissions, Question, RulesReview, UserInfo,
};

const RULES_REVIEWS: &str = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
const ACCESS_REVIEWS: &str = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
const SELF_SUBJECT_REVIEWS: &str = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
/// Where the namespace last worked in is remembered.
const LAST_NAMESPACE_KEY: &str = "kube-atlas:last-namespace";

#[derive(Clone, Copy)]
pub struct PermissionsState {
    known: RwSignal<Permissions>,
    /// Lookups asked (answered or in flight), so each is asked once.
    asked: StoredValue<HashSet<Lookup>, LocalStorage>,
    /// Rules reviews that failed, by namespace (the server does not answer them).
    pub failures: RwSignal<Vec<(String, String)>>,
    /// Who the server says the user is; None until asked.
    pub user: RwSignal<Option<Result<UserInfo, String>>>,
    user_asked: StoredValue<bool>,
    /// Bumped by [`PermissionsState::refresh`]: views that asked before ask again.
    pub generation: RwSignal<u64>,
}

impl PermissionsState {
    pub fn install() -> PermissionsState {
        let state = PermissionsState {
            known: RwSignal::new(Permissions::default()),
            asked: StoredValue::new_local(HashSet::new()),
            failures: RwSignal::new(Vec::new()),
            user: RwSignal::new(None),
            user_asked: StoredValue::new(false),
            generation: RwSignal::new(0),
        };
        provide_context(state);
        state
    }

    /// The answer to `question` from what is known (reactive), asking the server for what
    /// is not known yet.
    pub fn may(&self, question: &Question) -> Permission {
        self.generation.track();
        let (answer, lookup) = self
            .known
            .with(|known| (known.may(question), known.lookup(question)));
        if let Some(lookup) = lookup {
            self.ask(lookup);
        }
        answer
    }

    /// The namespace's rules, asked for when not known (reactive).
    pub fn rules(&self, namespace: &str) -> Option<RulesReview> {
        self.generation.track();
        let rules = self.known.with(|known| known.rules(namespace).cloned());
        if rules.is_none() {
            self.ask(Lookup::Rules(namespace.to_string()));
        }
        rules
    }

    /// Who the user is, asked once.
    pub fn whoami(&self) -> Option<Result<UserInfo, String>> {
        let user = self.user.get();
        if user.is_none() && !self.user_asked.get_value() {
            self.user_asked.set_value(true);
            let state = *self;
            spawn_local(async move {
                let answer = create(SELF_SUBJECT_REVIEWS, self_subject_review_request())
                    .await
                    .and_then(|answer| UserInfo::from_answer(&answer));
                state.user.set(Some(answer));
            });
        }
        user
    }

    /// Asks the server about `question` itself (a SelfSubjectAccessReview, whatever the
    /// namespace's rules said: a bulk action asks per object name, so a Role's
    /// `resourceNames` are honoured) and keeps the answer.
    pub async fn review(&self, question: Question) -> Permission {
        let answer = create(ACCESS_REVIEWS, question.access_review())
            .await
            .and_then(|answer| access_review_answer(&answer))
            .unwrap_or(Permission::Unknown);
        let state = *self;
        let kept = answer.clone();
        state
            .known
            .try_update(|known| known.record_answer(question, kept));
        answer
    }

    /// Forgets every answer: the next questions are asked again.
    pub fn refresh(&self) {
        self.asked.update_value(HashSet::clear);
        self.known.update(Permissions::forget);
        self.failures.set(Vec::new());
        self.user.set(None);
        self.user_asked.set_value(false);
        self.generation.update(|g| *g += 1);
    }

    fn mark_asked(&self, lookup: Lookup) -> bool {
        self.asked
            .try_update_value(|asked| asked.insert(lookup))
            .unwrap_or(false)
    }

    fn ask(&self, lookup: Lookup) {
        if !self.mark_asked(lookup.clone()) {
            return;
        }
        let state = *self;
        spawn_local(async move {
            match lookup {
                Lookup::Rules(namespace) => {
                    let answer = create(RULES_REVIEWS, rules_review_request(&namespace))
                        .await
                        .and_then(|answer| RulesReview::from_answer(&answer));
                    match answer {
                        Ok(rules) => state
                            .known
                            .update(|known| known.record_rules(&namespace, rules)),
                        Err(error) => state.failures.update(|f| f.push((namespace, error))),
                    }
                }
                Lookup::Access(question) => {
                    let answer = create(ACCESS_REVIEWS, question.access_review())
                        .await
                        .and_then(|answer| access_review_answer(&answer));
                    // A review the server does not answer leaves the question open (the
                    // controls stay enabled and the server decides).
                    let answer = answer.unwrap_or(Permission::Unknown);
                    state
                        .known
                        .update(|known| known.record_answer(question, answer));
                }
            }
        });
    }
}

async fn create(path: &str, body: Value) -> Result<Value, String> {
    let request = ApiRequest::create(path, body.to_string()).accept("application/json");
    let fetched = api::send(&request, None)
        .await
        .map_err(|e: ApiError| e.to_string())?;
    serde_json::from_str(&fetched.body).map_err(|e| format!("the review is not JSON: {e}"))
}

pub fn use_permissions() -> PermissionsState {
    expect_context::<PermissionsState>()
}

/// The answer to the question `question` makes (None: nothing to ask; counted as allowed).
pub fn use_permission(
    question: impl Fn() -> Option<Question> + Send + Sync + 'static,
) -> Signal<Permission> {
    let state = use_permissions();
    Signal::derive(move || match question() {
        Some(question) => state.may(&question),
        None => Permission::Unknown,
    })
}

/// The namespace the user last chose, remembered across visits.
pub fn last_namespace() -> Option<String> {
    local_storage_get(LAST_NAMESPACE_KEY).filter(|ns| !ns.is_empty())
}

pub fn remember_namespace(namespace: &str) {
    local_storage_set(LAST_NAMESPACE_KEY, namespace);
}

/// The request a write control would make.
#[derive(Debug, Clone)]
pub struct UseDenialOptions {
    pub question: Question,
    /// Whether the kind is namespaced (for the wording).
    pub namespaced: bool,
}

#[derive(Clone, Copy)]
pub struct UseDenialReturn {
    /// Why the control is disabled; None: enabled.
    pub reason: Signal<Option<String>>,
}

/// Why a write control is disabled (None: enabled). Denied only when the permissions say
/// no: unknown leaves it to the server.
pub fn use_denial(options: UseDenialOptions) -> UseDenialReturn {
    let UseDenialOptions {
        question,
        namespaced,
    } = options;
    let permissions = use_permissions();
    let reason = Signal::derive(move || {
        (permissions.may(&question) == Permission::Denied).then(|| question.denial(namespaced))
    });
    UseDenialReturn { reason }
}
