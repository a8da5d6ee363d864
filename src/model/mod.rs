//! Pure model of the dashboard: discovery parsing, the unified API tree, REST mapping,
//! filtering, Browse (tables, selectors, routes, owners, object pages) and the watch layer. No IO, no
//! browser APIs, so it is tested natively with `cargo test`.

pub mod age;
pub mod discovery;
pub mod edit;
pub mod errors;
pub mod events;
pub mod filter;
pub mod history;
pub mod logs;
pub mod mapping;
pub mod meta;
pub mod object_view;
pub mod owners;
pub mod pacing;
pub mod quick_access;
pub mod request;
pub mod retry;
pub mod route;
pub mod selector;
pub mod synthetic;
pub mod table;
#[cfg(test)]
mod test_rng;
pub mod text;
pub mod tree;
pub mod tree_nav;
pub mod version;
pub mod watch;
pub mod yaml;

pub use age::{age_of, human_duration, parse_timestamp, EpochMillis};
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
pub use meta::{ObjectMeta, OwnerReference};
pub use object_view::{
    object_overview, pretty_json, ConditionRow, MetadataEntry, ObjectOverview, PrettyJson,
    FOLD_AFTER_CHARS,
};
pub use owners::{
    GraphEdge, GraphNode, OwnedObject, OwnedTree, OwnerChain, OwnerGraph, OwnerIndex, OwnerNode,
};
pub use route::{EventsRoute, ListRoute, ObjectRoute, ObjectTab, Page, Route};
pub use selector::{
    escape_field_value, parse_field_selector, parse_label_selector, FieldOperator,
    FieldRequirement, FieldSelector, LabelOperator, LabelRequirement, LabelSelector, SelectorError,
};
pub use synthetic::{synthetic_crd_groups, synthetic_crd_list, with_synthetic_crds};
pub use table::{
    decode_table, decode_table_value, fallback_row, format_cell, natural_cmp, parse_human_duration,
    row_key_of_object, Align, ColumnDefinition, ColumnKind, DecodeOptions, FormattedCell, ListMeta,
    RowKey, RowProblem, RowStore, SortDirection, SortSpec, Table, TableDecodeError, TablePage,
    TableRow, TableSource,
};
pub use tree::{
    api_version, group_display_name, ApiGroup, ApiResource, ApiTree, Discovery, GroupVersion,
    GroupVersionRef, ResourceId, ResourceRef, Subresource, TreeCounts, TreeError, TreeErrorKind,
    TreeErrors,
};
pub use version::{compare_versions, sort_versions, Stability};
