//! A node's icon: the kind's short name (`kubectl get` accepts most of them) in a badge, so
//! a kind is known at a glance without relying on colour or pictures.

/// The badge's letters for `kind`.
pub fn kind_icon(kind: &str) -> String {
    let short = match kind {
        "Deployment" => "dep",
        "ReplicaSet" => "rs",
        "StatefulSet" => "sts",
        "DaemonSet" => "ds",
        "Pod" => "pod",
        "Job" => "job",
        "CronJob" => "cj",
        "Service" => "svc",
        "EndpointSlice" => "eps",
        "Ingress" => "ing",
        "Gateway" => "gw",
        "HTTPRoute" | "GRPCRoute" | "TLSRoute" | "TCPRoute" | "UDPRoute" => "rt",
        "ConfigMap" => "cm",
        "Secret" => "sec",
        "ServiceAccount" => "sa",
        "PersistentVolumeClaim" => "pvc",
        "PersistentVolume" => "pv",
        "StorageClass" => "sc",
        "HorizontalPodAutoscaler" => "hpa",
        "PodDisruptionBudget" => "pdb",
        "NetworkPolicy" => "np",
        other => return other.chars().take(3).collect::<String>().to_lowercase(),
    };
    short.to_string()
}
