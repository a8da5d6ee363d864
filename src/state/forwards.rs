//! The page's port-forwards through kube-atlas: the list every view shows (asked every few
//! seconds while one is shown), starting and stopping forwards, and the lease that keeps the
//! forwards this page started alive only while it is open. Made at the first view that asks,
//! under the shell's owner, so it outlives the page that made it and stays out of page start.
//! Under `kubectl proxy` or the demo cluster no kube-atlas runs forwards: the views say so.

use std::time::Duration;

use leptos::prelude::*;

use crate::api::forwards as forwards_api;
use crate::model::api::forwards::{ForwardInfo, ForwardList, ForwardRequest, PortRef, Target};

/// How often a shown list is asked again (its bytes and connections move).
const REFRESH: Duration = Duration::from_secs(2);
/// How often the page's lease is renewed (kube-atlas ends a page's forwards 30 s after the
/// last renewal).
const LEASE_RENEWAL: Duration = Duration::from_secs(10);

/// Why *Forward* is not offered where no kube-atlas serves the page.
pub const NEEDS_KUBE_ATLAS: &str = "Forwarding a port needs kube-atlas, the dashboard's own \
     server (a browser cannot listen on a port; kubectl proxy cannot forward): run \
     `kube-atlas` instead of `kubectl proxy`. Open still shows a pod's HTTP port.";

/// Provided by the shell: where the hub is kept once made.
#[derive(Clone, Copy)]
pub struct ForwardsHubSlot {
    hub: StoredValue<Option<ForwardsHub>>,
    owner: StoredValue<Owner, LocalStorage>,
}

impl ForwardsHubSlot {
    pub fn provide() {
        provide_context(ForwardsHubSlot {
            hub: StoredValue::new(None),
            owner: StoredValue::new_local(Owner::current().unwrap_or_default()),
        });
    }
}

/// The page's forwards.
#[derive(Clone, Copy)]
pub struct ForwardsHub {
    /// kube-atlas's context the page is on; `None`: no kube-atlas serves the page.
    context: StoredValue<Option<String>>,
    /// This page's session, named in the forwards it starts and in its lease.
    session: StoredValue<String>,
    /// The last list kube-atlas gave.
    pub list: RwSignal<ForwardList>,
    /// Why the list could not be read, if the last ask failed.
    pub error: RwSignal<Option<String>>,
    /// Views showing the list now: it is asked again only while one is.
    shown: StoredValue<usize>,
    polling: StoredValue<bool>,
    leasing: StoredValue<bool>,
}

fn new_session() -> String {
    let random = (js_sys::Math::random() * 1e15) as u64;
    format!("page-{random:x}")
}

impl ForwardsHub {
    /// The page's hub, made at the first call.
    pub fn get() -> ForwardsHub {
        let slot = expect_context::<ForwardsHubSlot>();
        if let Some(hub) = slot.hub.get_value() {
            return hub;
        }
        let hub = slot.owner.get_value().with(|| ForwardsHub {
            context: StoredValue::new(crate::state::clusters::current_cluster()),
            session: StoredValue::new(new_session()),
            list: RwSignal::new(ForwardList::default()),
            error: RwSignal::new(None),
            shown: StoredValue::new(0),
            polling: StoredValue::new(false),
            leasing: StoredValue::new(false),
        });
        slot.hub.set_value(Some(hub));
        hub
    }

    /// kube-atlas's context of the page, when kube-atlas serves it.
    pub fn context(&self) -> Option<String> {
        self.context.get_value()
    }

    /// Keeps the list fresh while the calling view is shown.
    pub fn show(&self) {
        if self.context().is_none() {
            return;
        }
        self.shown.update_value(|n| *n += 1);
        let hub = *self;
        on_cleanup(move || hub.shown.update_value(|n| *n = n.saturating_sub(1)));
        if self.polling.get_value() {
            return;
        }
        self.polling.set_value(true);
        leptos::task::spawn_local(async move {
            while hub.shown.try_get_value().unwrap_or(0) > 0 {
                hub.refresh().await;
                gloo_timers::future::sleep(REFRESH).await;
            }
            hub.polling.try_set_value(false);
        });
    }

    /// Asks kube-atlas for the list now.
    pub async fn refresh(&self) {
        match forwards_api::list().await {
            Ok(list) => {
                self.list.try_set(list);
                self.error.try_set(None);
            }
            Err(error) => {
                self.error.try_set(Some(error));
            }
        }
    }

    /// Starts a forward to `port` of `target` in `namespace`; kept after the page closes
    /// only if `keep`. The forward, or why it cannot start, in words.
    pub async fn start(
        &self,
        namespace: &str,
        target: Target,
        port: PortRef,
        local_port: Option<u16>,
        keep: bool,
    ) -> Result<ForwardInfo, String> {
        let context = self.context().ok_or_else(|| NEEDS_KUBE_ATLAS.to_string())?;
        let request = ForwardRequest {
            context,
            namespace: namespace.to_string(),
            target,
            port,
            local_port,
            keep_after_page_closes: keep,
            session: (!keep).then(|| self.session.get_value()),
        };
        let started = forwards_api::start(&request).await?;
        if !keep {
            self.keep_lease();
        }
        self.list.try_update(|list| {
            list.forwards.retain(|f| f.id != started.id);
            list.forwards.push(started.clone());
        });
        Ok(started)
    }

    /// Stops forward `id`.
    pub async fn stop(&self, id: &str) -> Result<(), String> {
        let ended = forwards_api::stop(id).await?;
        self.list.try_update(|list| {
            list.forwards.retain(|f| f.id != ended.id);
            list.ended.push(ended);
        });
        Ok(())
    }

    /// Renews the page's lease from now on, while the page is open.
    fn keep_lease(&self) {
        if self.leasing.get_value() {
            return;
        }
        self.leasing.set_value(true);
        let session = self.session.get_value();
        leptos::task::spawn_local(async move {
            loop {
                gloo_timers::future::sleep(LEASE_RENEWAL).await;
                // A failed renewal is tried again at the next; the list says what ended.
                let _ = forwards_api::renew_lease(&session).await;
            }
        });
    }
}
