//! The timer service: durable timers, and the records of Sleep's pauses.

use crate::Runtime;
use crate::agency::errors::AgencyError;
use crate::agency::timers::{self as table, TimerRecord};
use crate::agency::{now_ms, turns, write};

/// A pause of Sleep in the store, to finish when it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SleepRecord(i64);

/// The timer service of a runtime ([`Runtime::timers`]).
#[derive(Clone, Copy)]
pub struct Timers<'rt> {
    rt: &'rt Runtime,
}

impl<'rt> Timers<'rt> {
    pub(super) fn new(rt: &'rt Runtime) -> Self {
        Self { rt }
    }

    /// Schedules a timer of `agent`, due `delay_ms` from now.
    pub fn create(
        &self,
        agent: &str,
        delay_ms: u64,
        reason: Option<&str>,
    ) -> Result<TimerRecord, AgencyError> {
        let now = now_ms();
        write(self.rt.store(), "creating a timer", |tx| {
            turns::for_call(tx, agent, now)?;
            table::create(tx, agent, "timer", delay_ms, reason, now)
        })
    }

    /// Cancels `agent`'s timer `id` if it is still scheduled; returns it as it is now
    /// and how many waits wait for it.
    pub fn cancel(&self, agent: &str, id: &str) -> Result<(TimerRecord, i64), AgencyError> {
        let now = now_ms();
        write(self.rt.store(), "cancelling a timer", |tx| {
            turns::for_call(tx, agent, now)?;
            let timer = table::require_owned(tx, agent, id, "timer_id")?;
            let timer = table::cancel(tx, &timer, now)?;
            let waiters = table::waiters(tx, &timer.timer_id)?;
            Ok((timer, waiters))
        })
    }

    /// Records the start of a pause of `agent` of `ms` milliseconds (a timer of kind
    /// `sleep`, which wakes nobody).
    pub fn start_sleep(
        &self,
        agent: &str,
        ms: u64,
        reason: Option<&str>,
    ) -> Result<SleepRecord, AgencyError> {
        let now = now_ms();
        write(self.rt.store(), "recording a sleep", |tx| {
            turns::for_call(tx, agent, now)?;
            table::create(tx, agent, "sleep", ms, reason, now)?;
            Ok(SleepRecord(tx.last_insert_rowid()))
        })
    }

    /// Records that the pause `sleep` is over.
    pub fn finish_sleep(&self, sleep: SleepRecord) -> Result<(), AgencyError> {
        write(self.rt.store(), "recording a sleep", |tx| {
            table::finish_sleep(tx, sleep.0, now_ms())
        })
    }
}
