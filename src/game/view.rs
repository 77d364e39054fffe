//! The JSON views of a game, as the socket protocol and the game page send them
//! (`docs/api.md`, WebSocket): every shape is a `#[derive(Serialize)]` struct here, built from a
//! [`Game`], and the room events ([`Event`]) are an enum of them. The field order of each struct
//! is the order on the wire; `Option` fields are `null` when empty unless marked otherwise.
//!
//! The domain (`model`) decides what happened; this module only says how it is shown.

use chessgold_engine::{Color, Snapshot};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use super::clock::cs_between;
use super::model::{Closed, Game};
use super::protocol::Room;
use super::reason::Reason;
use crate::settings::GameSettings;

/// Any view as a JSON value (`null` if it cannot be one, which a view never is).
pub fn value(view: &impl Serialize) -> Value {
    serde_json::to_value(view).unwrap_or(Value::Null)
}

fn color_name(c: Option<Color>) -> Option<&'static str> {
    c.map(Color::name)
}

/// A room event: what a committed step changed, stored with its version and sent to the room.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The opponent joined: the game starts.
    Start(Start),
    /// An action was committed.
    Move(Move),
    /// Who offers what changed.
    Offers(Offers),
    /// Actions were taken back.
    Takeback(Takeback),
    /// The game ended.
    End(End),
    /// The rematch exists.
    Rematch(Rematch),
}

/// The kind of a room event, as stored in `game_events.t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// `start`.
    Start,
    /// `move`.
    Move,
    /// `offers`.
    Offers,
    /// `takeback`.
    Takeback,
    /// `end`.
    End,
    /// `rematch`.
    Rematch,
}

impl EventKind {
    /// Every kind.
    pub const ALL: [EventKind; 6] =
        [EventKind::Start, EventKind::Move, EventKind::Offers, EventKind::Takeback, EventKind::End, EventKind::Rematch];

    /// The protocol's name (the message's `t`).
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Start => "start",
            EventKind::Move => "move",
            EventKind::Offers => "offers",
            EventKind::Takeback => "takeback",
            EventKind::End => "end",
            EventKind::Rematch => "rematch",
        }
    }

    /// The kind of a stored name.
    pub fn parse(name: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the event is sent with the engine's state after it (`move`, `takeback`).
    pub fn carries_state(self) -> bool {
        matches!(self, EventKind::Move | EventKind::Takeback)
    }
}

impl Event {
    /// The kind.
    pub fn kind(&self) -> EventKind {
        match self {
            Event::Start(_) => EventKind::Start,
            Event::Move(_) => EventKind::Move,
            Event::Offers(_) => EventKind::Offers,
            Event::Takeback(_) => EventKind::Takeback,
            Event::End(_) => EventKind::End,
            Event::Rematch(_) => EventKind::Rematch,
        }
    }

    /// The data as stored (without the state a `move` or `takeback` is sent with).
    pub fn data(&self) -> Value {
        match self {
            Event::Start(d) => value(d),
            Event::Move(d) => value(d),
            Event::Offers(d) => value(d),
            Event::Takeback(d) => value(d),
            Event::End(d) => value(d),
            Event::Rematch(d) => value(d),
        }
    }

    /// The data as sent. A `move` or `takeback` also says what the state became, as its last
    /// field: `patch`, the JSON Patch from `base` (the state the clients hold, when known) to
    /// `state`, or else `state` itself.
    pub fn sent_data(&self, state: &Value, base: Option<&Value>) -> Value {
        let mut d = self.data();
        if self.kind().carries_state()
            && let Some(obj) = d.as_object_mut()
        {
            match base {
                Some(base) => obj.insert("patch".into(), Value::Array(super::patch::diff(base, state))),
                None => obj.insert("state".into(), state.clone()),
            };
        }
        d
    }
}

/// A game's status: `{"id": 31, "name": "resign"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Status {
    /// Lichess's id.
    pub id: i16,
    /// The protocol's name.
    pub name: &'static str,
}

/// The status of a game.
pub fn status(game: &Game) -> Status {
    Status { id: game.status.id(), name: game.status.name() }
}

/// The first turn awaited, in [`Clocks`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FirstMove {
    /// Whose first turn.
    pub color: &'static str,
    /// Centiseconds left for it; `null` where none is due (against a bot).
    pub cs: Option<i64>,
}

/// The `clocks` object: remaining centiseconds, the running side, the first move awaited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Clocks {
    /// White's centiseconds (clocked games).
    pub white: Option<i32>,
    /// Black's centiseconds (clocked games).
    pub black: Option<i32>,
    /// The side whose clock runs.
    pub running: Option<&'static str>,
    /// While a side's first turn is awaited.
    pub first_move: Option<FirstMove>,
}

/// The clocks of a game at `now`.
pub fn clocks(game: &Game, now: OffsetDateTime, cfg: &GameSettings) -> Clocks {
    let c = game.clocks_at(now);
    let first_move = (game.status == super::Status::Started && game.turns < 2).then(|| {
        // `cs` is the time left for the first move, or null where none is due.
        let cs = game.first_move_due().then(|| {
            let waited = game.turn_at.map_or(0, |at| cs_between(at, now));
            (cfg.first_move_cs() - waited).max(0)
        });
        FirstMove { color: game.engine.turn().name(), cs }
    });
    Clocks {
        white: c.map(|c| c[0]),
        black: c.map(|c| c[1]),
        running: game.clock_running().then(|| game.engine.turn().name()),
        first_move,
    }
}

/// A seat as shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Player {
    /// The name shown.
    pub name: String,
    /// Whether it is an account.
    pub user: bool,
    /// The account's title (`BOT` for a BOT account).
    pub title: Option<&'static str>,
    /// The bot's level, for a bot.
    pub bot: Option<u8>,
    /// Rating before the game (an account's, rated or casual; a bot's estimate).
    pub rating: Option<i32>,
    /// Whether the rating is provisional.
    pub provisional: bool,
    /// The rating change, once rated.
    pub rating_diff: Option<i32>,
}

/// Both seats (`null` while empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Players {
    /// White's seat.
    pub white: Option<Player>,
    /// Black's seat.
    pub black: Option<Player>,
}

/// The seats of a game.
pub fn players(game: &Game) -> Players {
    let seat = |c: Color| {
        game.seats[c.index()].as_ref().map(|s| Player {
            name: s.name.clone(),
            user: s.user_id.is_some(),
            title: s.title(),
            bot: s.bot.map(chessgold_bot::Level::number),
            rating: s.rating_before,
            provisional: s.provisional,
            rating_diff: match (s.rating_before, s.rating_after) {
                (Some(b), Some(a)) => Some(a - b),
                _ => None,
            },
        })
    };
    Players { white: seat(Color::White), black: seat(Color::Black) }
}

/// An offer that ended unaccepted: `{"offer": "draw", "by": "black", "how": "declined"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClosedOffer {
    /// `draw`, `takeback`, `rematch`.
    pub offer: &'static str,
    /// Who ended it.
    pub by: &'static str,
    /// `declined`, `withdrawn`, `lapsed`.
    pub how: &'static str,
}

/// Who offers what; as an event, with the offers the step ended unaccepted (`closed`, absent
/// when none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Offers {
    /// Who offers a draw.
    pub draw: Option<&'static str>,
    /// Who asks for a takeback.
    pub takeback: Option<&'static str>,
    /// Who offers a rematch.
    pub rematch: Option<&'static str>,
    /// Offers ended without being accepted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub closed: Vec<ClosedOffer>,
}

/// Who offers what in a game, with the offers `closed` ended.
pub fn offers(game: &Game, closed: &[Closed]) -> Offers {
    Offers {
        draw: color_name(game.offers.draw),
        takeback: color_name(game.offers.takeback),
        rematch: color_name(game.offers.rematch),
        closed: closed
            .iter()
            .map(|c| ClosedOffer { offer: c.offer.name(), by: c.by.name(), how: c.how.name() })
            .collect(),
    }
}

/// One side's rating change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RatingChange {
    /// Before the game.
    pub before: i32,
    /// After it.
    pub after: i32,
    /// `after - before`.
    pub diff: i32,
    /// Whether the rating before was provisional.
    pub provisional: bool,
}

/// Both sides' rating changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Ratings {
    /// White's.
    pub white: RatingChange,
    /// Black's.
    pub black: RatingChange,
}

/// The rating changes of a finished rated game (`None` otherwise).
pub fn ratings(game: &Game) -> Option<Ratings> {
    if !game.rated || game.status.is_live() {
        return None;
    }
    let one = |c: Color| {
        game.seats[c.index()].as_ref().and_then(|s| match (s.rating_before, s.rating_after) {
            (Some(before), Some(after)) => {
                Some(RatingChange { before, after, diff: after - before, provisional: s.provisional })
            }
            _ => None,
        })
    };
    Some(Ratings { white: one(Color::White)?, black: one(Color::Black)? })
}

/// The data of a `start` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Start {
    /// The status (started).
    pub status: Status,
    /// Both seats.
    pub players: Players,
    /// The clocks.
    pub clocks: Clocks,
}

/// The data of a `move` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Move {
    /// The action's number, from 1.
    pub seq: i32,
    /// The action as stored.
    pub action: String,
    /// Who played it.
    pub by: &'static str,
    /// The clocks after it.
    pub clocks: Clocks,
}

/// The data of a `takeback` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Takeback {
    /// The actions that remain.
    pub plies: usize,
    /// The clocks after it.
    pub clocks: Clocks,
}

/// The data of an `end` event (ratings are filled in by the store for rated games).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct End {
    /// The final status.
    pub status: Status,
    /// The winner.
    pub winner: Option<&'static str>,
    /// The rule that ended the game.
    pub reason: Option<Reason>,
    /// The clocks, frozen.
    pub clocks: Clocks,
    /// Rating changes of a rated game.
    pub ratings: Option<Ratings>,
    /// The seed of a random variant, revealed.
    pub seed: Option<u64>,
    /// Its salt, in hex.
    pub salt: Option<String>,
}

/// The `end` data of a finished game.
pub fn end(game: &Game, now: OffsetDateTime, cfg: &GameSettings) -> End {
    let (seed, salt) = game.revealed_seed();
    End {
        status: status(game),
        winner: color_name(game.winner),
        reason: game.reason,
        clocks: clocks(game, now, cfg),
        ratings: ratings(game),
        seed,
        salt,
    }
}

/// The data of a `rematch` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rematch {
    /// The new game.
    pub id: String,
}

/// A clock's setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Clock {
    /// Initial centiseconds.
    pub limit: i32,
    /// Centiseconds added per turn.
    pub increment: i32,
}

/// The protocol's `full` data: the whole game for a client in seat `you`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Full {
    /// Game id.
    pub id: String,
    /// Variant id.
    pub variant: &'static str,
    /// Variant name.
    pub variant_name: &'static str,
    /// Rated.
    pub rated: bool,
    /// `null` for unlimited games.
    pub clock: Option<Clock>,
    /// Status.
    pub status: Status,
    /// Winner once over.
    pub winner: Option<&'static str>,
    /// The rule that ended the game.
    pub reason: Option<Reason>,
    /// Both seats.
    pub players: Players,
    /// The client's seat.
    pub you: Option<&'static str>,
    /// The clocks now.
    pub clocks: Clocks,
    /// Who offers what.
    pub offers: Offers,
    /// Rating changes of a finished rated game.
    pub ratings: Option<Ratings>,
    /// The seed commitment of a random variant.
    pub seed_commitment: Option<String>,
    /// The seed, once over.
    pub seed: Option<u64>,
    /// The salt, once over.
    pub salt: Option<String>,
    /// The rematch, once created.
    pub rematch: Option<String>,
    /// The position text a game from a position started at (absent: the variant's start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_fen: Option<String>,
    /// Both clocks after each action (clocked games).
    pub clock_history: Option<Vec<Option<[i32; 2]>>>,
    /// The claim delay, seconds.
    pub claim_after: u32,
    /// The engine's state.
    pub state: Snapshot,
}

/// The `full` data of a game for a client in seat `you` at `now`.
pub fn full(game: &Game, you: Option<Color>, now: OffsetDateTime, cfg: &GameSettings) -> Full {
    let (seed, salt) = game.revealed_seed();
    Full {
        id: game.id.to_string(),
        variant: game.info.id,
        variant_name: game.info.name,
        rated: game.rated,
        clock: game.clock.map(|c| Clock { limit: c.limit, increment: c.increment }),
        status: status(game),
        winner: color_name(game.winner),
        reason: game.reason,
        players: players(game),
        you: color_name(you),
        clocks: clocks(game, now, cfg),
        offers: offers(game, &[]),
        ratings: ratings(game),
        seed_commitment: game.commitment.clone(),
        seed,
        salt,
        rematch: game.rematch_id.clone(),
        initial_fen: game.initial_fen.clone(),
        // Both clocks (White's, Black's, centiseconds) after each action, for replays.
        clock_history: game.clock.map(|_| game.actions.iter().map(|a| a.clocks).collect()),
        claim_after: cfg.claim_after_secs,
        state: game.snapshot(),
    }
}

/// Who is connected: `{"white": true, "black": false, "away": {"black": 12}}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Crowd {
    /// White's seat is connected.
    pub white: bool,
    /// Black's seat is connected.
    pub black: bool,
    /// Seconds since each disconnected seat was last seen.
    pub away: Away,
}

/// Seconds since each disconnected (taken) seat was last seen; absent when connected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Away {
    /// White's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white: Option<i64>,
    /// Black's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black: Option<i64>,
}

impl Away {
    /// Whether someone is away.
    pub fn any(&self) -> bool {
        self.white.is_some() || self.black.is_some()
    }

    /// The entry of a seat.
    pub fn of(&mut self, c: Color) -> &mut Option<i64> {
        match c {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }
}

/// A chat line as sent (and as it travels between instances).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    /// The author's name (`Anonymous` for guests).
    pub author: String,
    /// The author's seat; `null` for spectators.
    pub color: Option<String>,
    /// The raw text.
    pub text: String,
    /// When, RFC 3339.
    pub at: String,
}

impl From<&crate::db::games::ChatRow> for ChatLine {
    fn from(line: &crate::db::games::ChatRow) -> ChatLine {
        let at = line.at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default();
        ChatLine { author: line.author.clone(), color: line.color.clone(), text: line.text.clone(), at }
    }
}

/// The `chat` message: a line in a room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chat<'a> {
    /// The room.
    pub room: Room,
    /// The line.
    pub line: &'a ChatLine,
}

/// The `chat_history` message: the last lines of a room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChatHistory {
    /// The room.
    pub room: Room,
    /// Oldest first.
    pub lines: Vec<ChatLine>,
}

/// A seat in the record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordPlayer {
    /// The name shown.
    pub name: String,
    /// Whether it is an account.
    pub user: bool,
    /// The account's title (`BOT` for a BOT account).
    pub title: Option<&'static str>,
    /// The bot's level, for a bot.
    pub bot: Option<u8>,
    /// Rating before the game.
    pub rating_before: Option<i32>,
    /// Rating after it.
    pub rating_after: Option<i32>,
    /// Whether the rating was provisional.
    pub provisional: bool,
}

/// Both seats in the record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordPlayers {
    /// White's.
    pub white: Option<RecordPlayer>,
    /// Black's.
    pub black: Option<RecordPlayer>,
}

/// Both clocks after an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ActionClocks {
    /// White's centiseconds.
    pub white: i32,
    /// Black's centiseconds.
    pub black: i32,
}

/// An action in the record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordAction {
    /// From 1.
    pub seq: i32,
    /// As stored.
    pub action: String,
    /// Who played it.
    pub by: &'static str,
    /// Both clocks after it (clocked games).
    pub clocks: Option<ActionClocks>,
}

/// The record of a game (`GET /api/game/{id}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Record {
    /// Game id.
    pub id: String,
    /// Variant id.
    pub variant: &'static str,
    /// Rated.
    pub rated: bool,
    /// `null` for unlimited games.
    pub clock: Option<Clock>,
    /// Status.
    pub status: Status,
    /// Winner once over.
    pub winner: Option<&'static str>,
    /// The rule that ended the game.
    pub reason: Option<Reason>,
    /// The seed commitment of a random variant.
    pub seed_commitment: Option<String>,
    /// The seed, once over.
    pub seed: Option<u64>,
    /// The salt, once over.
    pub salt: Option<String>,
    /// The position text a game from a position started at (absent: the variant's start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_fen: Option<String>,
    /// Both seats.
    pub players: RecordPlayers,
    /// Every action.
    pub actions: Vec<RecordAction>,
}

/// The record of a game.
pub fn record(game: &Game) -> Record {
    let (seed, salt) = game.revealed_seed();
    let player = |c: Color| {
        game.seats[c.index()].as_ref().map(|s| RecordPlayer {
            name: s.name.clone(),
            user: s.user_id.is_some(),
            title: s.title(),
            bot: s.bot.map(chessgold_bot::Level::number),
            rating_before: s.rating_before,
            rating_after: s.rating_after,
            provisional: s.provisional,
        })
    };
    Record {
        id: game.id.to_string(),
        variant: game.info.id,
        rated: game.rated,
        clock: game.clock.map(|c| Clock { limit: c.limit, increment: c.increment }),
        status: status(game),
        winner: color_name(game.winner),
        reason: game.reason,
        seed_commitment: game.commitment.clone(),
        seed,
        salt,
        initial_fen: game.initial_fen.clone(),
        players: RecordPlayers { white: player(Color::White), black: player(Color::Black) },
        actions: game
            .actions
            .iter()
            .map(|a| RecordAction {
                seq: a.seq,
                action: a.action.clone(),
                by: a.color.name(),
                clocks: a.clocks.map(|c| ActionClocks { white: c[0], black: c[1] }),
            })
            .collect(),
    }
}

/// Lichess's status name of a status (camelCase).
pub fn status_name(s: super::Status) -> &'static str {
    match s {
        super::Status::NoStart => "noStart",
        super::Status::VariantEnd => "variantEnd",
        other => other.name(),
    }
}

/// A game as `GET /api/games/user` writes it (lichess's game JSON).
pub fn game_json(live: &Game) -> Value {
    let player = |c: Color| -> Value {
        match &live.seats[c.index()] {
            Some(s) if s.user_id.is_some() => {
                let mut v = serde_json::json!({"user": {"name": s.name, "id": s.name.to_lowercase()}});
                if let (Some(t), Some(user)) = (s.title(), v.get_mut("user").and_then(Value::as_object_mut)) {
                    user.insert("title".into(), Value::from(t));
                }
                if let Some(obj) = v.as_object_mut() {
                    if let Some(r) = s.rating_before {
                        obj.insert("rating".into(), Value::from(r));
                    }
                    if let (Some(b), Some(a)) = (s.rating_before, s.rating_after) {
                        obj.insert("ratingDiff".into(), Value::from(a - b));
                    }
                    if s.provisional {
                        obj.insert("provisional".into(), Value::from(true));
                    }
                }
                v
            }
            Some(s) if s.bot.is_some() => serde_json::json!({"aiLevel": s.bot.map(chessgold_bot::Level::number)}),
            Some(_) => serde_json::json!({"name": "Anonymous"}),
            None => serde_json::json!({}),
        }
    };
    let last = live.finished_at.or(live.turn_at).or(live.started_at).unwrap_or(live.created_at);
    let mut v = serde_json::json!({
        "id": live.id.as_str(),
        "rated": live.rated,
        "variant": live.info.id,
        "speed": super::Speed::of(live.clock).key(),
        "perf": super::perf_key(live.info.id, live.clock),
        "createdAt": crate::domain::unix_ms(live.created_at),
        "lastMoveAt": crate::domain::unix_ms(last),
        "status": status_name(live.status),
        "players": {"white": player(Color::White), "black": player(Color::Black)},
        "moves": live.actions.iter().map(|a| a.action.as_str()).collect::<Vec<_>>().join(" "),
    });
    if let Some(obj) = v.as_object_mut() {
        if let Some(w) = live.winner {
            obj.insert("winner".into(), Value::from(w.name()));
        }
        if let Some(fen) = &live.initial_fen {
            obj.insert("initialFen".into(), Value::from(fen.as_str()));
        }
        if let Some(c) = live.clock {
            obj.insert(
                "clock".into(),
                serde_json::json!({"initial": c.limit / 100, "increment": c.increment / 100,
                       "totalTime": c.limit / 100 + 40 * (c.increment / 100)}),
            );
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use chessgold_engine::registry::variant;
    use serde_json::json;

    use super::*;
    use crate::game::model::{Offers as OfferState, Seat};
    use crate::game::{GameId, Status as GameStatus, TimeControl};

    fn cfg() -> GameSettings {
        crate::settings::Settings::defaults().unwrap().game
    }

    fn at(secs: i64) -> OffsetDateTime {
        OffsetDateTime::UNIX_EPOCH + time::Duration::seconds(1_000_000_000 + secs)
    }

    fn seat(user: bool) -> Seat {
        Seat {
            player_id: "abcd".into(),
            user_id: user.then(uuid::Uuid::nil),
            guest_id: (!user).then(|| "g".into()),
            bot: None,
            name: if user { "alice".into() } else { "Anonymous".into() },
            rating_before: user.then_some(1500),
            rating_after: None,
            provisional: user,
            lag_quota: 300,
            last_seen: None,
            account_bot: false,
        }
    }

    /// A started standard game, 1+0, White an account, Black a guest, White to move.
    fn game() -> Game {
        let info = variant("standard").unwrap();
        let clock = TimeControl::new(6000, 0);
        Game {
            id: GameId::parse("a1B2c3D4").unwrap(),
            info,
            seed: None,
            salt: None,
            commitment: None,
            clock,
            rated: false,
            source: crate::game::Source::Friend,
            initial_fen: None,
            status: GameStatus::Started,
            winner: None,
            reason: None,
            version: 3,
            turns: 0,
            clocks: Some([6000, 6000]),
            turn_at: Some(at(0)),
            offers: OfferState::default(),
            rematch_id: None,
            created_at: at(0),
            started_at: Some(at(0)),
            finished_at: None,
            seats: [Some(seat(true)), Some(seat(false))],
            stored_seats: [None, None],
            actions: Vec::new(),
            engine: info.new_game(),
        }
    }

    /// The text of a view, with the order of its fields.
    fn text(view: &impl Serialize) -> String {
        serde_json::to_string(view).unwrap()
    }

    #[test]
    fn the_full_game_keeps_the_documented_order_and_nulls() {
        let c = cfg();
        let g = game();
        let expected = json!({
            "id": "a1B2c3D4", "variant": "standard", "variant_name": g.info.name, "rated": false,
            "clock": {"limit": 6000, "increment": 0},
            "status": {"id": 20, "name": "started"}, "winner": null, "reason": null,
            "players": {
                "white": {"name": "alice", "user": true, "title": null, "bot": null, "rating": 1500, "provisional": true, "rating_diff": null},
                "black": {"name": "Anonymous", "user": false, "title": null, "bot": null, "rating": null, "provisional": false, "rating_diff": null}
            },
            "you": "black",
            "clocks": {"white": 6000, "black": 6000, "running": null, "first_move": {"color": "white", "cs": c.first_move_cs() - 500}},
            "offers": {"draw": null, "takeback": null, "rematch": null},
            "ratings": null,
            "seed_commitment": null, "seed": null, "salt": null,
            "rematch": null,
            "clock_history": [],
            "claim_after": c.claim_after_secs,
            "state": value(&g.snapshot()),
        });
        assert_eq!(text(&full(&g, Some(Color::Black), at(5), &c)), expected.to_string());
        let mut unlimited = game();
        unlimited.clock = None;
        unlimited.clocks = None;
        let v = value(&full(&unlimited, None, at(5), &c));
        assert_eq!(
            (v["clock"].clone(), v["clock_history"].clone(), v["you"].clone()),
            (Value::Null, Value::Null, Value::Null)
        );
    }

    #[test]
    fn room_events_keep_their_wire_shape() {
        let c = cfg();
        let mut g = game();
        let start = value(&g.snapshot());
        let step = g.play(Color::White, "e2e4", 0, None, at(2), &c).unwrap();
        let Event::Move(mv) = &step.events[0] else { panic!("a move first: {:?}", step.events) };
        let clocks = json!({"white": 6000, "black": 6000, "running": null, "first_move": {"color": "black", "cs": c.first_move_cs()}});
        assert_eq!(text(mv), json!({"seq": 1, "action": "e2e4", "by": "white", "clocks": clocks}).to_string());
        // Sent with the state after it as the last field (whole, or as a patch of the state
        // before); stored without.
        let state = value(&g.snapshot());
        let sent = step.events[0].sent_data(&state, None);
        assert_eq!(
            sent.to_string(),
            json!({"seq": 1, "action": "e2e4", "by": "white", "clocks": clocks, "state": state}).to_string()
        );
        let patch = crate::game::patch::diff(&start, &state);
        assert_eq!(
            step.events[0].sent_data(&state, Some(&start)).to_string(),
            json!({"seq": 1, "action": "e2e4", "by": "white", "clocks": clocks, "patch": patch}).to_string()
        );
        assert!(step.events[0].data().get("state").is_none());

        // `closed` is there only when an offer ended unaccepted.
        let step = g.draw_yes(Color::White, at(3), &c).unwrap();
        assert_eq!(step.events[0].kind().name(), "offers");
        assert_eq!(step.events[0].data().to_string(), r#"{"draw":"white","takeback":null,"rematch":null}"#);
        let step = g.draw_no(Color::Black).unwrap();
        assert_eq!(
            step.events[0].data().to_string(),
            r#"{"draw":null,"takeback":null,"rematch":null,"closed":[{"offer":"draw","by":"black","how":"declined"}]}"#
        );

        let step = g.resign(Color::Black, at(4), &c).unwrap();
        assert_eq!(step.events[0].kind(), EventKind::End);
        let clocks = json!({"white": 6000, "black": 6000, "running": null, "first_move": null});
        let expected = json!({
            "status": {"id": 31, "name": "resign"}, "winner": "white", "reason": "resign",
            "clocks": clocks, "ratings": null, "seed": null, "salt": null,
        });
        assert_eq!(step.events[0].data().to_string(), expected.to_string());
        let state = value(&g.snapshot());
        assert_eq!(step.events[0].sent_data(&state, Some(&state)), step.events[0].data(), "an end has no state");
        assert_eq!(value(&Rematch { id: "x".into() }).to_string(), r#"{"id":"x"}"#);
    }

    #[test]
    fn start_and_takeback_events_keep_their_wire_shape() {
        let c = cfg();
        let mut g = game();
        g.seats[1] = None;
        g.status = GameStatus::Created;
        let (_, step) = g.join(seat(false), at(1), &c).unwrap();
        let Event::Start(start) = &step.events[0] else { panic!("a start: {:?}", step.events) };
        assert_eq!(
            text(start),
            json!({"status": text_of(status(&g)), "players": value(&players(&g)), "clocks": value(&clocks(&g, at(1), &c))})
                .to_string()
        );
        assert!(text(start).starts_with(r#"{"status":{"id":20,"name":"started"},"players":{"white":{"name":"alice""#));
        g.play(Color::White, "e2e4", 0, None, at(2), &c).unwrap();
        let before = value(&g.snapshot());
        g.takeback_yes(Color::White, at(3), &c).unwrap();
        let step = g.takeback_yes(Color::Black, at(3), &c).unwrap();
        assert_eq!(step.events.iter().map(|e| e.kind().name()).collect::<Vec<_>>(), ["takeback", "offers"]);
        assert!(step.events[0].data().to_string().starts_with(r#"{"plies":0,"clocks":{"white":6000"#));
        let state = value(&g.snapshot());
        let sent = step.events[0].sent_data(&state, None).to_string();
        assert!(sent.ends_with(&format!(r#","state":{state}}}"#)), "{sent}");
        let sent = step.events[0].sent_data(&state, Some(&before));
        assert_eq!(sent["patch"], Value::Array(crate::game::patch::diff(&before, &state)), "{sent}");
        assert!(sent.get("state").is_none());
    }

    fn text_of(s: Status) -> Value {
        value(&s)
    }

    #[test]
    fn the_record_keeps_its_wire_shape() {
        let c = cfg();
        let mut g = game();
        g.play(Color::White, "e2e4", 0, None, at(2), &c).unwrap();
        let expected = json!({
            "id": "a1B2c3D4", "variant": "standard", "rated": false,
            "clock": {"limit": 6000, "increment": 0},
            "status": {"id": 20, "name": "started"}, "winner": null, "reason": null,
            "seed_commitment": null, "seed": null, "salt": null,
            "players": {
                "white": {"name": "alice", "user": true, "title": null, "bot": null, "rating_before": 1500, "rating_after": null, "provisional": true},
                "black": {"name": "Anonymous", "user": false, "title": null, "bot": null, "rating_before": null, "rating_after": null, "provisional": false}
            },
            "actions": [{"seq": 1, "action": "e2e4", "by": "white", "clocks": {"white": 6000, "black": 6000}}],
        });
        assert_eq!(text(&record(&g)), expected.to_string());
    }

    #[test]
    fn rating_changes_show_once_both_are_known() {
        let c = cfg();
        let mut g = game();
        g.rated = true;
        g.resign(Color::White, at(1), &c).unwrap();
        assert_eq!(ratings(&g), None, "no rating after yet");
        for (i, after) in [(0, 1480), (1, 1520)] {
            let s = g.seats[i].as_mut().unwrap();
            s.rating_before = Some(1500);
            s.rating_after = Some(after);
        }
        assert_eq!(
            text(&ratings(&g)),
            r#"{"white":{"before":1500,"after":1480,"diff":-20,"provisional":true},"black":{"before":1500,"after":1520,"diff":20,"provisional":false}}"#
        );
    }

    #[test]
    fn the_crowd_lists_only_the_seats_away() {
        let mut away = Away::default();
        assert_eq!(text(&Crowd { white: true, black: true, away }), r#"{"white":true,"black":true,"away":{}}"#);
        *away.of(Color::Black) = Some(12);
        assert!(away.any());
        assert_eq!(
            text(&Crowd { white: true, black: false, away }),
            r#"{"white":true,"black":false,"away":{"black":12}}"#
        );
    }

    #[test]
    fn chat_messages_keep_their_wire_shape() {
        let line =
            ChatLine { author: "alice".into(), color: None, text: "gg".into(), at: "2026-11-29T17:02:03Z".into() };
        assert_eq!(
            text(&Chat { room: Room::Spectator, line: &line }),
            r#"{"room":"spectator","line":{"author":"alice","color":null,"text":"gg","at":"2026-11-29T17:02:03Z"}}"#
        );
        assert_eq!(text(&ChatHistory { room: Room::Player, lines: Vec::new() }), r#"{"room":"player","lines":[]}"#);
    }

    #[test]
    fn every_event_kind_parses_from_its_name() {
        for kind in EventKind::ALL {
            assert_eq!(EventKind::parse(kind.name()), Some(kind));
        }
        assert_eq!(EventKind::parse("full"), None);
    }
}
