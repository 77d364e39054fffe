//! Play bans for repeat abandoners, as lichess gives them: a player who lets games end without
//! making their first move (end reason `no-start`, the side to move being theirs) or leaves
//! running games (`abandoned`, the player who left being the loser) more than [`FREE`] times in
//! [`WINDOW_HOURS`] hours cannot start a game (seeks, pools, challenges, games against the
//! computer) for a while that doubles with each further offence: [`FIRST_BAN_MINUTES`] after the
//! latest, up to [`MAX_BAN_MINUTES`].
//!
//! Nothing is stored: the ban is read from the finished games each time a game would start, so it
//! holds on every instance at once and lapses by itself. No moderator gives it, so it writes no
//! mod-log row.

use anyhow::Context;
use sqlx::PgExecutor;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::game::refusal::RefusalCode;

/// The window the offences are counted in, in hours.
pub const WINDOW_HOURS: i32 = 24;
/// Offences in the window that bring no ban.
pub const FREE: usize = 2;
/// The first ban, in minutes (after offence `FREE + 1`).
pub const FIRST_BAN_MINUTES: i64 = 15;
/// The longest ban, in minutes.
pub const MAX_BAN_MINUTES: i64 = 24 * 60;

/// A play ban in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayBan {
    /// When it ends.
    pub until: OffsetDateTime,
    /// The offences in the window that gave it.
    pub offences: usize,
}

impl PlayBan {
    /// The refusal code of a game the ban stops.
    pub const fn code(&self) -> RefusalCode {
        RefusalCode::PlayBanned
    }

    /// The sentence for the player, with the time left (whole minutes, rounded up).
    pub fn message(&self, now: OffsetDateTime) -> String {
        let secs = (self.until - now).whole_seconds().max(0);
        let minutes = (secs + 59) / 60;
        format!(
            "You left or did not start {} games in the last {WINDOW_HOURS} hours: you cannot play for {minutes} more minute{}.",
            self.offences,
            if minutes == 1 { "" } else { "s" }
        )
    }
}

/// The length of a ban after `offences` offences in the window (none up to [`FREE`]).
pub fn ban_minutes(offences: usize) -> Option<i64> {
    let over = offences.checked_sub(FREE + 1)?;
    let doublings = u32::try_from(over.min(16)).unwrap_or(16);
    Some((FIRST_BAN_MINUTES << doublings).min(MAX_BAN_MINUTES))
}

/// The ban that the offences at `times` (any order) give at `now`, if one is in force.
pub fn ban_of(times: &[OffsetDateTime], now: OffsetDateTime) -> Option<PlayBan> {
    let since = now - time::Duration::hours(i64::from(WINDOW_HOURS));
    let recent: Vec<_> = times.iter().copied().filter(|t| *t > since && *t <= now).collect();
    let latest = recent.iter().copied().max()?;
    let until = latest + time::Duration::minutes(ban_minutes(recent.len())?);
    (until > now).then_some(PlayBan { until, offences: recent.len() })
}

/// The play ban of `user` now, if any.
///
/// # Errors
/// Database failures.
pub async fn play_ban(db: impl PgExecutor<'_>, user: Uuid) -> anyhow::Result<Option<PlayBan>> {
    let times = sqlx::query_scalar!(
        r#"SELECT g.finished_at AS "at!" FROM game_players p JOIN games g ON g.id = p.game_id
           WHERE p.user_id = $1 AND g.finished_at > now() - make_interval(hours => $2)
             AND ((g.reason = 'no-start' AND p.color = CASE WHEN g.plies % 2 = 0 THEN 'white' ELSE 'black' END)
               OR (g.reason = 'abandoned' AND g.winner IS NOT NULL AND g.winner <> p.color))"#,
        user,
        WINDOW_HOURS
    )
    .fetch_all(db)
    .await
    .context("reading a player's abandoned games")?;
    Ok(ban_of(&times, OffsetDateTime::now_utc()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bans_start_after_the_free_offences_and_double_up_to_a_day() {
        assert_eq!(ban_minutes(0), None);
        assert_eq!(ban_minutes(FREE), None);
        assert_eq!(ban_minutes(FREE + 1), Some(15));
        assert_eq!(ban_minutes(FREE + 2), Some(30));
        assert_eq!(ban_minutes(FREE + 3), Some(60));
        assert_eq!(ban_minutes(FREE + 40), Some(MAX_BAN_MINUTES));
    }

    #[test]
    fn a_ban_runs_from_the_latest_offence_in_the_window() {
        let now = OffsetDateTime::now_utc();
        let m = |x: i64| now - time::Duration::minutes(x);
        assert_eq!(ban_of(&[m(5), m(50)], now), None, "two are free");
        let ban = ban_of(&[m(50), m(5), m(30)], now).expect("a third one bans");
        assert_eq!((ban.until, ban.offences), (m(5) + time::Duration::minutes(15), 3));
        assert!(ban.message(now).contains("10 more minutes"), "{}", ban.message(now));
        assert_eq!(ban_of(&[m(50), m(20), m(30)], now), None, "15 minutes after the latest: over");
        let old = now - time::Duration::hours(25);
        assert_eq!(ban_of(&[old, m(20), m(5)], now), None, "out of the window");
    }
}
