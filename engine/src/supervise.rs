//! What makes the engine's actors restart on a panic.
//!
//! actix's `Supervisor` restarts an actor when it *stops*; a panic inside a
//! handler instead unwinds through the actor's future and takes the actor,
//! its supervisor and its mailbox with it. So every handler body runs under
//! [`guarded`]: a panic becomes an error for that one message, and the actor
//! stops, so its supervisor restarts it in place (same address, same
//! mailbox, the actor's own `restarting` hook dropping what may be broken).
//!
//! A restart after a recent one waits first ([`Backoff`]): 0 ms, then 50,
//! 100, 200 … up to 800 ms. Messages queue meanwhile. An actor that keeps
//! crashing cannot spin, and a single crash is over within 1 s.

use std::{
    panic::{AssertUnwindSafe, catch_unwind},
    time::{Duration, Instant},
};

use actix::prelude::*;

use crate::EngineError;

/// Runs one handler body; a panic stops the actor (its supervisor restarts
/// it) and answers this message with [`EngineError::Unavailable`].
pub(crate) fn guarded<A, R>(
    ctx: &mut Context<A>,
    what: &'static str,
    f: impl FnOnce() -> Result<R, EngineError>,
) -> Result<R, EngineError>
where
    A: Actor<Context = Context<A>>,
{
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(actor = what, panic = %why, "actor handler panicked: restarting it");
            ctx.stop();
            Err(EngineError::Unavailable(what))
        }
    }
}

/// Restart pacing: each restart within [`Backoff::WINDOW`] of the previous
/// one doubles the wait before the actor handles messages again.
#[derive(Debug, Default)]
pub(crate) struct Backoff {
    last: Option<Instant>,
    streak: u32,
}

impl Backoff {
    /// Restarts further apart than this start the count again.
    pub(crate) const WINDOW: Duration = Duration::from_secs(10);
    /// The longest wait.
    pub(crate) const MAX: Duration = Duration::from_millis(800);

    /// Records a restart; returns how long the actor should wait.
    pub(crate) fn restarted(&mut self) -> Duration {
        let now = Instant::now();
        self.streak = match self.last {
            Some(t) if now.duration_since(t) < Self::WINDOW => self.streak.saturating_add(1),
            _ => 0,
        };
        self.last = Some(now);
        match self.streak {
            0 => Duration::ZERO,
            n => (Duration::from_millis(25) * 2u32.saturating_pow(n.min(6))).min(Self::MAX),
        }
    }

    /// Makes the actor wait `pause` before its next message.
    pub(crate) fn hold<A>(pause: Duration, actor: &A, ctx: &mut Context<A>)
    where
        A: Actor<Context = Context<A>>,
    {
        if !pause.is_zero() {
            ctx.wait(tokio::time::sleep(pause).into_actor(actor));
        }
    }
}

/// Test-only fault injection: the actor panics inside a guarded handler.
#[cfg(feature = "fault-injection")]
#[derive(Message)]
#[rtype(result = "Result<(), EngineError>")]
pub(crate) struct Crash;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_the_window_and_caps() {
        let mut b = Backoff::default();
        let waits: Vec<u64> = (0..8).map(|_| b.restarted().as_millis() as u64).collect();
        assert_eq!(waits, [0, 50, 100, 200, 400, 800, 800, 800]);
    }
}
