//! The HTTP watch connections a page may hold: who holds one, who waits (the decisions are
//! `model::watch::slots::HttpSlots`'s), and how a waiting stream is told a slot is its own.

use std::collections::HashMap;

use futures::channel::oneshot;

use crate::model::watch::slots::{HttpSlots, SlotAsk};

#[derive(Default)]
pub(super) struct SlotPool {
    slots: HttpSlots,
    waiters: HashMap<u64, oneshot::Sender<()>>,
}

/// What a stream that asked for a slot does next.
pub(super) enum Asked {
    Granted,
    /// Wait on the receiver; `close_now` names a lingering holder to close for it.
    Wait {
        handed: oneshot::Receiver<()>,
        close_now: Option<u64>,
    },
}

impl SlotPool {
    pub(super) fn ask(&mut self, stream: u64, viewed: impl Fn(u64) -> bool) -> Asked {
        match self.slots.ask(stream, viewed) {
            SlotAsk::Granted => Asked::Granted,
            SlotAsk::Wait { close_now } => {
                let (sender, handed) = oneshot::channel();
                self.waiters.insert(stream, sender);
                Asked::Wait { handed, close_now }
            }
        }
    }

    /// `stream` stopped waiting (kicked or closed).
    pub(super) fn give_up(&mut self, stream: u64) {
        self.slots.give_up(stream);
        self.waiters.remove(&stream);
    }

    /// `stream` gives its slot back (a no-op when it holds none); it goes to the next waiter
    /// still waiting, or is freed.
    pub(super) fn release(&mut self, stream: u64, viewed: impl Fn(u64) -> bool) {
        let mut releasing = Some(stream);
        while let Some(holder) = releasing.take() {
            let Some(next) = self.slots.release(holder, &viewed) else {
                return;
            };
            // A waiter that went meanwhile passes the slot on.
            let told = self
                .waiters
                .remove(&next)
                .is_some_and(|waiter| waiter.send(()).is_ok());
            if !told {
                releasing = Some(next);
            }
        }
    }
}
