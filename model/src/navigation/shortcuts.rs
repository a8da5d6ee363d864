//! Keyboard shortcuts: one table that both the key handler and the `?` cheat sheet read, and
//! the `g`-then-a-letter sequences (`g p` pods, as in GitHub's and Gmail's keyboards), each
//! pending for a moment after `g`. The view decides when keys count (never while typing in a
//! field or the editor).

use super::route::{EventsRoute, ListRoute, OverviewRoute, Page, PermissionsRoute, Route};
use crate::api::tree::ResourceId;

/// What a shortcut does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShortcutAction {
    /// The `:` palette.
    Palette,
    /// The tree's filter (`/`); a list's own filter takes `/` when the list has focus.
    FocusFilter,
    /// The cheat sheet of every shortcut.
    CheatSheet,
    Go(GoTarget),
}

/// Where a `g` sequence goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoTarget {
    Overview,
    Pods,
    Deployments,
    Services,
    Nodes,
    Events,
    /// The API hierarchy (the explorer).
    Hierarchy,
    Permissions,
}

impl GoTarget {
    /// The page a `g` sequence opens, in the namespace in view (nodes have none).
    pub fn destination(self, namespace: Option<String>) -> Page {
        let list = |group: &str, version: &str, plural: &str, namespace| {
            Page::ResourceList(ListRoute::new(
                ResourceId::new(group, version, plural),
                namespace,
            ))
        };
        match self {
            GoTarget::Overview => Page::Overview(OverviewRoute { namespace }),
            GoTarget::Pods => list("", "v1", "pods", namespace),
            GoTarget::Deployments => list("apps", "v1", "deployments", namespace),
            GoTarget::Services => list("", "v1", "services", namespace),
            GoTarget::Nodes => list("", "v1", "nodes", None),
            GoTarget::Events => Page::Events(EventsRoute {
                namespace,
                ..EventsRoute::default()
            }),
            GoTarget::Hierarchy => Page::Home(Route {
                resource: None,
                namespace,
            }),
            GoTarget::Permissions => Page::Permissions(PermissionsRoute { namespace }),
        }
    }
}

/// One line of the cheat sheet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shortcut {
    /// As the user types them, separated by spaces: `g p`, `?`.
    pub keys: &'static str,
    pub description: &'static str,
    /// None: a key of one view (the palette, a list), listed for the record.
    pub action: Option<ShortcutAction>,
}

/// Every shortcut, in the cheat sheet's order.
pub const SHORTCUTS: &[Shortcut] = &[
    Shortcut {
        keys: "?",
        description: "Show this list of shortcuts",
        action: Some(ShortcutAction::CheatSheet),
    },
    Shortcut {
        keys: ":",
        description: "Palette: go to a resource's list (:po), a namespace (:ns NAME), a loaded object by name",
        action: Some(ShortcutAction::Palette),
    },
    Shortcut {
        keys: "/",
        description: "Filter the API tree",
        action: Some(ShortcutAction::FocusFilter),
    },
    Shortcut {
        keys: "g o",
        description: "Go to the cluster overview",
        action: Some(ShortcutAction::Go(GoTarget::Overview)),
    },
    Shortcut {
        keys: "g p",
        description: "Go to pods",
        action: Some(ShortcutAction::Go(GoTarget::Pods)),
    },
    Shortcut {
        keys: "g d",
        description: "Go to deployments",
        action: Some(ShortcutAction::Go(GoTarget::Deployments)),
    },
    Shortcut {
        keys: "g s",
        description: "Go to services",
        action: Some(ShortcutAction::Go(GoTarget::Services)),
    },
    Shortcut {
        keys: "g n",
        description: "Go to nodes",
        action: Some(ShortcutAction::Go(GoTarget::Nodes)),
    },
    Shortcut {
        keys: "g e",
        description: "Go to Event objects",
        action: Some(ShortcutAction::Go(GoTarget::Events)),
    },
    Shortcut {
        keys: "g a",
        description: "Go to the API hierarchy",
        action: Some(ShortcutAction::Go(GoTarget::Hierarchy)),
    },
    Shortcut {
        keys: "g r",
        description: "Go to your permissions (RBAC: what can I do here?)",
        action: Some(ShortcutAction::Go(GoTarget::Permissions)),
    },
    Shortcut {
        keys: "Enter",
        description: "Palette: open the list · in a list: open the row",
        action: None,
    },
    Shortcut {
        keys: "Shift Enter",
        description: "Palette: open the resource's definition in the API explorer",
        action: None,
    },
    Shortcut {
        keys: "↑ ↓",
        description: "Palette and lists: move through the entries or rows",
        action: None,
    },
    Shortcut {
        keys: "Escape",
        description: "Close the palette or this list",
        action: None,
    },
];

/// How long a `g` waits for its letter.
pub const SEQUENCE_MS: f64 = 1_500.0;

/// The keys typed so far of a sequence.
#[derive(Clone, Debug, Default)]
pub struct KeySequence {
    /// When `g` was pressed, while it waits for its letter.
    pending_since_ms: Option<f64>,
}

impl KeySequence {
    /// A key pressed (outside fields) at `now_ms`: the shortcut it completes, if any.
    pub fn press(&mut self, key: &str, now_ms: f64) -> Option<ShortcutAction> {
        let pending = self
            .pending_since_ms
            .take()
            .is_some_and(|since| now_ms - since <= SEQUENCE_MS);
        if pending {
            if let Some(action) = find(&format!("g {key}")) {
                return Some(action);
            }
        }
        if key == "g" {
            self.pending_since_ms = Some(now_ms);
            return None;
        }
        find(key)
    }

    /// Whether a `g` is waiting for its letter (the view may say so).
    pub fn is_pending(&self) -> bool {
        self.pending_since_ms.is_some()
    }
}

fn find(keys: &str) -> Option<ShortcutAction> {
    SHORTCUTS
        .iter()
        .find(|s| s.keys == keys)
        .and_then(|s| s.action)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_targets_open_their_page_in_the_namespace_in_view() {
        let ns = Some("demo".to_string());
        assert_eq!(
            GoTarget::Pods.destination(ns.clone()),
            Page::ResourceList(ListRoute::new(
                ResourceId::new("", "v1", "pods"),
                ns.clone()
            ))
        );
        // Nodes are cluster-scoped: no namespace.
        assert_eq!(
            GoTarget::Nodes.destination(ns.clone()),
            Page::ResourceList(ListRoute::new(ResourceId::new("", "v1", "nodes"), None))
        );
        assert_eq!(
            GoTarget::Permissions.destination(ns.clone()),
            Page::Permissions(PermissionsRoute { namespace: ns })
        );
    }

    #[test]
    fn g_then_a_letter_goes_somewhere_within_a_moment() {
        let mut keys = KeySequence::default();
        assert_eq!(keys.press("g", 0.0), None);
        assert!(keys.is_pending());
        assert_eq!(
            keys.press("p", 300.0),
            Some(ShortcutAction::Go(GoTarget::Pods))
        );
        assert!(!keys.is_pending());
        // Too late: the letter alone means nothing.
        keys.press("g", 1_000.0);
        assert_eq!(keys.press("p", 3_000.0), None);
        // A letter without g means nothing; g g keeps waiting.
        assert_eq!(keys.press("d", 3_100.0), None);
        keys.press("g", 4_000.0);
        assert_eq!(keys.press("g", 4_100.0), None);
        assert_eq!(
            keys.press("e", 4_200.0),
            Some(ShortcutAction::Go(GoTarget::Events))
        );
    }

    #[test]
    fn single_keys_and_the_cheat_sheet_come_from_one_table() {
        let mut keys = KeySequence::default();
        assert_eq!(keys.press("?", 0.0), Some(ShortcutAction::CheatSheet));
        assert_eq!(keys.press(":", 0.0), Some(ShortcutAction::Palette));
        // Every action is reachable from the table, once.
        let mut actions: Vec<_> = SHORTCUTS.iter().filter_map(|s| s.action).collect();
        let total = actions.len();
        actions.dedup();
        assert_eq!(actions.len(), total);
        let keys_listed: Vec<&str> = SHORTCUTS.iter().map(|s| s.keys).collect();
        for sequence in ["g o", "g p", "g d", "g e", "?"] {
            assert!(keys_listed.contains(&sequence), "{sequence}");
        }
    }
}
