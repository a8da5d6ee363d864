//! Pure model of the dashboard: discovery parsing, the unified API tree, REST mapping,
//! filtering. No IO, no browser APIs, so it is tested natively with `cargo test`.

pub mod discovery;
pub mod errors;
pub mod filter;
pub mod mapping;
pub mod quick_access;
pub mod request;
pub mod route;
pub mod synthetic;
pub mod tree;
pub mod tree_nav;
pub mod version;
pub mod watch;
pub mod yaml;

pub use discovery::{
    classify_discovery_content_type, group_from_aggregated, group_version_path, parse_aggregated,
    parse_api_root, parse_api_versions, parse_apis_root, parse_group, parse_group_list,
    parse_resource_list, resources_from_legacy, tree_from_aggregated, ApiGroupDiscoveryList,
    ApiGroupListDoc, ApiRootDoc, ApiVersionsDoc, ApisRootDoc, DiscoveryError, DiscoveryFormat,
    GvRequest, LegacyTreeBuilder, LegacyWalkPlan, DISCOVERY_ACCEPT,
};
pub use filter::{filter_tree, palette_matches, MatchRank, PaletteCandidate, TreeFilter};
pub use mapping::{
    allowed_operations, kind_to_resource, resolve_category, resolve_user_input, shell_quote,
    split_api_version, ApiPath, Endpoint, HttpMethod, MappingError, NameArg, NamespaceArg,
    Operation, DEFAULT_PROXY_BASE,
};
pub use synthetic::{synthetic_crd_groups, synthetic_crd_list, with_synthetic_crds};
pub use tree::{
    api_version, group_display_name, ApiGroup, ApiResource, ApiTree, Discovery, GroupVersion,
    GroupVersionRef, ResourceId, ResourceRef, Subresource, TreeCounts, TreeError, TreeErrorKind,
    TreeErrors,
};
pub use version::{compare_versions, sort_versions, Stability};
