//! The socket protocol's messages (`docs/api.md`, WebSocket): strict parsing of what clients
//! send, and the shapes of what the server sends.
//!
//! Pure (serde and serde_json only): the fuzz target `fuzz/fuzz_targets/protocol.rs` compiles this
//! file on its own, so keep it free of the rest of the crate.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::refusal::RefusalCode;

/// Longest action text accepted.
const MAX_ACTION_LEN: usize = 32;

/// A chat room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Room {
    /// The players' room.
    Player,
    /// The spectators' room.
    Spectator,
}

impl Room {
    /// `player` / `spectator`.
    pub fn as_str(self) -> &'static str {
        match self {
            Room::Player => "player",
            Room::Spectator => "spectator",
        }
    }
}

/// A player command without data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Abort.
    Abort,
    /// Resign.
    Resign,
    /// Offer or accept a draw.
    DrawYes,
    /// Decline or withdraw a draw offer.
    DrawNo,
    /// Ask for or accept a takeback.
    TakebackYes,
    /// Decline or withdraw a takeback request.
    TakebackNo,
    /// Offer or accept a rematch.
    RematchYes,
    /// Decline or withdraw a rematch offer.
    RematchNo,
    /// Claim victory over a disconnected opponent.
    ClaimVictory,
    /// Call a draw with a disconnected opponent.
    ClaimDraw,
}

impl Command {
    /// The message type that sends the command (`resign`, `draw_yes`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Command::Abort => "abort",
            Command::Resign => "resign",
            Command::DrawYes => "draw_yes",
            Command::DrawNo => "draw_no",
            Command::TakebackYes => "takeback_yes",
            Command::TakebackNo => "takeback_no",
            Command::RematchYes => "rematch_yes",
            Command::RematchNo => "rematch_no",
            Command::ClaimVictory => "claim_victory",
            Command::ClaimDraw => "claim_draw",
        }
    }
}

/// What a client may send.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientMsg {
    /// Keep-alive.
    Ping,
    /// An action.
    Action {
        /// Notation.
        action: String,
        /// Actions the client has before it.
        ply: usize,
        /// Acknowledgement id.
        ack: Option<u64>,
        /// Claimed one-way lag, centiseconds.
        lag: Option<i32>,
    },
    /// A command.
    Command {
        /// Which.
        command: Command,
        /// Acknowledgement id.
        ack: Option<u64>,
    },
    /// A chat line.
    Chat {
        /// The room.
        room: Room,
        /// The text as sent.
        text: String,
        /// Acknowledgement id.
        ack: Option<u64>,
    },
}

impl ClientMsg {
    /// The text a client sends for this message: the inverse of [`parse`] (`parse(&m.encode())`
    /// gives `m` back; the tests and the fuzz target check it).
    pub fn encode(&self) -> String {
        let with_ack = |mut d: Value, ack: &Option<u64>| {
            if let (Some(a), Some(obj)) = (ack, d.as_object_mut()) {
                obj.insert("ack".into(), (*a).into());
            }
            d
        };
        match self {
            ClientMsg::Ping => msg("ping", Value::Null),
            ClientMsg::Action { action, ply, ack, lag } => {
                let mut d = with_ack(json!({"action": action, "ply": ply}), ack);
                if let (Some(l), Some(obj)) = (lag, d.as_object_mut()) {
                    obj.insert("lag".into(), (*l).into());
                }
                msg("action", d)
            }
            ClientMsg::Command { command, ack } => {
                msg(command.as_str(), ack.map_or(Value::Null, |a| json!({"ack": a})))
            }
            ClientMsg::Chat { room, text, ack } => {
                msg("chat", with_ack(json!({"room": room.as_str(), "text": text}), ack))
            }
        }
    }

    /// The acknowledgement id, if any.
    pub fn ack(&self) -> Option<u64> {
        match self {
            ClientMsg::Ping => None,
            ClientMsg::Action { ack, .. } | ClientMsg::Command { ack, .. } | ClientMsg::Chat { ack, .. } => *ack,
        }
    }
}

/// A refused message: a code and a sentence, plus the ack id when it could be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// [`RefusalCode::Malformed`] or [`RefusalCode::UnknownType`].
    pub code: RefusalCode,
    /// Explanation.
    pub message: String,
    /// The ack id of the message, when it had a readable one.
    pub ack: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionData {
    action: String,
    ply: usize,
    #[serde(default)]
    ack: Option<u64>,
    #[serde(default)]
    lag: Option<i32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AckData {
    #[serde(default)]
    ack: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatData {
    room: Room,
    text: String,
    #[serde(default)]
    ack: Option<u64>,
}

fn malformed(message: impl Into<String>, ack: Option<u64>) -> ParseError {
    ParseError { code: RefusalCode::Malformed, message: message.into(), ack }
}

/// Parses one text frame.
///
/// # Errors
/// `malformed` for anything but `{"t": known type, "d": the type's data}`; `unknown_type`.
pub fn parse(text: &str) -> Result<ClientMsg, ParseError> {
    let value: Value = serde_json::from_str(text).map_err(|e| malformed(format!("not JSON: {e}"), None))?;
    let Value::Object(mut obj) = value else {
        return Err(malformed("a message is an object {\"t\": type, \"d\": data}", None));
    };
    if let Some(k) = obj.keys().find(|k| *k != "t" && *k != "d") {
        return Err(malformed(format!("unknown field '{}'", k.chars().take(20).collect::<String>()), None));
    }
    let Some(Value::String(t)) = obj.remove("t") else {
        return Err(malformed("the message has no string \"t\"", None));
    };
    let d = obj.remove("d");
    let ack_of = |d: &Option<Value>| d.as_ref().and_then(|v| v.get("ack")).and_then(Value::as_u64);
    let ack = ack_of(&d);
    let command = match t.as_str() {
        "ping" => {
            return match d {
                None | Some(Value::Null) => Ok(ClientMsg::Ping),
                Some(_) => Err(malformed("ping has no data", None)),
            };
        }
        "action" => {
            let data: ActionData =
                serde_json::from_value(d.unwrap_or(Value::Null)).map_err(|e| malformed(format!("action: {e}"), ack))?;
            if data.action.is_empty() || data.action.len() > MAX_ACTION_LEN {
                return Err(malformed(format!("an action has 1 to {MAX_ACTION_LEN} bytes"), data.ack));
            }
            return Ok(ClientMsg::Action { action: data.action, ply: data.ply, ack: data.ack, lag: data.lag });
        }
        "chat" => {
            let data: ChatData =
                serde_json::from_value(d.unwrap_or(Value::Null)).map_err(|e| malformed(format!("chat: {e}"), ack))?;
            return Ok(ClientMsg::Chat { room: data.room, text: data.text, ack: data.ack });
        }
        "abort" => Command::Abort,
        "resign" => Command::Resign,
        "draw_yes" => Command::DrawYes,
        "draw_no" => Command::DrawNo,
        "takeback_yes" => Command::TakebackYes,
        "takeback_no" => Command::TakebackNo,
        "rematch_yes" => Command::RematchYes,
        "rematch_no" => Command::RematchNo,
        "claim_victory" => Command::ClaimVictory,
        "claim_draw" => Command::ClaimDraw,
        other => {
            return Err(ParseError {
                code: RefusalCode::UnknownType,
                message: format!("unknown message type '{}'", other.chars().take(30).collect::<String>()),
                ack,
            });
        }
    };
    let ack = match d {
        None | Some(Value::Null) => None,
        Some(v) => serde_json::from_value::<AckData>(v).map_err(|e| malformed(format!("{t}: {e}"), ack))?.ack,
    };
    Ok(ClientMsg::Command { command, ack })
}

/// `{"t": t, "d": d}`.
pub fn msg(t: &str, d: Value) -> String {
    if d.is_null() { json!({"t": t}).to_string() } else { json!({"t": t, "d": d}).to_string() }
}

/// `{"t": t, "v": v, "d": d}`.
pub fn event(t: &str, v: i32, d: &Value) -> String {
    json!({"t": t, "v": v, "d": d}).to_string()
}

/// `{"t": "error", "d": {"code", "message", "ack"?}}`.
pub fn error(code: RefusalCode, message: &str, ack: Option<u64>) -> String {
    let mut d = json!({"code": code, "message": message});
    if let (Some(a), Some(obj)) = (ack, d.as_object_mut()) {
        obj.insert("ack".into(), a.into());
    }
    msg("error", d)
}

/// `{"t": "ack", "d": id}`.
pub fn ack(id: u64) -> String {
    msg("ack", Value::from(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_messages_parse() {
        assert_eq!(parse(r#"{"t":"ping"}"#).unwrap(), ClientMsg::Ping);
        assert_eq!(
            parse(r#"{"t":"action","d":{"action":"e2e4","ply":0,"ack":3,"lag":5}}"#).unwrap(),
            ClientMsg::Action { action: "e2e4".into(), ply: 0, ack: Some(3), lag: Some(5) }
        );
        assert_eq!(parse(r#"{"t":"resign"}"#).unwrap(), ClientMsg::Command { command: Command::Resign, ack: None });
        assert_eq!(
            parse(r#"{"t":"draw_yes","d":{"ack":9}}"#).unwrap(),
            ClientMsg::Command { command: Command::DrawYes, ack: Some(9) }
        );
        assert_eq!(
            parse(r#"{"t":"chat","d":{"room":"spectator","text":"hi"}}"#).unwrap(),
            ClientMsg::Chat { room: Room::Spectator, text: "hi".into(), ack: None }
        );
    }

    #[test]
    fn every_message_encodes_to_a_text_that_parses_back() {
        let commands = [
            Command::Abort,
            Command::Resign,
            Command::DrawYes,
            Command::DrawNo,
            Command::TakebackYes,
            Command::TakebackNo,
            Command::RematchYes,
            Command::RematchNo,
            Command::ClaimVictory,
            Command::ClaimDraw,
        ];
        let mut all = vec![
            ClientMsg::Ping,
            ClientMsg::Action { action: "e2e4".into(), ply: 0, ack: None, lag: None },
            ClientMsg::Action { action: "crown@d4=R".into(), ply: usize::MAX, ack: Some(u64::MAX), lag: Some(-3) },
            ClientMsg::Chat { room: Room::Player, text: "\"hi\" \u{e9}\n".into(), ack: Some(1) },
            ClientMsg::Chat { room: Room::Spectator, text: String::new(), ack: None },
        ];
        for command in commands {
            all.push(ClientMsg::Command { command, ack: None });
            all.push(ClientMsg::Command { command, ack: Some(7) });
        }
        for m in all {
            assert_eq!(parse(&m.encode()), Ok(m.clone()), "{}", m.encode());
        }
    }

    /// The committed fuzz corpus (`fuzz/corpus/protocol`) replays here: every text parses or is
    /// refused with a code, and what parses encodes back to itself.
    #[test]
    fn the_fuzz_corpus_replays() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/protocol");
        let mut count = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            let Ok(text) = std::str::from_utf8(&bytes) else { continue };
            match parse(text) {
                Ok(m) => assert_eq!(parse(&m.encode()), Ok(m), "{text}"),
                Err(e) => assert!(
                    matches!(e.code, RefusalCode::Malformed | RefusalCode::UnknownType) && !e.message.is_empty(),
                    "{text}"
                ),
            }
            count += 1;
        }
        assert!(count >= 10, "only {count} corpus entries in {}", dir.display());
    }

    #[test]
    fn anything_else_is_refused_with_a_code() {
        for bad in [
            "",
            "nonsense",
            "[1,2]",
            r#"{"d":1}"#,
            r#"{"t":5}"#,
            r#"{"t":"ping","x":1}"#,
            r#"{"t":"ping","d":{}}"#,
            r#"{"t":"action","d":{"action":"e2e4"}}"#,
            r#"{"t":"action","d":{"action":"e2e4","ply":-1}}"#,
            r#"{"t":"action","d":{"action":"e2e4","ply":0,"extra":1}}"#,
            r#"{"t":"action","d":{"action":"","ply":0}}"#,
            r#"{"t":"resign","d":{"why":"tired"}}"#,
            r#"{"t":"chat","d":{"room":"lobby","text":"x"}}"#,
        ] {
            assert_eq!(parse(bad).unwrap_err().code, RefusalCode::Malformed, "{bad}");
        }
        let e = parse(r#"{"t":"fly","d":{"ack":4}}"#).unwrap_err();
        assert_eq!((e.code, e.ack), (RefusalCode::UnknownType, Some(4)));
        assert_eq!(parse(r#"{"t":"action","d":{"action":"e2e4","ply":"x","ack":7}}"#).unwrap_err().ack, Some(7));
    }
}
