//! A game in memory: its record, its engine game, and the operations that change it. Each
//! operation checks what it may do, changes the copy it is called on and returns a [`Step`]: the
//! room events to store and announce. Nothing here does I/O; `store` makes a step durable.

use chessgold_bot::Level;
use chessgold_engine::registry::{AnyGame, VariantInfo};
use chessgold_engine::{Color, Snapshot, Status as EngineStatus};
use time::OffsetDateTime;
use uuid::Uuid;

use super::clock::{add_cs, cs_between, lag_credit, spend};
use super::reason::Reason;
use super::refusal::RefusalCode;
use super::source::Source;
use super::view::{self, Event};
use super::{GameId, Status, TimeControl};
use crate::settings::GameSettings;

/// Who sits in a seat: an account, a guest (by the id in the signed guest cookie) or a bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayerRef {
    /// A registered user.
    User(Uuid),
    /// An anonymous guest.
    Guest(String),
    /// The computer at a level (its round plays for it).
    Bot(Level),
}

/// What `create_game` needs.
#[derive(Debug, Clone)]
pub struct CreateGame {
    /// A registered variant id.
    pub variant: String,
    /// `None`: unlimited (casual only).
    pub clock: Option<TimeControl>,
    /// Rated (registered users and a clock only).
    pub rated: bool,
    /// How the game comes to be.
    pub source: Source,
    /// The position text it starts from (lichess's `fen`); `None`: the variant's start.
    pub initial_fen: Option<String>,
    /// The player who creates the game.
    pub creator: PlayerRef,
    /// The creator's colour.
    pub creator_color: Color,
    /// The opponent when known (pairings, rematches): the game starts at once.
    pub opponent: Option<PlayerRef>,
}

/// A seat of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seat {
    /// The 4-character secret of the seat.
    pub player_id: String,
    /// The account, for a registered player.
    pub user_id: Option<Uuid>,
    /// The guest id, for a guest.
    pub guest_id: Option<String>,
    /// The level, for a bot.
    pub bot: Option<Level>,
    /// The name shown (`Anonymous` for guests, the level's name for bots).
    pub name: String,
    /// The account is a BOT account (lichess's title BOT), played by a program through the BOT
    /// API; not the site's computer, which is [`Seat::bot`].
    pub account_bot: bool,
    /// Rating before the game (an account's, shown in casual games too).
    pub rating_before: Option<i32>,
    /// Rating after the game (rated games, once over).
    pub rating_after: Option<i32>,
    /// Whether the rating was provisional.
    pub provisional: bool,
    /// Lag compensation left, centiseconds.
    pub lag_quota: i32,
    /// Last sign of life of the seat's socket.
    pub last_seen: Option<OffsetDateTime>,
}

impl Seat {
    /// The title shown before the name: `BOT` for a BOT account.
    pub fn title(&self) -> Option<&'static str> {
        self.account_bot.then_some(crate::domain::BOT_TITLE)
    }

    /// Whether this seat belongs to the player.
    pub fn is(&self, who: &PlayerRef) -> bool {
        match who {
            PlayerRef::User(id) => self.user_id == Some(*id),
            PlayerRef::Guest(g) => self.guest_id.as_deref() == Some(g.as_str()),
            PlayerRef::Bot(level) => self.bot == Some(*level),
        }
    }

    /// The player of the seat.
    pub fn player(&self) -> Option<PlayerRef> {
        match (&self.user_id, &self.guest_id, self.bot) {
            (Some(id), _, _) => Some(PlayerRef::User(*id)),
            (None, Some(g), _) => Some(PlayerRef::Guest(g.clone())),
            (None, None, Some(level)) => Some(PlayerRef::Bot(level)),
            (None, None, None) => None,
        }
    }
}

/// One stored action.
#[derive(Debug, Clone)]
pub struct ActionRec {
    /// 1-based.
    pub seq: i32,
    /// The action as the notation writes it.
    pub action: String,
    /// Who played it.
    pub color: Color,
    /// Both clocks after it (clocked games).
    pub clocks: Option<[i32; 2]>,
}

/// Who offers what.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offers {
    /// A draw offer.
    pub draw: Option<Color>,
    /// A takeback request.
    pub takeback: Option<Color>,
    /// A rematch offer.
    pub rematch: Option<Color>,
}

/// An offer one player makes to the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferKind {
    /// A draw.
    Draw,
    /// Taking back the requester's last turn.
    Takeback,
    /// A new game after this one.
    Rematch,
}

impl OfferKind {
    /// The protocol's name.
    pub fn name(self) -> &'static str {
        match self {
            OfferKind::Draw => "draw",
            OfferKind::Takeback => "takeback",
            OfferKind::Rematch => "rematch",
        }
    }
}

/// How an offer ended without being accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    /// The other player said no.
    Declined,
    /// The player who made it took it back.
    Withdrawn,
    /// A player played on instead of answering.
    Lapsed,
}

impl Closing {
    /// The protocol's name.
    pub fn name(self) -> &'static str {
        match self {
            Closing::Declined => "declined",
            Closing::Withdrawn => "withdrawn",
            Closing::Lapsed => "lapsed",
        }
    }
}

/// An offer that ended without being accepted, so that the one who made it can be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed {
    /// What was offered.
    pub offer: OfferKind,
    /// Who ended it (the decliner, the withdrawer, the player who played on).
    pub by: Color,
    /// How.
    pub how: Closing,
}

/// What an operation did.
#[derive(Debug, Default)]
pub struct Step {
    /// Events in order; empty means nothing changed.
    pub events: Vec<Event>,
    /// The last action of the game is new.
    pub new_action: bool,
    /// Actions were taken back.
    pub truncated: bool,
    /// The game ended in this step.
    pub finished: bool,
    /// A rematch to create with this step.
    pub rematch: Option<(GameId, CreateGame)>,
    /// The game starts in this step (a player joined a waiting game): with a clock, its players
    /// must not be in another started game with a clock.
    pub starts: bool,
}

/// Why an operation was refused: a stable code and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Refused; nothing changed.
    Code(RefusalCode, String),
    /// The action was already committed at that ply by the same player: acknowledge again.
    Duplicate,
}

fn refuse(code: RefusalCode, message: impl Into<String>) -> Refusal {
    Refusal::Code(code, message.into())
}

/// Whether a game of `info` may start from the position text `fen` (lichess's `fen`): a text
/// the variant reads, a game not over there, casual (lichess rates no game from a position), a
/// variant without random events (their boxes come from the start's committed seed).
///
/// # Errors
/// A sentence that starts with `fen:`.
pub fn check_start_position(info: &VariantInfo, fen: &str, rated: bool) -> Result<(), String> {
    if info.seeded {
        return Err(format!("fen: {} games start from their own position (its boxes are drawn from it)", info.name));
    }
    if rated {
        return Err("fen: a game from a position is casual, as on lichess".into());
    }
    let game = info.game_from_fen(fen).map_err(|e| format!("fen: {e}"))?;
    if game.outcome().is_some() {
        return Err("fen: the game is already over in this position".into());
    }
    Ok(())
}

/// Plays `actions` from the start of the variant, or from `initial_fen` for a game from a
/// position; returns the game and the turns completed.
///
/// # Errors
/// A stored action or start position the engine refuses (a corrupt record).
pub fn replay(
    info: &'static VariantInfo,
    seed: Option<u64>,
    initial_fen: Option<&str>,
    actions: &[String],
) -> anyhow::Result<(Box<dyn AnyGame>, i32)> {
    let mut game = match (initial_fen, seed) {
        (Some(fen), _) => {
            info.game_from_fen(fen).map_err(|e| anyhow::anyhow!("the stored start position is refused: {e}"))?
        }
        (None, Some(s)) if info.seeded => info.new_seeded_game(s),
        _ => info.new_game(),
    };
    let mut turns = 0;
    for (i, a) in actions.iter().enumerate() {
        let before = game.turn();
        game.play(a).map_err(|e| anyhow::anyhow!("stored action {} '{a}' is refused: {e}", i + 1))?;
        if game.turn() != before || game.outcome().is_some() {
            turns += 1;
        }
    }
    Ok((game, turns))
}

/// A game, being played or finished, with its engine game: the record and every operation on it.
#[derive(Debug, Clone)]
pub struct Game {
    /// Id.
    pub id: GameId,
    /// The variant.
    pub info: &'static VariantInfo,
    /// Seed of a random variant.
    pub seed: Option<u64>,
    /// Salt of the seed commitment.
    pub salt: Option<Vec<u8>>,
    /// Hex SHA-256 of seed || salt.
    pub commitment: Option<String>,
    /// `None`: unlimited.
    pub clock: Option<TimeControl>,
    /// Rated.
    pub rated: bool,
    /// How the game came to be.
    pub source: Source,
    /// The position text it started from; `None`: the variant's start.
    pub initial_fen: Option<String>,
    /// Status.
    pub status: Status,
    /// Winner once over.
    pub winner: Option<Color>,
    /// The rule that ended the game.
    pub reason: Option<Reason>,
    /// Room version.
    pub version: i32,
    /// Turns completed.
    pub turns: i32,
    /// Remaining centiseconds as of `turn_at` (clocked games).
    pub clocks: Option<[i32; 2]>,
    /// When the current turn began (or the game started).
    pub turn_at: Option<OffsetDateTime>,
    /// Offers.
    pub offers: Offers,
    /// The rematch, once created.
    pub rematch_id: Option<String>,
    /// Creation.
    pub created_at: OffsetDateTime,
    /// Start (both seats taken).
    pub started_at: Option<OffsetDateTime>,
    /// End.
    pub finished_at: Option<OffsetDateTime>,
    /// White's and Black's seats.
    pub seats: [Option<Seat>; 2],
    /// The seats as stored at `version`: a commit writes only the seats that differ (a move
    /// rarely changes one: lag compensation, a result's ratings). `[None, None]` for a game not
    /// loaded from the database, whose first commit writes every seat.
    pub stored_seats: [Option<Seat>; 2],
    /// Every action.
    pub actions: Vec<ActionRec>,
    /// The engine's game after the actions.
    pub engine: Box<dyn AnyGame>,
}

impl Game {
    /// The seat of a player.
    pub fn seat_of(&self, who: &PlayerRef) -> Option<Color> {
        Color::ALL.into_iter().find(|c| self.seats[c.index()].as_ref().is_some_and(|s| s.is(who)))
    }

    /// The engine snapshot.
    pub fn snapshot(&self) -> Snapshot {
        self.engine.snapshot()
    }

    /// Whether the clocks run (both sides made their first turn, clocked, being played).
    pub fn clock_running(&self) -> bool {
        self.status == Status::Started && self.turns >= 2 && self.clocks.is_some()
    }

    /// Remaining centiseconds of both sides at `now`.
    pub fn clocks_at(&self, now: OffsetDateTime) -> Option<[i32; 2]> {
        let mut c = self.clocks?;
        if self.clock_running()
            && let Some(at) = self.turn_at
        {
            let side = self.engine.turn().index();
            c[side] = (i64::from(c[side]) - cs_between(at, now)).max(0) as i32;
        }
        Some(c)
    }

    /// Whether a bot sits in the game.
    pub fn has_bot(&self) -> bool {
        self.bots().next().is_some()
    }

    /// Whether a missing first move ends the game. The rule protects a human opponent from
    /// waiting for someone who never plays; a bot waits without harm, so a person may read the
    /// rules or the shop before the first move against it (as lichess never aborts games against
    /// its AI).
    pub fn first_move_due(&self) -> bool {
        !self.has_bot()
    }

    /// When the game ends by itself unless someone acts: a first move due or a clock running out.
    pub fn deadline(&self, cfg: &GameSettings) -> Option<OffsetDateTime> {
        if self.status != Status::Started {
            return None;
        }
        let at = self.turn_at?;
        if self.turns < 2 {
            // The clocks start after both first turns: before that only a first move may be due.
            return self.first_move_due().then(|| add_cs(at, cfg.first_move_cs()));
        }
        let c = self.clocks?;
        Some(add_cs(at, i64::from(c[self.engine.turn().index()])))
    }

    /// The `offers` event: who offers what now, and the offers this step ended unaccepted.
    fn offers_event(&self, closed: &[Closed]) -> Event {
        Event::Offers(view::offers(self, closed))
    }

    /// Seed and salt, published once the game is over.
    pub fn revealed_seed(&self) -> (Option<u64>, Option<String>) {
        if self.status.is_live() {
            return (None, None);
        }
        (self.seed.filter(|_| self.info.seeded), self.salt.as_deref().map(hex))
    }

    fn require_started(&self) -> Result<(), Refusal> {
        match self.status {
            Status::Started => Ok(()),
            Status::Created => Err(refuse(RefusalCode::NotStarted, "the game waits for an opponent")),
            _ => Err(refuse(RefusalCode::GameOver, "the game is over")),
        }
    }

    /// Ends the game: freezes the clocks and records the result.
    fn finish(&mut self, status: Status, winner: Option<Color>, reason: Reason, now: OffsetDateTime) {
        if let Some(c) = self.clocks_at(now) {
            self.clocks = Some(c);
        }
        self.status = status;
        self.winner = winner;
        self.reason = Some(reason);
        self.turn_at = Some(now);
        self.finished_at = Some(now);
        self.offers = Offers::default();
    }

    fn finish_step(
        &mut self,
        mut step: Step,
        status: Status,
        winner: Option<Color>,
        reason: Reason,
        now: OffsetDateTime,
        cfg: &GameSettings,
    ) -> Step {
        self.finish(status, winner, reason, now);
        step.events.push(Event::End(view::end(self, now, cfg)));
        step.finished = true;
        step
    }

    /// Ends the game when its deadline has passed: no first move (aborted, `no-start`) or a
    /// flag (a loss, or a draw when the opponent could not have won).
    pub fn tick(&mut self, now: OffsetDateTime, cfg: &GameSettings) -> Option<Step> {
        let deadline = self.deadline(cfg)?;
        if deadline > now {
            return None;
        }
        if self.turns < 2 {
            return Some(self.finish_step(Step::default(), Status::NoStart, None, Reason::NoStart, now, cfg));
        }
        let loser = self.engine.turn();
        let (winner, reason) =
            if self.engine.can_win(!loser) { (Some(!loser), Reason::Timeout) } else { (None, Reason::TimeoutDraw) };
        // Charge exactly the time that was left: the clock shows zero.
        let step = self.finish_step(Step::default(), Status::Outoftime, winner, reason, deadline, cfg);
        self.finished_at = Some(now);
        Some(step)
    }

    /// Plays an action of `seat`, expected at `ply` (the number of actions before it).
    ///
    /// # Errors
    /// A refusal with its code; `Duplicate` when this very action is already stored at `ply`.
    pub fn play(
        &mut self,
        seat: Color,
        text: &str,
        ply: usize,
        lag: Option<i32>,
        now: OffsetDateTime,
        cfg: &GameSettings,
    ) -> Result<Step, Refusal> {
        if ply < self.actions.len() {
            let stored = &self.actions[ply];
            if stored.color == seat && (stored.action == text || self.normalized(ply, text) == Some(&stored.action)) {
                return Err(Refusal::Duplicate);
            }
        }
        self.require_started()?;
        if self.engine.turn() != seat {
            return Err(refuse(RefusalCode::NotYourTurn, format!("it is {}'s turn", self.engine.turn().name())));
        }
        if ply != self.actions.len() {
            return Err(refuse(
                RefusalCode::Stale,
                format!("the game has {} actions, not {ply}: the state changed", self.actions.len()),
            ));
        }
        let mut engine = self.engine.clone();
        let played =
            engine.play(text).map_err(|e| Refusal::Code(RefusalCode::of_action(&e), e.message().to_string()))?;
        let outcome = engine.outcome();
        let over = outcome.is_some();
        let turn_ended = engine.turn() != seat || over;
        let mut step = Step { new_action: true, ..Step::default() };
        if turn_ended {
            if self.clock_running()
                && let (Some(mut c), Some(at), Some(tc)) = (self.clocks, self.turn_at, self.clock)
            {
                let seat_row = self.seats[seat.index()].as_mut();
                let quota = seat_row.as_ref().map_or(0, |s| s.lag_quota);
                let credit = lag_credit(lag, cfg.lag_per_move_cs, quota);
                let Some(left) = spend(c[seat.index()], cs_between(at, now), credit, tc.increment) else {
                    return Err(refuse(RefusalCode::GameOver, "your clock ran out"));
                };
                if let Some(s) = seat_row {
                    s.lag_quota -= credit;
                }
                c[seat.index()] = left;
                self.clocks = Some(c);
            }
            self.turns += 1;
            self.turn_at = Some(now);
        }
        self.engine = engine;
        let seq = self.actions.len() as i32 + 1;
        let clocks = self.clocks_at(now);
        self.actions.push(ActionRec { seq, action: played.clone(), color: seat, clocks });
        step.events.push(Event::Move(view::Move {
            seq,
            action: played,
            by: seat.name(),
            clocks: view::clocks(self, now, cfg),
        }));
        // An offer of the opponent lapses when this player plays instead of answering it.
        let before = self.offers;
        let mut closed = Vec::new();
        if turn_ended {
            if self.offers.draw == Some(!seat) {
                self.offers.draw = None;
                closed.push(Closed { offer: OfferKind::Draw, by: seat, how: Closing::Lapsed });
            }
            if self.offers.takeback.take().is_some_and(|asker| asker != seat) {
                closed.push(Closed { offer: OfferKind::Takeback, by: seat, how: Closing::Lapsed });
            }
        }
        if self.offers != before {
            step.events.push(self.offers_event(&closed));
        }
        if let Some(end) = outcome {
            let status = match end.status {
                EngineStatus::Checkmate => Status::Mate,
                EngineStatus::Stalemate => Status::Stalemate,
                EngineStatus::VariantEnd => Status::VariantEnd,
                EngineStatus::Draw | EngineStatus::Ongoing => Status::Draw,
            };
            step = self.finish_step(step, status, end.winner, end.reason.into(), now, cfg);
        }
        Ok(step)
    }

    /// The stored form of an action sent at `ply`, when the engine accepts it there.
    fn normalized(&self, ply: usize, text: &str) -> Option<&String> {
        let prefix: Vec<String> = self.actions[..ply].iter().map(|a| a.action.clone()).collect();
        let (mut g, _) = replay(self.info, self.seed, self.initial_fen.as_deref(), &prefix).ok()?;
        let n = g.play(text).ok()?;
        (n == self.actions[ply].action).then_some(&self.actions[ply].action)
    }

    /// Resigns.
    ///
    /// # Errors
    /// The game is not being played.
    pub fn resign(&mut self, seat: Color, now: OffsetDateTime, cfg: &GameSettings) -> Result<Step, Refusal> {
        self.require_started()?;
        Ok(self.finish_step(Step::default(), Status::Resign, Some(!seat), Reason::Resign, now, cfg))
    }

    /// Aborts: allowed while waiting for an opponent and until both sides have made a turn.
    ///
    /// # Errors
    /// Both sides have moved, or the game is over.
    pub fn abort(&mut self, now: OffsetDateTime, cfg: &GameSettings) -> Result<Step, Refusal> {
        if !self.status.is_live() {
            return Err(refuse(RefusalCode::GameOver, "the game is over"));
        }
        if self.turns >= 2 {
            return Err(refuse(RefusalCode::AbortTooLate, "both sides have moved: resign instead"));
        }
        Ok(self.finish_step(Step::default(), Status::Aborted, None, Reason::Aborted, now, cfg))
    }

    /// Offers a draw, or accepts the opponent's offer.
    ///
    /// # Errors
    /// The game is not being played.
    pub fn draw_yes(&mut self, seat: Color, now: OffsetDateTime, cfg: &GameSettings) -> Result<Step, Refusal> {
        self.require_started()?;
        match self.offers.draw {
            Some(c) if c == !seat => {
                Ok(self.finish_step(Step::default(), Status::Draw, None, Reason::Agreement, now, cfg))
            }
            Some(_) => Ok(Step::default()),
            None => {
                self.offers.draw = Some(seat);
                Ok(Step { events: vec![self.offers_event(&[])], ..Step::default() })
            }
        }
    }

    /// Ends a standing offer: withdrawn by the player who made it, declined by the other.
    fn clear_offer(&mut self, seat: Color, offer: OfferKind) -> Result<Step, Refusal> {
        let slot = match offer {
            OfferKind::Draw => &mut self.offers.draw,
            OfferKind::Takeback => &mut self.offers.takeback,
            OfferKind::Rematch => &mut self.offers.rematch,
        };
        let Some(by) = slot.take() else {
            return Err(refuse(RefusalCode::NoOffer, format!("there is no {} offer to answer", offer.name())));
        };
        let how = if by == seat { Closing::Withdrawn } else { Closing::Declined };
        Ok(Step { events: vec![self.offers_event(&[Closed { offer, by: seat, how }])], ..Step::default() })
    }

    /// Declines the opponent's draw offer or withdraws one's own.
    ///
    /// # Errors
    /// No offer stands.
    pub fn draw_no(&mut self, seat: Color) -> Result<Step, Refusal> {
        self.clear_offer(seat, OfferKind::Draw)
    }

    /// Asks for a takeback, or accepts the opponent's request (casual games).
    ///
    /// # Errors
    /// A rated game, no action of the requester to take back, or the game is not being played.
    pub fn takeback_yes(&mut self, seat: Color, now: OffsetDateTime, cfg: &GameSettings) -> Result<Step, Refusal> {
        self.require_started()?;
        if self.rated {
            return Err(refuse(RefusalCode::RatedNoTakeback, "rated games have no takebacks"));
        }
        match self.offers.takeback {
            Some(c) if c == !seat => self.take_back(!seat, now, cfg),
            Some(_) => Ok(Step::default()),
            None => {
                if !self.actions.iter().any(|a| a.color == seat) {
                    return Err(refuse(RefusalCode::NothingToTakeBack, "you have no action to take back"));
                }
                self.offers.takeback = Some(seat);
                Ok(Step { events: vec![self.offers_event(&[])], ..Step::default() })
            }
        }
    }

    /// Declines or withdraws a takeback request.
    ///
    /// # Errors
    /// No request stands.
    pub fn takeback_no(&mut self, seat: Color) -> Result<Step, Refusal> {
        self.clear_offer(seat, OfferKind::Takeback)
    }

    /// Undoes the requester's last turn, and the opponent's turn after it.
    fn take_back(&mut self, requester: Color, now: OffsetDateTime, cfg: &GameSettings) -> Result<Step, Refusal> {
        let mut keep = self.actions.len();
        loop {
            let Some(last) = keep.checked_sub(1).map(|i| self.actions[i].color) else {
                return Err(refuse(RefusalCode::NothingToTakeBack, "nothing to take back"));
            };
            while keep > 0 && self.actions[keep - 1].color == last {
                keep -= 1;
            }
            if last == requester {
                break;
            }
        }
        let texts: Vec<String> = self.actions[..keep].iter().map(|a| a.action.clone()).collect();
        let (engine, turns) = replay(self.info, self.seed, self.initial_fen.as_deref(), &texts)
            .map_err(|e| refuse(RefusalCode::Unavailable, format!("the game could not be rebuilt: {e}")))?;
        if let Some(c) = self.clocks_at(now) {
            self.clocks = Some(c);
        }
        self.actions.truncate(keep);
        self.engine = engine;
        self.turns = turns;
        self.turn_at = Some(now);
        self.offers.takeback = None;
        self.offers.draw = None;
        Ok(Step {
            events: vec![
                Event::Takeback(view::Takeback { plies: keep, clocks: view::clocks(self, now, cfg) }),
                self.offers_event(&[]),
            ],
            truncated: true,
            ..Step::default()
        })
    }

    /// Offers a rematch, or accepts the opponent's offer (which creates the new game).
    ///
    /// # Errors
    /// The game is not over, or the rematch exists already.
    pub fn rematch_yes(&mut self, seat: Color) -> Result<Step, Refusal> {
        if self.status.is_live() {
            return Err(refuse(RefusalCode::RematchTooEarly, "the game is not over"));
        }
        if self.rematch_id.is_some() {
            return Err(refuse(RefusalCode::RematchExists, "the rematch exists already"));
        }
        match self.offers.rematch {
            Some(c) if c == !seat => {
                let (Some(me), Some(them)) = (
                    self.seats[seat.index()].as_ref().and_then(Seat::player),
                    self.seats[(!seat).index()].as_ref().and_then(Seat::player),
                ) else {
                    return Err(refuse(RefusalCode::NoOpponent, "the game has no opponent"));
                };
                let id = GameId::random().map_err(|e| refuse(RefusalCode::Unavailable, e.to_string()))?;
                self.rematch_id = Some(id.to_string());
                self.offers.rematch = None;
                let create = CreateGame {
                    variant: self.info.id.to_string(),
                    clock: self.clock,
                    rated: self.rated,
                    source: self.source,
                    initial_fen: self.initial_fen.clone(),
                    creator: me,
                    // Colours swapped.
                    creator_color: !seat,
                    opponent: Some(them),
                };
                Ok(Step {
                    events: vec![self.offers_event(&[]), Event::Rematch(view::Rematch { id: id.to_string() })],
                    rematch: Some((id, create)),
                    ..Step::default()
                })
            }
            Some(_) => Ok(Step::default()),
            None => {
                self.offers.rematch = Some(seat);
                Ok(Step { events: vec![self.offers_event(&[])], ..Step::default() })
            }
        }
    }

    /// Declines or withdraws a rematch offer.
    ///
    /// # Errors
    /// No offer stands.
    pub fn rematch_no(&mut self, seat: Color) -> Result<Step, Refusal> {
        self.clear_offer(seat, OfferKind::Rematch)
    }

    /// Claims victory (or calls a draw) over an opponent away for `away_cs`.
    ///
    /// # Errors
    /// The opponent has not been away long enough, or the game is not being played.
    pub fn claim(
        &mut self,
        seat: Color,
        victory: bool,
        away_cs: i64,
        now: OffsetDateTime,
        cfg: &GameSettings,
    ) -> Result<Step, Refusal> {
        self.require_started()?;
        if away_cs < cfg.claim_after_cs() {
            return Err(refuse(
                RefusalCode::ClaimTooEarly,
                format!(
                    "the opponent has been away for {} s; claims open at {} s",
                    away_cs / 100,
                    cfg.claim_after_secs
                ),
            ));
        }
        Ok(if victory {
            self.finish_step(Step::default(), Status::Timeout, Some(seat), Reason::Abandoned, now, cfg)
        } else {
            self.finish_step(Step::default(), Status::Draw, None, Reason::AbandonedDraw, now, cfg)
        })
    }

    /// Takes the free seat of a waiting game and starts it.
    ///
    /// # Errors
    /// The game is not waiting, or the player sits in the other seat.
    pub fn join(&mut self, seat: Seat, now: OffsetDateTime, cfg: &GameSettings) -> Result<(Color, Step), Refusal> {
        if self.status != Status::Created {
            return Err(refuse(RefusalCode::NotWaiting, "the game is not waiting for an opponent"));
        }
        let Some(free) = Color::ALL.into_iter().find(|c| self.seats[c.index()].is_none()) else {
            return Err(refuse(RefusalCode::SeatsTaken, "both seats are taken"));
        };
        if seat.player().is_some_and(|p| self.seat_of(&p).is_some()) {
            return Err(refuse(RefusalCode::AlreadySeated, "you already play in this game"));
        }
        self.seats[free.index()] = Some(seat);
        self.start(now);
        let start = view::Start {
            status: view::status(self),
            players: view::players(self),
            clocks: view::clocks(self, now, cfg),
        };
        Ok((free, Step { events: vec![Event::Start(start)], starts: true, ..Step::default() }))
    }

    /// The level of the bot to move, when a bot is to move in a game being played.
    pub fn bot_to_move(&self) -> Option<(Color, Level)> {
        if self.status != Status::Started {
            return None;
        }
        let side = self.engine.turn();
        self.seats[side.index()].as_ref().and_then(|s| s.bot).map(|level| (side, level))
    }

    /// The bots seated in the game, with their colours.
    pub fn bots(&self) -> impl Iterator<Item = (Color, Level)> + '_ {
        Color::ALL.into_iter().filter_map(|c| self.seats[c.index()].as_ref().and_then(|s| s.bot).map(|l| (c, l)))
    }

    /// Marks the game started at `now`.
    pub fn start(&mut self, now: OffsetDateTime) {
        self.status = Status::Started;
        self.started_at = Some(now);
        self.turn_at = Some(now);
    }
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use chessgold_engine::registry::variant;
    use serde_json::{Value, json};

    use super::*;
    use crate::game::view::EventKind;

    fn full(g: &Game, now: OffsetDateTime, c: &GameSettings) -> Value {
        view::value(&view::full(g, None, now, c))
    }

    fn clocks(g: &Game, now: OffsetDateTime, c: &GameSettings) -> Value {
        view::value(&view::clocks(g, now, c))
    }

    fn cfg() -> GameSettings {
        crate::settings::Settings::defaults().unwrap().game
    }

    fn seat(name: &str) -> Seat {
        Seat {
            player_id: "abcd".into(),
            user_id: None,
            guest_id: Some(name.into()),
            bot: None,
            name: "Anonymous".into(),
            rating_before: None,
            rating_after: None,
            provisional: false,
            lag_quota: 300,
            last_seen: None,
            account_bot: false,
        }
    }

    fn game(variant_id: &str, clock: Option<TimeControl>) -> Game {
        let info = variant(variant_id).unwrap();
        let now = OffsetDateTime::now_utc();
        let mut live = Game {
            id: GameId::parse("abcdefgh").unwrap(),
            info,
            seed: info.seeded.then_some(7),
            salt: None,
            commitment: None,
            clock,
            rated: false,
            source: Source::Friend,
            initial_fen: None,
            status: Status::Created,
            winner: None,
            reason: None,
            version: 1,
            turns: 0,
            clocks: clock.map(|c| [c.limit, c.limit]),
            turn_at: None,
            offers: Offers::default(),
            rematch_id: None,
            created_at: now,
            started_at: None,
            finished_at: None,
            seats: [Some(seat("w")), None],
            stored_seats: [None, None],
            actions: Vec::new(),
            engine: info.new_seeded_game(7),
        };
        live.join(seat("b"), now, &cfg()).unwrap();
        live
    }

    fn at(secs: f64) -> OffsetDateTime {
        OffsetDateTime::UNIX_EPOCH + time::Duration::seconds_f64(1.0e9 + secs)
    }

    #[test]
    fn clocks_start_after_both_first_turns_and_charge_the_mover() {
        let mut g = game("standard", TimeControl::new(6000, 200));
        g.turn_at = Some(at(0.0));
        let c = cfg();
        g.play(Color::White, "e2e4", 0, None, at(5.0), &c).unwrap();
        assert!(!g.clock_running());
        g.play(Color::Black, "e7e5", 1, None, at(9.0), &c).unwrap();
        assert!(g.clock_running());
        assert_eq!(g.clocks, Some([6000, 6000]));
        // White thinks 10 s, claims 0.5 s of lag: charged 9.5 s, plus 2 s increment.
        g.play(Color::White, "g1f3", 2, Some(50), at(19.0), &c).unwrap();
        assert_eq!(g.clocks, Some([6000 - 950 + 200, 6000]));
        assert_eq!(g.seats[0].as_ref().unwrap().lag_quota, c.lag_quota_cs - 50);
        assert_eq!(g.clocks_at(at(21.0)), Some([5250, 5800]));
        assert_eq!(g.deadline(&c), Some(at(19.0 + 60.0)));
    }

    #[test]
    fn an_equip_keeps_the_turn_and_its_clock_running() {
        let c = cfg();
        let mut g = game("lootbox", TimeControl::new(6000, 100));
        let fen = "n3k3/8/8/8/p7/8/8/R3K3 w - - 0 1 gold=4/3 boxes=- inventory=crossbow/- items=- countdown=3 words=1";
        g.engine = g.info.seeded_game_from_fen(fen, 7).unwrap();
        g.turns = 2;
        g.turn_at = Some(at(0.0));
        g.play(Color::White, "crossbow@a1", 0, None, at(5.0), &c).unwrap();
        assert_eq!((g.turns, g.turn_at, g.engine.turn()), (2, Some(at(0.0)), Color::White));
        assert_eq!(g.clocks, Some([6000, 6000]), "nothing charged yet");
        assert_eq!(g.actions[0].clocks, Some([5500, 6000]), "the record shows the running clock");
        g.play(Color::White, "a1a4", 1, None, at(8.0), &c).unwrap();
        assert_eq!((g.turns, g.engine.turn()), (3, Color::Black));
        assert_eq!(g.clocks, Some([6000 - 800 + 100, 6000]), "the whole turn is charged once");
    }

    #[test]
    fn out_of_turn_stale_and_duplicate_actions() {
        let mut g = game("standard", None);
        let c = cfg();
        let now = OffsetDateTime::now_utc();
        assert_eq!(
            g.play(Color::Black, "e7e5", 0, None, now, &c).unwrap_err().clone(),
            Refusal::Code(RefusalCode::NotYourTurn, "it is white's turn".into())
        );
        g.play(Color::White, "e2e4", 0, None, now, &c).unwrap();
        assert_eq!(g.play(Color::White, "e2e4", 0, None, now, &c).unwrap_err(), Refusal::Duplicate);
        assert!(matches!(g.play(Color::Black, "e7e5", 0, None, now, &c), Err(Refusal::Code(RefusalCode::Stale, _))));
        assert!(matches!(
            g.play(Color::Black, "e7e4", 1, None, now, &c),
            Err(Refusal::Code(RefusalCode::IllegalAction, _))
        ));
        assert!(matches!(
            g.play(Color::Black, "zz", 1, None, now, &c),
            Err(Refusal::Code(RefusalCode::MalformedAction, _))
        ));
        assert_eq!(g.actions.len(), 1);
    }

    #[test]
    fn no_first_move_aborts_and_a_flag_loses() {
        let c = cfg();
        let mut g = game("standard", TimeControl::new(1000, 0));
        g.turn_at = Some(at(0.0));
        assert!(g.tick(at(29.0), &c).is_none());
        let step = g.tick(at(31.0), &c).unwrap();
        assert_eq!(g.status, Status::NoStart);
        assert_eq!(step.events[0].kind(), EventKind::End);

        let mut g = game("standard", TimeControl::new(1000, 0));
        g.turn_at = Some(at(0.0));
        g.play(Color::White, "e2e4", 0, None, at(1.0), &c).unwrap();
        g.play(Color::Black, "e7e5", 1, None, at(2.0), &c).unwrap();
        assert!(g.tick(at(11.9), &c).is_none());
        g.tick(at(12.5), &c).unwrap();
        assert_eq!((g.status, g.winner, g.reason), (Status::Outoftime, Some(Color::Black), Some(Reason::Timeout)));
        assert_eq!(g.clocks, Some([0, 1000]));
    }

    #[test]
    fn takeback_undoes_the_requesters_turn() {
        let c = cfg();
        let now = OffsetDateTime::now_utc();
        let mut g = game("standard", None);
        for (i, (side, a)) in
            [(Color::White, "e2e4"), (Color::Black, "e7e5"), (Color::White, "g1f3")].iter().enumerate()
        {
            g.play(*side, a, i, None, now, &c).unwrap();
        }
        // Black asks while it is Black's turn: White's g1f3 and Black's e7e5 go.
        g.takeback_yes(Color::Black, now, &c).unwrap();
        let step = g.takeback_yes(Color::White, now, &c).unwrap();
        assert!(step.truncated);
        assert_eq!(g.engine.actions(), vec!["e2e4".to_string()]);
        assert_eq!(g.turns, 1);
    }

    #[test]
    fn a_bot_seat_is_to_move_on_its_turn_only() {
        let c = cfg();
        let now = OffsetDateTime::now_utc();
        let mut g = game("standard", None);
        let level = Level::new(4).unwrap();
        let black = g.seats[1].as_mut().unwrap();
        black.guest_id = None;
        black.bot = Some(level);
        assert_eq!(black.player(), Some(PlayerRef::Bot(level)));
        assert!(black.is(&PlayerRef::Bot(level)) && !black.is(&PlayerRef::Bot(Level::MIN)));
        assert_eq!(g.bot_to_move(), None, "White (a guest) is to move");
        g.play(Color::White, "e2e4", 0, None, now, &c).unwrap();
        assert_eq!(g.bot_to_move(), Some((Color::Black, level)));
        assert_eq!(g.bots().collect::<Vec<_>>(), [(Color::Black, level)]);
        assert_eq!(full(&g, now, &c)["players"]["black"]["bot"], 4);
        g.resign(Color::White, now, &c).unwrap();
        assert_eq!(g.bot_to_move(), None, "nothing to do once the game is over");
    }

    #[test]
    fn a_game_against_a_bot_has_no_first_move_deadline_but_its_clocks_run() {
        let c = cfg();
        let mut g = game("standard", TimeControl::new(1000, 0));
        let black = g.seats[1].as_mut().unwrap();
        black.guest_id = None;
        black.bot = Some(Level::MIN);
        g.turn_at = Some(at(0.0));
        assert_eq!(g.deadline(&c), None, "the human may take as long as they like for the first move");
        assert!(g.tick(at(3600.0), &c).is_none());
        assert_eq!(clocks(&g, at(40.0), &c)["first_move"], json!({"color": "white", "cs": null}));
        g.play(Color::White, "e2e4", 0, None, at(3600.0), &c).unwrap();
        g.play(Color::Black, "e7e5", 1, None, at(3601.0), &c).unwrap();
        assert_eq!(clocks(&g, at(3602.0), &c)["first_move"], Value::Null);
        assert_eq!(g.deadline(&c), Some(at(3601.0 + 10.0)), "from now on the clock runs as in any game");
        g.tick(at(3612.0), &c).unwrap();
        assert_eq!(g.status, Status::Outoftime);
    }

    #[test]
    fn an_offer_that_ends_unaccepted_says_how_and_by_whom() {
        let c = cfg();
        let now = OffsetDateTime::now_utc();
        let mut g = game("standard", None);
        let closed = |step: &Step| step.events[0].data()["closed"].clone();
        g.draw_yes(Color::White, now, &c).unwrap();
        let step = g.draw_no(Color::Black).unwrap();
        assert_eq!(closed(&step), json!([{"offer": "draw", "by": "black", "how": "declined"}]));
        g.draw_yes(Color::White, now, &c).unwrap();
        let step = g.draw_no(Color::White).unwrap();
        assert_eq!(closed(&step), json!([{"offer": "draw", "by": "white", "how": "withdrawn"}]));
        assert!(matches!(g.draw_no(Color::Black), Err(Refusal::Code(RefusalCode::NoOffer, _))));
        // Black offers a draw and asks for a takeback... after White's move, White plays on.
        g.play(Color::White, "e2e4", 0, None, now, &c).unwrap();
        g.play(Color::Black, "e7e5", 1, None, now, &c).unwrap();
        g.draw_yes(Color::Black, now, &c).unwrap();
        g.takeback_yes(Color::Black, now, &c).unwrap();
        let step = g.play(Color::White, "g1f3", 2, None, now, &c).unwrap();
        let offers = step.events.iter().find(|e| e.kind() == EventKind::Offers).unwrap().data();
        assert_eq!(
            offers["closed"],
            json!([
                {"offer": "draw", "by": "white", "how": "lapsed"},
                {"offer": "takeback", "by": "white", "how": "lapsed"}
            ])
        );
        assert_eq!((offers["draw"].clone(), offers["takeback"].clone()), (Value::Null, Value::Null));
        // An offer made and accepted closes nothing.
        g.draw_yes(Color::White, now, &c).unwrap();
        let step = g.draw_yes(Color::Black, now, &c).unwrap();
        assert!(step.events.iter().all(|e| e.data().get("closed").is_none()));
    }

    #[test]
    fn the_record_keeps_both_clocks_after_every_action_for_replays() {
        let c = cfg();
        let mut g = game("standard", TimeControl::new(6000, 200));
        g.turn_at = Some(at(0.0));
        g.play(Color::White, "e2e4", 0, None, at(5.0), &c).unwrap();
        g.play(Color::Black, "e7e5", 1, None, at(9.0), &c).unwrap();
        g.play(Color::White, "g1f3", 2, None, at(19.0), &c).unwrap();
        let view = full(&g, at(20.0), &c);
        assert_eq!(view["clock_history"], json!([[6000, 6000], [6000, 6000], [6000 - 1000 + 200, 6000]]));
        assert_eq!(full(&game("standard", None), at(0.0), &c)["clock_history"], Value::Null);
    }

    #[test]
    fn draw_offer_and_acceptance() {
        let c = cfg();
        let now = OffsetDateTime::now_utc();
        let mut g = game("standard", None);
        g.draw_yes(Color::White, now, &c).unwrap();
        assert_eq!(g.offers.draw, Some(Color::White));
        let step = g.draw_yes(Color::Black, now, &c).unwrap();
        assert!(step.finished);
        assert_eq!((g.status, g.reason), (Status::Draw, Some(Reason::Agreement)));
    }
}
