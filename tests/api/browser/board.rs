//! The board on pass-and-play pages: clicks, drags, typed actions and every variant's extras.

use super::*;

/// Chess Gold: buy a knight in the shop, place it, move both kings, drag a pawn from the shop;
/// the gold counters follow the rules (income +1 at the start of each turn, the knight costs 3,
/// the pawn 1) and the move list grows.
#[tokio::test]
async fn gold_buy_and_place_a_knight_then_move_the_kings() {
    let (_app, b, _permit) = session().await;
    b.open("/local/gold").await;
    b.wait_for("the shop", "document.querySelector('.cg-shop .shop-item[data-piece=\"N\"]') !== null").await;
    assert_eq!(b.gold("white").await, "4", "White starts with 3 gold plus the first turn's income");
    assert_eq!(b.gold("black").await, "3");
    assert!(b.text(".cg-player[data-color=\"white\"] .cg-gold").await.contains("+1"), "the income is shown");
    // The queen costs 8: unaffordable, dimmed and not clickable.
    let queen = b.find(r#".shop-item[data-piece="Q"]"#).await;
    assert!(queen.attr("class").await.expect("class").unwrap_or_default().contains("unaffordable"));
    assert!(!queen.is_enabled().await.expect("enabled state"));

    // Choose the knight: exactly the squares the server lists for N@.. light up.
    b.click(r#".shop-item[data-piece="N"]"#).await;
    let lit = b.marked("drop").await;
    let mut expected: Vec<String> =
        b.server_legal().await.iter().filter_map(|a| a.strip_prefix("N@").map(str::to_string)).collect();
    expected.sort();
    assert!(!expected.is_empty());
    assert_eq!(lit, expected, "lit squares are the server's legal placements");
    assert!(lit.contains(&"c3".to_string()));

    b.click_square("c3").await;
    b.wait_for(
        "the knight on c3",
        r#"document.querySelector('.piece[data-square="c3"][data-kind="knight"][data-color="white"]')"#,
    )
    .await;
    assert_eq!(b.gold("white").await, "1", "4 - 3 for the knight");
    assert_eq!(b.gold("black").await, "4", "Black's income for its turn");
    assert_eq!(b.move_list().await, ["N@c3"]);
    assert_eq!(b.marked("last").await, ["c3"]);

    b.click_move("e8", "d7").await;
    assert_eq!(b.piece_on("d7").await.as_deref(), Some("black king"));
    assert_eq!(b.gold("white").await, "2");
    assert_eq!(b.gold("black").await, "4");

    b.click_move("e1", "e2").await;
    assert_eq!(b.piece_on("e2").await.as_deref(), Some("white king"));
    assert_eq!(b.gold("white").await, "2");
    assert_eq!(b.gold("black").await, "5");
    assert_eq!(b.move_list().await, ["N@c3", "e8d7", "e1e2"]);

    // Black drags a pawn from the shop onto the board.
    b.drag(r#".shop-item[data-piece="P"]"#, r#".sq[data-square="e6"]"#).await;
    b.wait_for(
        "the dragged pawn",
        r#"document.querySelector('.piece[data-square="e6"][data-kind="pawn"][data-color="black"]')"#,
    )
    .await;
    assert_eq!(b.gold("black").await, "4");
    assert_eq!(b.gold("white").await, "3");
    assert_eq!(b.move_list().await, ["N@c3", "e8d7", "e1e2", "P@e6"]);
}

/// Standard chess: the fool's mate with mouse clicks ends in a banner that names the reason and
/// the winner; the checked king is marked and nothing more can be played.
#[tokio::test]
async fn standard_fools_mate_by_clicks_shows_the_game_over_banner() {
    let (_app, b, _permit) = session().await;
    b.open("/local/standard").await;

    // Legal destinations come from the server's list only.
    b.click_square("g1").await;
    assert_eq!(b.marked("dest").await, ["f3", "h3"]);
    b.click_square("g1").await;
    assert!(b.marked("dest").await.is_empty(), "a second click puts the knight down");

    b.click_move("f2", "f3").await;
    b.click_move("e7", "e5").await;
    b.click_move("g2", "g4").await;
    b.click_move("d8", "h4").await;

    // The banner's words, not its being shown: it fades in.
    b.wait_for(
        "the game-over banner",
        "(() => { const e = document.querySelector('.cg-banner'); const t = e.textContent; return !e.hidden && t.includes('Checkmate') && t.includes('Black wins') && t.includes('0\u{2013}1'); })()",
    )
    .await;
    b.wait_text("the result in the side panel", ".cg-result", &["Checkmate", "Black wins"]).await;
    assert_eq!(b.marked("check").await, ["e1"]);
    assert_eq!(b.marked("last").await, ["d8", "h4"]);
    assert_eq!(b.move_list().await, ["f2f3", "e7e5", "g2g4", "d8h4"]);
    assert!(b.marked("movable").await.is_empty(), "a finished game offers no action");

    // Looking back: the left arrow shows the position before the mate, End returns.
    b.press(Key::Left).await;
    b.wait_for(
        "the earlier position",
        "document.querySelector('.cg-status').textContent.includes('Viewing move 3 of 4')",
    )
    .await;
    assert_eq!(b.piece_on("d8").await.as_deref(), Some("black queen"));
    assert!(b.marked("check").await.is_empty());
    assert_eq!(b.move_list().await, ["f2f3", "e7e5", "g2g4", "d8h4"], "the whole game stays listed");
    b.press(Key::End).await;
    b.wait_for("the final position", "!document.querySelector('.cg-banner').hidden").await;
    assert_eq!(b.piece_on("h4").await.as_deref(), Some("black queen"));
}

/// Drag and drop, the typed-action box with the server's error, the promotion chooser, undo.
#[tokio::test]
async fn drag_and_drop_typed_actions_promotion_and_undo() {
    let (_app, b, _permit) = session().await;
    b.open("/local/standard").await;

    b.drag(r#".sq[data-square="e2"]"#, r#".sq[data-square="e4"]"#).await;
    b.wait_for("e2e4 by drag", "document.querySelector('#board-app').dataset.ply === '1'").await;
    assert_eq!(b.piece_on("e4").await.as_deref(), Some("white pawn"));
    assert_eq!(b.piece_on("e2").await, None);

    // A drop on a square that is not a legal destination plays nothing.
    b.drag(r#".sq[data-square="d7"]"#, r#".sq[data-square="d4"]"#).await;
    assert_eq!(b.ply().await, 1);
    assert_eq!(b.piece_on("d7").await.as_deref(), Some("black pawn"));

    b.type_action("e7e5").await;
    b.wait_for("e7e5 by typing", "document.querySelector('#board-app').dataset.ply === '2'").await;
    assert_eq!(b.piece_on("e5").await.as_deref(), Some("black pawn"));
    assert_eq!(b.find(".cg-typed input").await.prop("value").await.expect("value").as_deref(), Some(""));

    // An illegal typed action: the server's error is shown and nothing changes.
    b.type_action("e1e3").await;
    // The server's error names the action.
    b.wait_text("the server's error", ".cg-error", &["e1e3"]).await;
    assert_eq!(b.ply().await, 2);
    assert_eq!(b.move_list().await, ["e2e4", "e7e5"]);

    // A pawn reaches the last rank: the chooser offers the four pieces, queen first; pick the
    // knight.
    b.open("/local/standard#a2a4,b7b5,a4b5,a7a6,b5a6,c8b7,a6b7,b8c6").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '8'").await;
    b.click_square("b7").await;
    b.click_square("a8").await;
    let choices =
        b.js("return [...document.querySelectorAll('.cg-chooser .choice')].map(c => c.dataset.action);").await;
    assert_eq!(choices, json!(["b7a8q", "b7a8r", "b7a8b", "b7a8n"]));
    b.click(r#".cg-chooser .choice[data-action="b7a8n"]"#).await;
    b.wait_for("the promotion", "document.querySelector('#board-app').dataset.ply === '9'").await;
    assert_eq!(b.piece_on("a8").await.as_deref(), Some("white knight"));
    assert_eq!(b.move_list().await.last().map(String::as_str), Some("b7a8n"));

    // Undo replays one action fewer.
    b.click(r#".cg-controls [data-control="undo"]"#).await;
    b.wait_for("the undo", "document.querySelector('#board-app').dataset.ply === '8'").await;
    assert_eq!(b.piece_on("b7").await.as_deref(), Some("white pawn"));
    assert_eq!(b.piece_on("a8").await.as_deref(), Some("black rook"));
}

/// Flipping the board puts Black at the bottom; the mute switch is remembered across a reload.
#[tokio::test]
async fn flip_and_a_remembered_mute_switch() {
    let (_app, b, _permit) = session().await;
    b.open("/local/standard").await;
    let bottom_left = "return document.querySelector('.cg-squares').children[56].dataset.square;";
    assert_eq!(b.js(bottom_left).await, json!("a1"));
    b.click(r#".cg-controls [data-control="flip"]"#).await;
    assert_eq!(b.js(bottom_left).await, json!("h8"));
    assert_eq!(b.js("return document.querySelector('.cg-player.bottom').dataset.color;").await, json!("black"));

    b.click(r#".cg-controls [data-control="sound"]"#).await;
    assert_eq!(b.js("return localStorage.getItem('chessgold.muted');").await, json!("1"));
    b.open("/local/standard").await;
    assert_eq!(
        b.find(r#".cg-controls [data-control="sound"]"#)
            .await
            .attr("aria-pressed")
            .await
            .expect("attribute")
            .as_deref(),
        Some("true")
    );
}

/// Chess Gold: a pawn on the seventh rank may promote at once or stay and wait ("wait" in the
/// chooser, `a7a8`); the waiting pawn is marked and is promoted later in place (`a8=Q`, 1 gold).
#[tokio::test]
async fn gold_pawn_waits_on_the_last_rank_and_promotes_in_place() {
    let (_app, b, _permit) = session().await;
    b.open("/local/gold#P@a2,e8d8,a2a4,d8e8,a4a5,e8d8,a5a6,d8e8,a6a7,e8d8").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '10'").await;
    b.click_square("a7").await;
    b.click_square("a8").await;
    let choices =
        b.js("return [...document.querySelectorAll('.cg-chooser .choice')].map(c => c.dataset.action);").await;
    assert_eq!(choices, json!(["a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7a8"]));
    b.click(r#".cg-chooser .choice[data-action="a7a8"]"#).await;
    b.wait_for("the pawn to wait", "document.querySelector('#board-app').dataset.ply === '11'").await;
    assert_eq!(b.piece_on("a8").await.as_deref(), Some("white pawn"));
    assert!(
        b.find(r#".piece[data-square="a8"]"#)
            .await
            .attr("class")
            .await
            .expect("class")
            .unwrap_or_default()
            .contains("waiting")
    );

    b.click_move("d8", "e8").await;
    let gold_before: f64 = b.gold("white").await.parse().expect("gold is a number");
    b.click_square("a8").await;
    let choices =
        b.js("return [...document.querySelectorAll('.cg-chooser .choice')].map(c => c.dataset.action);").await;
    assert_eq!(choices, json!(["a8=Q", "a8=R", "a8=B", "a8=N"]));
    b.click(r#".cg-chooser .choice[data-action="a8=Q"]"#).await;
    b.wait_for("the promotion in place", "document.querySelector('#board-app').dataset.ply === '13'").await;
    assert_eq!(b.piece_on("a8").await.as_deref(), Some("white queen"));
    let gold_after: f64 = b.gold("white").await.parse().expect("gold is a number");
    assert_eq!(gold_after, gold_before - 1.0, "the promotion costs 1 gold");
    assert_eq!(b.move_list().await.last().map(String::as_str), Some("a8=Q"));
}

/// The board's notation module reads every action form of the rule books the same way the
/// server writes them (what it highlights, and what it offers from a legal list).
#[tokio::test]
async fn the_board_reads_every_action_form() {
    let (_app, b, _permit) = session().await;
    b.open("/local/standard").await;
    let result = b
        .client
        .execute_async(
            r#"const done = arguments[arguments.length - 1];
            import("/static/js/notation.js").then((n) => {
              const forms = ["e2e4", "e7e8q", "e7e8", "e1g1", "N@c3", "e8=Q", "d4=N", "crossbow@d4", "crown@d4=R", "d1d5/c6", "i9f9", "E2E4", "n@c3x", ""];
              const parsed = Object.fromEntries(forms.map((f) => [f, n.parseAction(f)]));
              const lit = Object.fromEntries(forms.map((f) => [f, n.highlightSquares(f)]));
              const index = new n.LegalIndex(["e7e8", "e7e8q", "e7e8n", "N@c3", "N@d3", "a8=Q", "d1d5/c6", "d1d5/d5", "crossbow@d4"]);
              done({
                parsed, lit,
                dests: index.destinations("e7"),
                promos: index.movesBetween("e7", "e8").map((m) => m.text),
                drops: index.drops.get("N"),
                inPlace: index.promotions.get("a8").map((p) => p.text),
                landings: index.movesBetween("d1", "d5").map((m) => m.landing),
                equips: index.equips.map((e) => e.text),
                canAct: [index.canAct("a8"), index.canAct("e7"), index.canAct("c3")],
              });
            }).catch((e) => done(String(e)));"#,
            vec![],
        )
        .await
        .expect("the notation module runs");
    assert_eq!(
        result["parsed"]["e2e4"],
        json!({"type": "move", "from": "e2", "to": "e4", "promo": null, "landing": null, "text": "e2e4"})
    );
    assert_eq!(result["parsed"]["e7e8q"]["promo"], "q");
    assert_eq!(result["parsed"]["e7e8"]["promo"], Value::Null);
    assert_eq!(result["parsed"]["N@c3"], json!({"type": "drop", "letter": "N", "square": "c3", "text": "N@c3"}));
    assert_eq!(result["parsed"]["e8=Q"], json!({"type": "promote", "square": "e8", "letter": "Q", "text": "e8=Q"}));
    assert_eq!(result["parsed"]["crown@d4=R"]["type"], "equip");
    assert_eq!(result["parsed"]["crown@d4=R"]["letter"], "R");
    assert_eq!(result["parsed"]["d1d5/c6"]["landing"], "c6");
    assert_eq!(result["parsed"]["i9f9"]["from"], "i9");
    for bad in ["E2E4", "n@c3x", ""] {
        assert_eq!(result["parsed"][bad], Value::Null, "{bad} is no action");
    }
    assert_eq!(result["lit"]["e1g1"], json!(["e1", "g1"]));
    assert_eq!(result["lit"]["N@c3"], json!(["c3"]));
    assert_eq!(result["lit"]["e8=Q"], json!(["e8"]));
    assert_eq!(result["lit"]["d1d5/c6"], json!(["d1", "d5", "c6"]));
    assert_eq!(result["dests"], json!(["e8"]));
    assert_eq!(result["promos"], json!(["e7e8", "e7e8q", "e7e8n"]));
    assert_eq!(result["drops"], json!(["c3", "d3"]));
    assert_eq!(result["inPlace"], json!(["a8=Q"]));
    assert_eq!(result["landings"], json!(["c6", "d5"]));
    assert_eq!(result["equips"], json!(["crossbow@d4"]));
    assert_eq!(result["canAct"], json!([true, true, false]));
}

/// Loot boxes: the box the server spawned is drawn on its square with its hits; a knight hits it
/// three times and opens it; the contents go to the inventory shown in the player bar; the item
/// is equipped by clicking it and then the lit piece, and the piece wears its badge. (The address
/// gives the game seed 0, whose first box stands on a4 and holds a crossbow.)
#[tokio::test]
async fn lootbox_open_a_box_and_equip_what_it_held() {
    let (_app, b, _permit) = session().await;
    b.open("/local/lootbox?seed=0#N@b1,e8e7,e1e2,e7e6,e2e1,e6e7,b1a3,e7e6").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '8'").await;
    let boxes = b.js("return window.chessgold.state.boxes;").await;
    assert_eq!(boxes, json!([{"square": "a4", "hits": 1}]), "seed 0's first box, hit once by b1a3");
    b.wait_for("the box on a4", r#"document.querySelector('.cg-objects .loot-box[data-square="a4"]')"#).await;
    let title = b.find(r#".loot-box[data-square="a4"]"#).await.attr("title").await.expect("title").unwrap_or_default();
    assert!(title.contains("1 of 3"), "the hits are shown: {title}");

    b.click_move("a3", "b5").await;
    b.click_move("e6", "e7").await;
    b.click_move("b5", "a3").await;
    let opened = b.text(".cg-loot-opened").await;
    assert!(opened.contains("White opened the box on a4") && opened.contains("Crossbow"), "opened: {opened}");
    assert!(b.marked("drop").await.is_empty());
    assert_eq!(b.js("return document.querySelectorAll('.cg-objects .loot-box').length;").await, json!(0));
    let inventory = b.find(r#".cg-inventory[data-owner="white"]"#).await.html(true).await.expect("html");
    assert!(inventory.contains("Crossbow"), "the crossbow is in White's inventory: {inventory}");

    b.click_move("e7", "e6").await;
    let gold_before: f64 = b.gold("white").await.parse().expect("gold is a number");
    b.click(r#".cg-equip button[data-item="crossbow"]"#).await;
    let mut expected: Vec<String> =
        serde_json::from_value::<Vec<String>>(b.js("return window.chessgold.state.equips;").await)
            .expect("equips")
            .iter()
            .filter_map(|e| e.strip_prefix("crossbow@").map(str::to_string))
            .collect();
    expected.sort();
    assert_eq!(b.marked("drop").await, expected, "lit pieces are the server's legal equips");
    b.click_square("a3").await;
    b.wait_for("the equip", "document.querySelector('#board-app').dataset.ply === '13'").await;
    b.wait_for(
        "the badge",
        r#"document.querySelector('.piece[data-square="a3"] .cg-item-badge[data-item="crossbow"]')"#,
    )
    .await;
    let gold_after: f64 = b.gold("white").await.parse().expect("gold is a number");
    assert_eq!(gold_after, gold_before - 2.0, "a crossbow costs 2 gold to equip");
    assert_eq!(
        b.js("return document.querySelector('#board-app').dataset.side;").await,
        json!("white"),
        "an equip is not a turn"
    );
    let last_cell = b.js("return [...document.querySelectorAll('.cg-moves .move')].at(-1).textContent;").await;
    assert_eq!(last_cell, json!("crossbow@a3"));
}

/// The actions of the open chooser, in order.
async fn chooser_actions(b: &Browser) -> Vec<String> {
    let v = b.js("return [...document.querySelectorAll('.cg-chooser .choice')].map(c => c.dataset.action);").await;
    serde_json::from_value(v).expect("a list of actions")
}

/// The names the open chooser shows on its choices, in order.
async fn chooser_names(b: &Browser) -> Vec<String> {
    let v = b
        .js("return [...document.querySelectorAll('.cg-chooser .choice')].map(c => c.querySelector('.name')?.textContent ?? '');")
        .await;
    serde_json::from_value(v).expect("a list of names")
}

/// Electrum Chess: the 9x9 board with its coordinates; a pawn reaching the last rank on a square
/// where an enemy Silver piece started is offered the four Silver pieces by name (on a Gold
/// piece's square the four Gold pieces, on the king's square all eight); the chosen one appears.
#[tokio::test]
async fn electrum_promotion_chooser_offers_the_squares_pieces_by_name() {
    let (_app, b, _permit) = session().await;
    b.open("/local/electrum#h2h4,a8a7,h4h5,a7a6,h5h6,a6a5,h6h7,a5a4,h7i8,b8b7").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '10'").await;
    assert_eq!(b.js("return document.querySelectorAll('.cg-squares .sq').length;").await, json!(81));
    assert_eq!(b.js("return document.querySelector('.cg-squares').children[72].dataset.square;").await, json!("a1"));
    assert_eq!(b.js("return document.querySelector('.cg-squares').children[8].dataset.square;").await, json!("i9"));
    let coords =
        b.js("return [...document.querySelectorAll('.cg-board .coord.file')].map(c => c.textContent).join('');").await;
    assert_eq!(coords, json!("abcdefghi"));
    let ranks =
        b.js("return [...document.querySelectorAll('.cg-board .coord.rank')].map(c => c.textContent).join('');").await;
    assert_eq!(ranks, json!("987654321"));
    let shape = b
        .js("const r = document.querySelector('.cg-board').getBoundingClientRect(); return Math.abs(r.width - r.height) < 2;")
        .await;
    assert_eq!(shape, json!(true), "the 9x9 board is square");
    assert_eq!(b.piece_on("e9").await.as_deref(), Some("black king"));
    assert_eq!(b.piece_on("h9").await.as_deref(), Some("black nitan"));

    // h9 is the square of Black's Nitan, a Gold piece: the four Gold pieces, named.
    b.click_square("i8").await;
    b.click_square("h9").await;
    let mut gold = chooser_actions(&b).await;
    let mut names = chooser_names(&b).await;
    gold.sort();
    names.sort();
    assert_eq!(gold, ["i8h9g", "i8h9m", "i8h9n", "i8h9r"]);
    assert_eq!(names, ["Goldmitre", "Goldrider", "Goldrook", "Nitan"]);
    b.press(Key::Escape).await;
    assert!(chooser_actions(&b).await.is_empty(), "Escape closes the chooser");
    assert_eq!(b.ply().await, 10);

    // e9 is the enemy king's square: all eight pieces.
    b.open("/local/electrum#c2c4,e8e6,c4c5,e9e8,c5c6,e8e7,c6c7,f9e9,c7d8,a8a7").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '10'").await;
    b.click_square("d8").await;
    b.click_square("e9").await;
    let mut names = chooser_names(&b).await;
    names.sort();
    assert_eq!(
        names,
        ["Caman", "Goldmitre", "Goldrider", "Goldrook", "Nitan", "Silverbishop", "Silverrider", "Silverwing"]
    );

    // b9 is the square of Black's Caman, a Silver piece: the four Silver pieces.
    b.open("/local/electrum#b2b4,i8i7,b4b5,i7i6,b5b6,i6i5,b6b7,i5i4,b7a8,h8h7").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '10'").await;
    b.click_square("a8").await;
    b.click_square("b9").await;
    let mut silver = chooser_actions(&b).await;
    silver.sort();
    let mut expected: Vec<String> = b.server_legal().await.into_iter().filter(|a| a.starts_with("a8b9")).collect();
    expected.sort();
    assert_eq!(silver, expected, "the chooser offers exactly the server's choices");
    assert_eq!(silver, ["a8b9b", "a8b9c", "a8b9s", "a8b9w"]);
    let mut names = chooser_names(&b).await;
    names.sort();
    assert_eq!(names, ["Caman", "Silverbishop", "Silverrider", "Silverwing"]);
    let kinds = b
        .js("return [...document.querySelectorAll('.cg-chooser .choice .choice-piece')].map(p => p.dataset.kind).sort();")
        .await;
    assert_eq!(kinds, json!(["caman", "silverbishop", "silverrider", "silverwing"]));
    b.click(r#".cg-chooser .choice[data-action="a8b9c"]"#).await;
    b.wait_for("the promotion", "document.querySelector('#board-app').dataset.ply === '11'").await;
    assert_eq!(b.piece_on("b9").await.as_deref(), Some("white caman"));
    assert_eq!(b.move_list().await.last().map(String::as_str), Some("a8b9c"));
}

/// Class Warfare Chess: the 8x4 board, Black (the proletariat) first with 50 moves left; every
/// factory runs at the start; when a4 empties the rook factory's markers on a4 and h4 turn to
/// stopped, the rooks wear the pawn badge and move like pawns, and the moves left count down.
#[tokio::test]
async fn class_warfare_factory_empties_and_its_markers_change() {
    let (_app, b, _permit) = session().await;
    b.open("/local/class-warfare").await;
    assert_eq!(b.js("return document.querySelectorAll('.cg-squares .sq').length;").await, json!(32));
    let shape =
        b.js("const r = document.querySelector('.cg-board').getBoundingClientRect(); return r.width / r.height;").await;
    let ratio = shape.as_f64().expect("a ratio");
    assert!((ratio - 2.0).abs() < 0.02, "the 8x4 board is twice as wide as high: {ratio}");
    assert_eq!(b.js("return document.querySelector('#board-app').dataset.side;").await, json!("black"));
    assert_eq!(b.text(r#".cg-moves-left[data-owner="black"]"#).await, "50 moves left");
    let markers = "return [...document.querySelectorAll('.cg-objects .factory')].map(f => f.dataset.square + ':' + f.dataset.piece + ':' + (f.classList.contains('running') ? 'running' : 'stopped')).sort();";
    assert_eq!(
        b.js(markers).await,
        json!([
            "a4:R:running",
            "b4:N:running",
            "c4:B:running",
            "d4:Q:running",
            "e4:Q:running",
            "f4:B:running",
            "g4:N:running",
            "h4:R:running"
        ])
    );
    assert_eq!(b.js("return document.querySelectorAll('.piece .cg-stopped').length;").await, json!(0));

    b.click_move("a4", "a3").await;
    assert_eq!(
        b.js(markers).await,
        json!([
            "a4:R:stopped",
            "b4:N:running",
            "c4:B:running",
            "d4:Q:running",
            "e4:Q:running",
            "f4:B:running",
            "g4:N:running",
            "h4:R:stopped"
        ])
    );
    let badges = b.js("return [...document.querySelectorAll('.piece .cg-stopped')].map(s => s.parentElement.dataset.square).sort();").await;
    assert_eq!(badges, json!(["a1", "h1"]), "the rooks move like pawns now");
    let list = b.js("return [...document.querySelectorAll('.cg-factory-list li')].map(l => l.dataset.piece + ':' + l.className);").await;
    assert_eq!(list, json!(["R:stopped", "N:running", "B:running", "Q:running"]));
    assert_eq!(b.text(r#".cg-moves-left[data-owner="black"]"#).await, "49 moves left");

    // The rook on h1 only has the pawn step the server allows.
    b.click_square("h1").await;
    assert_eq!(b.marked("dest").await, ["h2"]);
    b.click_square("h2").await;
    b.wait_for("h1h2 to be played", "document.querySelector('#board-app').dataset.ply === '2'").await;
    assert_eq!(b.piece_on("h2").await.as_deref(), Some("white rook"));
}

/// Grunt Chess: the XP counters start at 0 and 1 (Black's komi, marked); a capture earns the
/// capturer 2 XP and the loser 1; after the rule book's example White has 5 XP, clicks a pawn
/// and promotes it in place to a Grunt from the chooser (3 XP shown); with fewer than 10 pieces
/// the muster control lights the squares next to the king and a click musters a Grunt for 5 XP.
#[tokio::test]
async fn grunt_xp_counters_promotion_in_place_and_muster() {
    let (_app, b, _permit) = session().await;
    b.open("/local/grunt").await;
    b.wait_for("the XP counters", r#"document.querySelector('[data-xp="white"]')"#).await;
    assert_eq!(b.text(r#"[data-xp="white"]"#).await, "0");
    assert_eq!(b.text(r#"[data-xp="black"]"#).await, "1");
    assert_eq!(b.text(r#".cg-xp[data-owner="black"] .komi"#).await, "komi +1");

    b.click_move("e2", "e4").await;
    b.click_move("d7", "d5").await;
    b.click_move("e4", "d5").await;
    assert_eq!(b.text(r#"[data-xp="white"]"#).await, "2", "a pawn captured earns 2");
    assert_eq!(b.text(r#"[data-xp="black"]"#).await, "2", "1 komi + 1 consolation");
    assert_eq!(
        b.js(r#"return document.querySelector('.cg-xp[data-owner="black"] .komi').textContent;"#).await,
        json!("")
    );
    b.click_move("e7", "e6").await;
    b.click_move("d5", "e6").await;
    b.click_move("f7", "e6").await;
    assert_eq!(b.text(r#"[data-xp="white"]"#).await, "5");
    assert_eq!(b.text(r#"[data-xp="black"]"#).await, "5");

    // Promotion in place: the pawn's chooser holds its next rung with the cost.
    assert!(b.find(r#".piece[data-square="a2"] .cg-rung"#).await.is_displayed().await.expect("displayed"));
    b.click_square("a2").await;
    assert_eq!(chooser_actions(&b).await, ["a2=G"]);
    let note = b.text(r#".cg-chooser .choice[data-action="a2=G"] .note"#).await;
    assert_eq!(note, "3 XP");
    let panel = b.text(".cg-promote-now").await;
    assert!(panel.contains("Grunt") && panel.contains("3 XP"), "the side panel offers it too: {panel}");
    b.click(r#".cg-chooser .choice[data-action="a2=G"]"#).await;
    b.wait_for("the promotion in place", "document.querySelector('#board-app').dataset.ply === '7'").await;
    assert_eq!(b.piece_on("a2").await.as_deref(), Some("white grunt"));
    assert_eq!(b.text(r#"[data-xp="white"]"#).await, "2", "5 - 3 for the promotion");
    assert_eq!(b.move_list().await.last().map(String::as_str), Some("a2=G"));

    // Muster: White has 9 pieces and 5 XP.
    b.open("/local/grunt#b1a3,e7e5,g2g3,f8a3,f2f4,e5f4,b2b4,a3b4,f1g2,b4d2,e1f2,d2c1").await;
    b.wait_for("the game in the address", "document.querySelector('#board-app').dataset.ply === '12'").await;
    let button = b.find(r#".cg-muster button[data-piece="G"]"#).await;
    assert!(button.is_enabled().await.expect("enabled state"));
    assert!(button.text().await.expect("text").contains("5 XP"));
    button.click().await.expect("muster clicked");
    let mut expected: Vec<String> =
        b.server_legal().await.iter().filter_map(|a| a.strip_prefix("G@").map(str::to_string)).collect();
    expected.sort();
    assert_eq!(expected, ["e1", "e3", "f1", "f3"]);
    assert_eq!(b.marked("drop").await, expected, "lit squares are the server's musters");
    b.click_square("e3").await;
    b.wait_for("the muster", "document.querySelector('#board-app').dataset.ply === '13'").await;
    assert_eq!(b.piece_on("e3").await.as_deref(), Some("white grunt"));
    assert_eq!(b.text(r#"[data-xp="white"]"#).await, "0");
    assert_eq!(b.move_list().await.last().map(String::as_str), Some("G@e3"));
}

/// Chessception: every piece carries its HP bar (kings and their neighbours a shield); the
/// bishop's attack from f1 (doubled by the knight on g1) kills the knight on a6 and, by area
/// damage, the pawn on b7, so the player picks the landing among the lit squares; the damage
/// numbers float over both squares; a later attack that does not kill leaves a shorter bar.
#[tokio::test]
async fn chessception_hp_bars_damage_numbers_and_a_landing_chosen_by_click() {
    let (_app, b, _permit) = session().await;
    b.open("/local/chessception").await;
    b.wait_for("the HP bars", "document.querySelectorAll('.piece .cg-hp').length === 32").await;
    let bar = |sq: &str| {
        format!(
            r#"return (() => {{ const h = document.querySelector('.piece[data-square="{sq}"] .cg-hp'); return h ? h.dataset.hp + '/' + h.dataset.max + ':' + h.querySelectorAll('.seg.on').length : null; }})();"#
        )
    };
    assert_eq!(b.js(&bar("a2")).await, json!("2/2:2"));
    assert_eq!(b.js(&bar("b8")).await, json!("4/4:4"));
    let shields = b.js("return [...document.querySelectorAll('.piece .cg-shield')].map(s => s.parentElement.dataset.square).sort();").await;
    assert_eq!(shields, json!(["d1", "d2", "d7", "d8", "e1", "e2", "e7", "e8", "f1", "f2", "f7", "f8"]));
    assert_eq!(b.text(r#"[data-king-hp="white"]"#).await, "4/4");

    b.click_move("e2", "e4").await;
    b.click_move("b8", "a6").await;
    b.click_square("f1").await;
    b.click_square("a6").await;
    assert_eq!(b.ply().await, 2, "nothing is played before the landing is chosen");
    assert_eq!(b.marked("drop").await, ["a6", "b7"], "the kill squares are lit");
    assert_eq!(b.marked("pending").await, ["a6", "f1"]);
    assert!(b.text(".cg-hint").await.contains("lands"));
    b.click_square("b7").await;
    b.wait_for("the attack", "document.querySelector('#board-app').dataset.ply === '3'").await;
    assert_eq!(b.move_list().await.last().map(String::as_str), Some("f1a6/b7"));
    assert_eq!(b.piece_on("b7").await.as_deref(), Some("white bishop"));
    assert_eq!(b.piece_on("a6").await, None);
    assert_eq!(b.piece_on("f1").await, None);
    let floats = "return [...document.querySelectorAll('.cg-floats .cg-float')].map(f => f.dataset.square + ' ' + f.textContent.trim()).sort();";
    assert_eq!(b.js(floats).await, json!(["a6 \u{2212}4", "b7 \u{2212}2"]));
    let combat = b.text(".cg-combat-last").await;
    assert!(combat.contains("a6 \u{2212}4 (killed)") && combat.contains("\u{2212}2 (killed)"), "combat: {combat}");
    assert_eq!(b.js(&bar("b7")).await, json!("4/4:4"), "the landed bishop is unhurt");
    assert_eq!(b.marked("drop").await, Vec::<String>::new());

    // Black's bishop attacks it: 2 damage, no kill, the attacker stays on c8.
    b.click_move("c8", "b7").await;
    assert_eq!(b.piece_on("c8").await.as_deref(), Some("black bishop"));
    assert_eq!(b.piece_on("b7").await.as_deref(), Some("white bishop"));
    assert_eq!(b.js(&bar("b7")).await, json!("2/4:2"));
    assert_eq!(b.js(floats).await, json!(["b7 \u{2212}2"]));
}
