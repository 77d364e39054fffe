//! Every refusal names the rule that refuses it. In random positions of every variant (reached by
//! random play from the start and from constructed positions), every well-formed action text
//! that is not legal - moves between any two squares, promotion letters, landing squares,
//! placements, promotions in place, equips - is refused with its specific reason: never the
//! engine's "no rule found" answer; saying what the position shows (checked against the snapshot,
//! and for Loot Boxes' rule 9 against the independent reference in `tests/reference_combat_and_boxes`); listing
//! the legal forms when only the letter or the landing square is wrong; and citing the numbered
//! rule of the rule book for every reason that is a variant's own.

#![expect(clippy::expect_used, reason = "test helpers fail loudly on broken fixtures")]

mod common;
#[expect(dead_code, reason = "only the Loot Boxes reference's equips are used here")]
mod reference_combat_and_boxes;

use std::collections::{BTreeMap, HashMap};

use chessgold_engine::explain::UNEXPLAINED;
use chessgold_engine::registry::variant;
use chessgold_engine::{ActionError, AnyGame, Snapshot};
use common::Rng;
use reference_combat_and_boxes::Kind;
use reference_combat_and_boxes::lootbox::{Equip, LPos};

/// Where the walks start: the variant's start and constructed positions that reach rules random
/// play seldom reaches (waiting pawns, landing choices, equips refused by rule 9, ...).
const STARTS: &[(&str, &[&str])] = &[
    (
        "standard",
        &["r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"],
    ),
    ("gold", &["2b4k/3P4/8/8/8/8/8/4K3 w - - 0 1 gold=0.5/3", "3P3k/8/8/8/8/8/8/r3K3 w - - 0 1 gold=3/3"]),
    ("sandbox", &["4k3/P7/8/8/8/8/1PPPPPPP/RNBQKBNR w - - 0 1"]),
    ("conqueror", &["4r1k1/8/3p4/8/4N3/8/8/4K3 w - - 0 1", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"]),
    ("conqueror-gold", &["4k3/7p/8/3n4/8/8/8/3RK1Q1 w - - 0 1 gold=0/3 placed=w"]),
    (
        "lootbox",
        &[
            "1r2k3/8/4b3/8/8/8/7P/K6r w - - 0 1 gold=3.5/3 boxes=- inventory=crossbow/- items=- countdown=3 words=1",
            "1r2k3/8/4b3/8/8/8/7P/K6r w - - 0 1 gold=3.5/3 boxes=- inventory=shell/- items=- countdown=3 words=1",
            "Nr2k3/8/4b3/8/8/8/8/K6r w - - 0 1 gold=3.5/3 boxes=- inventory=crown/- items=- countdown=3 words=1",
            "1n2k3/2P5/8/8/8/8/8/4K3 w - - 0 1 gold=0.5/3 boxes=- inventory=-/- items=b8:shell countdown=3 words=1",
            "r3k2r/pppn1ppp/8/3q4/8/8/PPPN1PPP/R3K2K w - - 0 1 gold=9/9 boxes=d4:2,e5:1 \
             inventory=crossbow,shell,crown,K/crossbow,shell,crown items=a2:shell countdown=2 words=1",
        ],
    ),
    ("electrum", &["4k4/P8/9/9/9/9/9/9/4K4 w - - 0 1", "r3k3r/9/9/9/9/9/9/9/R3K3R w Qk - 0 1"]),
    ("class-warfare", &["p6R/8/8/1NBQKBN1 w - - 0 20", "pp1ppppp/8/8/R1BQKBNR w - - 0 3"]),
    (
        "grunt",
        &["1nbgkbn1/ppp3pp/4p3/8/8/8/PPPP1PPP/1NBGKBN1 w - - 0 4 xp=5/5", "3Pk3/8/8/8/8/8/8/4K3 w - - 0 1 xp=9/9"],
    ),
    (
        "chessception",
        &[
            "rn2k3/2P5/8/8/8/8/8/RNBQKBNR w - - 0 1 hp=- shields=d1,f1",
            "4k3/8/3p1p2/4n3/8/8/1B6/4K3 w - - 0 1 hp=d6:1,f6:1 shields=-",
            "2Q5/r2pk3/n3p3/2p5/P1P1P3/5P2/P2P2P1/RqB1KBN1 w Q - 0 15 hp=e7:1,c8:2 shields=f1,d2,e6,d7",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 hp=- shields=-",
        ],
    ),
];

/// Variants whose turns include placements, and those with promotions in place.
const PLACING: &[&str] = &["gold", "lootbox", "sandbox", "conqueror-gold", "grunt"];
const PROMOTING_IN_PLACE: &[&str] = &["gold", "lootbox", "conqueror-gold", "grunt"];

/// Reasons of the shared rules of chess (and of the notation), which the rule books do not
/// number; every other reason cites its rule.
const SHARED: &[&str] = &[
    "there is no piece on",
    "'s turn",
    "the piece on",
    "is not a piece of",
    "has no placements",
    "has no promotion in place",
    "has no items",
    "has no landing squares",
    "is occupied by the",
    "a piece never moves onto its own side",
    "that is not a",
    "blocks the way",
    "blocks the pawn's way",
    "a pawn moves",
    "captures in other directions",
    "goes that way only to capture",
    "is in check and this move does not end the check",
    "would leave the",
    "castling",
    "a king may not castle",
    "this move does not promote",
    "this move promotes",
    "is not a promotion choice",
    "a move takes the",
];

fn cites_rule(why: &str) -> bool {
    ["(rule ", "(Chess Gold rule ", "rule 7)", "(setup)"].iter().any(|c| why.contains(c))
}

/// Counts of the refusals seen, by variant and by the reason's first words.
#[derive(Default)]
struct Seen {
    refusals: BTreeMap<String, u64>,
    by_reason: BTreeMap<String, u64>,
    rule_9_no_action: BTreeMap<String, u64>,
    failures: Vec<String>,
}

fn squares(files: u32, ranks: u32) -> Vec<String> {
    (0..ranks).flat_map(|r| (0..files).map(move |f| format!("{}{}", char::from(b'a' + f as u8), r + 1))).collect()
}

/// Every action text to try in the game's position.
fn candidates(s: &Snapshot, rng: &mut Rng) -> Vec<String> {
    let all = squares(s.files, s.ranks);
    let letters: Vec<char> = s.roles.iter().map(|r| r.letter).collect();
    let occupied: Vec<&str> = s.pieces.iter().map(|p| p.square.as_str()).collect();
    let empty: Vec<&String> = all.iter().filter(|sq| !occupied.contains(&sq.as_str())).collect();
    let mut out = Vec::new();
    let mut froms: Vec<String> = occupied.iter().map(|sq| sq.to_string()).collect();
    for _ in 0..2 {
        if !empty.is_empty() {
            froms.push(empty[rng.below(empty.len() as u64) as usize].clone());
        }
    }
    for from in &froms {
        for to in &all {
            out.push(format!("{from}{to}"));
        }
    }
    // Letters and landing squares on the moves that are legal in some form, and on every
    // pawn step to a last rank.
    let mut bases: Vec<String> =
        s.legal.iter().filter(|t| !t.contains(['@', '='])).map(|t| t[..4].to_string()).collect();
    let last_ranks = [1, s.ranks];
    for p in s.pieces.iter().filter(|p| p.piece == 'P') {
        let file = p.square.as_bytes()[0];
        for rank in last_ranks {
            for df in [-1i32, 0, 1] {
                let f = i32::from(file) + df;
                if (i32::from(b'a')..i32::from(b'a') + s.files as i32).contains(&f) {
                    bases.push(format!("{}{}{rank}", p.square, char::from(f as u8)));
                }
            }
        }
    }
    bases.sort();
    bases.dedup();
    for base in &bases {
        for l in letters.iter().map(char::to_ascii_lowercase).chain(['x']) {
            out.push(format!("{base}{l}"));
        }
        out.push(format!("{base}/{}", &base[2..4]));
        out.push(format!("{base}/{}", all[rng.below(all.len() as u64) as usize]));
    }
    for l in letters.iter().copied().chain(['X']) {
        for sq in &all {
            out.push(format!("{l}@{sq}"));
        }
        for sq in &occupied {
            out.push(format!("{sq}={l}"));
        }
    }
    let mut targets: Vec<String> = froms.clone();
    targets.truncate(occupied.len() + 1);
    for item in ["crossbow", "shell", "crown", "sword"] {
        for sq in &targets {
            out.push(format!("{item}@{sq}"));
            for l in ['N', 'B', 'R', 'Q', 'K', 'P'] {
                out.push(format!("{item}@{sq}={l}"));
            }
        }
    }
    out
}

/// The piece on a square, as (colour, kind).
fn piece_map(s: &Snapshot) -> HashMap<&str, (&'static str, &'static str)> {
    s.pieces.iter().map(|p| (p.square.as_str(), (p.color, p.kind))).collect()
}

/// The number after `marker` in `why` (`has 3.5` gives 3.5).
fn number_after(why: &str, marker: &str) -> Option<f64> {
    let rest = &why[why.find(marker)? + marker.len()..];
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    digits.trim_end_matches('.').parse().ok()
}

/// Gold of the side to move as shown (half units shown as .5).
fn gold_of_side(s: &Snapshot) -> Option<f64> {
    let gold = s.state.gold?;
    let units = if s.side == "white" { gold.white.0 } else { gold.black.0 };
    Some(f64::from(units) / 2.0)
}

/// Fails the check of one refusal with a message (the walk reports the distinct failures).
macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

macro_rules! ensure_eq {
    ($left:expr, $right:expr, $($fmt:tt)+) => {
        if $left != $right {
            return Err(format!("{}: {:?} != {:?}", format!($($fmt)+), $left, $right));
        }
    };
}

/// Checks one refusal: `why` for the text `text` in the position of snapshot `s`.
fn judge(id: &str, s: &Snapshot, text: &str, why: &str, seen: &mut Seen) -> Result<(), String> {
    let context = format!("{id} {}: {text}: {why}", s.fen);
    ensure!(!why.contains(UNEXPLAINED), "{context}");
    ensure!(
        SHARED.iter().any(|p| why.contains(p)) || cites_rule(why),
        "{context}: the reason neither is one of the shared rules nor cites a rule"
    );
    let pieces = piece_map(s);
    let side = s.side;
    if let Some((item, rest)) = text.split_once('@').filter(|(l, _)| l.len() > 1) {
        if id != "lootbox" {
            ensure!(why.contains("has no items"), "{context}");
            return Ok(());
        }
        ensure!(why.ends_with("(rule 9)"), "{context}: every equip refusal is rule 9's");
        if why.contains("no legal turn action") {
            let (sq, letter) = match rest.split_once('=') {
                Some((sq, l)) => (sq, l.chars().next()),
                None => (rest, None),
            };
            let square = reference_combat_and_boxes::parse_square(sq).expect("a square");
            let equip = match (item, letter.and_then(Kind::from_letter)) {
                ("crossbow", None) => Equip::Crossbow(square),
                ("shell", None) => Equip::Shell(square),
                ("crown", Some(k)) => Equip::Crown(square, k),
                _ => panic!("{context}: rule 9's last reason for a malformed equip"),
            };
            let reference = LPos::from_fen(&s.fen, 0).expect("the reference reads the text");
            ensure!(
                !reference.apply_equip(equip).has_action(),
                "{context}: the reference finds a turn action after it"
            );
            *seen.rule_9_no_action.entry(item.to_string()).or_default() += 1;
        }
        return Ok(());
    }
    if let Some((letter, sq)) = text.split_once('@') {
        let letter = letter.chars().next().expect("a letter");
        if !s.roles.iter().any(|r| r.letter == letter) {
            ensure!(why.starts_with(&format!("'{letter}' is not a piece of")), "{context}");
        } else if !PLACING.contains(&id) {
            ensure!(why.ends_with("has no placements"), "{context}");
        } else if let Some((_, kind)) = pieces.get(sq) {
            ensure!(why.starts_with(&format!("{sq} is occupied by the {kind}")), "{context}");
        } else {
            ensure!(cites_rule(why), "{context}");
            if why.contains("not enough gold") {
                ensure_eq!(number_after(why, &format!("and {side} has ")), gold_of_side(s), "{context}");
            }
            if why.contains("XP and") {
                let xp = s.state.xp.map(|x| if side == "white" { x.white } else { x.black });
                ensure_eq!(number_after(why, &format!("and {side} has ")), xp.map(f64::from), "{context}");
            }
            if why.contains("is in check") {
                ensure!(s.check, "{context}");
            }
            if why.contains("a box stands on") {
                let boxes = s.state.boxes.as_ref().expect("boxes");
                ensure!(boxes.iter().any(|b| b.square == sq), "{context}");
            }
        }
        return Ok(());
    }
    if let Some((sq, letter)) = text.split_once('=') {
        let letter = letter.chars().next().expect("a letter");
        match pieces.get(sq) {
            _ if !s.roles.iter().any(|r| r.letter == letter) => {
                ensure!(why.starts_with(&format!("'{letter}' is not a piece of")), "{context}")
            }
            None => ensure_eq!(why, format!("there is no piece on {sq}"), "{context}"),
            Some((color, _)) if *color != side => {
                ensure_eq!(why, format!("the piece on {sq} is {color}'s"), "{context}")
            }
            Some(_) if !PROMOTING_IN_PLACE.contains(&id) => {
                ensure!(why.ends_with("has no promotion in place"), "{context}")
            }
            Some(_) => {
                ensure!(cites_rule(why), "{context}");
                if why.contains("is in check") {
                    ensure!(s.check, "{context}");
                }
            }
        }
        return Ok(());
    }
    // A move: from, to, then a promotion letter or a landing square.
    let (from, to) = (&text[..2], &text[2..4]);
    match pieces.get(from) {
        None => {
            ensure_eq!(why, format!("there is no piece on {from}"), "{context}");
            return Ok(());
        }
        Some((color, kind)) if *color != side => {
            let start = format!("the {kind} on {from} is {color}'s");
            ensure!(why.starts_with(&start), "{context}");
            return Ok(());
        }
        _ => {}
    }
    let forms: Vec<&String> = s.legal.iter().filter(|t| !t.contains(['@', '=']) && t[..4] == text[..4]).collect();
    if !forms.is_empty() {
        ensure!(forms.iter().any(|f| why.contains(f.as_str())), "{context}: the legal forms {forms:?} are not shown");
        return Ok(());
    }
    if why.contains("is in check") {
        ensure!(s.check, "{context}");
    }
    if why.contains("would leave the") {
        ensure!(!s.check, "{context}");
    }
    if why.contains("a piece never moves onto its own side") {
        ensure_eq!(pieces.get(to).map(|p| p.0), Some(side), "{context}");
    }
    if why.contains("a lone king is never captured") {
        ensure_eq!(pieces.get(to).map(|p| p.1), Some("king"), "{context}");
    }
    if why.contains(" blocks the way") {
        let on = why.split(" on ").nth(1).and_then(|r| r.get(..2)).expect("the blocking square");
        let boxed = s.state.boxes.as_ref().is_some_and(|b| b.iter().any(|b| b.square == on));
        ensure!(pieces.contains_key(on) || boxed, "{context}");
    }
    if why.contains("that is not a") {
        let kind = pieces.get(from).map(|p| p.1).expect("a piece");
        ensure!(why.contains(&format!("that is not a {kind}'s move")), "{context}");
    }
    Ok(())
}
fn walk(id: &str, start: Option<&str>, seed: u64, seen: &mut Seen) {
    let info = variant(id).expect("registered");
    let mut g: Box<dyn AnyGame> = match start {
        Some(fen) => info.seeded_game_from_fen(fen, seed).unwrap_or_else(|e| panic!("{fen}: {e}")),
        None => info.new_seeded_game(seed),
    };
    let mut rng = Rng::new(seed);
    for ply in 0..24 {
        let s = g.snapshot();
        if s.status != "ongoing" {
            break;
        }
        if ply % 6 == 0 {
            for text in candidates(&s, &mut rng) {
                match g.check_action(&text) {
                    Ok(written) => {
                        let listed =
                            s.legal.contains(&written) || s.state.equips.as_ref().is_some_and(|e| e.contains(&written));
                        assert!(listed, "{id} {}: {text} accepted as {written}, which is not listed", s.fen);
                    }
                    Err(ActionError::Illegal(m)) => {
                        let prefix = format!("{text} is not legal: ");
                        let why = m.strip_prefix(&prefix).unwrap_or_else(|| panic!("{id}: {m}"));
                        if let Err(failure) = judge(id, &s, &text, why, seen) {
                            seen.failures.push(failure);
                        }
                        *seen.refusals.entry(id.to_string()).or_default() += 1;
                        let head: String = why
                            .split_whitespace()
                            .map(|w| if w.len() == 2 && w.as_bytes()[1].is_ascii_digit() { "SQ" } else { w })
                            .take(7)
                            .collect::<Vec<_>>()
                            .join(" ");
                        *seen.by_reason.entry(format!("{id}: {head}")).or_default() += 1;
                    }
                    Err(other) => panic!("{id} {}: {text}: {other:?}", s.fen),
                }
            }
        }
        let legal = s.legal;
        if legal.is_empty() {
            break;
        }
        let pick = legal[rng.below(legal.len() as u64) as usize].clone();
        g.play(&pick).unwrap_or_else(|e| panic!("{id}: {pick}: {e}"));
    }
}

#[test]
fn every_refusal_of_every_variant_names_its_rule() {
    let mut seen = Seen::default();
    for (id, fens) in STARTS {
        for seed in 0..3 {
            walk(id, None, 100 + seed, &mut seen);
        }
        for (i, fen) in fens.iter().enumerate() {
            walk(id, Some(fen), 7 + i as u64, &mut seen);
        }
    }
    for (reason, n) in &seen.by_reason {
        eprintln!("{n:7} {reason}");
    }
    let mut distinct: BTreeMap<String, &String> = BTreeMap::new();
    for f in &seen.failures {
        let reason = f.rsplit(": ").next().unwrap_or(f);
        distinct.entry(f.split(' ').next().unwrap_or("").to_string() + reason).or_insert(f);
    }
    let shown: Vec<&&String> = distinct.values().take(40).collect();
    assert!(seen.failures.is_empty(), "{} refusals fail, for example:\n{shown:#?}", seen.failures.len());
    for (id, _) in STARTS {
        assert!(seen.refusals.get(*id).is_some_and(|n| *n > 1000), "{id}: {:?}", seen.refusals);
    }
    for item in ["crossbow", "shell", "crown"] {
        assert!(
            seen.rule_9_no_action.contains_key(item),
            "no {item} equip refused because no turn action would remain: {:?}",
            seen.rule_9_no_action
        );
    }
}

#[test]
fn the_issues_crown_is_refused_by_rule_9() {
    let fen = "Nr2k3/8/4b3/8/8/8/8/K6r w - - 0 1 gold=3.5/3 boxes=- inventory=crown/- items=- countdown=3 words=1";
    let g = variant("lootbox").expect("registered").game_from_fen(fen).expect("reads");
    let err = g.check_action("crown@a8=R").expect_err("refused");
    assert_eq!(
        err.message(),
        "crown@a8=R is not legal: after this equip white would have no legal turn action, and an equip must \
         leave one (rule 9)"
    );
    // The crown's own conditions come first.
    let err = g.check_action("crown@a8=N").expect_err("refused");
    assert!(err.message().contains("already a knight (rule 9)"), "{err}");
    let err = g.check_action("crown@a8").expect_err("refused");
    assert!(err.message().contains("written with the piece's new type"), "{err}");
}

#[test]
fn a_castling_move_is_never_written_with_a_landing_square() {
    // The parser matched castling whatever landing square followed it.
    let g =
        variant("standard").expect("registered").game_from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").expect("reads");
    assert_eq!(g.check_action("e1g1").as_deref(), Ok("e1g1"));
    for text in ["e1g1/c6", "e1c1/c1", "e1g1/g1"] {
        let err = g.check_action(text).expect_err(text);
        assert!(err.message().contains("has no landing squares: e1"), "{text}: {err}");
    }
}
