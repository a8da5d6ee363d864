//! deploy/ (what `kubectl apply -k deploy/` puts in a cluster) applied with a server-side dry
//! run to a real kube-apiserver: every object valid as the server checks it (schemas, field
//! validation, the restricted Pod Security Standard its Namespace enforces), and the rules
//! a team deployment keeps (no rights for the dashboard, no token mounted, non-root, a
//! read-only root filesystem, probes on /healthz and /readyz).

mod support;

use std::path::PathBuf;

fn deploy_dir() -> PathBuf {
    envtest::workspace_root().join("deploy")
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[test]
fn the_manifests_pass_a_server_side_dry_run_and_give_the_dashboard_no_rights() {
    let plane = envtest::ControlPlane::start(envtest::Options {
        controllers: false,
        nodes: 0,
    })
    .unwrap_or_else(|e| panic!("a control plane starts: {e}"));
    let deploy = deploy_dir();
    let rendered = plane
        .kubectl_ok(&["kustomize", &deploy.display().to_string()])
        .unwrap_or_else(|e| panic!("kubectl kustomize deploy/: {e}"));
    for kind in [
        "kind: Namespace",
        "kind: ServiceAccount",
        "kind: Deployment",
        "kind: Service",
        "kind: Ingress",
    ] {
        assert!(rendered.contains(kind), "deploy/ has no {kind}");
    }
    for forbidden in ["RoleBinding", "ClusterRole", "kind: Role", "kind: Secret"] {
        assert!(
            !rendered.contains(forbidden),
            "the dashboard needs no {forbidden} in token mode"
        );
    }
    for rule in [
        "runAsNonRoot: true",
        "readOnlyRootFilesystem: true",
        "allowPrivilegeEscalation: false",
        "automountServiceAccountToken: false",
        "path: /healthz",
        "path: /readyz",
        "- --in-cluster",
        "memory: 256Mi",
    ] {
        assert!(
            rendered.contains(rule),
            "deploy/ lacks {rule:?}:\n{rendered}"
        );
    }
    // The Namespace for real first (a dry-run one does not exist for what goes in it), so
    // its Pod Security label applies to the Deployment below.
    plane
        .kubectl_ok(&[
            "apply",
            "-f",
            &deploy.join("namespace.yaml").display().to_string(),
        ])
        .unwrap_or_else(|e| panic!("the Namespace: {e}"));
    let applied = plane
        .kubectl(&[
            "apply",
            "--dry-run=server",
            "-k",
            &deploy.display().to_string(),
        ])
        .expect("kubectl runs");
    let stdout = String::from_utf8_lossy(&applied.stdout);
    let stderr = String::from_utf8_lossy(&applied.stderr);
    assert!(
        applied.status.success(),
        "kubectl apply --dry-run=server -k deploy/ failed:\n{stdout}\n{stderr}"
    );
    for object in [
        "serviceaccount/kube-atlas",
        "deployment.apps/kube-atlas",
        "service/kube-atlas",
        "ingress.networking.k8s.io/kube-atlas",
    ] {
        assert!(
            stdout.contains(&format!("{object} created (server dry run)")),
            "{object} not checked by the server:\n{stdout}"
        );
    }
    assert!(
        !stderr.contains("Warning"),
        "the server warned (Pod Security, deprecated fields):\n{stderr}"
    );
}
