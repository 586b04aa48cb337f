//! Task timestamps: milliseconds since the Unix epoch, shown as ISO 8601.

use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{DateTime, SecondsFormat};

/// Now, in milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// `ms` as an ISO 8601 UTC timestamp with milliseconds (`2026-07-28T10:30:00.000Z`).
pub(crate) fn iso8601(ms: u64) -> String {
    let ms = i64::try_from(ms).unwrap_or(i64::MAX);
    DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_8601_utc() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_785_234_600_123), "2026-07-28T10:30:00.123Z");
    }
}
