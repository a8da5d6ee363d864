//! `Accept` header negotiation: aggregated vs legacy discovery, and Table / metadata-only
//! representations of resources.

use axum::http::HeaderMap;

use crate::errors::ApiError;

#[derive(Debug, Clone)]
pub struct MediaRange {
    pub essence: String,
    pub params: Vec<(String, String)>,
}

impl MediaRange {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    fn is_json_like(&self) -> bool {
        matches!(
            self.essence.as_str(),
            "application/json" | "*/*" | "application/*"
        )
    }
}

pub fn parse_accept(headers: &HeaderMap) -> Vec<MediaRange> {
    let raw = headers
        .get_all(axum::http::header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",");
    raw.split(',')
        .filter_map(|part| {
            let mut pieces = part.split(';');
            let essence = pieces.next()?.trim().to_ascii_lowercase();
            if essence.is_empty() {
                return None;
            }
            let params = pieces
                .filter_map(|p| {
                    let (k, v) = p.split_once('=')?;
                    Some((
                        k.trim().to_ascii_lowercase(),
                        v.trim().trim_matches('"').to_string(),
                    ))
                })
                .collect();
            Some(MediaRange { essence, params })
        })
        .collect()
}

fn accept_string(headers: &HeaderMap) -> String {
    headers
        .get(axum::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// Which discovery document form a request for `/api` or `/apis` gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoveryForm {
    Legacy,
    /// The apidiscovery.k8s.io version to label the response with (`v2` or `v2beta1`).
    Aggregated(&'static str),
}

pub fn negotiate_discovery(headers: &HeaderMap) -> Result<DiscoveryForm, ApiError> {
    let ranges = parse_accept(headers);
    if ranges.is_empty() {
        return Ok(DiscoveryForm::Legacy);
    }
    for r in &ranges {
        if !r.is_json_like() {
            continue;
        }
        match (r.param("g"), r.param("v"), r.param("as")) {
            (None, None, None) => return Ok(DiscoveryForm::Legacy),
            (Some("apidiscovery.k8s.io"), Some("v2"), Some("APIGroupDiscoveryList")) => {
                return Ok(DiscoveryForm::Aggregated("v2"))
            }
            (Some("apidiscovery.k8s.io"), Some("v2beta1"), Some("APIGroupDiscoveryList")) => {
                return Ok(DiscoveryForm::Aggregated("v2beta1"))
            }
            _ => continue,
        }
    }
    Err(ApiError::not_acceptable(&accept_string(headers)))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncludeObject {
    None,
    Metadata,
    Object,
}

/// Representation of resources in a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Object,
    Table,
    /// PartialObjectMetadata(List).
    Metadata,
}

impl Output {
    pub fn content_type(self) -> &'static str {
        match self {
            Output::Object => "application/json",
            Output::Table => "application/json;as=Table;v=v1;g=meta.k8s.io",
            Output::Metadata => "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
        }
    }
}

pub fn negotiate_output(headers: &HeaderMap) -> Result<Output, ApiError> {
    let ranges = parse_accept(headers);
    if ranges.is_empty() {
        return Ok(Output::Object);
    }
    for r in &ranges {
        if !r.is_json_like() {
            continue;
        }
        let meta_group =
            r.param("g") == Some("meta.k8s.io") && matches!(r.param("v"), Some("v1" | "v1beta1"));
        match r.param("as") {
            None if r.param("g").is_none() => return Ok(Output::Object),
            Some("Table") if meta_group => return Ok(Output::Table),
            Some("PartialObjectMetadata" | "PartialObjectMetadataList") if meta_group => {
                return Ok(Output::Metadata)
            }
            _ => continue,
        }
    }
    Err(ApiError::not_acceptable(&accept_string(headers)))
}

pub fn include_object(
    query: &std::collections::HashMap<String, String>,
) -> Result<IncludeObject, ApiError> {
    match query.get("includeObject").map(String::as_str) {
        None | Some("") | Some("Metadata") => Ok(IncludeObject::Metadata),
        Some("None") => Ok(IncludeObject::None),
        Some("Object") => Ok(IncludeObject::Object),
        Some(other) => Err(ApiError::bad_request(format!(
            "includeObject: unsupported value {other:?}; supported values: \"None\", \"Metadata\", \"Object\""
        ))),
    }
}
