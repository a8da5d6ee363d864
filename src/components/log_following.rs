//! What the two log views (a pod's, a workload's) share about their scroller: following the
//! newest line while the view is at the bottom, the *Follow* button that sticks to it again,
//! and a line's text with its matches marked.

use leptos::html;
use leptos::prelude::*;

/// What [`use_following`] gives the view.
#[derive(Clone, Copy)]
pub struct UseFollowingReturn {
    /// On while the view is at the bottom (also when every line fits).
    pub following: RwSignal<bool>,
    /// Reads where the scroller is (after a scroll, or after the view moved it).
    pub note_scroll_position: Callback<()>,
    /// Scrolls to the newest line and stays there.
    pub follow_again: Callback<()>,
}

/// Follows the bottom of `scroller`, whose rows are `line_height` pixels tall; keeps
/// `scroll_top` (the windowing's) up to date.
pub fn use_following(
    scroller: NodeRef<html::Div>,
    scroll_top: RwSignal<f64>,
    line_height: f64,
) -> UseFollowingReturn {
    let following = RwSignal::new(true);
    let note_scroll_position = Callback::new(move |()| {
        let Some(el) = scroller.get_untracked() else {
            return;
        };
        let top = f64::from(el.scroll_top());
        scroll_top.set(top);
        let bottom_gap = f64::from(el.scroll_height()) - top - f64::from(el.client_height());
        let at_bottom = bottom_gap <= line_height / 2.0;
        if following.get_untracked() != at_bottom {
            following.set(at_bottom);
        }
    });
    let follow_again = Callback::new(move |()| {
        following.set(true);
        if let Some(el) = scroller.get_untracked() {
            el.set_scroll_top(el.scroll_height());
        }
    });
    UseFollowingReturn {
        following,
        note_scroll_position,
        follow_again,
    }
}

/// The *Follow* button, shown while the view is not following.
pub fn follow_button(following: UseFollowingReturn) -> impl IntoView {
    move || {
        (!following.following.get()).then(|| {
            view! {
                <button
                    type="button"
                    class="pod-logs-follow"
                    title="Scroll to the newest line and stay there"
                    on:click=move |_| following.follow_again.run(())
                >
                    "Follow"
                </button>
            }
        })
    }
}

/// A line's text, its matching pieces marked (text nodes, never HTML).
pub fn marked_pieces(pieces: Vec<(String, bool)>) -> impl IntoView {
    pieces
        .into_iter()
        .map(|(text, is_match)| {
            if is_match {
                view! { <mark>{text}</mark> }.into_any()
            } else {
                text.into_any()
            }
        })
        .collect_view()
}
