//! The object page's Ports section (pods, Services, Deployments): the permissions it needs,
//! asked for this object, and the panel.

use leptos::prelude::*;

use crate::components::port_forwards::{PortsPanel, PortsTarget};
use crate::model::api::forwards::{target_kind, TargetKind};
use crate::model::permissions::{Question, Scope};
use crate::pages::object::tabs::ObjectPageParts;
use crate::state::permissions::{use_denial, UseDenialOptions};

impl ObjectPageParts {
    /// The ports to forward or open; nothing for other kinds, or outside a namespace.
    pub(super) fn ports_section(&self) -> Option<AnyView> {
        let resource = self.tree.find(&self.identity.resource)?;
        let kind = target_kind(&resource.resource.kind)?;
        let namespace = self.identity.namespace.clone()?;
        let name = self.identity.name.clone();
        // Whatever is forwarded to, the tunnel is a pod's: `create pods/portforward`.
        let mut forward_question = Question::new(Scope::of(Some(&namespace)), "create", "", "pods")
            .subresource("portforward");
        if kind == TargetKind::Pod {
            forward_question = forward_question.named(&name);
        }
        let forward_denied = use_denial(UseDenialOptions {
            question: forward_question,
            namespaced: true,
        })
        .reason;
        let open_denied = self.identity.denial("get", "proxy");
        let target = PortsTarget {
            kind,
            namespace,
            name,
        };
        Some(
            view! {
                <PortsPanel target=target object=self.state.object
                    forward_denied=forward_denied open_denied=open_denied/>
            }
            .into_any(),
        )
    }
}
