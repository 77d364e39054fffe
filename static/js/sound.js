// Game sounds, synthesised with the Web Audio API (no audio files). Muting is remembered.

const MUTE_KEY = "chessgold.muted";

let context = null;

function audio() {
  if (!context) {
    const Ctor = window.AudioContext ?? window.webkitAudioContext;
    if (!Ctor) return null;
    context = new Ctor();
  }
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

function readMuted() {
  try {
    return localStorage.getItem(MUTE_KEY) === "1";
  } catch {
    return false;
  }
}

/** A short burst of filtered noise: the knock of a piece on wood. */
function knock(ac, at, { freq = 1400, q = 1.2, gain = 0.5, length = 0.06 } = {}) {
  const samples = Math.ceil(ac.sampleRate * length);
  const buffer = ac.createBuffer(1, samples, ac.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < samples; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / samples) ** 3;
  const src = ac.createBufferSource();
  src.buffer = buffer;
  const filter = ac.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = freq;
  filter.Q.value = q;
  const g = ac.createGain();
  g.gain.value = gain;
  src.connect(filter).connect(g).connect(ac.destination);
  src.start(at);
}

/** A tone with a fast attack and an exponential decay. */
function tone(ac, at, { freq, type = "sine", gain = 0.2, length = 0.25, glideTo = null }) {
  const osc = ac.createOscillator();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, at);
  if (glideTo) osc.frequency.exponentialRampToValueAtTime(glideTo, at + length);
  const g = ac.createGain();
  g.gain.setValueAtTime(0.0001, at);
  g.gain.exponentialRampToValueAtTime(gain, at + 0.005);
  g.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(g).connect(ac.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

const VOICES = {
  move(ac, t) {
    knock(ac, t, { freq: 1500, gain: 0.7 });
    tone(ac, t, { freq: 190, glideTo: 120, gain: 0.25, length: 0.07 });
  },
  capture(ac, t) {
    knock(ac, t, { freq: 900, gain: 0.9, length: 0.08 });
    knock(ac, t + 0.055, { freq: 2100, gain: 0.5, length: 0.05 });
    tone(ac, t, { freq: 150, glideTo: 80, gain: 0.35, length: 0.1 });
  },
  // A coin: two bright partials, the second a fourth higher.
  place(ac, t) {
    tone(ac, t, { freq: 1568, gain: 0.12, length: 0.12, type: "triangle" });
    tone(ac, t + 0.07, { freq: 2093, gain: 0.14, length: 0.35, type: "triangle" });
    tone(ac, t + 0.07, { freq: 4186, gain: 0.03, length: 0.2 });
    knock(ac, t, { freq: 1800, gain: 0.3, length: 0.04 });
  },
  check(ac, t) {
    tone(ac, t, { freq: 880, type: "square", gain: 0.11, length: 0.12 });
    tone(ac, t + 0.12, { freq: 698, type: "square", gain: 0.11, length: 0.2 });
  },
  end(ac, t) {
    [523, 659, 784, 1047].forEach((f, i) => tone(ac, t + i * 0.11, { freq: f, gain: 0.12, length: 0.6, type: "triangle" }));
  },
  // Online play: the opponent joined, an offer arrived.
  notify(ac, t) {
    tone(ac, t, { freq: 660, gain: 0.1, length: 0.18, type: "triangle" });
    tone(ac, t + 0.1, { freq: 990, gain: 0.1, length: 0.3, type: "triangle" });
  },
  error(ac, t) {
    tone(ac, t, { freq: 220, type: "sawtooth", gain: 0.04, length: 0.15 });
  },
};

/** The sound player: `sounds.play("move")`. */
export const sounds = {
  muted: readMuted(),

  /** @param {"move"|"capture"|"place"|"check"|"end"|"notify"|"error"} name */
  play(name) {
    if (this.muted) return;
    const voice = VOICES[name];
    const ac = voice && audio();
    if (!ac) return;
    try {
      voice(ac, ac.currentTime + 0.01);
    } catch {
      // Sound is decoration: never let it break the game.
    }
  },

  setMuted(muted) {
    this.muted = muted;
    try {
      localStorage.setItem(MUTE_KEY, muted ? "1" : "0");
    } catch {
      // Private mode: keep it for this page only.
    }
  },
};
