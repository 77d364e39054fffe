//! Whether a side could still win, for the flag rule: a player whose clock runs out loses,
//! unless the opponent cannot win by the variant's rules, which makes it a draw.
//!
//! WORKAROUND: the engine does not say whether a side can still win, so this helper judges it
//! from the snapshot for the variants where the answer is plain, and otherwise says "can win".
//! It should move into the engine as `AnyGame::can_win(color)` (see the report of issue 5).
//! - `standard`: lichess's insufficient-winning-material rule.
//! - `electrum` (mate-only, no economy): a lone king cannot win.
//! - Every other variant: gold modes can always buy pieces, Loot Boxes can loot, Conqueror converts
//!   what it captures, Class Warfare and others have their own ways to win: always "can win".

use chessgold_engine::Snapshot;

fn square_is_dark(square: &str) -> bool {
    let mut chars = square.chars();
    let file = chars.next().map_or(0, |c| u32::from(c).saturating_sub(u32::from('a')));
    let rank: u32 = chars.as_str().parse().unwrap_or(1);
    (file + rank).is_multiple_of(2)
}

/// Whether `color` (`white` or `black`) could still win the game of this snapshot.
pub fn can_win(snapshot: &Snapshot, color: &str) -> bool {
    let own: Vec<_> = snapshot.pieces.iter().filter(|p| p.color == color && p.kind != "king").collect();
    let theirs: Vec<_> = snapshot.pieces.iter().filter(|p| p.color != color && p.kind != "king").collect();
    match snapshot.variant {
        "standard" => {
            if own.is_empty() {
                return false;
            }
            // A lone knight mates only with the help of a blocker: a rook, bishop, knight or pawn.
            if own.len() == 1 && own[0].kind == "knight" {
                return theirs.iter().any(|p| p.kind != "queen");
            }
            // Bishops alone on one square colour mate only with help: a knight, a pawn, or a
            // bishop of the other colour.
            if own.iter().all(|p| p.kind == "bishop") {
                let dark = square_is_dark(&own[0].square);
                if own.iter().all(|p| square_is_dark(&p.square) == dark) {
                    return theirs.iter().any(|p| {
                        p.kind == "knight"
                            || p.kind == "pawn"
                            || (p.kind == "bishop" && square_is_dark(&p.square) != dark)
                    });
                }
            }
            true
        }
        "electrum" => !own.is_empty(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use chessgold_engine::registry::variant;

    use super::*;

    fn snap(variant_id: &str, fen: &str) -> Snapshot {
        variant(variant_id).unwrap().game_from_fen(fen).unwrap().snapshot()
    }

    #[test]
    fn standard_follows_lichess() {
        // Lone king.
        assert!(!can_win(&snap("standard", "4k3/8/8/8/8/8/8/4K2Q w - - 0 1"), "black"));
        assert!(can_win(&snap("standard", "4k3/8/8/8/8/8/8/4K2Q w - - 0 1"), "white"));
        // Knight against a queen only: no; against a rook: yes.
        assert!(!can_win(&snap("standard", "4k3/8/8/8/8/8/8/n3K2Q w - - 0 1"), "black"));
        assert!(can_win(&snap("standard", "4k3/8/8/8/8/8/8/n3K2R w - - 0 1"), "black"));
        // Same-coloured bishops against a rook: no; against a pawn: yes.
        assert!(!can_win(&snap("standard", "4k3/8/8/8/8/8/8/b1b1K2R w - - 0 1"), "black"));
        assert!(can_win(&snap("standard", "4k3/8/8/8/8/8/P7/b1b1K3 w - - 0 1"), "black"));
        // A pawn can always become something.
        assert!(can_win(&snap("standard", "4k3/p7/8/8/8/8/8/4K2Q w - - 0 1"), "black"));
    }

    #[test]
    fn gold_modes_can_always_win() {
        let v = variant("gold").unwrap();
        let s = v.new_game().snapshot();
        assert!(can_win(&s, "white") && can_win(&s, "black"));
    }
}
