//! batch/v1: Jobs and CronJobs.

pub(crate) mod cronjobs;
pub(crate) mod jobs;
