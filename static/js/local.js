// Local pass-and-play: both sides play on this screen. The game is just the list of actions;
// every state, with its legal actions, comes from the server's engine (`POST {api}`), so this
// file never judges a rule. The action list is kept in the address (#e2e4,e7e5) so a reload or a
// shared link shows the same game; so is the seed of a variant with random events (loot boxes:
// /local/lootbox?seed=123#N@b1), each game getting its own.
//
// Page contract: <div id="board-app" data-variant="gold" data-mode="local" data-api="/api/local"
//   data-seed="123"> (data-seed only for a variant with random events: the address's or a fresh one)

import { fetchLocalState } from "./api.js";
import { sounds } from "./sound.js";
import { GameView } from "./view.js";
import { ICONS } from "./icons.js";

const SOUND_ON = `${ICONS.soundOn}<span class="label">Sound</span>`;
const SOUND_OFF = `${ICONS.soundOff}<span class="label">Muted</span>`;

export class LocalGame {
  /** @param {HTMLElement} root the #board-app element */
  constructor(root) {
    this.root = root;
    this.variant = root.dataset.variant;
    this.api = root.dataset.api || "/api/local";
    this.actions = [];
    /** The seed of the random events (loot boxes), or null for a variant without them. */
    this.seed = root.dataset.seed === undefined || root.dataset.seed === "" ? null : Number(root.dataset.seed);
    this.state = null;
    this.request = 0; // answers to older requests are dropped
    this.busy = false;
    this.view = new GameView(root, {
      onAction: (text, source) => this.play(text, source),
      controls: [
        { id: "flip", label: `${ICONS.flip}<span class="label">Flip</span>`, title: "Flip the board", key: "f", run: () => this.view.flip() },
        { id: "undo", label: `${ICONS.undo}<span class="label">Undo</span>`, title: "Take back the last action", key: "u", run: () => this.undo() },
        { id: "new", label: `${ICONS.plus}<span class="label">New</span>`, title: "Start a new game", run: () => this.newGame(), onBanner: "New game" },
        { id: "sound", label: sounds.muted ? SOUND_OFF : SOUND_ON, title: "Sound on or off", key: "m", run: () => this.toggleSound() },
      ],
    });
    this.view.setMode("Local game \u00b7 pass and play");
    // Two computers: the same variant online, through the "play with a friend" form.
    const online = document.createElement("a");
    online.className = "cg-online-link";
    online.href = `/game/new?variant=${encodeURIComponent(this.variant)}`;
    online.textContent = "Play online with a friend";
    this.view.q(".cg-controls").after(online);
    this.view.onBrowse = (ply) => this.browse(ply);
    this.earlier = new Map(); // ply -> state, for looking back (cleared when the game changes)
    this.updateSoundButton();
    window.addEventListener("hashchange", () => {
      const actions = readHash();
      if (actions.join(",") !== this.actions.join(",")) this.load(actions, { sound: false });
    });
  }

  /** Shows the game in the address, or the start position. */
  async start() {
    writeAddress(this.seed, readHash());
    const actions = readHash();
    const ok = await this.load(actions, { sound: false });
    if (!ok && actions.length > 0) {
      const message = this.view.q(".cg-error").textContent;
      await this.load([], { sound: false });
      this.view.showError(`The game in the address could not be replayed: ${message}`);
    }
  }

  /**
   * Asks the server for the state after `actions` and shows it.
   * @returns {Promise<boolean>} whether the server accepted the actions
   */
  async load(actions, { sound = true, typed = false } = {}) {
    const id = ++this.request;
    this.busy = true;
    this.root.classList.add("busy");
    try {
      const state = await fetchLocalState(this.api, this.variant, actions, this.seed);
      if (id !== this.request) return false;
      if (state.actions.join(",") !== this.actions.join(",")) this.earlier = new Map();
      this.actions = [...state.actions];
      this.state = state;
      this.view.show(state, { sound });
      if (typed) this.view.clearTyped();
      else this.view.showError("");
      writeAddress(this.seed, this.actions);
      this.root.dataset.ply = String(this.actions.length);
      return true;
    } catch (e) {
      if (id !== this.request) return false;
      this.view.showError(e.message);
      if (this.state) this.view.show(this.state, { sound: false });
      sounds.play("error");
      return false;
    } finally {
      if (id === this.request) {
        this.busy = false;
        this.root.classList.remove("busy");
      }
    }
  }

  /** Plays one action (from the board, the shop or the typed box). */
  play(text, source) {
    if (this.busy && source !== "typed") return;
    return this.load([...this.actions, text], { typed: source === "typed" });
  }

  /** Shows the position after `ply` actions without changing the game (the move list, arrows). */
  async browse(ply) {
    if (!this.state) return;
    if (ply >= this.actions.length) {
      this.view.show(this.state, { sound: false });
      return;
    }
    const id = ++this.request;
    try {
      let state = this.earlier.get(ply);
      if (!state) {
        state = await fetchLocalState(this.api, this.variant, this.actions.slice(0, ply), this.seed);
        this.earlier.set(ply, state);
      }
      if (id !== this.request) return;
      this.view.show(state, { interactive: false, sound: false, line: this.actions });
    } catch (e) {
      if (id === this.request) this.view.showError(e.message);
    }
  }

  /** Takes back the last action: replays the game with one action fewer. */
  undo() {
    if (this.actions.length === 0) return;
    return this.load(this.actions.slice(0, -1), { sound: false });
  }

  /** A new game; with random events, a new seed too (a new game is not a replay of the last). */
  newGame() {
    if (this.seed !== null) this.seed = freshSeed();
    this.earlier = new Map();
    return this.load([], { sound: false });
  }

  toggleSound() {
    sounds.setMuted(!sounds.muted);
    this.updateSoundButton();
    if (!sounds.muted) sounds.play("move");
  }

  updateSoundButton() {
    const button = this.view.control("sound");
    if (!button) return;
    button.innerHTML = sounds.muted ? SOUND_OFF : SOUND_ON;
    button.setAttribute("aria-pressed", String(sounds.muted));
    button.classList.toggle("muted", sounds.muted);
  }
}

function readHash() {
  let text = location.hash.replace(/^#/, "");
  try {
    text = decodeURIComponent(text);
  } catch {
    // A mangled address: the server will name the bad action.
  }
  return text ? text.split(",").filter(Boolean) : [];
}

/** Keeps the game in the address: the seed in the query (when there is one), the actions after #. */
function writeAddress(seed, actions) {
  const hash = actions.length ? `#${actions.join(",")}` : "";
  const query = new URLSearchParams(location.search);
  if (seed !== null) query.set("seed", String(seed));
  const search = query.toString() ? `?${query}` : "";
  if (location.hash !== hash || location.search !== search) {
    history.replaceState(null, "", `${location.pathname}${search}${hash}`);
  }
}

/** A fresh seed below 2^53, so that JavaScript numbers hold it exactly. */
function freshSeed() {
  const [high, low] = crypto.getRandomValues(new Uint32Array(2));
  return (high & 0x1fffff) * 2 ** 32 + low;
}

const root = document.getElementById("board-app");
if (root && root.dataset.mode === "local") {
  const game = new LocalGame(root);
  window.chessgold = game; // for the console and the browser tests
  game.start();
}
