//! Clock arithmetic in centiseconds: elapsed time, lag compensation, spending a turn.

use time::OffsetDateTime;

/// Centiseconds from `from` to `to`, never negative.
pub fn cs_between(from: OffsetDateTime, to: OffsetDateTime) -> i64 {
    ((to - from).whole_milliseconds() / 10).max(0) as i64
}

/// `at` plus `cs` centiseconds.
pub fn add_cs(at: OffsetDateTime, cs: i64) -> OffsetDateTime {
    at + time::Duration::milliseconds(cs.saturating_mul(10))
}

/// How much of a claimed network delay is credited: never more than the claim, the per-move cap
/// or what is left of the player's quota for the game.
pub fn lag_credit(claimed: Option<i32>, per_move_cap: i32, quota_left: i32) -> i32 {
    claimed.unwrap_or(0).max(0).min(per_move_cap.max(0)).min(quota_left.max(0))
}

/// The clock of a turn that took `elapsed` with `credit` of it forgiven: the time left after
/// the increment, or `None` when the clock ran out before the turn ended.
pub fn spend(remaining: i32, elapsed: i64, credit: i32, increment: i32) -> Option<i32> {
    let used = (elapsed - i64::from(credit)).max(0);
    let left = i64::from(remaining) - used;
    if left <= 0 { None } else { Some((left + i64::from(increment)).min(i64::from(i32::MAX)) as i32) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credit_never_exceeds_claim_cap_or_quota() {
        assert_eq!(lag_credit(Some(30), 100, 300), 30);
        assert_eq!(lag_credit(Some(500), 100, 300), 100);
        assert_eq!(lag_credit(Some(80), 100, 20), 20);
        assert_eq!(lag_credit(Some(-50), 100, 300), 0);
        assert_eq!(lag_credit(None, 100, 300), 0);
    }

    #[test]
    fn a_turn_costs_its_time_minus_credit_plus_increment() {
        assert_eq!(spend(6000, 1000, 0, 200), Some(5200));
        assert_eq!(spend(6000, 1000, 50, 0), Some(5050));
        assert_eq!(spend(6000, 10, 50, 0), Some(6000), "credit never adds time");
        assert_eq!(spend(1000, 1000, 0, 500), None, "reaching zero is a flag, increment or not");
        assert_eq!(spend(1000, 1040, 50, 0), Some(10));
    }

    #[test]
    fn centiseconds_between_instants() {
        let t = OffsetDateTime::UNIX_EPOCH;
        assert_eq!(cs_between(t, add_cs(t, 1234)), 1234);
        assert_eq!(cs_between(add_cs(t, 5), t), 0);
    }
}
