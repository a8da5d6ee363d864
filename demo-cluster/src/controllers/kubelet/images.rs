//! Images: how runtimes name them (fully qualified, with digests), the image rules of the
//! simulation (`crash`, `doesnotexist`, `unready` in the name), simulated pull times, and the
//! kubelet's pulls: Pulling, then Pulled or the failed pull's ErrImagePull and
//! ImagePullBackOff, retried with a growing back-off.

use std::time::Instant;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::pods::{back_off_seconds, container_spec, containers, Runtime, Stage};
use super::status::Shown;
use super::Kubelet;
use crate::controllers::events::EventSpec;
use crate::controllers::uid_of;

/// How long a failed pull shows as ErrImagePull before the kubelet's next sync reports the
/// back-off (simulated seconds).
const PULL_ERROR_SHOWN_SECONDS: f64 = 1.0;

/// A number in 0..modulo derived from `seed` (stable pseudo-randomness for pull times).
pub(super) fn spread(seed: &str, modulo: u64) -> u64 {
    let digest = Sha256::digest(seed.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(bytes) % modulo.max(1)
}

pub(super) fn hex_digest(seed: &str) -> String {
    Sha256::digest(seed.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `nginx` → `docker.io/library/nginx:latest`, as container runtimes report images.
pub fn full_image(image: &str) -> String {
    let last = image.rsplit('/').next().unwrap_or(image);
    let with_tag = if last.contains(':') || image.contains('@') {
        image.to_string()
    } else {
        format!("{image}:latest")
    };
    let first = image.split('/').next().unwrap_or_default();
    if !image.contains('/') {
        format!("docker.io/library/{with_tag}")
    } else if first.contains('.') || first.contains(':') || first == "localhost" {
        with_tag
    } else {
        format!("docker.io/{with_tag}")
    }
}

pub fn image_id(image: &str) -> String {
    let full = full_image(image);
    let repo = full.split([':', '@']).next().unwrap_or(&full).to_string();
    format!("{repo}@sha256:{}", hex_digest(&full))
}

pub fn is_crashing_image(image: &str) -> bool {
    image.contains("crash")
}

/// An image no registry has: its pulls fail with containerd's "not found".
pub fn is_missing_image(image: &str) -> bool {
    image.contains("doesnotexist")
}

/// An image whose readiness probe (if it has one) never passes.
pub fn is_unready_image(image: &str) -> bool {
    image.contains("unready")
}

/// The image as the kubelet names it in pull messages: with the default tag `latest` added
/// when it has neither tag nor digest (the kubelet's `applyDefaultImageTag`), not qualified.
pub(super) fn image_with_tag(image: &str) -> String {
    let last = image.rsplit('/').next().unwrap_or(image);
    if last.contains(':') || image.contains('@') {
        image.to_string()
    } else {
        format!("{image}:latest")
    }
}

/// What containerd answers for a missing image, as the kubelet wraps it (the gRPC status).
pub(super) fn pull_error(image: &str) -> String {
    let full = full_image(image);
    format!(
        "rpc error: code = NotFound desc = failed to pull and unpack image \"{full}\": failed to resolve reference \"{full}\": {full}: not found"
    )
}

pub(super) fn has_missing_image(pod: &Value) -> bool {
    containers(pod).iter().any(|(_, i)| is_missing_image(i))
}

/// How a pod with a missing image is shown: its missing images as `failed`, the others still
/// being created.
pub(super) fn pull_view(failed: Shown) -> impl Fn(&str) -> Shown {
    move |image| {
        if is_missing_image(image) {
            failed
        } else {
            Shown::Creating
        }
    }
}

pub(super) fn pod_pull_policy(pod: &Value, container: &str) -> String {
    container_spec(pod, container)
        .and_then(|c| c["imagePullPolicy"].as_str())
        .unwrap_or("IfNotPresent")
        .to_string()
}

/// Simulated pull time between 1 and 3 seconds.
pub(super) fn pull_seconds(uid: &str, image: &str) -> f64 {
    1.0 + spread(&format!("{uid}/{image}"), 2000) as f64 / 1000.0
}

impl Kubelet {
    pub(super) fn record_pulling(&self, pod: &Value, container: &str, image: &str) {
        self.record(
            pod,
            container,
            EventSpec::normal(
                "Pulling",
                format!("Pulling image \"{}\"", image_with_tag(image)),
            ),
        );
    }

    /// The pull of a missing image failed: the image manager's Failed Event with
    /// containerd's words, then the container manager's "Error: ErrImagePull".
    pub(super) fn pull_failed(&mut self, pod: &Value, rt: &mut Runtime) {
        self.record_for_missing_images(pod, |image| {
            [
                EventSpec::warning(
                    "Failed",
                    format!("Failed to pull image \"{image}\": {}", pull_error(image)),
                ),
                EventSpec::warning("Failed", "Error: ErrImagePull"),
            ]
        });
        rt.failed_pulls += 1;
        rt.stage = Stage::PullFailed;
        rt.due = Some(Instant::now() + self.ctx.scaled(PULL_ERROR_SHOWN_SECONDS));
        self.write_status(pod, rt, "Pending", pull_view(Shown::PullError));
    }

    /// The next sync finds the image in back-off: a Normal BackOff Event (the image
    /// manager's), then "Error: ImagePullBackOff"; the next pull after the back-off.
    pub(super) fn report_pull_back_off(&mut self, pod: &Value, rt: &mut Runtime) {
        self.record_for_missing_images(pod, |image| {
            [
                EventSpec::normal("BackOff", format!("Back-off pulling image \"{image}\"")),
                EventSpec::warning("Failed", "Error: ImagePullBackOff"),
            ]
        });
        rt.stage = Stage::PullBackOff;
        rt.due = Some(Instant::now() + self.ctx.scaled(back_off_seconds(rt.failed_pulls)));
        self.write_status(pod, rt, "Pending", pull_view(Shown::PullBackOff));
    }

    /// Records, for each container whose image is missing, the Events `events` makes of the
    /// image (named with its default tag, as the kubelet names it).
    pub(super) fn record_for_missing_images(
        &self,
        pod: &Value,
        events: impl Fn(&str) -> [EventSpec; 2],
    ) {
        for (name, image) in containers(pod) {
            if is_missing_image(&image) {
                for spec in events(&image_with_tag(&image)) {
                    self.record(pod, &name, spec);
                }
            }
        }
    }

    /// The back-off is over: pull again (and fail again, after a pull's time).
    pub(super) fn pull_again(&mut self, pod: &Value, rt: &mut Runtime) {
        let uid = uid_of(pod).to_string();
        let mut slowest = 0.2f64;
        for (name, image) in containers(pod) {
            if is_missing_image(&image) {
                self.record_pulling(pod, &name, &image);
                slowest = slowest.max(pull_seconds(&uid, &image));
            }
        }
        rt.stage = Stage::Pulling;
        rt.due = Some(Instant::now() + self.ctx.scaled(slowest));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_reported_fully_qualified() {
        assert_eq!(full_image("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(full_image("nginx:1.27"), "docker.io/library/nginx:1.27");
        assert_eq!(
            full_image("bitnami/redis"),
            "docker.io/bitnami/redis:latest"
        );
        assert_eq!(full_image("ghcr.io/x/y:2"), "ghcr.io/x/y:2");
        assert!(image_id("nginx").starts_with("docker.io/library/nginx@sha256:"));
    }
}
