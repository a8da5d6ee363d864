//! Where the user is and how they move: the location in the URL ([`route`]), keyboard
//! shortcuts ([`shortcuts`]), the `:` palette ([`palette`]), the kinds one click away
//! ([`quick_access`]), the sidebar tree and its keyboard ([`sidebar_tree`]) and the search
//! over the API tree both use ([`resource_search`]).

pub mod palette;
pub mod quick_access;
pub mod resource_search;
pub mod route;
pub mod shortcuts;
pub mod sidebar_tree;
