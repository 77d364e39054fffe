//! A variant's own state, as shown to players and printed by `chessgold state`.

use crate::square::Color;

/// An amount of gold in half-gold units. Shown as a decimal with at most one `.5`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Gold(pub u32);

impl Gold {
    /// Whole gold.
    pub const fn whole(n: u32) -> Gold {
        Gold(n * 2)
    }

    /// The amount as text: `4`, `3.5`.
    pub fn to_text(self) -> String {
        if self.0.is_multiple_of(2) { format!("{}", self.0 / 2) } else { format!("{}.5", self.0 / 2) }
    }

    /// Parses `4` or `3.5` (no other fractions, no sign).
    pub fn parse(text: &str) -> Option<Gold> {
        let (whole, half) = match text.split_once('.') {
            Some((w, "5")) => (w, 1),
            Some((w, "0")) => (w, 0),
            Some(_) => return None,
            None => (text, 0),
        };
        if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) || whole.len() > 7 {
            return None;
        }
        whole.parse::<u32>().ok().map(|w| Gold(w * 2 + half))
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Gold {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(2) { s.serialize_u32(self.0 / 2) } else { s.serialize_f64(f64::from(self.0) / 2.0) }
    }
}

/// A value per colour, serialised as `{"white": .., "black": ..}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ByColor<T> {
    /// White's value.
    pub white: T,
    /// Black's value.
    pub black: T,
}

impl<T: Copy> ByColor<T> {
    /// Builds from a `[white, black]` array.
    pub fn from_array(a: [T; 2]) -> ByColor<T> {
        ByColor { white: a[0], black: a[1] }
    }

    /// The value of one colour.
    pub fn get(&self, c: Color) -> T {
        c.fold(self.white, self.black)
    }
}

/// One entry of the shop, for the side to move.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ShopItem {
    /// Piece letter.
    pub piece: char,
    /// Price.
    pub cost: Gold,
    /// Whether the side to move has the gold (placement may still be impossible for other
    /// reasons, such as the squares or a placement ban).
    pub affordable: bool,
}

/// A loot box on the board.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BoxView {
    /// Square name.
    pub square: String,
    /// Hits taken (a third hit, or a queen's, opens it).
    pub hits: u8,
}

/// What one player holds in reserve (loot).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct InventoryView {
    /// Pieces by letter with their count, in letter order P N B R K.
    pub pieces: Vec<(char, u8)>,
    /// Items by name (`crossbow`, `shell`, `crown`) with their count.
    pub items: Vec<(&'static str, u8)>,
}

/// Items carried by one piece.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ItemsView {
    /// Square name.
    pub square: String,
    /// Item names (`crossbow`, `shell`).
    pub items: Vec<&'static str>,
}

/// A box opened by the last action.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OpenedView {
    /// Where the box stood.
    pub square: String,
    /// Who opened it (`white` or `black`).
    pub by: &'static str,
    /// What it held: `gold3`..`gold6`, `P`, `B`, `N`, `R`, `K`, `crossbow`, `shell`, `crown`.
    pub contents: String,
}

/// One rung of Grunt Chess's promotion ladder.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct XpPrice {
    /// The piece promoted.
    pub from: char,
    /// What it becomes.
    pub to: char,
    /// XP it costs.
    pub xp: u32,
}

/// A piece type's factory (Class Warfare).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FactoryView {
    /// The piece letter.
    pub piece: char,
    /// Its two factory squares.
    pub squares: Vec<String>,
    /// Whether both are occupied, so the type moves as in chess.
    pub running: bool,
}

/// A piece's hit points (Chessception).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HpView {
    /// Square name.
    pub square: String,
    /// Hit points left.
    pub hp: u8,
    /// Full hit points of the piece.
    pub max: u8,
    /// Whether damage to it is halved (the king's aura; kings always).
    pub shielded: bool,
}

/// Damage dealt by the last action (Chessception).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DamageView {
    /// Square of the piece that lost HP.
    pub square: String,
    /// HP lost.
    pub amount: u8,
}

/// Everything a variant shows beyond the board. Fields a variant does not use stay `None`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct VariantState {
    /// Gold of both players (the side to move's includes this turn's income).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub gold: Option<ByColor<Gold>>,
    /// Gold each player receives at the start of each of their turns.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub income: Option<Gold>,
    /// The shop of the side to move.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub shop: Option<Vec<ShopItem>>,
    /// Pawns waiting on the last rank for a promotion in place, by square.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub waiting_pawns: Option<Vec<String>>,
    /// Whether each player placed a piece on their previous turn (and so may not place now).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub placed_last_turn: Option<ByColor<bool>>,
    /// Non-king pieces each side has on the board, and the most it may have.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub piece_count: Option<ByColor<u32>>,
    /// Experience points of both players (Grunt Chess).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub xp: Option<ByColor<u32>>,
    /// The factories and whether each piece type runs (Class Warfare).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub factories: Option<Vec<FactoryView>>,
    /// Proletariat moves left before the bourgeoisie wins by the move limit (Class Warfare).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub moves_left: Option<u32>,
    /// Hit points and shields of every piece (Chessception).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub hp: Option<Vec<HpView>>,
    /// Damage dealt by the last action (Chessception).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub damage: Option<Vec<DamageView>>,
    /// The promotion ladder with its XP prices (Grunt Chess).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub xp_prices: Option<Vec<XpPrice>>,
    /// XP to muster a grunt (Grunt Chess).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub muster_xp: Option<u32>,
    /// Pieces each side has on the board, king included (Grunt Chess).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub pieces_on_board: Option<ByColor<u32>>,
    /// Mustering needs fewer pieces than this on the board, king included (Grunt Chess).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub muster_limit: Option<u32>,
    /// Loot boxes on the board.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub boxes: Option<Vec<BoxView>>,
    /// Rounds until the next box may appear.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub countdown: Option<u8>,
    /// Each player's inventory of looted pieces and items.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub inventory: Option<ByColor<InventoryView>>,
    /// Items carried by pieces on the board.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub items: Option<Vec<ItemsView>>,
    /// What the last action opened.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub opened: Option<Vec<OpenedView>>,
    /// The equips available now (variants with items).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub equips: Option<Vec<String>>,
    /// The most non-king pieces a side may have on the board.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub piece_cap: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gold_text_round_trips() {
        for (text, units) in [("0", 0), ("4", 8), ("3.5", 7), ("120.5", 241)] {
            assert_eq!(Gold::parse(text), Some(Gold(units)));
            assert_eq!(Gold(units).to_text(), text);
        }
        for bad in ["", "-1", "3.25", "3.", ".5", "x", "1e3", "99999999"] {
            assert_eq!(Gold::parse(bad), None, "{bad}");
        }
    }
}
