// Live notifications on every page of a logged-in player: reads the account's event stream
// (GET /api/stream/event, NDJSON, the same one API clients read) and shows incoming challenges
// with Accept / Decline; on a challenge page, follows the challenge to its game.

const box = document.getElementById("notifications");
const page = document.getElementById("challenge");

function timeText(tc) {
  return tc.type === "clock" ? tc.show : "Unlimited";
}

function form(action, label, csrf, extra) {
  const f = document.createElement("form");
  f.method = "post";
  f.action = action;
  const t = document.createElement("input");
  t.type = "hidden";
  t.name = "csrf_token";
  t.value = csrf;
  f.append(t);
  if (extra) f.append(extra);
  const b = document.createElement("button");
  b.type = "submit";
  b.className = "button small";
  b.textContent = label;
  f.append(b);
  return f;
}

function showChallenge(c) {
  if (!box || c.direction !== "in" || c.status !== "created") return;
  if (document.getElementById("note-" + c.id)) return;
  const note = document.createElement("div");
  note.className = "notification challenge-note";
  note.id = "note-" + c.id;
  const text = document.createElement("a");
  text.href = "/challenge/" + c.id;
  text.textContent = `${c.challenger.name} challenges you: ${c.variant.name}, ${timeText(c.timeControl)}, ${c.rated ? "rated" : "casual"}`;
  note.append(text);
  const csrf = box.dataset.csrf || "";
  note.append(form(`/challenge/${c.id}/accept`, "Accept", csrf));
  const reason = document.createElement("input");
  reason.type = "hidden";
  reason.name = "reason";
  reason.value = "generic";
  note.append(form(`/challenge/${c.id}/decline`, "Decline", csrf, reason));
  box.append(note);
}

function drop(id) {
  const n = document.getElementById("note-" + id);
  if (n) n.remove();
}

function onEvent(e) {
  const here = page && page.dataset.id;
  if (e.type === "challenge") showChallenge(e.challenge);
  else if (e.type === "challengeCanceled" || e.type === "challengeDeclined") {
    drop(e.challenge.id);
    if (here === e.challenge.id) location.reload();
  } else if (e.type === "gameStart") {
    drop(e.game.gameId);
    if (here === e.game.gameId) location.assign("/" + e.game.gameId);
  }
}

// The stream ends with the page: a stream left open would hold one of the browser's few
// connections to the site until the server gave up on it, and after a few pages the next page
// would wait for a free one.
const leaving = new AbortController();
addEventListener("pagehide", () => leaving.abort());

async function follow() {
  for (let delay = 1000; !leaving.signal.aborted; delay = Math.min(delay * 2, 30000)) {
    try {
      const resp = await fetch("/api/stream/event", { credentials: "same-origin", signal: leaving.signal });
      if (!resp.ok || !resp.body) throw new Error(String(resp.status));
      delay = 1000;
      const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let at;
        while ((at = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, at).trim();
          buf = buf.slice(at + 1);
          if (line) {
            try { onEvent(JSON.parse(line)); } catch (err) { /* a line we do not know */ }
          }
        }
      }
    } catch (err) { /* reconnect below */ }
    await new Promise((r) => setTimeout(r, delay));
  }
}

if (box) follow();
