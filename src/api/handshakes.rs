//! How many WebSocket handshakes the page has under way at once. Chromium delays each new
//! WebSocket of a page by a random 1-5 s × 2^pending / 65,536, where `pending` counts the
//! page's sockets still connecting (its per-renderer WebSocket throttler): ten at once cost
//! the next a few ms, twenty a second or more. A map opening twenty-two watches together had
//! its last sockets open 4-5 s late for that alone. So a watch socket is only created once
//! fewer than [`MAX_PENDING_HANDSHAKES`] are connecting, and gives its turn up as soon as it
//! opens, fails or is dropped.

use std::cell::RefCell;
use std::collections::VecDeque;

use futures::channel::oneshot;

/// Handshakes under way at once: the throttler's delay at 4 pending is under 1.3 ms, and a
/// loopback or LAN handshake takes about as long, so sockets open back to back.
pub const MAX_PENDING_HANDSHAKES: usize = 4;

#[derive(Default)]
struct Handshakes {
    pending: usize,
    /// Sockets waiting for their turn, first asked first served.
    waiting: VecDeque<oneshot::Sender<()>>,
}

thread_local! {
    static HANDSHAKES: RefCell<Handshakes> = RefCell::new(Handshakes::default());
}

/// A turn to connect one socket; dropping it lets the next waiting socket connect.
pub struct HandshakeTurn {
    _private: (),
}

/// Waits for a turn to connect a socket.
pub async fn turn() -> HandshakeTurn {
    let waiting = HANDSHAKES.with(|cell| {
        let mut handshakes = cell.borrow_mut();
        if handshakes.pending < MAX_PENDING_HANDSHAKES {
            handshakes.pending += 1;
            None
        } else {
            let (handed, wait) = oneshot::channel();
            handshakes.waiting.push_back(handed);
            Some(wait)
        }
    });
    if let Some(wait) = waiting {
        let mut waiting = Waiting(Some(wait));
        if let Some(wait) = waiting.0.as_mut() {
            // Handed over with `pending` unchanged (see `Drop`). A sender dropped unsent
            // cannot happen while the page lives, and would only mean going ahead.
            let _ = wait.await;
        }
        waiting.0 = None;
    }
    HandshakeTurn { _private: () }
}

/// A socket waiting for its turn. Dropped with the turn already handed to it (its watch
/// went at that moment), it passes the turn on.
struct Waiting(Option<oneshot::Receiver<()>>);

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(mut wait) = self.0.take() {
            if let Ok(Some(())) = wait.try_recv() {
                drop(HandshakeTurn { _private: () });
            }
        }
    }
}

impl Drop for HandshakeTurn {
    fn drop(&mut self) {
        HANDSHAKES.with(|cell| {
            let mut handshakes = cell.borrow_mut();
            // Hand the turn to the first waiter still waiting (a waiter whose watch was
            // dropped meanwhile has gone).
            while let Some(next) = handshakes.waiting.pop_front() {
                if next.send(()).is_ok() {
                    return;
                }
            }
            handshakes.pending = handshakes.pending.saturating_sub(1);
        });
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use super::*;

    type Asking = Pin<Box<dyn Future<Output = HandshakeTurn>>>;

    fn ask() -> Asking {
        Box::pin(turn())
    }

    fn poll(asking: &mut Asking) -> Option<HandshakeTurn> {
        let mut context = Context::from_waker(futures::task::noop_waker_ref());
        match asking.as_mut().poll(&mut context) {
            Poll::Ready(turn) => Some(turn),
            Poll::Pending => None,
        }
    }

    /// Every turn there is, taken at once.
    fn every_turn() -> Vec<HandshakeTurn> {
        (0..MAX_PENDING_HANDSHAKES)
            .map(|_| poll(&mut ask()).expect("a turn at once"))
            .collect()
    }

    fn pending() -> usize {
        HANDSHAKES.with(|cell| cell.borrow().pending)
    }

    #[test]
    fn a_socket_past_the_limit_waits_for_one_to_end_its_handshake() {
        let mut turns = every_turn();
        let mut fifth = ask();
        assert!(poll(&mut fifth).is_none(), "the fifth waits");
        turns.pop();
        let fifth_turn = poll(&mut fifth);
        assert!(fifth_turn.is_some(), "handed the ended one's turn");
        assert_eq!(pending(), MAX_PENDING_HANDSHAKES);
        drop((turns, fifth_turn));
        assert_eq!(pending(), 0, "every turn ended");
    }

    #[test]
    fn a_watch_that_went_while_waiting_is_passed_over() {
        let mut turns = every_turn();
        let mut gone = ask();
        let mut next = ask();
        assert!(poll(&mut gone).is_none() && poll(&mut next).is_none());
        drop(gone);
        turns.pop();
        assert!(poll(&mut next).is_some(), "the one still waiting connects");
    }

    #[test]
    fn a_watch_that_went_as_its_turn_came_passes_it_on() {
        let mut turns = every_turn();
        let mut handed = ask();
        let mut next = ask();
        assert!(poll(&mut handed).is_none() && poll(&mut next).is_none());
        turns.pop();
        // Handed the turn, and gone before it could take it.
        drop(handed);
        let next_turn = poll(&mut next);
        assert!(next_turn.is_some(), "the turn went on, not lost");
        turns.clear();
        assert_eq!(pending(), 1, "only the last one's turn is under way");
        drop(next_turn);
        assert_eq!(pending(), 0);
    }
}
