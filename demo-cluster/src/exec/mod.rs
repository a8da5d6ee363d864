//! A terminal in a pod: what answers `pods/exec` and `pods/attach` once kube-apiserver's
//! checks have passed (those are `http/resource/exec.rs`). No container runs in the demo, so
//! behind the socket is a simulated one ([`shell`]) that behaves as the stand-in kubelet of
//! `../shared/kubernetes` does, and the session ([`session`]) speaks the channel protocols and
//! words the statuses as kube-apiserver does in front of it, so the dashboard's terminal and
//! `kubectl exec` see on the demo what they see on a real control plane.

pub mod session;
pub mod shell;
pub mod spdy;
