//! Wall-clock time as the store keeps it: milliseconds since the Unix epoch.

use std::time::{SystemTime, UNIX_EPOCH};

/// `time` in milliseconds since the Unix epoch (0 before it, saturating far after).
pub fn unix_ms(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Now, in milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    unix_ms(SystemTime::now())
}
