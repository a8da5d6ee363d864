//! Keyboard travel on the drawn map: where an arrow key moves the focus from a node, by the
//! layout's columns and rows (up and down within a column, left and right to the nearest
//! node of the next column that has one), so a keyboard reaches every node as an eye does.

use super::layout::MapLayout;

/// An arrow key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Left,
    Right,
    Up,
    Down,
}

/// The node the focus moves to from `from` in `direction`; None at the map's edge.
pub fn neighbour(layout: &MapLayout, from: usize, direction: Direction) -> Option<usize> {
    let column = *layout.columns.get(from)?;
    let middle = |node: usize| layout.nodes[node].y + layout.nodes[node].height / 2.0;
    let here = middle(from);
    let nodes = 0..layout.nodes.len().min(layout.columns.len());
    let nearest_by = |candidates: Vec<usize>, distance: &dyn Fn(usize) -> f64| {
        candidates
            .into_iter()
            .min_by(|&a, &b| distance(a).total_cmp(&distance(b)).then(a.cmp(&b)))
    };
    match direction {
        Direction::Up | Direction::Down => {
            let below = direction == Direction::Down;
            let candidates: Vec<usize> = nodes
                .filter(|&n| layout.columns[n] == column && n != from)
                .filter(|&n| (middle(n) > here) == below && middle(n) != here)
                .collect();
            nearest_by(candidates, &|n| (middle(n) - here).abs())
        }
        Direction::Left | Direction::Right => {
            let right = direction == Direction::Right;
            let next_column = nodes
                .clone()
                .map(|n| layout.columns[n])
                .filter(|&c| if right { c > column } else { c < column })
                .min_by_key(|&c| c.abs_diff(column))?;
            let candidates: Vec<usize> = nodes
                .filter(|&n| layout.columns[n] == next_column)
                .collect();
            nearest_by(candidates, &|n| (middle(n) - here).abs())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::overview::chart::Rect;

    fn at(x: f64, y: f64) -> Rect {
        Rect {
            x,
            y,
            width: 10.0,
            height: 10.0,
        }
    }

    #[test]
    fn arrows_move_within_a_column_and_to_the_nearest_node_beside() {
        // Column 0: nodes 0 (top) and 1; column 2 (column 1 empty here): node 2 near node 1.
        let layout = MapLayout {
            nodes: vec![at(0.0, 0.0), at(0.0, 100.0), at(40.0, 90.0), at(40.0, 0.0)],
            columns: vec![0, 0, 2, 2],
            edges: Vec::new(),
            width: 50.0,
            height: 110.0,
        };
        assert_eq!(neighbour(&layout, 0, Direction::Down), Some(1));
        assert_eq!(neighbour(&layout, 1, Direction::Down), None);
        assert_eq!(neighbour(&layout, 1, Direction::Up), Some(0));
        assert_eq!(neighbour(&layout, 1, Direction::Right), Some(2));
        assert_eq!(neighbour(&layout, 0, Direction::Right), Some(3));
        assert_eq!(neighbour(&layout, 2, Direction::Left), Some(1));
        assert_eq!(neighbour(&layout, 2, Direction::Right), None);
        assert_eq!(neighbour(&layout, 9, Direction::Right), None);
    }
}
