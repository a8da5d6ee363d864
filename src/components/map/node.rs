//! One node of the map: its icon, kind (or a group's counts), name and health (icon and
//! word), at the place the model's layout gave it. A group expands when clicked; any other
//! node opens its object's page. Hover and focus show its diagnosis line.

use std::collections::HashMap;

use leptos::prelude::*;

use super::icon::kind_icon;
use super::MapActions;
use crate::components::diagnosis::health_icon;
use crate::model::diagnosis::Health;
use crate::model::map::focus::Direction;
use crate::model::overview::chart::Rect;

/// A name longer than this is cut on the drawing (the whole name is in its label and title).
const NAME_CHARS: usize = 22;

/// What one node shows, as plain data (a node whose data did not change keeps its element,
/// and with it the keyboard's focus).
#[derive(Debug, Clone, PartialEq)]
pub struct ShownNode {
    /// Its index in the drawing (its place in the keyboard's travel).
    pub index: usize,
    pub id: String,
    pub kind: String,
    pub name: String,
    /// The kind, or a group's counts (`3 pods, 2 ready`).
    pub summary: String,
    /// `ReplicaSet web-7d: 3 pods, 2 ready`, `Service web`.
    pub title: String,
    pub health: Health,
    /// Why it has its health (`Pod demo/web-1 cannot be scheduled: …`).
    pub line: Option<String>,
    /// Its object's page; None for a group.
    pub href: Option<String>,
    /// A group: how many objects it folds.
    pub members: Option<usize>,
    pub rect: Rect,
}

impl ShownNode {
    /// What is said of it on hover and to a screen reader.
    pub fn description(&self) -> String {
        let mut text = format!("{} ({})", self.title, self.health.label());
        if let Some(line) = &self.line {
            text.push_str(": ");
            text.push_str(line);
        }
        text
    }
}

fn shortened(name: &str) -> String {
    if name.chars().count() <= NAME_CHARS {
        return name.to_string();
    }
    let kept: String = name.chars().take(NAME_CHARS - 1).collect();
    format!("{kept}…")
}

fn direction_of(key: &str) -> Option<Direction> {
    Some(match key {
        "ArrowLeft" => Direction::Left,
        "ArrowRight" => Direction::Right,
        "ArrowUp" => Direction::Up,
        "ArrowDown" => Direction::Down,
        _ => return None,
    })
}

/// The drawing's nodes by id, for the nodes kept in place.
pub fn nodes_by_id(nodes: Memo<Vec<ShownNode>>) -> Memo<HashMap<String, ShownNode>> {
    Memo::new(move |_| {
        nodes.with(|nodes| {
            nodes
                .iter()
                .map(|node| (node.id.clone(), node.clone()))
                .collect()
        })
    })
}

/// One node's data as the drawing changes (the last known while it leaves the drawing).
pub fn node_by_id(first: ShownNode, by_id: Memo<HashMap<String, ShownNode>>) -> Memo<ShownNode> {
    let id = first.id.clone();
    Memo::new(move |last: Option<&ShownNode>| {
        by_id
            .with(|nodes| nodes.get(&id).cloned())
            .or_else(|| last.cloned())
            .unwrap_or_else(|| first.clone())
    })
}

/// The accessible name: what the node shows, in the order it shows it (its kind's badge, its
/// kind or counts, its name, its health), so a voice user can say what they see; what a group
/// folds and why the node has its health is its description (the `<title>`, read after the
/// name, and the hover text).
fn accessible_name(node: &ShownNode) -> String {
    format!(
        "{} {} {} {} {}",
        kind_icon(&node.kind),
        node.summary,
        shortened(&node.name),
        health_icon(node.health),
        node.health.label()
    )
}

/// A drawn text, ending with a space that the drawing collapses: the texts of one node read as
/// separate words (`svc Service web`, not `svcServiceweb`) wherever its text is read whole.
fn word(text: String) -> String {
    text + " "
}

/// One node, kept in the DOM while its object is on the map (keyed by id): its counts, health
/// and place change in place, so the keyboard's focus stays on it as pods come and go.
#[component]
pub fn MapNodeView(node: Memo<ShownNode>, actions: MapActions) -> impl IntoView {
    let read = move |f: fn(&ShownNode) -> String| move || node.with(f);
    let index = move || node.with(|n| n.index);
    let health = move || node.with(|n| n.health.label().to_lowercase());
    let activate = move || {
        let (id, href, group) =
            node.with_untracked(|n| (n.id.clone(), n.href.clone(), n.members.is_some()));
        if group {
            actions.expand(&id);
        } else if let Some(href) = &href {
            actions.open(href);
        }
    };
    let on_click = move |_| {
        if !actions.was_dragged() {
            activate();
        }
    };
    let on_key = move |event: leptos::ev::KeyboardEvent| {
        if event.key() == "Enter" || event.key() == " " {
            event.prevent_default();
            activate();
        } else if let Some(direction) = direction_of(&event.key()) {
            event.prevent_default();
            actions.move_focus(node.with_untracked(|n| n.index), direction);
        }
    };
    let group = move || node.with(|n| n.members.is_some());
    let members = move || node.with(|n| n.members.map(|count| count.to_string()));
    let role = move || if group() { "button" } else { "link" };
    let expanded = move || group().then_some("false");
    let transform = move || node.with(|n| format!("translate({} {})", n.rect.x, n.rect.y));
    let width = move || node.with(|n| n.rect.width);
    let height = move || node.with(|n| n.rect.height);
    view! {
        <g
            class="map-node"
            class:map-group=group
            transform=transform
            tabindex="0"
            role=role
            aria-label=read(accessible_name)
            aria-expanded=expanded
            data-index=index
            data-kind=read(|n| n.kind.clone())
            data-name=read(|n| n.name.clone())
            data-health=health
            data-members=members
            on:click=on_click
            on:keydown=on_key
            on:mouseenter=move |_| actions.hovered.set(Some(node.with_untracked(|n| n.index)))
            on:mouseleave=move |_| actions.hovered.set(None)
            on:focus=move |_| {
                let index = node.with_untracked(|n| n.index);
                actions.hovered.set(Some(index));
                actions.reveal(index);
            }
            on:blur=move |_| actions.hovered.set(None)
        >
            <title>{read(ShownNode::description)}</title>
            <rect class="map-node-box" width=width height=height rx="6"></rect>
            <rect class="map-node-bar" width="5" height=height rx="2" data-health=health></rect>
            <circle class="map-node-icon" cx="24" cy=move || height() / 2.0 r="14"></circle>
            <text class="map-node-icon-text" x="24" y=move || height() / 2.0 + 4.0 text-anchor="middle" aria-hidden="true">
                {read(|n| word(kind_icon(&n.kind)))}
            </text>
            <text class="map-node-kind" x="46" y="19">{read(|n| word(n.summary.clone()))}</text>
            <text class="map-node-name" x="46" y="37">{read(|n| word(shortened(&n.name)))}</text>
            <text class="map-node-health" x=move || width() - 8.0 y="19" text-anchor="end" data-health=health>
                {read(|n| word(format!("{} {}", health_icon(n.health), n.health.label())))}
            </text>
        </g>
    }
}
