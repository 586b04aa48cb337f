//! What a latency bench reports of its round trips: their quantiles.

use std::time::Duration;

/// (p50, p99) of `latencies` in milliseconds; (0, 0) when there are none.
pub fn quantiles(latencies: &[Duration]) -> (f64, f64) {
    if latencies.is_empty() {
        return (0.0, 0.0);
    }
    let mut sorted = latencies.to_vec();
    sorted.sort();
    let at = |quantile: f64| {
        let index = ((sorted.len() as f64 * quantile).ceil() as usize).clamp(1, sorted.len()) - 1;
        sorted[index].as_secs_f64() * 1000.0
    };
    (at(0.50), at(0.99))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quantiles_are_the_values_at_their_ranks() {
        let latencies: Vec<Duration> = (1..=100).rev().map(Duration::from_millis).collect();
        assert_eq!(quantiles(&latencies), (50.0, 99.0));
        assert_eq!(quantiles(&[Duration::from_millis(3)]), (3.0, 3.0));
        assert_eq!(quantiles(&[]), (0.0, 0.0));
    }
}
