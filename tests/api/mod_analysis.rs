//! The moderators' engine analysis through the real app: asked for from the mod view, run by the
//! background worker on the bot's search slots, its progress and figures on the analysis page
//! and as JSON; one job per user at a time; a job whose server died is taken up again.
#![expect(clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use std::time::{Duration, Instant};

use chessgold::domain::Role;
use chessgold::moderation::analysis_jobs;
use chessgold::moderation::{Reason, roles};
use serde_json::Value;
use sqlx::PgPool;

use crate::helpers::{TestApp, location, spawn_app};
use crate::moderation::black_wins_rated;
use crate::round::Browser;

async fn signed_up(app: &TestApp, name: &str, role: Role) -> Browser {
    let b = Browser::new(&app.address);
    b.signup(name).await;
    if role != Role::User {
        roles::set_role(&app.db_pool, None, name, role, &Reason::parse("test").unwrap()).await.unwrap();
    }
    b
}

async fn count(pool: &PgPool, sql: &'static str) -> i64 {
    sqlx::query_as::<_, (i64,)>(sql).fetch_one(pool).await.unwrap().0
}

async fn progress(b: &Browser, name: &str) -> Value {
    let r = b.http.get(format!("{}/mod/@/{name}/analysis.json", b.base)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    r.json().await.unwrap()
}

/// Polls the progress until `pred` holds (a minute at most).
async fn progress_until(b: &Browser, name: &str, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let p = progress(b, name).await;
        if pred(&p) {
            return p;
        }
        assert!(Instant::now() < deadline, "waited for {what}: {p}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Takes every search slot of the app's bots until the returned senders are dropped; returns
/// once they are all taken.
async fn hold_the_search_slots(app: &TestApp) -> Vec<std::sync::mpsc::Sender<()>> {
    let thinkers = app.state.rounds.ctx().thinkers.clone();
    let (taken_tx, mut taken) = tokio::sync::mpsc::unbounded_channel();
    let mut releases = Vec::new();
    for _ in 0..thinkers.size() {
        let (release, wait) = std::sync::mpsc::channel::<()>();
        releases.push(release);
        let (thinkers, taken_tx) = (thinkers.clone(), taken_tx.clone());
        tokio::spawn(async move {
            thinkers
                .run(move || {
                    taken_tx.send(()).unwrap();
                    let _ = wait.recv();
                })
                .await
        });
    }
    for _ in 0..thinkers.size() {
        taken.recv().await.unwrap();
    }
    releases
}

#[tokio::test]
async fn an_analysis_asked_from_the_mod_view_runs_to_done_once_with_its_progress_and_figures() {
    let app = spawn_app().await;
    let judge = signed_up(&app, "judge", Role::Moderator).await;
    let bob = signed_up(&app, "bob", Role::User).await;
    let cheat = signed_up(&app, "cheat", Role::User).await;
    let pool = &app.db_pool;
    let games = [black_wins_rated(&bob, &cheat).await, black_wins_rated(&bob, &cheat).await];

    // Nothing yet; the mod view has the form and the link.
    let page = judge.html("/mod/@/cheat/analysis").await;
    assert!(page.contains(r#"id="analysis-none""#), "{page}");
    assert_eq!(progress(&judge, "cheat").await["state"], "none");
    let view = judge.html("/mod/@/cheat").await;
    assert!(view.contains(r#"action="/mod/@/cheat/analysis""#) && view.contains(r#"href="/mod/@/cheat/analysis""#));

    // The search slots are busy (live bots): the job is claimed and waits on its first search.
    let releases = hold_the_search_slots(&app).await;
    let r = judge.post_form("/mod/@/cheat", "/mod/@/cheat/analysis", &[]).await;
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(location(&r), "/mod/@/cheat/analysis");
    let p = progress_until(&judge, "cheat", "the job to count its games", |p| p["gamesTotal"] == 2).await;
    assert_eq!(p["state"], "running");
    assert_eq!((p["gamesDone"].as_i64(), p["gamesTotal"].as_i64()), (Some(0), Some(2)), "{p}");
    let page = judge.html("/mod/@/cheat/analysis").await;
    assert!(
        page.contains(
            r#"<progress id="analysis-progress" aria-labelledby="analysis-progress-text" value="0" max="2">"#
        ),
        "{page}"
    );
    assert!(page.contains("0 of 2 games analysed") && page.contains("data-poll=\"/mod/@/cheat/analysis.json\""));
    assert!(page.contains("/static/js/mod-analysis."), "the progress script: {page}");
    // Asked again while it runs: the same job, logged once.
    let r = judge.post_form("/mod/@/cheat", "/mod/@/cheat/analysis", &[]).await;
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(count(pool, "SELECT count(*) FROM analysis_jobs").await, 1);
    assert_eq!(count(pool, "SELECT count(*) FROM mod_log WHERE action = 'analysis_requested'").await, 1);

    // The slots free: the games, then the bot levels' references.
    drop(releases);
    let p = progress_until(&judge, "cheat", "the job to end", |p| p["state"] != "running").await;
    assert_eq!(p["state"], "done", "{p}");
    assert_eq!((p["gamesDone"].as_i64(), p["gamesTotal"].as_i64()), (Some(2), Some(2)));
    let cheat_id = chessgold::db::users::find_by_name(pool, "cheat").await.unwrap().unwrap().id;
    let job = analysis_jobs::latest(pool, cheat_id).await.unwrap().unwrap();
    let mut analysed: Vec<&str> = job.result.games.iter().map(|g| g.game.as_str()).collect();
    analysed.sort_unstable();
    let mut expected: Vec<&str> = games.iter().map(String::as_str).collect();
    expected.sort_unstable();
    assert_eq!(analysed, expected);
    for g in &job.result.games {
        assert_eq!((g.color.as_str(), g.user.moves, g.opponent.moves), ("black", 2, 2), "{g:?}");
        assert!(g.user.top_matches >= 1, "Qh4 mates, the engine's choice: {g:?}");
    }
    let levels: Vec<(&str, u8)> = job.result.references.iter().map(|r| (r.variant.as_str(), r.level)).collect();
    assert_eq!(levels, [("standard", 3), ("standard", 5), ("standard", 8)]);
    assert!(job.result.references.iter().all(|r| r.figures.moves > 0), "{:?}", job.result.references);
    assert_eq!(count(pool, "SELECT count(*) FROM analysis_references").await, 3, "kept for the next jobs");

    let page = judge.html("/mod/@/cheat/analysis").await;
    assert!(
        page.contains(
            r#"<progress id="analysis-progress" aria-labelledby="analysis-progress-text" value="2" max="2">"#
        ),
        "{page}"
    );
    assert!(page.contains("Done: 2 of 2 games analysed") && !page.contains("data-poll"));
    for g in &job.result.games {
        let share = format!("{:.0}%", g.user.top_share() * 100.0);
        let row = format!(r#"data-game="{}"><td><a href="/{}">"#, g.game, g.game);
        assert!(page.contains(&row), "{row}: {page}");
        let after = &page[page.find(&row).unwrap()..];
        assert!(after.contains(&format!(r#"<td class="share">{share}</td>"#)), "{share}: {after}");
    }
    for level in [3, 5, 8] {
        assert!(page.contains(&format!(r#"class="reference" data-level="{level}""#)), "level {level}: {page}");
    }

    // A job left running by a server that died (its lease ran out) is taken up again.
    sqlx::query("UPDATE analysis_jobs SET state = 'running', claim = gen_random_uuid(), finished_at = NULL, claimed_until = now() - interval '1 second'")
        .execute(pool)
        .await
        .unwrap();
    let p = progress_until(&judge, "cheat", "the dead server's job to be done again", |p| p["state"] == "done").await;
    assert_eq!(p["gamesDone"].as_i64(), Some(2));
    assert_eq!(count(pool, "SELECT count(*) FROM analysis_jobs WHERE finished_at IS NOT NULL").await, 1);

    // Unknown users: 404; a player may neither ask nor see.
    for path in ["/mod/@/nobody/analysis", "/mod/@/nobody/analysis.json"] {
        let r = judge.http.get(format!("{}{path}", judge.base)).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 404, "{path}");
    }
    let r = judge.post_form("/mod/@/cheat", "/mod/@/nobody/analysis", &[]).await;
    assert_eq!(r.status().as_u16(), 404);
    let r = bob.post_form("/", "/mod/@/cheat/analysis", &[]).await;
    assert_eq!(r.status().as_u16(), 403);
    let r = bob.http.get(format!("{}/mod/@/cheat/analysis.json", bob.base)).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 403);
    assert_eq!(count(pool, "SELECT count(*) FROM analysis_jobs").await, 1);
}
