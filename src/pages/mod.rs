//! Routed screens, one file each: the API hierarchy (home), a resource list, one object.

pub mod home;
pub mod object;
pub mod resource_list;

pub use home::HomePage;
pub use object::{ObjectIdentity, ObjectPage};
pub use resource_list::{ListIdentity, ResourceListPage};
