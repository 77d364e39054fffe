"""Drives the server with berserk, lichess's Python client, as a lichess program would: the
token test, a BOT upgrade, the online BOTs, a challenge from a person to the BOT, and the whole
game played through the board API (the person) and the BOT API (the BOT), with chat in both
rooms. Run by tests/api/clients.rs; prints what it checked and exits 1 on the first mismatch.

Usage: berserk_bot.py BASE_URL HUMAN_NAME HUMAN_TOKEN BOT_NAME BOT_TOKEN
"""

import queue
import sys
import threading
import time

import berserk

BASE, HUMAN, HUMAN_TOKEN, BOT, BOT_TOKEN = sys.argv[1:6]
# Fool's mate: the person (White) blunders, the BOT (Black) mates.
LINE = ["f2f3", "e7e5", "g2g4", "d8h4"]
WAIT = 30


def client(token):
    return berserk.Client(berserk.TokenSession(token), base_url=BASE)


def check(ok, what):
    if not ok:
        print(f"FAILED: {what}", flush=True)
        sys.exit(1)
    print(f"ok: {what}", flush=True)


human, bot = client(HUMAN_TOKEN), client(BOT_TOKEN)

tested = human.oauth.test_tokens(HUMAN_TOKEN, BOT_TOKEN, "cgp_not_a_token")
check(tested[HUMAN_TOKEN]["userId"] == HUMAN.lower(), "token test names the person")
check("bot:play" in tested[BOT_TOKEN]["scopes"], "token test lists the BOT token's scopes")
check(tested["cgp_not_a_token"] is None, "token test answers null for an unknown token")

check(bot.account.get().get("title") is None, "no title before the upgrade")
bot.account.upgrade_to_bot()
check(bot.account.get()["title"] == "BOT", "the account is a BOT after the upgrade")
check(bot.users.get_public_data(BOT)["title"] == "BOT", "its public data says BOT")

# The BOT's event stream: accept the challenge, hand over the game.
games = queue.Queue()


def bot_events():
    for event in bot.bots.stream_incoming_events():
        if event["type"] == "challenge":
            bot.bots.accept_challenge(event["challenge"]["id"])
        elif event["type"] == "gameStart":
            games.put(event["game"])
            return


threading.Thread(target=bot_events, daemon=True).start()
deadline = time.monotonic() + WAIT
while BOT not in [u["username"] for u in bot.bots.get_online_bots(limit=50)] and time.monotonic() < deadline:
    time.sleep(0.05)
check(BOT in [u["username"] for u in bot.bots.get_online_bots(limit=50)], "the BOT is online while its event stream is open")

challenge = human.challenges.create(BOT, rated=False, clock_limit=180, clock_increment=2, color="white")
check(challenge["destUser"]["title"] == "BOT", "the challenge names a BOT")
game = games.get(timeout=WAIT)
check(game["color"] == "black" and game["compat"]["bot"], "the BOT plays Black, a game the BOT API can play")
game_id = game["gameId"]

ends = queue.Queue()


def play(who, api, color_index, greet):
    """Plays this side's moves of LINE as its turns come, until the game ends."""
    greeted = False
    for event in api.stream_game_state(game_id):
        if event["type"] not in ("gameFull", "gameState"):
            continue  # chatLine, opponentGone
        state = event["state"] if event["type"] == "gameFull" else event
        if state["status"] != "started":
            ends.put((who, state["status"], state.get("winner")))
            return
        moves = state["moves"].split()
        if greet and len(moves) >= 2 and not greeted:
            api.post_message(game_id, "good luck", spectator=False)
            api.post_message(game_id, "hello, spectators", spectator=True)
            greeted = True
        if len(moves) < len(LINE) and len(moves) % 2 == color_index:
            api.make_move(game_id, LINE[len(moves)])


threading.Thread(target=play, args=("person", human.board, 0, False), daemon=True).start()
threading.Thread(target=play, args=("bot", bot.bots, 1, True), daemon=True).start()
results = sorted([ends.get(timeout=WAIT), ends.get(timeout=WAIT)])
check(results == [("bot", "mate", "black"), ("person", "mate", "black")], f"both streams end in Black's mate: {results}")
chat = human.board.get_game_chat(game_id)
check([(c["user"], c["text"]) for c in chat] == [(BOT, "good luck")], f"the players' room holds the BOT's line: {chat}")

# The accounts after the game, as lichess programs read them.
statuses = human.users.get_realtime_statuses(HUMAN, BOT, "nobody-here")
check([(s["name"], s["online"], s["playing"]) for s in statuses] == [(HUMAN, True, False), (BOT, True, False)],
      f"statuses: {statuses}")
check([u["username"] for u in human.users.get_by_id(BOT, HUMAN)] == [BOT, HUMAN], "users by id, in order")
history = human.users.get_rating_history(HUMAN)
check(all(h["points"] == [] for h in history), "no rating history after a casual game")
check(human.users.get_crosstable(HUMAN, BOT) == {"users": {HUMAN.lower(): 0, BOT.lower(): 1}, "nbGames": 1},
      "the crosstable counts the BOT's win")
perf = human.users.get_user_performance(BOT, "blitz")
check(perf["stat"]["count"]["win"] == 1 and perf["perf"]["nb"] == 0, f"the BOT's blitz: a win, no rated game: {perf}")
check(human.users.get_by_autocomplete(BOT[:3]) == [BOT], "autocomplete finds the BOT")
found = human.users.get_by_autocomplete(BOT[:3], as_object=True)
check([(u["name"], u["title"]) for u in found] == [(BOT, "BOT")], f"autocomplete objects: {found}")

# The game as lichess programs export and follow it.
listed = list(human.games.export_by_player(HUMAN, max=5))
check([g["id"] for g in listed] == [game_id], f"the person's games: {[g['id'] for g in listed]}")
check(listed[0]["moves"] == " ".join(LINE) and listed[0]["perf"] == "blitz", "exported with its moves and speed")
pgn = "".join(human.games.export_by_player(HUMAN, as_pgn=True))
check(pgn.startswith("[Event ") and "d8h4" in pgn, "exported as PGN")
check([g["id"] for g in human.games.export_multi(game_id)] == [game_id], "exported by id")
check(human.games.export(game_id)["status"] == "mate", "one game exported")
watched = list(human.games.stream_game_moves(game_id))
check(len(watched) == 1 and watched[0]["status"]["name"] == "mate" and watched[0]["winner"] == "black",
      f"a finished game's spectator stream is its result: {watched}")
ai = human.challenges.create_ai(level=1, clock_limit=300, clock_increment=3, color="white")
check(ai["source"] == "ai" and ai["player"] == "white", f"a game against the computer: {ai}")
print(f"game {game_id}", flush=True)
