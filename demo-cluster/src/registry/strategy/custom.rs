//! Custom resources, whatever their plural: any path-segment name, status per the CRD's
//! subresources (see `Strategy::status`), printer columns from the CRD (`http::table`).

use super::{NameRule, Strategy};

pub struct CustomResources;

impl Strategy for CustomResources {
    fn name_rule(&self) -> NameRule {
        NameRule::PathSegment
    }
}
