//! The codes of every refusal a live game sends: the socket protocol's `error` frames and the
//! board API's error bodies. One enum, one name per distinct refusal, written in snake_case on
//! the wire; docs/api.md lists every code with its meaning and static/js/format.js gives each its
//! words. A test fails when a code is never produced in `src/`, or (`src/game/listed.rs`) missing from
//! either list.

use core::fmt;

use chessgold_engine::ActionError;

macro_rules! refusal_codes {
    ($($(#[doc = $doc:literal])+ $name:ident => $text:literal,)+) => {
        /// Why a game refused a command or a frame. See the module documentation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum RefusalCode {
            $($(#[doc = $doc])+ $name,)+
        }

        impl RefusalCode {
            /// Every code, in the order of docs/api.md's table.
            pub const ALL: &'static [RefusalCode] = &[$(RefusalCode::$name,)+];

            /// The code on the wire (snake_case).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(RefusalCode::$name => $text,)+
                }
            }

            /// The rust name of the code (`AbortTooLate`), for the test that every code is used.
            #[cfg(test)]
            const fn ident(self) -> &'static str {
                match self {
                    $(RefusalCode::$name => stringify!($name),)+
                }
            }
        }
    };
}

refusal_codes! {
    /// The frame is not JSON, has the wrong shape or an unknown field.
    Malformed => "malformed",
    /// The frame's `t` is not a message type of the protocol.
    UnknownType => "unknown_type",
    /// The frame is larger than the protocol allows.
    TooLarge => "too_large",
    /// Too many frames in a short time.
    RateLimited => "rate_limited",
    /// There is no such game.
    NotFound => "not_found",
    /// The database or the game's round could not be reached: try again later.
    Unavailable => "unavailable",
    /// A spectator (or another account) sent a player's command.
    NotAPlayer => "not_a_player",
    /// The game waits for an opponent.
    NotStarted => "not_started",
    /// It is the opponent's turn.
    NotYourTurn => "not_your_turn",
    /// The command's `ply` is not the current number of actions: the state changed.
    Stale => "stale",
    /// The action is not notation.
    MalformedAction => "malformed_action",
    /// The action is notation but not legal now.
    IllegalAction => "illegal_action",
    /// The game is over (or the mover's clock ran out).
    GameOver => "game_over",
    /// Abort after both sides have made their first turn: resign instead.
    AbortTooLate => "abort_too_late",
    /// An answer (yes or no) to an offer that does not exist.
    NoOffer => "no_offer",
    /// A takeback in a rated game.
    RatedNoTakeback => "rated_no_takeback",
    /// A takeback with no action of the asker (or none at all) to take back.
    NothingToTakeBack => "nothing_to_take_back",
    /// A rematch offer before the game is over.
    RematchTooEarly => "rematch_too_early",
    /// A rematch offer when the rematch exists already.
    RematchExists => "rematch_exists",
    /// A rematch offer in a game that never had an opponent.
    NoOpponent => "no_opponent",
    /// A claim before the opponent has been away for the claim delay (never against a bot).
    ClaimTooEarly => "claim_too_early",
    /// Joining a game that does not wait for an opponent.
    NotWaiting => "not_waiting",
    /// Joining a game whose seats are both taken.
    SeatsTaken => "seats_taken",
    /// Joining a game one already plays in.
    AlreadySeated => "already_seated",
    /// A line for a chat room that is not the sender's (players and spectators have their own).
    WrongChatRoom => "wrong_chat_room",
    /// An empty chat line.
    ChatEmpty => "chat_empty",
    /// A chat line longer than the limit.
    ChatTooLong => "chat_too_long",
    /// Too many chat lines in a short time.
    ChatFlood => "chat_flood",
    /// A chat line of a player a moderator timed out of the chat (the message says until when).
    ChatTimedOut => "chat_timed_out",
    /// A game a play-banned player would start: they left or did not start too many games lately
    /// (the message says for how long).
    PlayBanned => "play_banned",
}

impl RefusalCode {
    /// The code of an action the engine refuses.
    pub fn of_action(e: &ActionError) -> RefusalCode {
        match e {
            ActionError::Malformed(_) => RefusalCode::MalformedAction,
            ActionError::Illegal(_) => RefusalCode::IllegalAction,
            ActionError::GameOver(_) => RefusalCode::GameOver,
        }
    }
}

impl fmt::Display for RefusalCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for RefusalCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    fn rust_sources(dir: &Path, out: &mut String) {
        for entry in std::fs::read_dir(dir).expect("src is readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push_str(&std::fs::read_to_string(&path).expect("a source file"));
                out.push('\n');
            }
        }
    }

    /// Whether `text` names `name` as a whole path segment (`RefusalCode::Stale`, not `...::StaleX`).
    fn names(text: &str, name: &str) -> bool {
        text.match_indices(name)
            .any(|(i, _)| !text[i + name.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
    }

    #[test]
    fn codes_are_distinct_snake_case() {
        let mut seen = std::collections::HashSet::new();
        for c in RefusalCode::ALL {
            assert!(seen.insert(c.as_str()), "{c} twice");
            assert!(c.as_str().chars().all(|ch| ch.is_ascii_lowercase() || ch == '_'), "{c}");
            assert_eq!(serde_json::to_value(c).expect("a string"), serde_json::json!(c.as_str()));
        }
    }

    #[test]
    fn every_code_is_produced_somewhere_in_src() {
        let mut src = String::new();
        rust_sources(&root().join("src"), &mut src);
        for c in RefusalCode::ALL {
            let path = format!("RefusalCode::{}", c.ident());
            assert!(names(&src, &path), "{path} is never produced: remove it or use it");
        }
    }
}
