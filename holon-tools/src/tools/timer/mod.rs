//! The timer plane: pauses (Sleep) and durable timers, all recorded in the store.

mod sleep;
mod timers;

pub use sleep::{DEFAULT_SLEEP_MS, MAX_SLEEP_MS, SleepArgs, SleepOutcome};
pub use timers::{CancelTimerArgs, CreateTimerArgs, MAX_TIMER_DELAY_MS, TimerOutcome};
