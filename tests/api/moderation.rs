//! Moderation (issue 15), the domain and storage layer through the real app: the append-only
//! mod log, role changes, reports (the merge and the rate limit, the queue, closing), blocks
//! (challenges, seeks, pools and chat), the chat sanctions across two instances, engine and
//! booster marks with the rating refund, and play bans.
#![expect(clippy::unwrap_used, reason = "test code: a failed step should fail the test loudly")]

use chessgold::domain::Role;
use chessgold::game::GameId;
use chessgold::moderation::blocks::{self, BlockError};
use chessgold::moderation::closure;
use chessgold::moderation::marks::{self, Mark, Refund};
use chessgold::moderation::playban;
use chessgold::moderation::reports::{self, NewReport, Received, ReportError, ReportReason, ReportText};
use chessgold::moderation::roles::{self, RoleError};
use chessgold::moderation::sanctions::{self, SanctionError, SanctionKind};
use chessgold::moderation::{ModAction, Reason, log};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

use crate::helpers::{TestApp, spawn_app, spawn_app_with_redis};
use crate::round::instances::second_instance;
use crate::round::{Browser, Sock};

async fn id_of(pool: &PgPool, name: &str) -> Uuid {
    chessgold::db::users::find_by_name(pool, name).await.unwrap().unwrap().id
}

fn reason(text: &str) -> Reason {
    Reason::parse(text).unwrap()
}

async fn log_count(pool: &PgPool) -> i64 {
    sqlx::query_as::<_, (i64,)>("SELECT count(*) FROM mod_log").fetch_one(pool).await.unwrap().0
}

/// Signs up `names` on the app; returns their browsers.
async fn accounts(app: &TestApp, names: &[&str]) -> Vec<Browser> {
    let mut out = Vec::new();
    for n in names {
        let b = Browser::new(&app.address);
        b.signup(n).await;
        out.push(b);
    }
    out
}

async fn moderator(app: &TestApp, name: &str) -> Uuid {
    accounts(app, &[name]).await;
    roles::set_role(&app.db_pool, None, name, Role::Moderator, &reason("test moderator")).await.unwrap();
    id_of(&app.db_pool, name).await
}

#[tokio::test]
async fn the_mod_log_refuses_update_delete_and_truncate() {
    let app = spawn_app().await;
    accounts(&app, &["alice"]).await;
    let change = roles::set_role(&app.db_pool, None, "ALICE", Role::Moderator, &reason("helps")).await.unwrap();
    assert_eq!((change.name.as_str(), change.from, change.to), ("alice", Role::User, Role::Moderator));
    assert_eq!(log_count(&app.db_pool).await, 1);
    for sql in ["UPDATE mod_log SET reason = 'rewritten'", "DELETE FROM mod_log", "TRUNCATE mod_log CASCADE"] {
        let e = sqlx::query(sql).execute(&app.db_pool).await.unwrap_err();
        assert!(e.to_string().contains("append-only"), "{sql}: {e}");
    }
    let rows = log::recent(&app.db_pool, 10).await.unwrap();
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!((row.action, row.reason.as_str(), row.moderator.as_ref()), (ModAction::SetRole, "helps", None));
    assert_eq!(row.target.as_ref().map(|t| t.1.as_str()), Some("alice"));
    assert_eq!(row.details, json!({"from": "user", "to": "moderator"}));
    assert_eq!(log::of_target(&app.db_pool, change.user, 10).await.unwrap(), rows);
}

#[tokio::test]
async fn only_admins_change_roles_and_each_change_is_one_row() {
    let app = spawn_app().await;
    accounts(&app, &["admin1", "alice", "bob"]).await;
    let pool = &app.db_pool;
    roles::set_role(pool, None, "admin1", Role::Admin, &reason("first admin")).await.unwrap();
    let admin = id_of(pool, "admin1").await;
    let alice = id_of(pool, "alice").await;
    let by_alice = roles::set_role(pool, Some(alice), "bob", Role::Moderator, &reason("me")).await;
    assert!(matches!(by_alice, Err(RoleError::NotAdmin)), "{by_alice:?}");
    roles::set_role(pool, Some(admin), "alice", Role::Moderator, &reason("trusted")).await.unwrap();
    let again = roles::set_role(pool, Some(admin), "alice", Role::Moderator, &reason("again")).await;
    assert!(matches!(again, Err(RoleError::Unchanged { role: Role::Moderator, .. })), "{again:?}");
    let nobody = roles::set_role(pool, Some(admin), "nobody", Role::Moderator, &reason("x")).await;
    assert!(matches!(nobody, Err(RoleError::NoSuchUser(_))), "{nobody:?}");
    // A moderator does not grant roles either.
    let by_mod = roles::set_role(pool, Some(alice), "bob", Role::Moderator, &reason("me too")).await;
    assert!(matches!(by_mod, Err(RoleError::NotAdmin)), "{by_mod:?}");
    assert_eq!(roles::role_of(pool, alice).await.unwrap(), Some(Role::Moderator));
    let rows = log::of_target(pool, alice, 10).await.unwrap();
    assert_eq!(rows.len(), 1, "refused changes write nothing");
    assert_eq!(rows[0].moderator.as_ref().map(|m| m.0), Some(admin));
    assert_eq!(log_count(pool).await, 2, "the first admin and alice");
}

fn report(reporter: Uuid, target: Uuid, reason: ReportReason, text: &str) -> NewReport {
    NewReport { reporter, target, reason, text: ReportText::parse(text).unwrap(), game: None }
}

#[tokio::test]
async fn reports_merge_per_reporter_and_target_are_rate_limited_and_close_by_an_action() {
    let app = spawn_app().await;
    accounts(&app, &["alice", "bob", "carol"]).await;
    let pool = &app.db_pool;
    let (alice, bob, carol) = (id_of(pool, "alice").await, id_of(pool, "bob").await, id_of(pool, "carol").await);
    let mod_id = moderator(&app, "judge").await;

    let first = reports::submit(pool, &report(alice, bob, ReportReason::Cheat, "perfect moves")).await.unwrap();
    let Received::New(id) = first else { panic!("a new report: {first:?}") };
    let again = reports::submit(pool, &report(alice, bob, ReportReason::Comm, "and insults")).await.unwrap();
    assert_eq!(again, Received::AddedTo(id), "one open report per reporter and target");
    let notes = reports::notes(pool, id).await.unwrap();
    assert_eq!(
        notes.iter().map(|n| (n.reason, n.text.as_str())).collect::<Vec<_>>(),
        [(ReportReason::Cheat, "perfect moves"), (ReportReason::Comm, "and insults")]
    );
    let by_carol = reports::submit(pool, &report(carol, bob, ReportReason::Comm, "rude")).await.unwrap();
    assert!(matches!(by_carol, Received::New(other) if other != id));
    assert!(matches!(
        reports::submit(pool, &report(alice, alice, ReportReason::Other, "me")).await,
        Err(ReportError::Yourself)
    ));
    let mut with_game = report(carol, alice, ReportReason::Stall, "left");
    with_game.game = GameId::parse("AbCd1234");
    assert!(matches!(reports::submit(pool, &with_game).await, Err(ReportError::NoSuchGame)));

    // The queue: every reason, oldest first, with counts.
    let queue = reports::queue(pool).await.unwrap();
    assert_eq!(queue.iter().map(|r| r.reason).collect::<Vec<_>>(), ReportReason::ALL);
    let counts: Vec<usize> = queue.iter().map(|r| r.count).collect();
    assert_eq!(counts, [1, 0, 0, 1, 0, 0], "alice's report stays under its first reason");
    let cheat = &queue[0];
    assert_eq!((cheat.reports[0].id, cheat.reports[0].notes, cheat.oldest), (id, 2, Some(cheat.reports[0].created_at)));
    assert_eq!(cheat.reports[0].target.1, "bob");

    // Ten submissions an hour per reporter, additions included (alice has sent two).
    for i in 0..8 {
        reports::submit(pool, &report(alice, carol, ReportReason::Other, &format!("note {i}"))).await.unwrap();
    }
    let limited = reports::submit(pool, &report(alice, carol, ReportReason::Other, "one more")).await;
    let Err(ReportError::RateLimited { retry_after_secs }) = limited else { panic!("{limited:?}") };
    assert!((1..=3600).contains(&retry_after_secs), "{retry_after_secs}");
    assert!(reports::submit(pool, &report(carol, alice, ReportReason::Other, "fine")).await.is_ok(), "per reporter");

    // Closing the chat-abuse reports against bob leaves the cheating one open; then all.
    let before = log_count(pool).await;
    let (log_id, closed) =
        reports::dismiss(pool, mod_id, bob, Some(&[ReportReason::Comm]), &reason("banter")).await.unwrap();
    assert_eq!(closed.len(), 1);
    assert_eq!(log_count(pool).await, before + 1, "one row per action");
    let (_, closed) = reports::dismiss(pool, mod_id, bob, None, &reason("not an engine")).await.unwrap();
    assert_eq!(closed, [id]);
    let against = reports::of_user(pool, bob, true, 10).await.unwrap();
    assert!(against.iter().all(|r| r.closed_by_log.is_some()), "{against:?}");
    assert!(against.iter().any(|r| r.closed_by_log == Some(log_id)));
    assert_eq!(reports::queue(pool).await.unwrap()[0].count, 0);
    // A closed report is not added to: a new one opens (once the reporter may send again).
    let fresh = reports::submit(pool, &report(carol, bob, ReportReason::Cheat, "again")).await.unwrap();
    assert!(matches!(fresh, Received::New(_)), "{fresh:?}");
}

#[tokio::test]
async fn blocks_are_listed_undone_and_refuse_challenges_and_seeks() {
    let app = spawn_app().await;
    let b = accounts(&app, &["alice", "bob", "carol"]).await;
    let (alice_b, bob_b) = (&b[0], &b[1]);
    let pool = &app.db_pool;
    let (alice, bob) = (id_of(pool, "alice").await, id_of(pool, "bob").await);
    assert!(matches!(blocks::block(pool, alice, alice).await, Err(BlockError::Yourself)));
    assert!(matches!(blocks::block(pool, alice, Uuid::new_v4()).await, Err(BlockError::NoSuchUser)));
    assert!(blocks::block(pool, bob, alice).await.unwrap());
    assert!(!blocks::block(pool, bob, alice).await.unwrap(), "twice changes nothing");
    assert_eq!(blocks::list(pool, bob).await.unwrap().iter().map(|x| x.name.as_str()).collect::<Vec<_>>(), ["alice"]);
    assert!(blocks::is_blocked(pool, alice, bob).await.unwrap() && blocks::is_blocked(pool, bob, alice).await.unwrap());
    assert!(!blocks::blocks(pool, alice, bob).await.unwrap(), "one direction");

    // Alice's challenge to bob is refused, with words; so is bob's to alice.
    let form = [("variant", "standard"), ("time", "5+3"), ("mode", "casual"), ("color", "random")];
    let r = alice_b.post_form("/@/bob", "/@/bob/challenge", &form).await;
    assert_eq!(r.status().as_u16(), 400);
    assert!(r.text().await.unwrap().contains("bob does not accept challenges from you"));
    let r = bob_b.post_form("/@/alice", "/@/alice/challenge", &form).await;
    assert!(r.text().await.unwrap().contains("you block alice: unblock them to challenge them"));
    let n: (i64,) = sqlx::query_as("SELECT count(*) FROM challenges").fetch_one(pool).await.unwrap();
    assert_eq!(n.0, 0);

    // Bob's seek cannot be taken by alice; the seek stays for others.
    let r = bob_b
        .post_json(
            "/api/lobby/seek",
            &json!({"sri": "bobsri0001", "variant": "gold", "time": "5+3", "mode": "casual", "color": "random"}),
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let seek: Value = r.json().await.unwrap();
    let seek_id = seek["id"].as_str().unwrap();
    let r = alice_b.post_json(&format!("/api/lobby/seek/{seek_id}/accept"), &json!({"sri": "alicesri01"})).await;
    assert_eq!(r.status().as_u16(), 403);
    assert!(r.text().await.unwrap().contains("one of you blocks the other"));
    assert_eq!(chessgold::db::lobby::live(pool).await.unwrap().len(), 1, "the seek stays");

    // Unblocked, the challenge goes.
    assert!(blocks::unblock(pool, bob, alice).await.unwrap());
    assert!(!blocks::unblock(pool, bob, alice).await.unwrap());
    let r = alice_b.post_form("/@/bob", "/@/bob/challenge", &form).await;
    assert_eq!(r.status().as_u16(), 303, "{}", r.text().await.unwrap());
}

async fn lobby(b: &Browser, sri: &str) -> Sock {
    let mut s = b.ws(&format!("/socket/lobby?sri={sri}")).await;
    s.until("seeks").await;
    s
}

async fn join_pool(b: &Browser, sri: &str) {
    let r = b.post_json("/api/lobby/pool/join", &json!({"sri": sri, "variant": "standard", "time": "3+2"})).await;
    assert_eq!(r.status().as_u16(), 200, "{}", r.text().await.unwrap());
}

#[tokio::test]
async fn a_blocked_pair_is_never_paired_in_a_pool() {
    let app = spawn_app().await;
    let b = accounts(&app, &["alice", "bob", "carol"]).await;
    let pool = &app.db_pool;
    let (alice, bob, carol) = (id_of(pool, "alice").await, id_of(pool, "bob").await, id_of(pool, "carol").await);
    blocks::block(pool, alice, bob).await.unwrap();
    let _la = lobby(&b[0], "alicesri01").await;
    let _lb = lobby(&b[1], "bobsri0001").await;
    join_pool(&b[0], "alicesri01").await;
    join_pool(&b[1], "bobsri0001").await;
    let ctx = app.state.lobby_ctx();
    assert!(chessgold::lobby::match_once(&ctx, chessgold::lobby::now_ms()).await.unwrap().is_empty());
    assert_eq!(ctx.lobby.pools.entries().await.unwrap().len(), 2, "both still wait");
    // Carol joins: she is paired with one of them, the other keeps waiting.
    let mut lc = lobby(&b[2], "carolsri01").await;
    join_pool(&b[2], "carolsri01").await;
    let game = lc.until("redirect").await["d"]["id"].as_str().unwrap().to_string();
    let players: Vec<Uuid> =
        chessgold::db::games::players(pool, &game).await.unwrap().iter().filter_map(|p| p.user_id).collect();
    assert!(players.contains(&carol) && players.len() == 2, "{players:?}");
    let left = ctx.lobby.pools.entries().await.unwrap();
    assert_eq!(left.len(), 1);
    assert!(!players.contains(&left[0].user_id.unwrap()), "the one left waits");
    assert!(left[0].user_id == Some(alice) || left[0].user_id == Some(bob));
}

async fn say(sock: &mut Sock, text: &str) -> Value {
    let ack = sock.ack_id();
    sock.send(json!({"t": "chat", "d": {"room": "player", "text": text, "ack": ack}})).await;
    sock.answer(ack).await
}

async fn next_line(sock: &mut Sock) -> String {
    sock.until("chat").await["d"]["line"]["text"].as_str().unwrap().to_string()
}

/// Alice on instance one and bob on instance two play a game; returns the game, their browsers
/// (bob's on instance two) and their sockets.
async fn game_across(one: &TestApp, two: &TestApp) -> (String, Browser, Browser, Sock, Sock) {
    let alice = Browser::new(&one.address);
    alice.signup("alice").await;
    let bob = Browser::new(&one.address);
    bob.signup("bob").await;
    let id = alice.create("standard", "5+0", "casual", "white").await;
    bob.join(&id).await;
    let mut a = alice.socket(&id, None).await;
    a.until("full").await;
    let bob = bob.on(&two.address);
    let mut b = bob.socket(&id, None).await;
    b.until("full").await;
    (id, alice, bob, a, b)
}

#[tokio::test]
async fn blocks_hide_lines_and_chat_sanctions_hold_at_once_on_every_instance() {
    let one = spawn_app_with_redis().await;
    let two = second_instance(&one).await;
    let (id, alice_b, bob_b, mut a, mut b) = game_across(&one, &two).await;
    let pool = &one.db_pool;
    let (alice, bob) = (id_of(pool, "alice").await, id_of(pool, "bob").await);
    let judge = moderator(&one, "judge").await;

    // Bob blocks alice: her line reaches her, not him (his own next line is the first he sees).
    blocks::block(pool, bob, alice).await.unwrap();
    assert_eq!(say(&mut a, "can you see me").await["t"], "ack");
    assert_eq!(next_line(&mut a).await, "can you see me");
    assert_eq!(say(&mut b, "bob here").await["t"], "ack");
    assert_eq!(next_line(&mut b).await, "bob here", "alice's line was hidden from bob");
    assert_eq!(next_line(&mut a).await, "bob here");
    // Nor in the history bob gets on joining (alice still gets her own line).
    let history_of = |h: &Value| -> Vec<String> {
        h["d"]["lines"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap().to_string()).collect()
    };
    let texts = history_of(&bob_b.socket(&id, None).await.until("chat_history").await);
    assert_eq!(texts, ["bob here"]);
    let texts = history_of(&alice_b.socket(&id, None).await.until("chat_history").await);
    assert_eq!(texts, ["can you see me", "bob here"]);
    // Nor in the lines the game page is drawn with.
    let page = bob_b.html(&format!("/{id}")).await;
    assert!(page.contains("bob here") && !page.contains("can you see me"), "{page}");
    assert!(alice_b.html(&format!("/{id}")).await.contains("can you see me"));
    blocks::unblock(pool, bob, alice).await.unwrap();

    // A timeout: refused at once, saying until when.
    let given = sanctions::chat_timeout(pool, judge, alice, 10, &reason("spam")).await.unwrap();
    let until = given.until.unwrap();
    let refused = say(&mut a, "still here").await;
    assert_eq!(refused["d"]["code"], "chat_timed_out");
    let hhmm = format!("{:02}:{:02} UTC", until.hour(), until.minute());
    assert!(refused["d"]["message"].as_str().unwrap().contains(&hhmm), "{refused} {hhmm}");
    assert!(matches!(
        sanctions::chat_timeout(pool, judge, alice, 5, &reason("x")).await,
        Err(SanctionError::BadDuration)
    ));
    assert!(matches!(
        sanctions::chat_timeout(pool, alice, bob, 10, &reason("x")).await,
        Err(SanctionError::NotModerator)
    ));
    sanctions::lift(pool, judge, alice, SanctionKind::ChatTimeout, &reason("served")).await.unwrap();
    assert_eq!(say(&mut a, "back").await["t"], "ack");
    assert_eq!(next_line(&mut b).await, "back");
    assert_eq!(next_line(&mut a).await, "back");

    // A shadow-mute: alice's line is acknowledged and shown to her only, in her history too (so
    // the mute goes unnoticed), in nobody else's.
    sanctions::shadow_mute(pool, judge, alice, &reason("troll")).await.unwrap();
    assert_eq!(say(&mut a, "nobody hears this").await["t"], "ack");
    assert_eq!(next_line(&mut a).await, "nobody hears this");
    assert_eq!(say(&mut b, "quiet, isn't it").await["t"], "ack");
    assert_eq!(next_line(&mut b).await, "quiet, isn't it");
    let mut again = alice_b.on(&two.address).socket(&id, None).await;
    let history = again.until("chat_history").await;
    let texts: Vec<&str> =
        history["d"]["lines"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap()).collect();
    assert!(texts.contains(&"nobody hears this") && texts.contains(&"back"), "{texts:?}");
    let history = bob_b.socket(&id, None).await.until("chat_history").await;
    assert!(!history.to_string().contains("nobody hears this"), "{history}");
    assert!(!bob_b.html(&format!("/{id}")).await.contains("nobody hears this"));
    // Another shadow-muted player sees it.
    sanctions::shadow_mute(pool, judge, bob, &reason("troll too")).await.unwrap();
    assert_eq!(say(&mut a, "hello fellow").await["t"], "ack");
    assert_eq!(next_line(&mut b).await, "hello fellow");

    let actions: Vec<ModAction> = log::of_target(pool, alice, 10).await.unwrap().iter().map(|r| r.action).collect();
    assert_eq!(actions, [ModAction::ShadowMute, ModAction::LiftChatTimeout, ModAction::ChatTimeout]);
}

/// White creates a rated standard 5+0 game, Black joins and mates with the fool's mate: White
/// loses rating points to Black.
pub(crate) async fn black_wins_rated(w: &Browser, b: &Browser) -> String {
    let id = w.create("standard", "5+0", "rated", "white").await;
    b.join(&id).await;
    let mut ws = w.socket(&id, None).await;
    let mut bs = b.socket(&id, None).await;
    ws.until("full").await;
    bs.until("full").await;
    crate::round::play_line(&mut ws, &mut bs, 0, &["f2f3", "e7e5", "g2g4", "d8h4"]).await;
    bs.until("end").await;
    id
}

async fn rating(pool: &PgPool, user: Uuid) -> i32 {
    chessgold::db::ratings::perf(pool, user, "standard").await.unwrap().rating
}

async fn leader_names(pool: &PgPool) -> Vec<String> {
    chessgold::db::profiles::leaders(pool, "standard", 1, 10).await.unwrap().into_iter().map(|r| r.username).collect()
}

#[tokio::test]
async fn an_engine_mark_refunds_once_leaves_the_leaderboard_and_is_undone() {
    let app = spawn_app().await;
    let judge = moderator(&app, "judge").await;
    let b = accounts(&app, &["bob", "cheat", "carol"]).await;
    let pool = &app.db_pool;
    let (bob, cheat, carol) = (id_of(pool, "bob").await, id_of(pool, "cheat").await, id_of(pool, "carol").await);
    let game = black_wins_rated(&b[0], &b[1]).await;
    let lost = 1500 - rating(pool, bob).await;
    assert!(lost > 0, "bob lost points to the cheat");
    let cheat_rating = rating(pool, cheat).await;
    assert_eq!(leader_names(pool).await, ["cheat", "bob"]);
    reports::submit(pool, &report(carol, cheat, ReportReason::Cheat, "engine moves")).await.unwrap();

    let err = marks::mark(pool, bob, cheat, Mark::Engine, &reason("no")).await.unwrap_err();
    assert!(matches!(err, SanctionError::NotModerator));
    let before = log_count(pool).await;
    let marked = marks::mark(pool, judge, cheat, Mark::Engine, &reason("matches the engine")).await.unwrap();
    assert_eq!(log_count(pool).await, before + 1, "one row for the mark and its refund");
    assert_eq!(marked.closed_reports, 1, "the cheating report is answered");
    assert_eq!(marked.refunds, [Refund { game: game.clone(), user: bob, variant: "standard".into(), points: lost }]);
    assert_eq!(rating(pool, bob).await, 1500, "bob has his points back");
    assert_eq!(rating(pool, cheat).await, cheat_rating, "the cheat keeps the rating, off the board");
    let row = &log::of_target(pool, cheat, 1).await.unwrap()[0];
    assert_eq!(row.action, ModAction::EngineMark);
    assert_eq!(row.details["refunds"][0]["points"], json!(lost));
    assert_eq!(marks::of_user(pool, cheat).await.unwrap(), [Mark::Engine], "the mod view shows the mark");
    assert_eq!(leader_names(pool).await, ["bob"]);
    assert!(matches!(
        marks::mark(pool, judge, cheat, Mark::Engine, &reason("again")).await,
        Err(SanctionError::Conflict(_))
    ));

    // The undo: back on the board; a second mark pays nothing more.
    sanctions::lift(pool, judge, cheat, SanctionKind::EngineMark, &reason("appeal")).await.unwrap();
    assert!(marks::of_user(pool, cheat).await.unwrap().is_empty());
    assert_eq!(leader_names(pool).await, ["cheat", "bob"]);
    let again = marks::mark(pool, judge, cheat, Mark::Engine, &reason("after all")).await.unwrap();
    assert!(again.refunds.is_empty(), "refunded once only");
    assert_eq!(rating(pool, bob).await, 1500);
    let n: (i64,) = sqlx::query_as("SELECT count(*) FROM rating_refunds").fetch_one(pool).await.unwrap();
    assert_eq!(n.0, 1);
    let actions: Vec<ModAction> = log::of_target(pool, cheat, 3).await.unwrap().iter().map(|r| r.action).collect();
    assert_eq!(actions, [ModAction::EngineMark, ModAction::LiftEngineMark, ModAction::EngineMark]);
}

#[tokio::test]
async fn a_marked_account_pairs_only_with_marked_ones_in_pools_and_seeks() {
    let app = spawn_app().await;
    let judge = moderator(&app, "judge").await;
    let b = accounts(&app, &["alice", "bob", "carol"]).await;
    let pool = &app.db_pool;
    let (alice, carol) = (id_of(pool, "alice").await, id_of(pool, "carol").await);
    marks::mark(pool, judge, alice, Mark::Booster, &reason("sandbagging")).await.unwrap();
    assert_eq!(log::of_target(pool, alice, 1).await.unwrap()[0].action, ModAction::BoosterMark);

    // A seek of the marked alice cannot be taken by bob.
    let r = b[0]
        .post_json(
            "/api/lobby/seek",
            &json!({"sri": "alicesri01", "variant": "gold", "time": "5+3", "mode": "casual", "color": "random"}),
        )
        .await;
    assert_eq!(r.status().as_u16(), 201);
    let seek: Value = r.json().await.unwrap();
    let r = b[1]
        .post_json(&format!("/api/lobby/seek/{}/accept", seek["id"].as_str().unwrap()), &json!({"sri": "bobsri0001"}))
        .await;
    assert_eq!(r.status().as_u16(), 403);
    assert!(r.text().await.unwrap().contains("cannot be accepted"));
    let r = b[0].post_json(&format!("/api/lobby/seek/{}/cancel", seek["id"].as_str().unwrap()), &json!({})).await;
    assert!(r.status().is_success(), "{}", r.status());

    // In a pool, alice waits while bob waits too; a marked carol is paired with her.
    let _la = lobby(&b[0], "alicesri01").await;
    let _lb = lobby(&b[1], "bobsri0001").await;
    join_pool(&b[0], "alicesri01").await;
    join_pool(&b[1], "bobsri0001").await;
    let ctx = app.state.lobby_ctx();
    assert!(chessgold::lobby::match_once(&ctx, chessgold::lobby::now_ms()).await.unwrap().is_empty());
    marks::mark(pool, judge, carol, Mark::Engine, &reason("engine")).await.unwrap();
    let mut lc = lobby(&b[2], "carolsri01").await;
    join_pool(&b[2], "carolsri01").await;
    let game = lc.until("redirect").await["d"]["id"].as_str().unwrap().to_string();
    let mut players: Vec<Uuid> =
        chessgold::db::games::players(pool, &game).await.unwrap().iter().filter_map(|p| p.user_id).collect();
    players.sort();
    let mut want = vec![alice, carol];
    want.sort();
    assert_eq!(players, want);
    let left = ctx.lobby.pools.entries().await.unwrap();
    assert_eq!(left.iter().map(|e| e.user_id).collect::<Vec<_>>(), [Some(id_of(pool, "bob").await)]);
}

/// A finished game of `user` (White) that ended with `reason`, `minutes_ago`: a no-start with no
/// move, or an abandoned game White lost.
async fn offence(pool: &PgPool, id: &str, user: Uuid, reason: &str, minutes_ago: i32) {
    sqlx::query(
        "INSERT INTO games (id, variant, rated, source, status, winner, reason, created_at, finished_at)
         VALUES ($1, 'standard', false, 'friend', CASE WHEN $2 = 'no-start' THEN 37 ELSE 31 END,
                 CASE WHEN $2 = 'no-start' THEN NULL ELSE 'black' END, $2,
                 now() - make_interval(mins => $3), now() - make_interval(mins => $3))",
    )
    .bind(id)
    .bind(reason)
    .bind(minutes_ago)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO game_players (game_id, color, player_id, user_id, guest_id, lag_quota)
         VALUES ($1, 'white', 'Wxyz', $2, NULL, 0), ($1, 'black', 'Bxyz', NULL, 'guest1', 0)",
    )
    .bind(id)
    .bind(user)
    .execute(pool)
    .await
    .unwrap();
}

#[tokio::test]
async fn a_repeat_abandoner_cannot_challenge_seek_or_pair_until_the_ban_ends() {
    let app = spawn_app().await;
    let b = accounts(&app, &["alice", "bob"]).await;
    let pool = &app.db_pool;
    let alice = id_of(pool, "alice").await;
    offence(pool, "nostart1", alice, "no-start", 40).await;
    offence(pool, "abandon1", alice, "abandoned", 30).await;
    assert_eq!(playban::play_ban(pool, alice).await.unwrap(), None, "two are free");
    let form = [("variant", "standard"), ("time", "5+3"), ("mode", "casual"), ("color", "random")];
    let r = b[0].post_form("/@/bob", "/@/bob/challenge", &form).await;
    assert_eq!(r.status().as_u16(), 303);

    offence(pool, "nostart2", alice, "no-start", 5).await;
    let ban = playban::play_ban(pool, alice).await.unwrap().expect("the third one bans");
    assert_eq!((ban.offences, ban.code().as_str()), (3, "play_banned"));
    let r = b[0].post_form("/@/bob", "/@/bob/challenge", &form).await;
    assert_eq!(r.status().as_u16(), 422);
    let text = r.text().await.unwrap();
    assert!(text.contains("you cannot play for 10 more minutes"), "{text}");

    // Bob's seek cannot be taken by alice, nor his challenge accepted by her.
    let r = b[1]
        .post_json(
            "/api/lobby/seek",
            &json!({"sri": "bobsri0001", "variant": "gold", "time": "5+3", "mode": "casual", "color": "random"}),
        )
        .await;
    let seek: Value = r.json().await.unwrap();
    let r = b[0]
        .post_json(&format!("/api/lobby/seek/{}/accept", seek["id"].as_str().unwrap()), &json!({"sri": "alicesri01"}))
        .await;
    assert_eq!(r.status().as_u16(), 409);
    assert!(r.text().await.unwrap().contains("more minutes"));

    // Nor can she seek, join a pool, or join a friend's game by its link.
    let r = b[0]
        .post_json(
            "/api/lobby/seek",
            &json!({"sri": "alicesri01", "variant": "gold", "time": "5+3", "mode": "casual", "color": "random"}),
        )
        .await;
    assert_eq!(r.status().as_u16(), 409);
    let refused: Value = r.json().await.unwrap();
    assert_eq!(refused["code"], "play_banned", "{refused}");
    let _la = lobby(&b[0], "alicesri02").await;
    let r = b[0]
        .post_json("/api/lobby/pool/join", &json!({"sri": "alicesri02", "variant": "standard", "time": "3+2"}))
        .await;
    assert_eq!(r.status().as_u16(), 409);
    assert!(r.text().await.unwrap().contains("more minutes"));
    let friendly = b[1].create("standard", "5+0", "casual", "white").await;
    let r = b[0].post_form(&format!("/{friendly}"), &format!("/game/{friendly}/join"), &[]).await;
    assert_eq!(r.status().as_u16(), 409);
    assert!(r.text().await.unwrap().contains("more minutes"));
    // In a pool she is not paired (a place taken before the ban).
    sqlx::query("UPDATE games SET finished_at = finished_at - interval '1 day' WHERE id = 'nostart2'")
        .execute(pool)
        .await
        .unwrap();
    join_pool(&b[0], "alicesri02").await;
    sqlx::query("UPDATE games SET finished_at = finished_at + interval '1 day' WHERE id = 'nostart2'")
        .execute(pool)
        .await
        .unwrap();
    assert!(playban::play_ban(pool, alice).await.unwrap().is_some());
    let ctx = app.state.lobby_ctx();
    let bob_b = Browser::new(&app.address);
    bob_b.signup("carol").await;
    let _lc = lobby(&bob_b, "carolsri01").await;
    join_pool(&bob_b, "carolsri01").await;
    assert!(chessgold::lobby::match_once(&ctx, chessgold::lobby::now_ms()).await.unwrap().is_empty());
    assert_eq!(ctx.lobby.pools.entries().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_closed_account_cannot_log_in_loses_its_tokens_stream_and_games_on_every_instance() {
    let one = spawn_app_with_redis().await;
    let two = second_instance(&one).await;
    let (id, _alice_b, _bob_b, mut a, mut b) = game_across(&one, &two).await;
    let pool = &one.db_pool;
    let (alice, bob) = (id_of(pool, "alice").await, id_of(pool, "bob").await);
    let judge = moderator(&one, "judge").await;
    reports::submit(pool, &report(alice, bob, ReportReason::Other, "closes accounts")).await.unwrap();

    // Bob has a token, a stream of events on instance two, a seek and a challenge to carol.
    let (token, hash) = chessgold::api::auth::new_token().unwrap();
    chessgold::db::tokens::insert(pool, bob, "bot", &["board:play".to_string()], &hash).await.unwrap();
    let events = reqwest::Client::new()
        .get(format!("{}/api/stream/event", two.address))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(events.status().as_u16(), 200);
    let mut events = events;
    let mut lobby_sock = lobby(&_bob_b.on(&one.address), "bobsri0001").await;
    let carol = Browser::new(&one.address);
    carol.signup("carol").await;
    let challenger = Browser::new(&one.address);
    challenger.signup("dave").await;
    let form = [("variant", "standard"), ("time", "unlimited"), ("mode", "casual"), ("color", "random")];
    let r = challenger.post_form("/@/bob", "/@/bob/challenge", &form).await;
    assert_eq!(r.status().as_u16(), 303, "{}", r.text().await.unwrap());

    let before = log_count(pool).await;
    let closed =
        closure::close(&one.state.lobby_ctx(), &one.state.rounds, judge, bob, &reason("ban evasion")).await.unwrap();
    assert_eq!(log_count(pool).await, before + 1);
    assert_eq!((closed.tokens, closed.challenges, closed.closed_reports), (1, 1, 1));
    assert_eq!(closed.games.iter().map(ToString::to_string).collect::<Vec<_>>(), std::slice::from_ref(&id));
    // The running game is resigned, and both players are told on their instances.
    let end = a.until("end").await;
    assert_eq!(end["d"]["reason"], "resign", "{end}");
    // Bob's game socket on instance two closes (it may close before the end reaches it: the two
    // travel apart), and so does his lobby socket on instance one.
    assert!(b.closed().await, "bob's game socket closes");
    assert!(lobby_sock.closed().await, "bob's lobby socket closes");
    // The stream on instance two ends.
    let wait = std::time::Duration::from_secs(10);
    while let Ok(Some(_)) = tokio::time::timeout(wait, events.chunk()).await.expect("the stream ends") {}
    assert!(chessgold::db::tokens::owner_of(pool, &hash).await.unwrap().is_none(), "the token is revoked");
    assert!(closure::is_closed(pool, bob).await.unwrap());
    let r = one.post_login("bob", "password123").await;
    assert_eq!(r.status().as_u16(), 401, "log-in refused");
    assert!(matches!(
        closure::close(&one.state.lobby_ctx(), &one.state.rounds, judge, bob, &reason("again")).await,
        Err(SanctionError::Conflict(_))
    ));

    // Reopened: log-in works again.
    closure::reopen(pool, judge, bob, &reason("appeal granted")).await.unwrap();
    assert!(!closure::is_closed(pool, bob).await.unwrap());
    let r = one.post_login("bob", "password123").await;
    assert_eq!(r.status().as_u16(), 303);
    let actions: Vec<ModAction> = log::of_target(pool, bob, 2).await.unwrap().iter().map(|r| r.action).collect();
    assert_eq!(actions, [ModAction::ReopenAccount, ModAction::CloseAccount]);
}

#[tokio::test]
async fn a_users_rated_games_are_analysed_from_their_side() {
    let app = spawn_app().await;
    let b = accounts(&app, &["bob", "cheat"]).await;
    let pool = &app.db_pool;
    let cheat = id_of(pool, "cheat").await;
    let game = black_wins_rated(&b[0], &b[1]).await;
    let thinkers = chessgold::bots::Thinkers::new(1);
    let done = chessgold::moderation::analysis::analyse_user(pool, &thinkers, cheat, 10, 2_000).await.unwrap();
    assert_eq!(done.len(), 1);
    let g = &done[0];
    assert_eq!(
        (g.game.as_str(), g.variant.as_str(), g.color),
        (game.as_str(), "standard", chessgold_engine::Color::Black)
    );
    assert_eq!((g.figures.moves, g.opponent.moves), (2, 2), "the fool's mate: two actions each");
    assert!(g.figures.top_matches >= 1, "Qh4 mates: the engine's choice: {g:?}");
    assert!(g.opponent.avg_loss_cp > g.figures.avg_loss_cp, "{g:?}");
}
