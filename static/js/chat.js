// The chat pane of a live game: the players' room for the players, the spectators' room for
// everyone else. Lines are text: they are inserted with textContent, never as HTML. The
// server's limits (length, flood, rate) come back as errors and are shown in the pane.

/** The server's limit on a line (docs/api.md); the box stops there too. */
export const CHAT_MAX = 140;

const ERRORS = {
  chat_too_long: `A line has at most ${CHAT_MAX} characters.`,
  chat_empty: "Type something first.",
  chat_flood: "Slow down: at most 5 lines per 10 seconds.",
  rate_limited: "Too many messages: wait a moment.",
  wrong_chat_room: "You cannot write in this chat.",
  unavailable: "The line could not be saved; try again.",
};

export class ChatPane {
  /**
   * @param {HTMLElement} parent where the pane goes
   * @param {object} options
   * @param {"player"|"spectator"} options.room
   * @param {(text: string) => Promise<unknown>} options.send sends a line; rejects with {code, message}
   */
  constructor(parent, { room, send }) {
    this.room = room;
    this.send = send;
    const el = document.createElement("section");
    el.className = "cg-chat";
    el.dataset.room = room;
    const title = room === "player" ? "Chat with your opponent" : "Spectators\u2019 chat";
    el.innerHTML = `
      <header class="cg-chat-head"><h2></h2></header>
      <ol class="cg-chat-lines" aria-live="polite" aria-label="Chat lines" tabindex="0"></ol>
      <form class="cg-chat-form" autocomplete="off">
        <input name="text" maxlength="${CHAT_MAX}" spellcheck="true" aria-label="Chat message">
        <button type="submit">Send</button>
      </form>
      <p class="cg-chat-note" role="status"></p>`;
    el.querySelector("h2").textContent = title;
    this.el = el;
    this.list = el.querySelector(".cg-chat-lines");
    this.form = el.querySelector("form");
    this.input = this.form.elements.namedItem("text");
    this.input.placeholder = room === "player" ? "Say something to your opponent" : "Talk with the other spectators";
    this.note = el.querySelector(".cg-chat-note");
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.submit();
    });
    this.input.addEventListener("input", () => this.count());
    parent.append(el);
    this.showEmpty();
  }

  submit() {
    const text = this.input.value.trim();
    if (!text) {
      this.setNote(ERRORS.chat_empty, true);
      return;
    }
    const button = this.form.querySelector("button");
    button.disabled = true;
    this.send(text)
      .then(() => {
        // The line comes back as a chat message like everyone else's.
        if (this.input.value.trim() === text) this.input.value = "";
        this.setNote("");
      })
      .catch((e) => this.setNote(ERRORS[e.code] ?? e.message ?? "The line was not sent.", true))
      .finally(() => {
        button.disabled = false;
        this.count();
      });
  }

  count() {
    const n = [...this.input.value].length;
    if (n >= CHAT_MAX - 20) this.setNote(`${n}/${CHAT_MAX}`, n >= CHAT_MAX);
    else if (this.note.classList.contains("count")) this.setNote("");
    this.note.classList.toggle("count", n >= CHAT_MAX - 20);
  }

  setNote(text, error = false) {
    this.note.textContent = text;
    this.note.classList.toggle("error", error && !!text);
  }

  /** Replaces the lines (the room's history, sent on every connection). */
  history(lines) {
    this.list.replaceChildren();
    for (const line of lines) this.add(line, { scroll: false });
    this.showEmpty();
    this.scroll();
  }

  /** Adds a line: {author, color, text, at}. */
  add(line, { scroll = true } = {}) {
    this.list.querySelector(".empty")?.remove();
    const li = document.createElement("li");
    li.className = "cg-chat-line";
    if (line.color) li.dataset.color = line.color;
    const author = document.createElement("b");
    author.className = "author";
    author.textContent = line.author ?? "Anonymous";
    const text = document.createElement("span");
    text.className = "text";
    text.textContent = line.text ?? "";
    li.append(author, " ", text);
    if (line.at) li.title = new Date(line.at).toLocaleString();
    this.list.append(li);
    if (scroll) this.scroll();
  }

  /** A line from the page itself (the game started, ended, ...). */
  system(text) {
    this.list.querySelector(".empty")?.remove();
    const li = document.createElement("li");
    li.className = "cg-chat-line system";
    li.textContent = text;
    this.list.append(li);
    this.scroll();
  }

  showEmpty() {
    if (this.list.children.length) return;
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = this.room === "player" ? "No messages yet. Be nice!" : "No messages yet.";
    this.list.append(li);
  }

  scroll() {
    this.list.scrollTop = this.list.scrollHeight;
  }
}
