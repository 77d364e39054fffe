//! The rule texts, in the site's own words. See `rules.rs` for the markup.

use super::{Block, RuleBook, Section};
use crate::pages::diagram::Diagram;

use Block::{Board, List, P, Table};

/// Every variant of the two rule books, in the order the site lists them.
pub static BOOKS: &[RuleBook] =
    &[GOLD, STANDARD, LOOTBOX, SANDBOX, CONQUEROR, CONQUEROR_GOLD, ELECTRUM, CLASS_WARFARE, GRUNT, CHESSCEPTION];

/// The rules every variant shares: notation and how games end.
const COMMON_NOTATION: Section = Section {
    heading: "Writing actions",
    blocks: &[
        P("Every action has one written form, used by the move list, the API and the stored game record. \
           Letter case matters: anything written differently (`e7e8Q`, `n@c3`, `e8=q`) is refused and changes nothing."),
        Table(&[
            &["Action", "Form", "Examples"],
            &[
                "Move a piece",
                "from-square, to-square, and a lower-case letter when a pawn promotes",
                "`e2e4`, `e7e8q`; castling is the king's move, `e1g1`",
            ],
            &[
                "Place a piece (bought, looted or mustered)",
                "upper-case piece letter, `@`, square",
                "`N@c3`, `P@d2`, `G@e2`",
            ],
            &["Promote a piece where it stands", "square, `=`, upper-case letter", "`e8=Q`, `d4=N`"],
            &[
                "Equip an item (loot boxes)",
                "item, `@`, square; a crown also names the new type",
                "`crossbow@d4`, `shell@d4`, `crown@d4=R`",
            ],
            &["Choose where an attacker lands (Chessception)", "the move, `/`, landing square", "`d1d5/c6`"],
        ]),
        P(
            "Each distinct outcome has exactly one spelling: a promotion letter appears only when a pawn really promotes, \
           and a landing square only when there is a choice.",
        ),
    ],
};

const COMMON_END: Section = Section {
    heading: "How games end",
    blocks: &[List(&[
        "Every draw rule is **automatic**: the game ends the moment the condition holds. Nobody has to claim anything, and there is no separate fivefold or 75-move rule.",
        "Draws are checked at the start of a turn. A win produced by an action (checkmate, a conversion, a king brought to 0 HP, ...) ends the game at once, even if the same action would also have created a draw.",
        "**Threefold repetition** compares the position at the start of a turn with the start of every earlier turn of the whole game, not only since the last capture or pawn move (placements and conversions can undo those). A position is the board, the side to move, castling rights, the en-passant square only when an en-passant capture is possible, and the variant's own state (gold, XP, HP, ...).",
        "A finished game has no legal actions left.",
    ])],
};

const STANDARD: RuleBook = RuleBook {
    id: "standard",
    name: "Standard chess",
    tagline: "The classic game by the FIDE rules, and the base of every variant here.",
    provisional: false,
    intro: "Two armies of sixteen pieces, White moving first. Checkmate the enemy king to win. \
            Every other variant on Chess Gold starts from these rules and changes some of them.",
    sections: &[
        Section {
            heading: "Setup",
            blocks: &[
                Board(Diagram::new(
                    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
                    "The start position. White moves first.",
                )),
                P("Each side has a king, a queen, two rooks, two bishops, two knights and eight pawns. \
                   The board is placed with a light square in each player's right-hand corner."),
            ],
        },
        Section {
            heading: "How the pieces move",
            blocks: &[
                Table(&[
                    &["Piece", "Letter", "Moves"],
                    &["King", "K", "One square in any direction."],
                    &["Queen", "Q", "Any distance along a rank, file or diagonal."],
                    &["Rook", "R", "Any distance along a rank or file."],
                    &["Bishop", "B", "Any distance along a diagonal."],
                    &[
                        "Knight",
                        "N",
                        "An L-shaped jump (two squares one way, one square across); it leaps over pieces.",
                    ],
                    &[
                        "Pawn",
                        "P",
                        "One square forward, or two from its starting square; captures one square diagonally forward.",
                    ],
                ]),
                P(
                    "Sliding pieces cannot pass through other pieces. A capture removes the enemy piece on the destination square.",
                ),
            ],
        },
        Section {
            heading: "Special moves",
            blocks: &[
                List(&[
                    "**Castling**: the king moves two squares towards an unmoved rook, and that rook jumps to the square the king crossed. Allowed only if neither piece has moved, the squares between them are empty, and the king is not in check, does not cross an attacked square and does not land in check. Written as the king's move: `e1g1`, `e1c1`.",
                    "**En passant**: right after an enemy pawn advances two squares past one of your pawns, your pawn may capture it as if it had moved only one square (`e5d6`).",
                    "**Promotion**: a pawn reaching the last rank becomes a queen, rook, bishop or knight of its side, at no cost (`e7e8q`).",
                ]),
                Board(
                    Diagram::new(
                        "r3k2r/pppq1ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPPQ1PPP/R3K2R",
                        "Both kings may castle to either side here.",
                    )
                    .arrows("e1g1 e8c8"),
                ),
            ],
        },
        Section {
            heading: "Check and the end of the game",
            blocks: &[
                List(&[
                    "A king that is attacked is **in check**. No move may leave one's own king in check.",
                    "**Checkmate** (in check with no legal move) wins.",
                    "**Stalemate** (not in check, no legal move) is a draw.",
                    "Also drawn: threefold repetition, 50 moves by each side (100 plies) without a capture or pawn move, and positions where neither side can possibly checkmate (insufficient material).",
                    "**Out of time** loses, unless the opponent could not checkmate by any series of legal moves (a lone king, or a lone knight or bishops of one colour with nothing to block the mate): then it is a draw, as on lichess (decided).",
                ]),
                Board(
                    Diagram::new(
                        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR",
                        "Fool's mate: after `f2f3 e7e5 g2g4 d8h4` White is checkmated.",
                    )
                    .arrows("d8h4"),
                ),
            ],
        },
        COMMON_NOTATION,
        COMMON_END,
    ],
};

const GOLD_START: &str = "4k3/8/8/8/8/8/8/4K3";

const GOLD: RuleBook = RuleBook {
    id: "gold",
    name: "Chess Gold",
    tagline: "Kings start alone: earn gold every turn, buy your army, place it and mate.",
    provisional: false,
    intro: "Both kings start alone on an empty board. Every turn brings gold; you spend it on pieces and put them \
            on your own side of the board, or you move what you already have. Chess rules decide everything else.",
    sections: &[
        Section {
            heading: "Setup and gold",
            blocks: &[
                Board(Diagram::new(GOLD_START, "The start: White king on e1, black king on e8. The shaded ranks are where each side may place pieces.").zones("a1:h3 a6:h8")),
                List(&[
                    "Each player starts with **3 gold**.",
                    "At the start of each of your turns you receive **+1 gold**, including your very first turn, so White has 4 gold to spend on move 1 and Black has 4 on its first turn (decided). The gold shown for the side to move already includes this turn's income (White 4, Black 3 at the very start), also once a game is over.",
                    "Gold is counted in half-gold steps and shown with at most one `.5`.",
                ]),
            ],
        },
        Section {
            heading: "A turn",
            blocks: &[
                P("A turn is exactly **one** action:"),
                List(&[
                    "**Move** a piece on the board by the usual chess rules (check, pins, en passant). Moving is free.",
                    "**Place** a piece from the shop on an empty square and pay for it: pawn 1, knight 3, bishop 3, rook 5, queen 8 (`N@c3`).",
                    "**Promote a waiting pawn** for 1 gold (see below).",
                ]),
                List(&[
                    "White places on ranks 1-3, Black on ranks 6-8. Pawns only on ranks 2-3 (White) or 6-7 (Black).",
                    "Placing uses the whole turn. Like any action it may not leave your own king in check, so when in check you may place a piece that blocks the check. A placement may give check or even checkmate.",
                ]),
                Board(Diagram::new("4k3/8/8/8/8/8/8/4K3", "White's first turn: 4 gold, enough for a knight (`N@c3`) or a bishop.").zones("a1:h3").dots("c3")),
            ],
        },
        Section {
            heading: "Pawns and promotion",
            blocks: &[
                List(&[
                    "Any pawn on its own second rank may make the two-square move, placed pawns included; en passant works as in chess.",
                    "Promotion costs **1 gold**. A pawn that reaches the last rank may promote at once to a knight, bishop, rook or queen for 1 gold (`e7e8q`).",
                    "It may also go there without promoting (`e7e8`). It then **waits**: it cannot move, it can be captured, and on a later turn you may promote it as that turn's action for 1 gold (`e8=Q`) (decided). This also applies to a pawn that arrives by capturing (`b7a8`). Promoting a waiting pawn is not a placement.",
                    "When a capture and a promotion happen in the same move, the capture income is credited before the fee is paid.",
                ]),
                Board(Diagram::new("4P3/8/8/3k4/8/8/8/4K3", "A waiting white pawn on e8: any later turn it can become a queen with `e8=Q` for 1 gold.").dots("e8")),
            ],
        },
        Section {
            heading: "Capture income",
            blocks: &[
                P("Capturing pays half the price of the captured piece, by its type at that moment: pawn 0.5, knight 1.5, bishop 1.5, rook 2.5, queen 4."),
            ],
        },
        Section {
            heading: "No castling",
            blocks: &[P("Kings start alone and no castling right is ever granted (decided).")],
        },
        Section {
            heading: "End of the game",
            blocks: &[
                List(&[
                    "Checkmate wins; stalemate is a draw.",
                    "Threefold repetition is a draw; the position includes both players' gold. Since gold grows every turn, shuffling pieces back and forth does not repeat the position.",
                    "100 plies in a row without a capture, a pawn move, a placement or a promotion is a draw: this is what ends a shuffle.",
                    "There is **no** insufficient-material draw: a bare king can still buy pieces.",
                    "**Out of time** always loses: the opponent can always buy a win (decided).",
                ]),
            ],
        },
        COMMON_NOTATION,
        COMMON_END,
    ],
};

const LOOTBOX: RuleBook = RuleBook {
    id: "lootbox",
    name: "Chess Gold: Loot Boxes",
    tagline: "Chess Gold plus boxes in the middle of the board: hit them to open gold, pieces and items.",
    provisional: false,
    intro: "Everything of Chess Gold applies. On top of it, loot boxes appear on ranks 4 and 5. Hit a box three times \
            (or once with a queen) and it opens for you: gold, a free piece, or an item that changes one of your pieces.",
    sections: &[
        Section {
            heading: "Fair randomness",
            blocks: &[List(&[
                "Every game has a secret 64-bit seed. All random draws come from the ChaCha20 keystream keyed by the seed (the 8 seed bytes in little-endian order followed by 24 zero bytes, nonce 0, block counter from 0), read as consecutive little-endian 32-bit words (decided).",
                "A draw among `n` choices takes the next word `x`; if `x` is at least 2^32 - (2^32 mod n) it is thrown away and the next word is taken; the result is `x mod n`.",
                "Draw order: the first countdown at the start; at each round end where the countdown reaches zero, the square (only if a box is placed) and then the next countdown; at each opening, its contents. So the variant, the seed and the actions replay a game exactly.",
                "During a live game only a SHA-256 commitment is shown (of the seed bytes followed by 32 random salt bytes). The finished game publishes seed and salt, so anyone can check every draw. Bots see what players see, never the seed.",
            ])],
        },
        Section {
            heading: "Boxes appear",
            blocks: &[
                Board(
                    Diagram::new(
                        "4k3/8/8/3*4/1*6/8/8/4K3",
                        "Boxes stand on ranks 4 and 5 (shaded), as far from one player as from the other.",
                    )
                    .zones("a4:h5"),
                ),
                List(&[
                    "A round is a White turn followed by a Black turn. The countdown is 3 + a draw among 3, that is 3 to 5 rounds.",
                    "When a round ends (after Black's action) the countdown drops by one. At zero, if fewer than 2 boxes are on the board and ranks 4-5 have a square with neither piece nor box, a box is put on one of those squares, chosen by a draw among them in the order a4, b4, ..., h4, a5, ..., h5 (decided: ranks 4 and 5 are equally far from both players). Then the next countdown is drawn.",
                    "An action that checkmates or stalemates ends the game at once, and no box appears. Otherwise a new box may block a check or take a flight square before the next turn is judged.",
                ]),
            ],
        },
        Section {
            heading: "What a box is",
            blocks: &[List(&[
                "A box occupies its square: no piece may move onto it, slide through it or be placed on it, and it cannot be captured. It blocks lines like a piece, so it can block a check. Knights jump over it.",
                "**Hits**: when a move takes its piece to another square, every box on the 8 squares around the square where it stops takes one hit (captures count). A piece that ends where it started (a shell bounce) hits nothing, and neither do placements and promotions.",
                "A queen's hit opens a box at once; otherwise the third hit, by either player, opens it. The player whose hit opens the box gets its contents, and the box disappears. Boxes opened by one move are opened in the square order above.",
            ])],
        },
        Section {
            heading: "Contents",
            blocks: &[
                P("One draw among 10,000 decides the contents:"),
                Table(&[
                    &["Draw below", "Contents", "Chance"],
                    &["1250", "3 gold", "12.5 %"],
                    &["1875", "4 gold", "6.25 %"],
                    &["2500", "5 gold", "6.25 %"],
                    &["3125", "6 gold", "6.25 %"],
                    &["5000", "Pawn", "18.75 %"],
                    &["6250", "Bishop", "12.5 %"],
                    &["7500", "Knight", "12.5 %"],
                    &["8125", "Rook", "6.25 %"],
                    &["8750", "Turtle Shell", "6.25 %"],
                    &["9375", "Crossbow", "6.25 %"],
                    &["9999", "Crown", "6.24 %"],
                    &["10000", "King", "0.01 %"],
                ]),
                List(&[
                    "Gold goes straight to your treasury. Pieces and items go to your inventory.",
                    "A looted piece is placed under all placement rules of Chess Gold (empty square, your zone, pawn ranks, king safety, one action per turn) but costs nothing. While your inventory holds that type, placing it uses the inventory piece; you cannot pay instead.",
                ]),
            ],
        },
        Section {
            heading: "A second king",
            blocks: &[List(&[
                "A looted king is placed like any piece, and placing it is a legal answer to check.",
                "While you have two or more kings on the board, your kings can be captured (without income) and you need not answer check; you are never shown as in check then, since only a lone king can be in check (decided). Reduced to one king, ordinary check rules apply again and checkmate loses.",
                "A lone king is never captured. A crown may create an attack on a lone king, but the turn's action must then be something else, and the opponent starts its turn in check.",
            ])],
        },
        Section {
            heading: "Items",
            blocks: &[List(&[
                "Before its turn action, the side to move may **equip** any number of items from its inventory onto its own pieces (never onto a king), paying Crossbow 2, Turtle Shell 2, Crown 3.5 gold each. Equipping is allowed in check, but only if some legal turn action remains afterwards. A player is checkmated or stalemated only if no turn action is legal even after equipping.",
                "A piece carries at most one crossbow and one shell; items stay with the piece when it moves, promotes or is crowned.",
                "**Crown** (`crown@d4=R`): turns the piece at once into a knight, bishop, rook or queen other than its own type (never a king or a pawn), and is used up.",
                "**Crossbow** (`crossbow@d4`, used up at its first capture): after the capture a bolt flies on from the destination in the move's direction: any number of empty squares for a bishop, rook or queen; exactly one more step for a pawn (en passant too); exactly one more knight jump along the same vector for a knight. The first thing it meets decides: an enemy piece other than a king is captured (with income) or loses its shell; an own piece, a king, a box or the edge stops it. A bolt never hits a box.",
                "**Turtle Shell** (`shell@d4`): the first capture of a shelled piece, or a bolt reaching it, only breaks the shell. The piece stays, the attacker stays on its origin square, no income is paid, no bolt flies and the attacker keeps its crossbow; the action still uses the turn. A pawn attacking a shelled piece on the last rank is written without a letter (`b7a8`) and pays no fee.",
                "Check is decided by ordinary attacks only: a crossbow does not extend a piece's reach.",
            ])],
        },
        Section {
            heading: "Order of a turn",
            blocks: &[List(&[
                "An action is legal only if, after **all** its effects (capture, bolt, shell, landing, promotion, hits, openings, removal of opened boxes), the mover's king is not attacked (while the mover has one king). So an opening may give check, and a king may \"capture\" a defended shelled piece, since it stays where it is.",
                "Order: income; the end-of-game check; equips; the action (shell break, or capture with income, bolt, landing, promotion fee, hits, openings in square order); the check for the opponent's mate or stalemate (which ends the game with no spawn); the round end (countdown, spawn); the opponent's turn. The check for mate or stalemate judges the opponent with the income it is about to receive, as in Chess Gold: a player who can buy a blocker with that income is not mated (decided).",
                "The 100-ply counter is reset by a capture (a bolt's too), a shell break, a pawn move, a placement (bought or looted), a promotion, an equip and a box opening; not by hits that open nothing or by new boxes. An equip resets it at once, so the position written between an equip and the turn action already shows 0 (decided).",
                "The repetition position also includes the boxes and their hits, both inventories, the items on pieces and the countdown.",
                "**Out of time** always loses, as in Chess Gold (decided).",
            ])],
        },
        COMMON_NOTATION,
        COMMON_END,
    ],
};

const SANDBOX: RuleBook = RuleBook {
    id: "sandbox",
    name: "Anything Goes",
    tagline: "No gold, no limits: every turn, move a piece or put a new one anywhere. Provisional rules.",
    provisional: true,
    intro: "The original design left this mode open, so these rules are **provisional**: kings start alone, there is \
            no economy, and each turn you either move a piece or conjure a new one for free.",
    sections: &[
        Section {
            heading: "Setup",
            blocks: &[
                Board(Diagram::new(GOLD_START, "Kings on e1 and e8, nothing else. Pieces may be put on any empty square; pawns only on ranks 2-7 (shaded).").zones("a2:h7")),
                P("There is no gold and no shop."),
            ],
        },
        Section {
            heading: "A turn",
            blocks: &[
                List(&[
                    "**Move** one piece by the chess rules, without castling; or",
                    "**Place** a new pawn, knight, bishop, rook or queen for free on any empty square (`Q@d5`); pawns only on ranks 2-7, for either side.",
                    "A placement may not leave your own king in check, and it may give check or checkmate.",
                    "Each side may have at most **15 pieces besides its king** on the board at once; a captured piece frees a place (decided).",
                    "Promotion as in chess, and free. A pawn may make the two-square move only from its own second rank, wherever it was placed.",
                ]),
            ],
        },
        Section {
            heading: "End of the game",
            blocks: &[
                List(&[
                    "Checkmate wins.",
                    "Draws: stalemate, threefold repetition, and 100 plies without a capture, a pawn move or a placement.",
                    "There is no insufficient-material draw.",
                    "**Out of time** always loses: the opponent can always place a win (decided).",
                ]),
            ],
        },
        COMMON_NOTATION,
        COMMON_END,
    ],
};

const CONQUEROR: RuleBook = RuleBook {
    id: "conqueror",
    name: "Conqueror",
    tagline: "Captured pieces change sides instead of leaving the board.",
    provisional: false,
    intro: "Chess with one twist: nothing is ever captured for good. A captured piece joins the capturer's army, \
            so every exchange swings material twice.",
    sections: &[
        Section {
            heading: "Conversion",
            blocks: &[
                P(
                    "The game starts from the usual chess position with all chess rules (castling, en passant, free promotion, check, checkmate, stalemate), except for captures:",
                ),
                List(&[
                    "The capturing piece moves to the target square as usual, and the captured piece **changes to the capturer's colour and is put on the square the capturer came from** (decided: this is how the design's own prototype reads \"the piece changes sides where the capture happened\").",
                    "En passant: the capturing pawn moves to the en-passant square, and the passed pawn converts and goes to the capturing pawn's origin square.",
                    "Kings are royal and are never captured, so never converted (decided).",
                ]),
                Board(
                    Diagram::new("4r1k1/8/3p4/8/4N3/8/8/4K3", "White plays `e4d6`: the knight takes the pawn ...")
                        .arrows("e4d6"),
                ),
                Board(Diagram::new(
                    "4r1k1/8/3N4/8/4P3/8/8/4K3",
                    "... and the pawn, now white, lands on e4 and keeps blocking the rook's file.",
                )),
            ],
        },
        Section {
            heading: "Legality",
            blocks: &[List(&[
                "A move is legal only if your king is not attacked **after** the conversion is complete. The converted piece on the origin square can keep blocking a line, so some moves that look illegal to a chess player are fine:",
                "`4r1k1/8/3p4/8/4N3/8/8/4K3 w` - `e4d6`: the converted pawn lands on e4 and still shields the king on e1.",
                "`4k3/8/8/8/8/8/8/r3Kb2 w` - `e1f1`: the converted bishop lands on e1 and shields f1 from the rook.",
                "`7k/2p5/8/KP5r/8/8/8/8 b` - after `c7c5`, White may capture en passant with `b5c6`: the converted pawn lands on b5 and blocks the rook.",
            ])],
        },
        Section {
            heading: "Converted pieces",
            blocks: &[List(&[
                "A converted piece belongs to its new owner in every respect. A converted pawn moves in its new owner's direction.",
                "A pawn on its owner's second rank may make the two-square move; one that lands on its owner's first rank moves one square at a time; one that lands on its owner's last rank becomes a queen at once.",
                "Converted pieces carry no castling right.",
            ])],
        },
        Section {
            heading: "End of the game",
            blocks: &[List(&[
                "Checkmate wins.",
                "Right after a conversion, if the opponent has nothing left but the king, the converting player wins. This is judged first, even if the opponent would also be stalemated.",
                "Draws: stalemate, threefold repetition (conversions can undo each other: from `4k3/8/2n5/4n3/8/5N2/8/4K3 w`, `f3e5 c6e5 f3e5 c6e5` repeats the start), and 50 moves each (100 plies) without a conversion or pawn move.",
                "There is no insufficient-material draw.",
                "**Out of time** loses if the opponent could still win: by converting the last enemy piece (a bare king can, while you have a piece besides your king) or by mating; against a bare king the opponent needs mating material, as in chess. Otherwise it is a draw (decided).",
            ])],
        },
        COMMON_NOTATION,
        COMMON_END,
    ],
};

const CONQUEROR_GOLD: RuleBook = RuleBook {
    id: "conqueror-gold",
    name: "Conqueror Gold",
    tagline: "Chess Gold's economy with Conqueror's conversions: buy pieces, steal the enemy's.",
    provisional: false,
    intro: "Kings start alone, gold buys pieces as in Chess Gold, and captured pieces change sides as in Conqueror.",
    sections: &[
        Section {
            heading: "What applies",
            blocks: &[
                Board(
                    Diagram::new(
                        GOLD_START,
                        "The start of Chess Gold: lone kings, 3 gold each, placement zones shaded.",
                    )
                    .zones("a1:h3 a6:h8"),
                ),
                List(&[
                    "All rules of **Chess Gold**: start position, gold and income, the shop and its prices, placement zones, capture income, no castling.",
                    "The conversion rules of **Conqueror**: a captured piece changes colour and goes to the square the capturer came from; legality is judged after the conversion; converted pieces belong to their new owner in every respect.",
                    "Promotion follows Chess Gold: it costs 1 gold, and a pawn that reaches (or is put on) its owner's last rank waits there and is promoted later with `e8=Q`.",
                    "Kings are royal and never converted.",
                ]),
            ],
        },
        Section {
            heading: "No two placements in a row",
            blocks: &[P(
                "A player who placed a piece on their previous turn may not place on this turn. Promoting a waiting pawn is not a placement.",
            )],
        },
        Section {
            heading: "End of the game",
            blocks: &[List(&[
                "Checkmate wins.",
                "Right after a conversion, if the opponent has no piece left on the board but the king, the converting player wins, whatever gold the opponent holds. So a player whose only piece is captured loses at once: keep a second piece.",
                "At the very start both sides have only kings and nobody has won, because this win is judged only right after a conversion.",
                "Draws as in Chess Gold. The repetition position includes both players' gold and the placement bans.",
                "**Out of time** always loses: the opponent can always buy a win (decided).",
            ])],
        },
        COMMON_NOTATION,
        COMMON_END,
    ],
};

const ELECTRUM: RuleBook = RuleBook {
    id: "electrum",
    name: "Electrum Chess",
    tagline: "Charles Gilman's 9x9 game of Gold and Silver fairy pieces.",
    provisional: false,
    intro: "A 9x9 board and eight fairy pieces in two families, Gold and Silver. Forward means towards the opponent; \
            every piece captures the way it moves, and leaping moves cannot be blocked.",
    sections: &[
        Section {
            heading: "Setup",
            blocks: &[
                Board(Diagram::new("wcbskgmnr/ppppppppp/9/9/9/9/9/PPPPPPPPP/RNMGKSBCW", "Start: `wcbskgmnr/ppppppppp/9/9/9/9/9/PPPPPPPPP/RNMGKSBCW w Qk - 0 1`. Letters are this variant's own.").size(9, 9).letters()),
                P("Each player has the Gold pieces on their own left, as in Wildebeest Chess, so Black's array is White's turned half a circle, not mirrored (decided)."),
            ],
        },
        Section {
            heading: "The pieces",
            blocks: &[
                Table(&[
                    &["Piece", "Letter", "Family", "Moves"],
                    &["King", "K", "-", "One step in any direction."],
                    &["Pawn", "P", "-", "As in chess: two-step from its starting rank (2 for White, 8 for Black), en passant."],
                    &["Goldrook", "R", "Gold", "As a rook, or one step to either forward diagonal."],
                    &["Nitan", "N", "Gold", "As a knight, or the two narrow (1,3) leaps straight ahead on the neighbouring files."],
                    &["Goldmitre", "M", "Gold", "Slides along the two forward diagonals, or one orthogonal step."],
                    &["Goldrider", "G", "Gold", "Slides along the four orthogonals and the two forward diagonals."],
                    &["Silverrider", "S", "Silver", "Slides along the four diagonals and straight forward."],
                    &["Silverbishop", "B", "Silver", "As a bishop, or one step straight forward."],
                    &["Caman", "C", "Silver", "Camel (3,1) leaps, or the two narrow (1,2) leaps straight ahead on the neighbouring files."],
                    &["Silverwing", "W", "Silver", "Slides straight forward, or one step to any diagonal."],
                ]),
            ],
        },
        Section {
            heading: "Rules",
            blocks: &[
                List(&[
                    "Check, checkmate, stalemate, the pawn's two-step and en passant as in chess.",
                    "**Castling** only between the king and its Goldrook, like chess queenside castling: White king e1 to c1 with the rook a1 to d1; Black king e9 to g9 with the rook i9 to f9; the usual conditions apply. The only castling letters are `Q` (White) and `k` (Black); a position text with any other castling letter is refused.",
                    "**Promotion** is compulsory on the last rank and depends on the square: an enemy Gold piece's starting square gives a choice of the four Gold pieces (R N M G), an enemy Silver piece's the four Silver pieces (S B C W), the enemy king's square (e-file) any of the eight. So White promotes to Silver on files a-d and to Gold on f-i; Black the other way round.",
                    "Draws: stalemate, threefold repetition, 50 moves without a capture or pawn move, and king against king (decided: there is no other insufficient-material rule for fairy pieces).",
                    "**Out of time** loses, unless the opponent has only the king left: then it is a draw (decided).",
                ]),
            ],
        },
        COMMON_NOTATION,
        COMMON_END,
    ],
};

const CLASS_WARFARE: RuleBook = RuleBook {
    id: "class-warfare",
    name: "Class Warfare Chess",
    tagline: "Will Stedden's 8x4 uprising: eight pawns against the nobility, factories decide who may move.",
    provisional: false,
    intro: "The proletariat (eight black pawns) faces the bourgeoisie (White's pieces without pawns) on a board of 8 files \
            and 4 ranks. The pawns move first.",
    sections: &[
        Section {
            heading: "Setup",
            blocks: &[Board(
                Diagram::new(
                    "pppppppp/8/8/RNBQKBNR",
                    "Start: `pppppppp/8/8/RNBQKBNR b - - 0 1`. Rank 4 holds the factory squares (shaded).",
                )
                .size(8, 4)
                .zones("a4:h4"),
            )],
        },
        Section {
            heading: "The pawns",
            blocks: &[List(&[
                "Pawns step one square straight ahead (towards rank 1) onto an empty square, and capture one square diagonally ahead.",
                "No two-step, no en passant, no promotion.",
                "A pawn on rank 1 moves or captures one square sideways along rank 1 and never leaves it.",
            ])],
        },
        Section {
            heading: "Factories",
            blocks: &[List(&[
                "The factory squares are on rank 4: rooks a4 and h4, knights b4 and g4, bishops c4 and f4, queen d4 and e4.",
                "A piece type moves as in chess only while **both** of its factory squares are occupied (by any piece of either side). Otherwise every piece of that type moves like a white pawn: one step towards rank 4 onto an empty square, capturing one step diagonally towards rank 4, stuck once on rank 4.",
                "The king has no factory and always moves as a king. There is no castling.",
                "When a bourgeois piece captures a pawn, look at the factory square of that pawn's file after the capture: if it is empty, the pawn is not removed but put back on it; if it is occupied, the pawn is removed.",
            ])],
        },
        Section {
            heading: "End of the game",
            blocks: &[List(&[
                "There is no check. The proletariat wins by capturing the king.",
                "The bourgeoisie wins when the proletariat has no pawn left, or when the king is still alive once the proletariat has made 50 moves (the fullmove number of the position text counts them: 1 at the start, rising after each proletariat move; at 51 the game is over) (decided: the original only ends by the opponent's surrender, and a rated game needs an end).",
                "A side with no legal move on its turn loses. There is no draw.",
                "**Out of time** always loses (decided: there is no draw).",
            ])],
        },
        COMMON_NOTATION,
        COMMON_END,
    ],
};

const GRUNT: RuleBook = RuleBook {
    id: "grunt",
    name: "Grunt Chess",
    tagline: "Earn XP by capturing, then promote your pieces step by step and muster new Grunts.",
    provisional: false,
    intro: "An army that grows with experience. Captures earn XP; XP promotes pieces where they stand and musters \
            new Grunts next to the king.",
    sections: &[
        Section {
            heading: "Setup",
            blocks: &[
                Board(Diagram::new(
                    "1nbgkbn1/pppppppp/8/8/8/8/PPPPPPPP/1NBGKBN1",
                    "Start: `1nbgkbn1/pppppppp/8/8/8/8/PPPPPPPP/1NBGKBN1 w - - 0 1`. XP: White 0, Black 1.",
                )),
                List(&[
                    "The Grunt (G) stands on the queen's square and the rook squares are empty (decided). There is no castling.",
                    "White starts with 0 XP and Black with 1 (a komi for moving second). The position includes both players' XP.",
                ]),
            ],
        },
        Section {
            heading: "Pieces and a turn",
            blocks: &[List(&[
                "**Grunt**: moves one square straight forward or straight backward without capturing; captures one square diagonally in any of the four directions.",
                "Other pieces move as in chess; pawns have the two-step (\"charge\") and en passant (\"ambush\"). Only pawns capture en passant.",
                "A turn is one of: a move, a promotion, a muster. Each may give check or checkmate.",
            ])],
        },
        Section {
            heading: "XP",
            blocks: &[
                Table(&[
                    &["Captured piece", "XP for the capturer"],
                    &["Pawn", "2"],
                    &["Grunt", "2"],
                    &["Bishop", "3"],
                    &["Knight", "3"],
                    &["Rook", "4"],
                    &["Queen", "6"],
                ]),
                P(
                    "The player who lost the piece gains 1 XP as consolation. The captured piece counts by its type at that moment.",
                ),
            ],
        },
        Section {
            heading: "Promotion and muster",
            blocks: &[
                List(&[
                    "Promotion happens in place, anywhere on the board, one step per turn, never while in check: Pawn to Grunt for 3 XP; Grunt to Bishop or Knight for 6; Bishop or Knight to Rook for 6; Rook to Queen for 9 (`d4=G`, `d4=N`, ...).",
                    "Example: after `e2e4 d7d5 e4d5 e7e6 d5e6 f7e6` White has 5 XP and may play `a2=G`.",
                    "A pawn reaching the last rank does not promote for free: it stays there, unable to move, until it is promoted to a Grunt with XP (decided: a free promotion would bypass the XP economy).",
                    "**Muster**: for 5 XP, put a new Grunt on an empty square next to your own king (`G@e2`), only while you have fewer than 10 pieces on the board (king included). Allowed in check if the king is not in check afterwards.",
                ]),
                Board(Diagram::new(
                    "1nbgkbn1/pppppppp/8/8/8/8/PPPPPPPP/1NBGKBN1",
                    "A muster puts a Grunt on an empty square next to the own king; here none is free yet.",
                )),
            ],
        },
        Section {
            heading: "End of the game",
            blocks: &[List(&[
                "Checkmate wins.",
                "Draws: stalemate, threefold repetition, and 50 moves without a capture, a pawn move, a promotion or a muster (Grunt moves do not reset the count).",
                "There is no insufficient-material draw: a bare king with XP can muster.",
                "**Out of time** loses, unless only the two kings are left and neither side has the 5 XP a muster needs: then it is a draw (decided).",
            ])],
        },
        COMMON_NOTATION,
        COMMON_END,
    ],
};

const CHESSCEPTION: RuleBook = RuleBook {
    id: "chessception",
    name: "Chessception",
    tagline: "Pieces have hit points: attacks deal damage, auras shield and strengthen, bring the king to 0 HP.",
    provisional: false,
    intro: "Pieces move as in chess, but an attack deals damage instead of capturing outright. There is no check: \
            the game ends when a king reaches 0 HP.",
    sections: &[
        Section {
            heading: "Setup and hit points",
            blocks: &[
                Board(Diagram::new("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "The chess start position; every piece at full HP. Pieces next to their king start shielded.")),
                Table(&[
                    &["Piece", "HP", "Damage", "Area damage"],
                    &["Pawn", "2", "2", "none; counter-attacks for 2"],
                    &["Knight", "4", "2", "none; offensive aura"],
                    &["Bishop", "4", "2", "1 to each of the 4 squares diagonally next to the target (decided)"],
                    &["Rook", "4", "2", "1 to each of the 2 squares beside the target, across the line of the move (decided)"],
                    &["Queen", "4", "4", "2 to the 3-square cone beyond the target"],
                    &["King", "4", "2", "none; defensive aura"],
                ]),
            ],
        },
        Section {
            heading: "Attacks",
            blocks: &[
                P("Any move whose destination holds an enemy piece is an attack, and so is en passant (on the passed pawn). It is resolved in this order:"),
                List(&[
                    "Primary damage to the target.",
                    "Area damage, to enemy pieces only (decided).",
                    "Pawn counter-attacks: every pawn that lost at least 1 HP to this attack and survived deals 2 to the attacker, one after another.",
                    "Pieces at 0 HP are removed (HP never goes below 0).",
                    "The attacker lands: with only a direct kill, on the target's square; with exactly one area kill only, on that square; with two or more kill squares, the player chooses among them, target included, and the action says which (`d1d5/d5`, `d1d5/c6`); with no kill, back on its origin square. En passant always ends on the passed-over square. An attacker removed by counter-attacks does not land.",
                    "A king at 0 HP loses at once, even through its own attack. The whole sequence above still resolves in that action (decided): when the primary or area damage brings the enemy king to 0 HP, the surviving pawns still strike back, and an attacker they kill does not land, so such an attack has no landing choice. Only the final board changes, never the result.",
                ]),
                P("The queen's cone: moving straight, the square beyond the target and its two side neighbours; moving diagonally, the three squares beyond the target in the direction of the move, the diagonal one and the two orthogonal ones (decided)."),
                Board(Diagram::new("4k3/8/2ppp3/3n4/8/8/8/3QK3", "The queen attacks d5 straight up the file: 4 damage to the knight and 2 to each of c6, d6 and e6.").arrows("d1d5").dots("c6 d6 e6")),
            ],
        },
        Section {
            heading: "Auras and shields",
            blocks: &[
                List(&[
                    "Each damage instance is the base (or area) damage times 2 to the power of the attacker's stacks, then halved and rounded down if the receiving piece is shielded.",
                    "**Knight aura**: at the moment of an attack, the attacker has one stack per friendly knight within one square of its origin, a knight counting itself (decided: the aura is read from the position, not stored).",
                    "Counter-attacks deal 2, halved if the attacker is shielded. Shields count as they stood at the start of the ply.",
                    "**King aura**, fixed at the end of each ply (decided): a non-king piece standing next to its own king is shielded; a shielded piece that is not next to its king loses the shield if it moved in that ply (an attack that returned it to its square counts as moving) or if it also stood away from the king at the end of the previous ply. The king is always shielded. The start position counts as the end of a ply.",
                ]),
            ],
        },
        Section {
            heading: "Promotion and castling",
            blocks: &[
                List(&[
                    "Promotion is compulsory (decided: a pawn left on the last rank could never move again): to a type of which the player has fewer than at the start (1 queen, 2 rooks, 2 bishops, 2 knights), or to a queen if none is missing. The new piece has full HP. A pawn attack that does not kill leaves the pawn where it was, so it does not promote.",
                    "Castling needs an unmoved king and rook (an attack counts as a move even if the piece stayed), empty squares between them, and a king not attacked now; the squares crossed and landed on may be attacked. Castling involves no combat.",
                ]),
            ],
        },
        Section {
            heading: "End of the game",
            blocks: &[
                List(&[
                    "A king at 0 HP loses.",
                    "Draws: only the two kings left; 100 plies without a pawn move and without any HP lost; threefold repetition (the position includes every piece's HP and shield); 150 plies in all, that is 75 moves each (decided); a player whose last five moves were all king moves, the 1st, 3rd and 5th ending on the same square, with no HP lost by any piece since the first of them (decided); a side with no legal move on its turn.",
                    "**Out of time** always loses: even a lone king can still bring the enemy king to 0 HP (decided).",
                ]),
            ],
        },
        COMMON_NOTATION,
        COMMON_END,
    ],
};
