//! The prefix before each merged line, as stern and kubetail draw it: a short tag telling
//! the pod (and the container, when its pod has several), a colour per stream, and the full
//! `pod/container` name for a hover.

use std::collections::BTreeMap;

use crate::object::workload_logs::streams::StreamKey;

/// Colours a view draws tags in; a tag's `colour` is below this.
pub const PALETTE_SIZE: u8 = 8;

/// The characters of the random suffix Kubernetes gives generated names (no vowels, so no
/// words): `apimachinery/pkg/util/rand`'s alphanumerics.
const GENERATED_SUFFIX_CHARS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// A stream's prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamTag {
    /// `x2x9q`, or `x2x9q/sidecar` in a pod of several containers.
    pub short: String,
    /// `web-7d4b9c-x2x9q/sidecar`.
    pub full: String,
    /// An index into the view's palette, below [`PALETTE_SIZE`].
    pub colour: u8,
}

/// The part of a pod's name that tells it from its siblings: the random suffix of a
/// generated name (`web-7d4b9c-x2x9q` → `x2x9q`); any other name whole (a StatefulSet's
/// `db-0`, a pod named by hand).
pub fn short_pod_name(pod: &str) -> &str {
    match pod.rsplit_once('-') {
        Some((_, suffix))
            if suffix.len() == 5 && suffix.bytes().all(|b| GENERATED_SUFFIX_CHARS.contains(&b)) =>
        {
            suffix
        }
        _ => pod,
    }
}

/// The colour a stream gets when it is free: FNV-1a of `pod/container`, so a stream has the
/// same colour in every view and session.
pub fn preferred_colour(key: &StreamKey) -> u8 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in key.pod.bytes().chain([b'/']).chain(key.container.bytes()) {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    // The remainder is below PALETTE_SIZE, so it fits.
    (hash % u32::from(PALETTE_SIZE)) as u8
}

/// The tags of one view's streams, each decided once and kept: a stream's colour and tag do
/// not change while the view lives, even as others come and go.
#[derive(Debug, Clone, Default)]
pub struct TagPalette {
    tags: BTreeMap<StreamKey, StreamTag>,
}

impl TagPalette {
    pub fn new() -> TagPalette {
        TagPalette::default()
    }

    /// `key`'s tag, decided now if it is new. A new stream gets its preferred colour, or the
    /// next one no stream has while any is free. Its short name is the pod's suffix unless
    /// another pod already shows that suffix, then the pod's whole name.
    pub fn tag(&mut self, key: &StreamKey, several_containers: bool) -> &StreamTag {
        if !self.tags.contains_key(key) {
            let tag = self.new_tag(key, several_containers);
            self.tags.insert(key.clone(), tag);
        }
        &self.tags[key]
    }

    /// `key`'s tag, if decided.
    pub fn get(&self, key: &StreamKey) -> Option<&StreamTag> {
        self.tags.get(key)
    }

    fn new_tag(&self, key: &StreamKey, several_containers: bool) -> StreamTag {
        let suffix = short_pod_name(&key.pod);
        let taken_by_another_pod = self
            .tags
            .iter()
            .any(|(other, _)| other.pod != key.pod && short_pod_name(&other.pod) == suffix);
        let pod = if taken_by_another_pod {
            key.pod.as_str()
        } else {
            suffix
        };
        let short = if several_containers {
            format!("{pod}/{}", key.container)
        } else {
            pod.to_string()
        };
        let used: Vec<u8> = self.tags.values().map(|tag| tag.colour).collect();
        let preferred = preferred_colour(key);
        let colour = (0..PALETTE_SIZE)
            .map(|step| (preferred + step) % PALETTE_SIZE)
            .find(|colour| !used.contains(colour))
            .unwrap_or(preferred);
        StreamTag {
            short,
            full: key.to_string(),
            colour,
        }
    }
}
