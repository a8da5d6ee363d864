//! Drives the real `kubectl` against a served demo cluster (skipped when kubectl is absent).

mod common;

use common::Kubectl;

const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wg]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_end_to_end() {
    let cluster = common::start_for_cli_clients().await;
    let k = Kubectl::new(&cluster);
    let dir = k.home.path().to_path_buf();
    let manifest = dir.join("web.yaml");
    std::fs::write(&manifest, common::WEB_DEPLOYMENT).unwrap();
    let crd = dir.join("crd.yaml");
    std::fs::write(&crd, CRD).unwrap();

    let k = tokio::task::spawn_blocking(move || {
        let resources = k.ok(&["api-resources"]);
        assert!(resources.contains("deployments") && resources.contains("deploy"), "{resources}");

        assert!(k.ok(&["create", "-f", manifest.to_str().unwrap()]).contains("deployment.apps/web created"));
        let table = k.ok(&["get", "deployments", "-n", "default"]);
        assert!(table.contains("READY") && table.contains("UP-TO-DATE") && table.contains("web"), "{table}");
        let nodes = k.ok(&["get", "nodes"]);
        assert_eq!(nodes.matches("Ready").count(), 3, "{nodes}");

        // Client-side apply on an object kubectl created, then server-side apply.
        std::fs::write(&manifest, common::WEB_DEPLOYMENT.replace("replicas: 2", "replicas: 3")).unwrap();
        let applied = k.ok(&["apply", "-f", manifest.to_str().unwrap()]);
        assert!(applied.contains("configured"), "{applied}");
        std::fs::write(&manifest, common::WEB_DEPLOYMENT.replace("replicas: 2", "replicas: 4")).unwrap();
        let ssa = k.ok(&["apply", "--server-side", "--force-conflicts", "-f", manifest.to_str().unwrap()]);
        assert!(ssa.contains("serverside-applied"), "{ssa}");
        assert_eq!(k.ok(&["get", "deploy", "web", "-n", "default", "-o", "jsonpath={.spec.replicas}"]), "4");

        // Client-side apply computes strategic patches from our OpenAPI patch metadata:
        // removing a container and an env var from the manifest removes them.
        let two = common::WEB_DEPLOYMENT.replace(
            "        image: nginx:1.25\n",
            "        image: nginx:1.25\n        env: [{name: X, value: \"1\"}, {name: Y, value: \"2\"}]\n      - name: side\n        image: busybox\n",
        );
        std::fs::write(&manifest, &two).unwrap();
        k.ok(&["apply", "-f", manifest.to_str().unwrap()]);
        assert_eq!(k.ok(&["get", "deploy", "web", "-n", "default", "-o", "jsonpath={.spec.template.spec.containers[*].name}"]), "nginx side");
        let one = common::WEB_DEPLOYMENT.replace("        image: nginx:1.25\n", "        image: nginx:1.25\n        env: [{name: X, value: \"1\"}]\n");
        std::fs::write(&manifest, &one).unwrap();
        k.ok(&["apply", "-f", manifest.to_str().unwrap()]);
        assert_eq!(k.ok(&["get", "deploy", "web", "-n", "default", "-o", "jsonpath={.spec.template.spec.containers[*].name}/{.spec.template.spec.containers[0].env[*].name}"]), "nginx/X");
        let explained = k.ok(&["explain", "deployment.spec.replicas"]);
        assert!(explained.contains("replicas") && explained.contains("<integer>"), "{explained}");

        assert!(k.ok(&["label", "deploy", "web", "-n", "default", "tier=frontend"]).contains("labeled"));
        assert!(k.ok(&["get", "deploy", "-n", "default", "-l", "tier=frontend", "-o", "name"]).contains("deployment.apps/web"));
        k.ok(&["scale", "deploy", "web", "-n", "default", "--replicas=1"]);

        // Replace with a stale object: 409 Conflict.
        let stale = dir.join("stale.yaml");
        std::fs::write(&stale, k.ok(&["get", "deploy", "web", "-n", "default", "-o", "yaml"])).unwrap();
        k.ok(&["annotate", "deploy", "web", "-n", "default", "touched=yes"]);
        let (ok, _, err) = k.run(&["replace", "-f", stale.to_str().unwrap()], None);
        assert!(!ok);
        assert!(err.contains("Conflict") && err.contains("the object has been modified"), "{err}");

        // CRDs: create, then use the new kind with its printer columns.
        k.ok(&["apply", "-f", crd.to_str().unwrap()]);
        let widget = dir.join("widget.yaml");
        std::fs::write(&widget, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: default}\nspec: {size: 7}\n").unwrap();
        k.ok(&["apply", "-f", widget.to_str().unwrap()]);
        let widgets = k.ok(&["get", "wg", "-n", "default"]);
        assert!(widgets.contains("SIZE") && widgets.contains("7"), "{widgets}");

        // Generators send protobuf bodies through kubectl's typed clients.
        k.ok(&["create", "namespace", "team-a"]);
        k.ok(&["create", "configmap", "cfg", "-n", "team-a", "--from-literal=a=b"]);
        assert_eq!(k.ok(&["get", "cm", "cfg", "-n", "team-a", "-o", "jsonpath={.data.a}"]), "b");
        k.ok(&["create", "deployment", "gen", "--image=nginx:1.25", "--replicas=2", "--port=80", "-n", "team-a"]);
        assert_eq!(k.ok(&["get", "deploy", "gen", "-n", "team-a", "-o", "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].ports[0].containerPort}"]), "2 80");
        k.ok(&["create", "secret", "generic", "s", "--from-literal=pw=x", "-n", "team-a"]);
        k.ok(&["create", "service", "clusterip", "svc", "--tcp=80:8080", "-n", "team-a"]);
        k.ok(&["run", "pod1", "--image=nginx", "-n", "team-a"]);
        let all = k.ok(&["get", "all", "-n", "team-a"]);
        assert!(all.contains("pod/pod1") && all.contains("service/svc") && all.contains("deployment.apps/gen"), "{all}");
        k.ok(&["delete", "namespace", "team-a"]);

        assert!(k.ok(&["delete", "deploy", "web", "-n", "default"]).contains("deleted"));
        let (ok, _, err) = k.run(&["get", "deploy", "web", "-n", "default"], None);
        assert!(!ok && err.contains("NotFound"), "{err}");
        k
    })
    .await
    .unwrap();
    drop(k);
    cluster.shutdown().await.unwrap();
}

/// Runs `steps` with kubectl against a fresh cluster (off the async workers: kubectl blocks).
async fn with_kubectl(steps: impl FnOnce(Kubectl) + Send + 'static) {
    let cluster = common::start_for_cli_clients().await;
    let k = Kubectl::new(&cluster);
    tokio::task::spawn_blocking(move || steps(k))
        .await
        .expect("kubectl ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_auth_answers_for_the_demo_admin() {
    with_kubectl(|k| {
        assert_eq!(
            k.ok(&["auth", "can-i", "create", "deployments"]).trim(),
            "yes"
        );
        assert_eq!(
            k.ok(&["auth", "can-i", "delete", "nodes", "--all-namespaces"])
                .trim(),
            "yes"
        );
        assert_eq!(k.ok(&["auth", "can-i", "get", "/healthz"]).trim(), "yes");
        assert_eq!(
            k.ok(&["auth", "can-i", "list", "pods", "--as", "someone", "-n", "shop"])
                .trim(),
            "yes"
        );
        let rules = k.ok(&["auth", "can-i", "--list"]);
        assert!(
            rules.contains("Resources") && rules.contains("*.*") && rules.contains("[*]"),
            "{rules}"
        );
        let whoami = k.ok(&["auth", "whoami"]);
        assert!(
            whoami.contains("kubernetes-admin") && whoami.contains("system:masters"),
            "{whoami}"
        );
        let whoami = k.ok(&[
            "auth",
            "whoami",
            "-o",
            "jsonpath={.status.userInfo.username}",
        ]);
        assert_eq!(whoami, "kubernetes-admin");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_reads_autoscalers_through_both_versions() {
    with_kubectl(|k| {
        let hpa = k.manifest(
            "hpa.yaml",
            "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: default}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 4\n  targetCPUUtilizationPercentage: 65\n",
        );
        assert!(k.ok(&["apply", "-f", &hpa]).contains("created"));
        let table = k.ok(&["get", "hpa", "-n", "default"]);
        assert!(
            table.contains("REFERENCE") && table.contains("Deployment/web") && table.contains("cpu: <unknown>/65%"),
            "{table}"
        );
        let v2 = k.ok(&["get", "hpa", "web", "-n", "default", "-o", "jsonpath={.spec.metrics[0].resource.target.averageUtilization}"]);
        assert_eq!(v2, "65");
        let v1 = k.ok(&["get", "horizontalpodautoscalers.v1.autoscaling", "web", "-n", "default", "-o", "jsonpath={.spec.targetCPUUtilizationPercentage}"]);
        assert_eq!(v1, "65");
        // Applying the same v1 manifest again changes nothing.
        assert!(k.ok(&["apply", "-f", &hpa]).contains("unchanged"));
    })
    .await;
}

const STORAGE: &str = r#"apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: rancher.io/local-path
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec:
  capacity: {storage: 2Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: local
  hostPath: {path: /data}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_prints_storage_and_cluster_kinds_as_on_a_real_cluster() {
    with_kubectl(|k| {
        let manifest = k.manifest("storage.yaml", STORAGE);
        let applied = k.ok(&["apply", "-f", &manifest]);
        assert_eq!(applied.matches("created").count(), 5, "{applied}");
        // The claim gets the default class and binds the volume that fits.
        k.wait_for("jsonpath={.status.phase}=Bound", "pvc/data");
        let table = k.ok(&["get", "sc,pv,pvc,pc,ingressclass", "-n", "default"]);
        for expected in [
            "local (default)",
            "rancher.io/local-path",
            "WaitForFirstConsumer|Immediate",
            "RWO,ROX",
            "Retain",
            "default/data",
            "1000",
            "PreemptLowerPriority",
            "k8s.io/ingress-nginx",
        ] {
            assert!(
                expected.split('|').any(|e| table.contains(e)),
                "{expected} missing:\n{table}"
            );
        }
        // A StorageClass's provisioner is fixed at creation.
        let (ok, _, err) = k.run(
            &[
                "patch",
                "sc",
                "local",
                "--type=merge",
                "-p",
                r#"{"provisioner":"other"}"#,
            ],
            None,
        );
        assert!(!ok && err.contains("field is immutable"), "{err}");
        // Applying the same manifests again changes nothing (defaults are stable).
        let again = k.ok(&["apply", "-f", &manifest]);
        assert_eq!(again.matches("unchanged").count(), 5, "{again}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_approves_certificate_signing_requests() {
    with_kubectl(|k| {
        // Any base64 will do: no signer runs, nothing parses the request.
        let csr = k.manifest(
            "csr.yaml",
            "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata: {name: alice}\nspec:\n  request: TFMwdExTMUNSVWRKVGlCRFJWSlVTVVpKUTBGVVJTQlNSVkZWUlZOVUxTMHRMUzBL\n  signerName: kubernetes.io/kube-apiserver-client\n  usages: [client auth]\n",
        );
        assert!(k.ok(&["create", "-f", &csr]).contains("created"));
        let table = k.ok(&["get", "csr"]);
        assert!(table.contains("Pending") && table.contains("kubernetes-admin"), "{table}");
        let approved = k.ok(&["certificate", "approve", "alice"]);
        assert!(approved.contains("approved"), "{approved}");
        let table = k.ok(&["get", "csr", "alice"]);
        assert!(table.contains("Approved"), "{table}");
        let condition = k.ok(&["get", "csr", "alice", "-o", "jsonpath={.status.conditions[0].type}"]);
        assert_eq!(condition, "Approved");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_creates_service_account_tokens_that_token_reviews_recognise() {
    with_kubectl(|k| {
        k.ok(&["create", "serviceaccount", "robot", "-n", "default"]);
        let token = k.ok(&[
            "create",
            "token",
            "robot",
            "-n",
            "default",
            "--duration",
            "20m",
        ]);
        let token = token.trim();
        assert_eq!(token.split('.').count(), 3, "a JWT: {token}");
        let (ok, _, err) = k.run(&["create", "token", "nobody", "-n", "default"], None);
        assert!(!ok && err.contains("not found"), "{err}");
        let review = k.manifest(
            "review.json",
            &serde_json::json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                "spec": {"token": token}})
            .to_string(),
        );
        let user = k.ok(&[
            "create",
            "-f",
            &review,
            "-o",
            "jsonpath={.status.user.username}",
        ]);
        assert_eq!(user, "system:serviceaccount:default:robot");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_gets_component_statuses_read_only() {
    with_kubectl(|k| {
        let table = k.ok(&["get", "cs"]);
        assert_eq!(table.matches("Healthy").count(), 3, "{table}");
        assert!(
            table.contains("etcd-0") && table.contains("scheduler"),
            "{table}"
        );
        let (ok, _, err) = k.run(&["delete", "cs", "scheduler"], None);
        assert!(
            !ok && err.contains("MethodNotAllowed") || err.contains("not supported"),
            "{err}"
        );
    })
    .await;
}
