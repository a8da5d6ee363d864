//! Lists: the server's Tables decoded, kept by row and formatted, sorted and filtered
//! ([`table`]); what a live list draws ([`display`]); label and field selectors checked before
//! they are sent ([`selector`]); the rows chosen for a bulk action ([`selection`]); and the
//! one shared sort routine every ordering goes through ([`stable_sort`]).

pub mod display;
pub mod selection;
pub mod selector;
pub mod stable_sort;
pub mod table;
