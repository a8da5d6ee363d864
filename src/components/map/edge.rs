//! One edge of the map: a curve along the model's polyline, with an arrowhead and, on hover,
//! what it means and the fields it was read from (its `<title>`).

use leptos::prelude::*;

use crate::model::map::layout::Point;

/// What one edge shows, as plain data.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownEdge {
    /// `Service web selects 3 pods of ReplicaSet web-7d (selector app=web; 3 of 3 ready)`.
    pub sentence: String,
    /// The verb (`selects`), for styles and tests.
    pub verb: &'static str,
    pub from: String,
    pub to: String,
    pub points: Vec<Point>,
}

/// An SVG path through `points`: straight at both ends, curved between columns.
pub fn path_through(points: &[Point]) -> String {
    let mut path = String::new();
    for (at, point) in points.iter().enumerate() {
        if at == 0 {
            path.push_str(&format!("M{:.1} {:.1}", point.x, point.y));
            continue;
        }
        let before = points[at - 1];
        let middle = (before.x + point.x) / 2.0;
        path.push_str(&format!(
            " C{middle:.1} {:.1} {middle:.1} {:.1} {:.1} {:.1}",
            before.y, point.y, point.x, point.y
        ));
    }
    path
}

#[component]
pub fn MapEdgeView(edge: ShownEdge) -> impl IntoView {
    let path = path_through(&edge.points);
    view! {
        <g class="map-edge" data-verb=edge.verb data-from=edge.from data-to=edge.to>
            <title>{edge.sentence}</title>
            <path class="map-edge-line" d=path.clone() marker-end="url(#map-arrow)"></path>
            <path class="map-edge-hit" d=path></path>
        </g>
    }
}
