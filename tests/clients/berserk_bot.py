"""Drives the server with berserk, lichess's Python client, as a lichess program would: the
token test, a BOT upgrade, the online BOTs, a challenge with a random colour from a person to
the BOT, and the whole game played through the board API (the person, seeded random legal
moves) and the BOT API (the BOT, Debian's Stockfish through python-chess), followed by a
spectator stream and both event streams; then the accounts and the games as lichess programs
read them, a game against the computer from a position, a board seek pairing two people,
and an open challenge for two. Every move the
server reports is replayed by python-chess, which must find it legal and agree on the end.
Run by tests/api/lichess.rs; prints what it checked and exits 1 on the first mismatch. Its
last line is `game ID STATUS WINNER` for the BOT game.

Usage: berserk_bot.py BASE_URL HUMAN_NAME HUMAN_TOKEN BOT_NAME BOT_TOKEN OTHER_NAME OTHER_TOKEN
"""

import queue
import random
import shutil
import sys
import threading
import time
import traceback

import berserk
import chess
import chess.engine

BASE, HUMAN, HUMAN_TOKEN, BOT, BOT_TOKEN, OTHER, OTHER_TOKEN = sys.argv[1:8]
WAIT = 60
# The person resigns a game the engine has not won by then.
MAX_PLIES = 200


def client(token):
    return berserk.Client(berserk.TokenSession(token), base_url=BASE)


def check(ok, what):
    if not ok:
        print(f"FAILED: {what}", flush=True)
        sys.exit(1)
    print(f"ok: {what}", flush=True)


def events_of(api):
    """An account's event stream, read in the background into a queue."""
    q = queue.Queue()

    def read():
        for event in api.stream_incoming_events():
            q.put(event)

    threading.Thread(target=read, daemon=True).start()
    return q


def next_event(q, kind, game=None):
    """The next event of `kind` (about `game` when given), skipping the others."""
    deadline = time.monotonic() + WAIT
    while True:
        event = q.get(timeout=max(0.1, deadline - time.monotonic()))
        if event["type"] == kind and (game is None or event["game"]["id"] == game):
            return event


human, bot, other = client(HUMAN_TOKEN), client(BOT_TOKEN), client(OTHER_TOKEN)

tested = human.oauth.test_tokens(HUMAN_TOKEN, BOT_TOKEN, "cgp_not_a_token")
check(tested[HUMAN_TOKEN]["userId"] == HUMAN.lower(), "token test names the person")
check("bot:play" in tested[BOT_TOKEN]["scopes"], "token test lists the BOT token's scopes")
check(tested["cgp_not_a_token"] is None, "token test answers null for an unknown token")

check(bot.account.get().get("title") is None, "no title before the upgrade")
bot.account.upgrade_to_bot()
check(bot.account.get()["title"] == "BOT", "the account is a BOT after the upgrade")
check(bot.users.get_public_data(BOT)["title"] == "BOT", "its public data says BOT")

human_events = events_of(human.board)
bot_starts = queue.Queue()


def bot_events():
    """The BOT accepts the challenge and hands over the game."""
    for event in bot.bots.stream_incoming_events():
        if event["type"] == "challenge":
            bot.bots.accept_challenge(event["challenge"]["id"])
        elif event["type"] == "gameStart":
            bot_starts.put(event["game"])
            return


threading.Thread(target=bot_events, daemon=True).start()
deadline = time.monotonic() + WAIT
while BOT not in [u["username"] for u in bot.bots.get_online_bots(limit=50)] and time.monotonic() < deadline:
    time.sleep(0.05)
check(BOT in [u["username"] for u in bot.bots.get_online_bots(limit=50)], "the BOT is online while its event stream is open")

challenge = human.challenges.create(BOT, rated=False, clock_limit=180, clock_increment=2, color="random")
check(challenge["destUser"]["title"] == "BOT", "the challenge names a BOT")
check(challenge["color"] == "random" and challenge["finalColor"] in ("white", "black"),
      f"a random colour is drawn when the challenge is made: {challenge['finalColor']}")
game = bot_starts.get(timeout=WAIT)
human_color = challenge["finalColor"]
bot_color = "black" if human_color == "white" else "white"
check(game["color"] == bot_color and game["compat"]["bot"], f"the BOT plays {bot_color}, as the challenge drew")
check(game["source"] == "friend", "a challenge's game is a friend's game")
game_id = game["gameId"]
started = next_event(human_events, "gameStart", game_id)
check(started["game"]["color"] == human_color, "the person's event stream tells of the game, in the drawn colour")

# A spectator follows the game from its start.
watched = queue.Queue()


def watch():
    for line in human.games.stream_game_moves(game_id):
        watched.put(line)
    watched.put(None)


threading.Thread(target=watch, daemon=True).start()
first = watched.get(timeout=WAIT)
check(first["id"] == game_id and first["status"]["name"] == "started", "the spectator stream opens with the game")

ends = queue.Queue()
mismatches = []


def play(who, api, color, choose, greet):
    """Plays this side's moves as its turns come, until the game ends; every reported move is
    replayed on a python-chess board. A failure ends the side's play with its story."""
    try:
        play_on(who, api, color, choose, greet)
    except Exception as e:  # noqa: BLE001 - told to the main thread, which fails the run
        traceback.print_exc(file=sys.stdout)
        ends.put((who, "error", repr(e), None))


def play_on(who, api, color, choose, greet):
    greeted = False
    for event in api.stream_game_state(game_id):
        if event["type"] not in ("gameFull", "gameState"):
            continue  # chatLine, opponentGone
        state = event["state"] if event["type"] == "gameFull" else event
        board = chess.Board()
        for uci in state["moves"].split():
            move = chess.Move.from_uci(uci)
            if move not in board.legal_moves:
                mismatches.append(f"{who}: {uci} is not legal after {board.fen()}")
                ends.put((who, "illegal", None, board))
                return
            board.push(move)
        if state["status"] != "started":
            ends.put((who, state["status"], state.get("winner"), board))
            return
        if greet and len(board.move_stack) >= 2 and not greeted:
            api.post_message(game_id, "good luck", spectator=False)
            api.post_message(game_id, "hello, spectators", spectator=True)
            greeted = True
        if (board.turn == chess.WHITE) == (color == "white"):
            if who == "person" and len(board.move_stack) >= MAX_PLIES:
                api.resign_game(game_id)
            else:
                api.make_move(game_id, choose(board).uci())


rng = random.Random(18)
stockfish = shutil.which("stockfish") or "/usr/games/stockfish"
engine = chess.engine.SimpleEngine.popen_uci(stockfish)
threading.Thread(
    target=play,
    args=("person", human.board, human_color, lambda b: rng.choice(sorted(b.legal_moves, key=chess.Move.uci)), False),
    daemon=True,
).start()
threading.Thread(
    target=play,
    args=("bot", bot.bots, bot_color, lambda b: engine.play(b, chess.engine.Limit(depth=8)).move, True),
    daemon=True,
).start()
results = sorted([ends.get(timeout=300), ends.get(timeout=WAIT)], key=lambda r: r[0])
engine.quit()
check(all(r[1] != "error" for r in results), f"both sides played to the end: {results}")
check(not mismatches, f"python-chess finds every move legal: {mismatches}")
(_, status, winner, board), (_, status2, winner2, _) = results
check((status, winner) == (status2, winner2), f"both streams end alike: {results}")
outcome = board.outcome()
if status == "mate":
    check(outcome is not None and outcome.termination == chess.Termination.CHECKMATE
          and winner == ("white" if outcome.winner else "black"), f"python-chess sees the mate too: {board.fen()}")
elif status == "resign":
    check(winner == bot_color, "the person resigned a game the engine did not finish")
else:
    check(outcome is not None and winner is None, f"a drawn end python-chess sees: {status} {board.fen()}")
last_move = board.move_stack[-1].uci()
print(f"the game ended: {status}, winner {winner}, after {len(board.move_stack)} plies", flush=True)

lines = []
while (line := watched.get(timeout=WAIT)) is not None:
    lines.append(line)
check(lines[-1]["status"]["name"] == status and lines[-1].get("winner") == winner, "the spectator stream ends with the result")
moves_seen = [line["lm"] for line in lines[:-1]]
check(len(moves_seen) == len(board.move_stack) and moves_seen[-1] == last_move,
      f"the spectator saw every move, the last one too: {moves_seen[-3:]} vs {last_move}")
finished = next_event(human_events, "gameFinish", game_id)
check(finished["game"].get("winner") == winner, "the person's event stream tells of the end")
chat = human.board.get_game_chat(game_id)
check([(c["user"], c["text"]) for c in chat] == [(BOT, "good luck")], f"the players' room holds the BOT's line: {chat}")

# The accounts after the game, as lichess programs read them.
statuses = human.users.get_realtime_statuses(HUMAN, BOT, "nobody-here")
check([(s["name"], s["online"], s["playing"]) for s in statuses] == [(HUMAN, True, False), (BOT, True, False)],
      f"statuses: {statuses}")
check([u["username"] for u in human.users.get_by_id(BOT, HUMAN)] == [BOT, HUMAN], "users by id, in order")
history = human.users.get_rating_history(HUMAN)
check(all(h["points"] == [] for h in history), "no rating history after a casual game")
points = {HUMAN.lower(): 0, BOT.lower(): 0}
if winner is None:
    points = {k: 0.5 for k in points}
else:
    points[(HUMAN if winner == human_color else BOT).lower()] = 1
check(human.users.get_crosstable(HUMAN, BOT) == {"users": points, "nbGames": 1}, "the crosstable counts the game")
perf = human.users.get_user_performance(BOT, "blitz")
check(perf["stat"]["count"]["all"] == 1 and perf["perf"]["nb"] == 0, f"the BOT's blitz: a game, no rated one: {perf}")
check(human.users.get_by_autocomplete(BOT[:3]) == [BOT], "autocomplete finds the BOT")
found = human.users.get_by_autocomplete(BOT[:3], as_object=True)
check([(u["name"], u["title"]) for u in found] == [(BOT, "BOT")], f"autocomplete objects: {found}")

# The game as lichess programs export it.
listed = list(human.games.export_by_player(HUMAN, max=5))
check([g["id"] for g in listed] == [game_id], f"the person's games: {[g['id'] for g in listed]}")
check(listed[0]["moves"] == " ".join(m.uci() for m in board.move_stack) and listed[0]["perf"] == "blitz",
      "exported with its moves and speed")
current = list(human.games.export_ongoing_by_player(HUMAN))
check([g["id"] for g in current] == [game_id], "the person's current game, as JSON")
current_pgn = "".join(human.games.export_ongoing_by_player(HUMAN, as_pgn=True))
check(f'[GameId "{game_id}"]' in current_pgn and '[Variant "Standard"]' in current_pgn, "and as PGN")
check([g["id"] for g in human.games.export_multi(game_id)] == [game_id], "exported by id")
check(human.games.export(game_id)["status"] == status, "one game exported")
watched_after = list(human.games.stream_game_moves(game_id))
check(len(watched_after) == 1 and watched_after[0]["status"]["name"] == status,
      f"a finished game's spectator stream is its result: {watched_after}")

# The computer, from a position: its game starts and ends on the event stream, as any game does.
POSITION = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
ai = human.challenges.create_ai(level=1, clock_limit=300, clock_increment=3, color="white", position=POSITION)
check(ai["source"] == "ai" and ai["player"] == "white", f"a game against the computer: {ai}")
check(ai["fen"].split()[0] == POSITION.split()[0], f"from the position asked for: {ai['fen']}")
started = next_event(human_events, "gameStart", ai["id"])
check(started["game"]["source"] == "ai" and started["game"]["opponent"]["ai"] == 1, f"its gameStart: {started}")
human.board.make_move(ai["id"], "e2e4")
human.board.resign_game(ai["id"])
finished = next_event(human_events, "gameFinish", ai["id"])
check(finished["game"]["source"] == "ai" and finished["game"]["winner"] == "black", f"its gameFinish: {finished}")

# Two games now: lichess's PGN export keeps them apart, and berserk reads two.
pgns = list(human.games.export_by_player(HUMAN, as_pgn=True))
check(len(pgns) == 2 and all(p.startswith("[Event ") for p in pgns), f"two PGN games: {len(pgns)}")
check(last_move in pgns[1] and f'[GameId "{ai["id"]}"]' in pgns[0], "newest first, each with its id")
check(f'[FEN "{POSITION}"]' in pgns[0] and "[FEN " not in pgns[1], "the game from a position has its FEN tag")
by_ids = list(human.games.export_multi(game_id, ai["id"], as_pgn=True))
check(len(by_ids) == 2, f"two PGN games by id: {len(by_ids)}")

# A board seek pairs two people through quick pairing.
other_events = events_of(other.board)
seeks = [threading.Thread(target=c.board.seek, args=(3, 2), daemon=True) for c in (human, other)]
for s in seeks:
    s.start()
paired = next_event(human_events, "gameStart")
paired_other = next_event(other_events, "gameStart")
check(paired["game"]["id"] == paired_other["game"]["id"] and paired["game"]["source"] == "pool",
      f"the seeks met in quick pairing: {paired}")
check({paired["game"]["color"], paired_other["game"]["color"]} == {"white", "black"}, "one White, one Black")
for s in seeks:
    s.join(timeout=WAIT)
check(not any(s.is_alive() for s in seeks), "both seeks end once paired")
human.board.abort_game(paired["game"]["id"])
check(next_event(other_events, "gameFinish", paired["game"]["id"])["game"]["status"]["name"] == "aborted",
      "an aborted pairing ends on the other's stream")
# Lichess's open challenge: made for two, who accept it; here the maker takes the second seat.
opened = other.challenges.create_open(clock_limit=600, clock_increment=5)
check(opened["challenger"] is None and opened["urlWhite"].endswith("?color=white") and opened["urlBlack"],
      f"an open challenge for two, with its seats' links: {opened}")
human.challenges.accept(opened["id"])
other.challenges.accept(opened["id"])
a, b = next_event(human_events, "gameStart", opened["id"]), next_event(other_events, "gameStart", opened["id"])
check({a["game"]["color"], b["game"]["color"]} == {"white", "black"}, "the two who accepted play it")
human.board.abort_game(opened["id"])
print(f"game {game_id} {status} {winner or '-'}", flush=True)
