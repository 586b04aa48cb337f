//! The timer plane.

mod sleep;

pub use sleep::{DEFAULT_SLEEP_MS, MAX_SLEEP_MS, SleepArgs, SleepOutcome};
