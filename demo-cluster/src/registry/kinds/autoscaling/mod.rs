//! autoscaling: HorizontalPodAutoscalers, served through v2 and v1.

pub(crate) mod horizontalpodautoscalers;
