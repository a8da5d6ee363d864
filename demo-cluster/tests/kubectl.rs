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

/// Runs `steps` with kubectl against a fresh empty cluster.
async fn with_kubectl(steps: impl FnOnce(Kubectl) + Send + 'static) {
    kubectl_on(common::start_for_cli_clients().await, steps).await;
}

/// Runs `steps` with kubectl against a fresh seeded cluster (the demo workloads).
async fn with_seeded_kubectl(steps: impl FnOnce(Kubectl) + Send + 'static) {
    kubectl_on(common::start_seeded_for_cli_clients().await, steps).await;
}

/// Runs `steps` with kubectl against `cluster` (off the async workers: kubectl blocks).
async fn kubectl_on(
    cluster: demo_cluster::RunningCluster,
    steps: impl FnOnce(Kubectl) + Send + 'static,
) {
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

/// The fields of the table row whose first field is `name` (split on runs of spaces).
fn row<'a>(table: &'a str, name: &str) -> Vec<&'a str> {
    table
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .find(|fields| fields.first() == Some(&name))
        .unwrap_or_else(|| panic!("no row {name} in\n{table}"))
}

/// The header line of a table, its columns separated by single spaces.
fn header(table: &str) -> String {
    table
        .lines()
        .next()
        .unwrap_or_default()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect::<Vec<_>>()
        .join(" | ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_shows_the_seeded_cluster_as_a_real_one() {
    with_seeded_kubectl(|k| {
        // The database's claims, each bound to a volume provisioned for it, both ways.
        for claim in ["data-db-0", "data-db-1"] {
            k.wait_for_in("shop", "jsonpath={.status.phase}=Bound", &format!("pvc/{claim}"));
            let volume = k.ok(&["get", "pvc", claim, "-n", "shop", "-o", "jsonpath={.spec.volumeName}"]);
            assert!(volume.starts_with("pvc-"), "{volume}");
            k.wait_for("jsonpath={.status.phase}=Bound", &format!("pv/{volume}"));
            let volumes = k.ok(&["get", "pv"]);
            assert_eq!(
                row(&volumes, &volume)[1..7],
                ["1Gi", "RWO", "Delete", "Bound", &format!("shop/{claim}"), "standard"],
                "{volumes}"
            );
            let claims = k.ok(&["get", "pvc", "-n", "shop"]);
            assert_eq!(row(&claims, claim)[1..6], ["Bound", &volume, "1Gi", "RWO", "standard"], "{claims}");
        }

        // The frontend's autoscaler: a reading below its target, the same through v1 and v2.
        k.wait_for_in("shop", "jsonpath={.status.desiredReplicas}=2", "hpa/frontend");
        let autoscalers = k.ok(&["get", "hpa", "-n", "shop"]);
        assert_eq!(header(&autoscalers), "NAME | REFERENCE | TARGETS | MINPODS | MAXPODS | REPLICAS | AGE");
        let fields = row(&autoscalers, "frontend");
        assert_eq!(fields[1..3], ["Deployment/frontend", "cpu:"], "{autoscalers}");
        assert!(fields[3].ends_with("%/70%") && !fields[3].contains("unknown"), "{autoscalers}");
        assert_eq!(fields[4..7], ["2", "6", "2"], "{autoscalers}");
        // Readings change every simulated minute: compare the two versions of one write.
        let same_write = (0..50).find_map(|_| {
            let v2 = k.ok(&["get", "horizontalpodautoscalers.v2.autoscaling", "frontend", "-n", "shop", "-o",
                "jsonpath={.metadata.resourceVersion} {.status.currentReplicas} {.status.currentMetrics[0].resource.current.averageUtilization}"]);
            let v1 = k.ok(&["get", "horizontalpodautoscalers.v1.autoscaling", "frontend", "-n", "shop", "-o",
                "jsonpath={.metadata.resourceVersion} {.status.currentReplicas} {.status.currentCPUUtilizationPercentage}"]);
            (v1 == v2).then_some(v1)
        });
        let same_write = same_write.expect("v1 and v2 of one write agree");
        assert_eq!(same_write.split(' ').count(), 3, "{same_write}");

        // The database's disruption budget, kept by the disruption controller.
        k.wait_for_in("shop", "jsonpath={.status.disruptionsAllowed}=1", "pdb/db");
        let budgets = k.ok(&["get", "pdb", "-n", "shop"]);
        assert_eq!(header(&budgets), "NAME | MIN AVAILABLE | MAX UNAVAILABLE | ALLOWED DISRUPTIONS | AGE");
        assert_eq!(row(&budgets, "db")[1..4], ["1", "N/A", "1"], "{budgets}");
        let status = k.ok(&["get", "pdb", "db", "-n", "shop", "-o",
            "jsonpath={.status.expectedPods} {.status.currentHealthy} {.status.desiredHealthy}"]);
        assert_eq!(status, "2 2 1");

        // The shop's Ingress, its class and the address ingress-nginx gives it.
        k.wait_for_in("shop", "jsonpath={.status.loadBalancer.ingress[0].ip}=172.18.0.2", "ingress/frontend");
        let ingresses = k.ok(&["get", "ingress", "-n", "shop"]);
        assert_eq!(header(&ingresses), "NAME | CLASS | HOSTS | ADDRESS | PORTS | AGE");
        assert_eq!(row(&ingresses, "frontend")[1..6], ["nginx", "shop.demo.local", "172.18.0.2", "80,", "443"], "{ingresses}");
        assert!(k.ok(&["get", "ingressclass"]).contains("k8s.io/ingress-nginx"));

        // Configuration the frontend's pods mount, and RBAC as on a real cluster.
        k.wait_for_in("shop", "condition=Available", "deployment/frontend");
        let mounted = k.ok(&["get", "pods", "-n", "shop", "-l", "app=frontend", "-o",
            "jsonpath={.items[0].spec.volumes[0].configMap.name} {.items[0].spec.containers[0].envFrom[0].secretRef.name}"]);
        assert_eq!(mounted, "frontend-config frontend-secrets");
        k.ok(&["get", "configmap", "frontend-config", "-n", "shop"]);
        let password = k.ok(&["get", "statefulset", "db", "-n", "shop", "-o",
            "jsonpath={.spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.name}"]);
        k.ok(&["get", "secret", &password, "-n", "shop"]);
        assert!(k.ok(&["get", "secrets", "-n", "shop"]).contains("kubernetes.io/tls"));
        let bindings = k.ok(&["get", "clusterrolebindings"]);
        assert_eq!(row(&bindings, "system:basic-user")[1], "ClusterRole/system:basic-user");
        assert_eq!(row(&bindings, "cluster-admin")[1], "ClusterRole/cluster-admin");
        let role_bindings = k.ok(&["get", "rolebindings", "-n", "shop", "-o", "wide"]);
        assert!(role_bindings.contains("Role/frontend-config-reader") && role_bindings.contains("shop/frontend"), "{role_bindings}");

        // The CronTab CRD: served as v1 (preferred, stored) and v1beta1, one object in both.
        let group: serde_json::Value =
            serde_json::from_str(&k.ok(&["get", "--raw", "/apis/stable.example.com"])).unwrap();
        assert_eq!(group["preferredVersion"]["version"], "v1");
        assert_eq!(group["versions"][0]["version"], "v1");
        assert_eq!(group["versions"][1]["version"], "v1beta1");
        for version in ["v1", "v1beta1"] {
            let read = k.ok(&["get", &format!("crontabs.{version}.stable.example.com"), "nightly-vacuum", "-n", "shop",
                "-o", "jsonpath={.apiVersion} {.spec.cronSpec}"]);
            assert_eq!(read, format!("stable.example.com/{version} 0 3 * * *"));
        }
        let crontabs = k.ok(&["get", "ct", "-n", "shop"]);
        assert_eq!(header(&crontabs), "NAME | SPEC | REPLICAS | AGE");
    })
    .await;
}

const VOLUMES: &str = r#"apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: example.com/fast
volumeBindingMode: Immediate
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: lazy}
provisioner: example.com/lazy
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: manual}
provisioner: kubernetes.io/no-provisioner
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: small}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: manual
  hostPath: {path: /small}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: roomy}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: manual
  hostPath: {path: /roomy}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: dynamic, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 2Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: static, namespace: default}
spec:
  storageClassName: manual
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 2Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: later, namespace: default}
spec:
  storageClassName: lazy
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_binds_claims_to_provisioned_and_fitting_volumes() {
    with_kubectl(|k| {
        let manifest = k.manifest("volumes.yaml", VOLUMES);
        assert_eq!(k.ok(&["apply", "-f", &manifest]).matches("created").count(), 8);
        // A claim without a class gets the default one and a volume provisioned for it.
        k.wait_for("jsonpath={.status.phase}=Bound", "pvc/dynamic");
        let claim = k.ok(&["get", "pvc", "dynamic", "-o", "jsonpath={.metadata.uid} {.spec.volumeName} {.spec.storageClassName}"]);
        let [uid, volume, class] = claim.split(' ').collect::<Vec<_>>()[..] else { panic!("{claim}") };
        assert_eq!((volume, class), (format!("pvc-{uid}").as_str(), "fast"));
        let provisioned = k.ok(&["get", "pv", volume, "-o",
            "jsonpath={.spec.capacity.storage} {.spec.persistentVolumeReclaimPolicy} {.spec.claimRef.name} {.metadata.annotations.pv\\.kubernetes\\.io/provisioned-by}"]);
        assert_eq!(provisioned, "2Gi Delete dynamic example.com/fast");
        // A claim of a class without a provisioner binds the smallest volume that fits.
        k.wait_for("jsonpath={.status.phase}=Bound", "pvc/static");
        assert_eq!(k.ok(&["get", "pvc", "static", "-o", "jsonpath={.spec.volumeName} {.status.capacity.storage}"]), "roomy 5Gi");
        assert_eq!(k.ok(&["get", "pv", "small", "-o", "jsonpath={.status.phase}"]), "Available");
        // WaitForFirstConsumer: Pending until a pod using the claim is scheduled, then a
        // volume on that pod's node. No pause first: the passes that bound the two claims
        // above, applied with this one, have seen it too.
        assert_eq!(k.ok(&["get", "pvc", "later", "-o", "jsonpath={.status.phase}"]), "Pending");
        let pod = k.manifest("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: user, namespace: default}\nspec:\n  containers: [{name: c, image: nginx}]\n  volumes: [{name: data, persistentVolumeClaim: {claimName: later}}]\n");
        k.ok(&["apply", "-f", &pod]);
        k.wait_for("jsonpath={.status.phase}=Bound", "pvc/later");
        let node = k.ok(&["get", "pod", "user", "-o", "jsonpath={.spec.nodeName}"]);
        let volume = k.ok(&["get", "pvc", "later", "-o", "jsonpath={.spec.volumeName}"]);
        let affinity = k.ok(&["get", "pv", &volume, "-o",
            "jsonpath={.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}"]);
        assert_eq!(affinity, node);
        // Claims gone: a provisioned volume is deleted, a retained one Released.
        let dynamic_volume = format!("pv/{}", k.ok(&["get", "pvc", "dynamic", "-o", "jsonpath={.spec.volumeName}"]));
        k.ok(&["delete", "pvc", "dynamic", "static"]);
        // Polled for up to 60 s: generous on a busy machine.
        let gone = (0..600).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(100));
            !k.run(&["get", &dynamic_volume], None).0
        });
        assert!(gone, "{dynamic_volume} outlived its claim");
        k.wait_for("jsonpath={.status.phase}=Released", "pv/roomy");
    })
    .await;
}

/// What `kubectl api-resources -o name` prints for every GA resource kube-apiserver serves by
/// default: the legacy discovery documents of its GA group-versions (`pods`,
/// `deployments.apps`, ...). The aggregated fixture, from a newer tree, adds three GA
/// resources that default clusters do not serve (see discovery_fixtures.rs).
fn kube_apiserver_ga_resources() -> std::collections::BTreeSet<String> {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/discovery");
    let read = |name: &str| -> Option<serde_json::Value> {
        serde_json::from_slice(&std::fs::read(dir.join(name)).ok()?).ok()
    };
    let plurals = |list: &serde_json::Value, suffix: &str| -> Vec<String> {
        list["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["name"].as_str())
            .filter(|name| !name.contains('/'))
            .map(|name| format!("{name}{suffix}"))
            .collect()
    };
    let mut names: std::collections::BTreeSet<String> =
        plurals(&read("api__v1.json").expect("core discovery fixture"), "")
            .into_iter()
            .collect();
    let groups = read("apis.json").expect("group list fixture");
    for group in groups["groups"].as_array().into_iter().flatten() {
        let group_name = group["name"].as_str().unwrap_or_default();
        for version in group["versions"].as_array().into_iter().flatten() {
            let version = version["version"].as_str().unwrap_or_default();
            let ga = version
                .strip_prefix('v')
                .is_some_and(|n| n.parse::<u32>().is_ok());
            if let (true, Some(list)) = (ga, read(&format!("apis__{group_name}__{version}.json"))) {
                names.extend(plurals(&list, &format!(".{group_name}")));
            }
        }
    }
    // The aggregated document is the newer snapshot (SOURCES.md): its GA resources too.
    let aggregated = read("aggregated_v2.json").expect("aggregated discovery fixture");
    for group in aggregated["items"].as_array().into_iter().flatten() {
        let group_name = group["metadata"]["name"].as_str().unwrap_or_default();
        for version in group["versions"].as_array().into_iter().flatten() {
            let ga = version["version"]
                .as_str()
                .and_then(|v| v.strip_prefix('v'))
                .is_some_and(|n| n.parse::<u32>().is_ok());
            if ga {
                names.extend(
                    version["resources"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|r| r["resource"].as_str())
                        .map(|name| format!("{name}.{group_name}")),
                );
            }
        }
    }
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(all(have_kubectl, have_fixtures)),
    ignore = "kubectl or ../shared/fixtures missing"
)]
async fn kubectl_api_resources_lists_every_ga_resource_of_kube_apiserver() {
    with_kubectl(|k| {
        let expected = kube_apiserver_ga_resources();
        assert!(
            expected.len() >= 71
                && expected.contains("pods")
                && expected.contains("horizontalpodautoscalers.autoscaling"),
            "{expected:?}"
        );
        let listed: std::collections::BTreeSet<String> = k
            .ok(&["api-resources", "-o", "name"])
            .lines()
            .map(String::from)
            .collect();
        // The fixtures list what a server with every GA API on serves; v1.36 serves these
        // only behind feature gates, and so does the demo (`--feature-gated-apis`).
        let gated = [
            "clustertrustbundles.certificates.k8s.io",
            "devicetaintrules.resource.k8s.io",
            "podcertificaterequests.certificates.k8s.io",
            "storageversionmigrations.storagemigration.k8s.io",
        ];
        let missing: Vec<&String> = expected
            .difference(&listed)
            .filter(|name| !gated.contains(&name.as_str()))
            .collect();
        assert!(missing.is_empty(), "not listed: {missing:?}");
        // Beyond them, only the At of the cnat operator (a CRD the demo always installs) and
        // the metrics API, which kube-apiserver serves with metrics-server installed (held to
        // it by `metrics_differential.rs`).
        let extra: Vec<&String> = listed.difference(&expected).collect();
        assert_eq!(
            extra,
            [
                "ats.cnat.programming-kubernetes.info",
                "nodes.metrics.k8s.io",
                "pods.metrics.k8s.io"
            ]
        );
        // Namespaced and cluster-scoped as kube-apiserver serves them.
        let cluster_scoped = k.ok(&["api-resources", "--namespaced=false", "-o", "name"]);
        for name in [
            "nodes",
            "persistentvolumes",
            "clusterroles.rbac.authorization.k8s.io",
            "storageclasses.storage.k8s.io",
        ] {
            assert!(
                cluster_scoped.lines().any(|l| l == name),
                "{name} is cluster-scoped:\n{cluster_scoped}"
            );
        }
    })
    .await;
}

/// kube-apiserver's column headers (`kubectl get <resource> -A`) for the kinds the seeded
/// cluster has objects of.
const HEADERS: &[(&str, &str)] = &[
    ("pods", "NAMESPACE | NAME | READY | STATUS | RESTARTS | AGE"),
    ("services", "NAMESPACE | NAME | TYPE | CLUSTER-IP | EXTERNAL-IP | PORT(S) | AGE"),
    ("configmaps", "NAMESPACE | NAME | DATA | AGE"),
    ("secrets", "NAMESPACE | NAME | TYPE | DATA | AGE"),
    ("serviceaccounts", "NAMESPACE | NAME | AGE"),
    ("namespaces", "NAME | STATUS | AGE"),
    ("nodes", "NAME | STATUS | ROLES | AGE | VERSION"),
    ("events", "NAMESPACE | LAST SEEN | TYPE | REASON | OBJECT | MESSAGE"),
    ("componentstatuses", "NAME | STATUS | MESSAGE | ERROR"),
    ("persistentvolumes", "NAME | CAPACITY | ACCESS MODES | RECLAIM POLICY | STATUS | CLAIM | STORAGECLASS | VOLUMEATTRIBUTESCLASS | REASON | AGE"),
    ("persistentvolumeclaims", "NAMESPACE | NAME | STATUS | VOLUME | CAPACITY | ACCESS MODES | STORAGECLASS | VOLUMEATTRIBUTESCLASS | AGE"),
    ("deployments.apps", "NAMESPACE | NAME | READY | UP-TO-DATE | AVAILABLE | AGE"),
    ("replicasets.apps", "NAMESPACE | NAME | DESIRED | CURRENT | READY | AGE"),
    ("statefulsets.apps", "NAMESPACE | NAME | READY | AGE"),
    ("daemonsets.apps", "NAMESPACE | NAME | DESIRED | CURRENT | READY | UP-TO-DATE | AVAILABLE | NODE SELECTOR | AGE"),
    ("controllerrevisions.apps", "NAMESPACE | NAME | CONTROLLER | REVISION | AGE"),
    ("jobs.batch", "NAMESPACE | NAME | STATUS | COMPLETIONS | DURATION | AGE"),
    ("cronjobs.batch", "NAMESPACE | NAME | SCHEDULE | TIMEZONE | SUSPEND | ACTIVE | LAST SCHEDULE | AGE"),
    ("horizontalpodautoscalers.autoscaling", "NAMESPACE | NAME | REFERENCE | TARGETS | MINPODS | MAXPODS | REPLICAS | AGE"),
    ("poddisruptionbudgets.policy", "NAMESPACE | NAME | MIN AVAILABLE | MAX UNAVAILABLE | ALLOWED DISRUPTIONS | AGE"),
    ("ingresses.networking.k8s.io", "NAMESPACE | NAME | CLASS | HOSTS | ADDRESS | PORTS | AGE"),
    ("ingressclasses.networking.k8s.io", "NAME | CONTROLLER | PARAMETERS | AGE"),
    ("endpointslices.discovery.k8s.io", "NAMESPACE | NAME | ADDRESSTYPE | PORTS | ENDPOINTS | AGE"),
    ("leases.coordination.k8s.io", "NAMESPACE | NAME | HOLDER | AGE"),
    ("storageclasses.storage.k8s.io", "NAME | PROVISIONER | RECLAIMPOLICY | VOLUMEBINDINGMODE | ALLOWVOLUMEEXPANSION | AGE"),
    ("clusterroles.rbac.authorization.k8s.io", "NAME | CREATED AT"),
    ("clusterrolebindings.rbac.authorization.k8s.io", "NAME | ROLE | AGE"),
    ("roles.rbac.authorization.k8s.io", "NAMESPACE | NAME | CREATED AT"),
    ("rolebindings.rbac.authorization.k8s.io", "NAMESPACE | NAME | ROLE | AGE"),
    ("customresourcedefinitions.apiextensions.k8s.io", "NAME | CREATED AT"),
    ("crontabs.stable.example.com", "NAMESPACE | NAME | SPEC | REPLICAS | AGE"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_gets_every_listable_resource_with_kube_apiserver_columns() {
    with_seeded_kubectl(|k| {
        // Leases and revisions appear once kubelets and set controllers ran.
        k.wait_for_in(
            "shop",
            "jsonpath={.status.readyReplicas}=2",
            "statefulset/db",
        );
        let listable = k.ok(&["api-resources", "--verbs=list", "-o", "name"]);
        let mut printed = 0;
        for resource in listable.lines() {
            let table = k.ok(&["get", resource, "-A"]);
            if let Some((_, expected)) = HEADERS.iter().find(|(r, _)| *r == resource) {
                assert_eq!(
                    header(&table),
                    *expected,
                    "kubectl get {resource}:\n{table}"
                );
                printed += 1;
            }
        }
        assert_eq!(
            printed,
            HEADERS.len(),
            "every kind of HEADERS is listable:\n{listable}"
        );
    })
    .await;
}

const CLUSTER_KINDS: &str = r#"apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: csi.example.com}
spec: {attachRequired: false, volumeLifecycleModes: [Persistent]}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata: {name: gold}
driverName: csi.example.com
---
apiVersion: networking.k8s.io/v1
kind: ServiceCIDR
metadata: {name: extra}
spec: {cidrs: [10.100.0.0/16]}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: batch}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 10
    limitResponse: {type: Queue, queuing: {queues: 16, handSize: 4, queueLengthLimit: 50}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: batch-jobs}
spec:
  priorityLevelConfiguration: {name: batch}
  matchingPrecedence: 500
  distinguisherMethod: {type: ByUser}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas-limit}
spec:
  validations: [{expression: "object.spec.replicas <= 5"}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {}
---
apiVersion: v1
kind: PodTemplate
metadata: {name: worker, namespace: default}
template:
  metadata: {labels: {app: worker}}
  spec: {containers: [{name: main, image: "busybox:1.36"}]}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_prints_csi_flowcontrol_admission_dra_and_template_kinds_with_their_columns() {
    with_kubectl(|k| {
        let manifest = k.manifest("kinds.yaml", CLUSTER_KINDS);
        assert_eq!(k.ok(&["apply", "-f", &manifest]).matches("created").count(), 8);
        for (resource, expected, row_name, cells) in [
            ("csidrivers", "NAME | ATTACHREQUIRED | PODINFOONMOUNT | STORAGECAPACITY | TOKENREQUESTS | REQUIRESREPUBLISH | MODES | AGE", "csi.example.com", &["false", "false", "false", "<unset>", "false", "Persistent"][..]),
            ("volumeattributesclasses", "NAME | DRIVERNAME | AGE", "gold", &["csi.example.com"][..]),
            ("servicecidrs", "NAME | CIDRS | AGE", "extra", &["10.100.0.0/16"][..]),
            ("prioritylevelconfigurations", "NAME | TYPE | NOMINALCONCURRENCYSHARES | QUEUES | HANDSIZE | QUEUELENGTHLIMIT | AGE", "batch", &["Limited", "10", "16", "4", "50"][..]),
            ("flowschemas", "NAME | PRIORITYLEVEL | MATCHINGPRECEDENCE | DISTINGUISHERMETHOD | AGE | MISSINGPL", "batch-jobs", &["batch", "500", "ByUser"][..]),
            ("validatingadmissionpolicies", "NAME | VALIDATIONS | PARAMKIND | AGE", "replicas-limit", &["1", "<unset>"][..]),
            ("deviceclasses", "NAME | AGE", "gpu.example.com", &[][..]),
            ("podtemplates", "NAME | CONTAINERS | IMAGES | POD LABELS", "worker", &["main", "busybox:1.36", "app=worker"][..]),
        ] {
            let table = k.ok(&["get", resource]);
            assert_eq!(header(&table), expected, "{resource}:\n{table}");
            assert_eq!(row(&table, row_name)[1..=cells.len()], *cells, "{resource}:\n{table}");
        }
    })
    .await;
}

/// kubectl's typed `create` subcommands send protobuf: each is decoded into the object the
/// user asked for, and `get` prints it with kube-apiserver's columns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_create_subcommands_for_quotas_priorities_budgets_and_ingresses() {
    let cluster = common::start_for_cli_clients().await;
    let k = Kubectl::new(&cluster);
    tokio::task::spawn_blocking(move || {
        for (args, created) in [
            (
                vec!["create", "quota", "q1", "-n", "default", "--hard=pods=10,requests.cpu=1,limits.cpu=2"],
                "resourcequota/q1 created",
            ),
            (
                vec!["create", "priorityclass", "pc1", "--value=1000", "--description=batch"],
                "priorityclass.scheduling.k8s.io/pc1 created",
            ),
            (
                vec!["create", "pdb", "p1", "-n", "default", "--selector=app=x", "--min-available=1"],
                "poddisruptionbudget.policy/p1 created",
            ),
            (
                vec!["create", "ingress", "i1", "-n", "default", "--class=nginx", "--rule=foo.com/bar=svc1:8080,tls=my-cert"],
                "ingress.networking.k8s.io/i1 created",
            ),
        ] {
            let said = k.ok(&args);
            assert!(said.contains(created), "{args:?}: {said}");
        }
        let quota = k.ok(&["get", "quota", "q1", "-n", "default"]);
        assert!(quota.contains("REQUEST") && quota.contains("LIMIT"), "{quota}");
        // No quota controller has counted it yet: kube-apiserver prints empty cells then.
        assert!(!quota.contains("pods:"), "{quota}");
        assert_eq!(k.ok(&["get", "pc", "pc1", "-o", "jsonpath={.value} {.description}"]), "1000 batch");
        assert_eq!(k.ok(&["get", "pdb", "p1", "-n", "default", "-o", "jsonpath={.spec.minAvailable}"]), "1");
        let ingress = k.ok(&[
            "get", "ingress", "i1", "-n", "default", "-o",
            "jsonpath={.spec.ingressClassName} {.spec.rules[0].host} {.spec.rules[0].http.paths[0].backend.service.port.number} {.spec.tls[0].secretName}",
        ]);
        assert_eq!(ingress, "nginx foo.com 8080 my-cert");
    })
    .await
    .expect("kubectl run");
}
