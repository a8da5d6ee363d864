//! One node of the map: its icon, kind (or a group's counts), name and health (icon and
//! word), at the place the model's layout gave it. A group expands when clicked; any other
//! node opens its object's page. Hover and focus show its diagnosis line.

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

#[component]
pub fn MapNodeView(node: ShownNode, actions: MapActions) -> impl IntoView {
    let Rect {
        x,
        y,
        width,
        height,
    } = node.rect;
    let index = node.index;
    let description = node.description();
    // The accessible name starts with what the node shows (a voice user says what they
    // see), then what a group folds and why the node has its health.
    let visible = format!(
        "{} {} {} {}",
        node.summary,
        shortened(&node.name),
        health_icon(node.health),
        node.health.label()
    );
    let label = if node.members.is_none() && node.line.is_none() {
        visible
    } else {
        format!("{visible}. {description}")
    };
    let health = node.health.label().to_lowercase();
    let (bar_health, word_health) = (health.clone(), health.clone());
    let activate = {
        let (id, href, group) = (node.id.clone(), node.href.clone(), node.members.is_some());
        move || {
            if group {
                actions.expand(&id);
            } else if let Some(href) = &href {
                actions.open(href);
            }
        }
    };
    let on_click = {
        let activate = activate.clone();
        move |_| {
            if !actions.was_dragged() {
                activate();
            }
        }
    };
    let on_key = move |event: leptos::ev::KeyboardEvent| {
        if event.key() == "Enter" || event.key() == " " {
            event.prevent_default();
            activate();
        } else if let Some(direction) = direction_of(&event.key()) {
            event.prevent_default();
            actions.move_focus(index, direction);
        }
    };
    let members = node.members.map(|n| n.to_string());
    let role = if node.members.is_some() {
        "button"
    } else {
        "link"
    };
    let expanded = node.members.is_some().then_some("false");
    view! {
        <g
            class="map-node"
            class:map-group=node.members.is_some()
            transform=format!("translate({x} {y})")
            tabindex="0"
            role=role
            aria-label=label
            aria-expanded=expanded
            data-index=index
            data-kind=node.kind.clone()
            data-name=node.name.clone()
            data-health=health
            data-members=members
            on:click=on_click
            on:keydown=on_key
            on:mouseenter=move |_| actions.hovered.set(Some(index))
            on:mouseleave=move |_| actions.hovered.set(None)
            on:focus=move |_| {
                actions.hovered.set(Some(index));
                actions.reveal(index);
            }
            on:blur=move |_| actions.hovered.set(None)
        >
            <title>{description}</title>
            <rect class="map-node-box" width=width height=height rx="6"></rect>
            <rect class="map-node-bar" width="5" height=height rx="2" data-health=bar_health></rect>
            <circle class="map-node-icon" cx="24" cy=height / 2.0 r="14"></circle>
            <text class="map-node-icon-text" x="24" y=height / 2.0 + 4.0 text-anchor="middle" aria-hidden="true">
                {kind_icon(&node.kind)}
            </text>
            <text class="map-node-kind" x="46" y="19">{node.summary.clone()}</text>
            <text class="map-node-name" x="46" y="37">{shortened(&node.name)}</text>
            <text class="map-node-health" x=width - 8.0 y="19" text-anchor="end" data-health=word_health>
                {format!("{} {}", health_icon(node.health), node.health.label())}
            </text>
        </g>
    }
}
