//! Public ids of the agent-facing records: a prefix and the row number, such as
//! `wi-3`, `wait-7`, `timer-2`, `turn-5`. Agents have names instead (`root`,
//! `child-1`, or the name a public agent was given).

/// Work items: `wi-<n>`.
pub const WORK_ITEM: &str = "wi";
/// Waits: `wait-<n>`.
pub const WAIT: &str = "wait";
/// Timers: `timer-<n>`.
pub const TIMER: &str = "timer";
/// External triggers: `trigger-<n>`.
pub const TRIGGER: &str = "trigger";
/// Queued messages: `msg-<n>`.
pub const MESSAGE: &str = "msg";
/// Turns: `turn-<n>`.
pub const TURN: &str = "turn";
/// Wakes: `wake-<n>`.
pub const WAKE: &str = "wake";
/// Notifications: `note-<n>`.
pub const NOTIFICATION: &str = "note";
/// The prefix of a private child's task handle: `agent:<child id>`.
pub const AGENT_TASK_PREFIX: &str = "agent:";

/// The public id of row `row` of a table whose ids start with `prefix`.
pub fn format(prefix: &str, row: i64) -> String {
    format!("{prefix}-{row}")
}

/// The row of the public id `text`, if it has the form `<prefix>-<n>`.
pub fn parse(prefix: &str, text: &str) -> Option<i64> {
    text.trim()
        .strip_prefix(prefix)?
        .strip_prefix('-')?
        .parse::<i64>()
        .ok()
        .filter(|row| *row > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_reject_other_forms() {
        assert_eq!(format(WORK_ITEM, 3), "wi-3");
        assert_eq!(parse(WORK_ITEM, "wi-3"), Some(3));
        assert_eq!(parse(WORK_ITEM, " wi-3 "), Some(3));
        for bad in ["wi3", "wi-", "wi-0", "wi--1", "wait-3", "wi-x", ""] {
            assert_eq!(parse(WORK_ITEM, bad), None, "{bad}");
        }
    }
}
