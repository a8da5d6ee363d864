//! The header's "signed in as" and *Sign out*, when kube-atlas serves the page for a team.
//! Sign-out is a plain form post: the session ends on the server and the browser goes to the
//! sign-in page (no script involved, nothing of the token here).

use leptos::prelude::*;

use crate::state::session::signed_in;

#[component]
pub fn SignedInUser() -> impl IntoView {
    signed_in().map(|who| {
        let title = if who.groups.is_empty() {
            format!("Signed in as {}", who.user)
        } else {
            format!(
                "Signed in as {} (groups: {})",
                who.user,
                who.groups.join(", ")
            )
        };
        view! {
            <form class="signed-in" method="post" action=who.sign_out>
                <span class="signed-in-user" title=title>{who.user.clone()}</span>
                <button type="submit" class="sign-out">"Sign out"</button>
            </form>
        }
    })
}
