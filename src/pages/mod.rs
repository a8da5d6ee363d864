//! Routed screens, one file each: the API hierarchy (home), a resource list, one object, the
//! Event objects timeline, the map of a namespace, the replay of a recording, creating objects
//! from YAML, the user's permissions.

pub mod chunks;
pub mod create;
pub mod events;
pub mod home;
pub mod map;
pub mod object;
pub mod overview;
pub mod permissions;
pub mod replay;
pub mod resource_list;

pub use create::CreatePage;
pub use events::EventsPage;
pub use home::HomePage;
pub use map::MapPage;
pub use object::{ObjectIdentity, ObjectPage};
pub use overview::OverviewPage;
pub use permissions::PermissionsPage;
pub use replay::ReplayPage;
pub use resource_list::{ListIdentity, ResourceListPage};
