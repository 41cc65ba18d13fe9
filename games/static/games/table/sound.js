// Quiet table sounds, made in the page with WebAudio (no sound files): a card drawn, discarded or laid down,
// a fanfare for a round won in style, and "your turn"; a game's client module adds its own (the table part's
// `sounds` hook, ./game.js), made with the same two instruments. Nothing plays before the player's first click
// or key on the page (and browsers would not allow it anyway); the off switch is remembered in localStorage.

const KEY = "games:sound";
let enabled = localStorage.getItem(KEY) !== "off";
let unlocked = false;
let audio = null;

for (const type of ["pointerdown", "keydown"]) {
  window.addEventListener(type, () => (unlocked = true), { capture: true, once: true });
}

export function soundOn() {
  return enabled;
}

export function setSound(on) {
  enabled = on;
  localStorage.setItem(KEY, on ? "on" : "off");
}

function context() {
  if (!enabled || !unlocked) return null;
  if (!audio) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    audio = new Context();
  }
  if (audio.state === "suspended") audio.resume();
  return audio;
}

function tone(ac, { frequency, to = frequency, start = 0, length = 0.12, volume = 0.05, type = "sine" }) {
  const at = ac.currentTime + start;
  const osc = ac.createOscillator();
  const gain = ac.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(frequency, at);
  osc.frequency.exponentialRampToValueAtTime(to, at + length);
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(volume, at + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(gain).connect(ac.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

function swish(ac, { start = 0, length = 0.09, volume = 0.05, frequency = 1800 }) {
  // A short burst of filtered noise: a card sliding over the felt.
  const at = ac.currentTime + start;
  const samples = Math.floor(ac.sampleRate * length);
  const buffer = ac.createBuffer(1, samples, ac.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < samples; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / samples);
  const noise = ac.createBufferSource();
  noise.buffer = buffer;
  const filter = ac.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = frequency;
  filter.Q.value = 0.8;
  const gain = ac.createGain();
  gain.gain.value = volume;
  noise.connect(filter).connect(gain).connect(ac.destination);
  noise.start(at);
}

const SOUNDS = {
  draw: (ac) => swish(ac, { frequency: 2200 }),
  discard: (ac) => {
    swish(ac, { frequency: 1200, length: 0.06, volume: 0.06 });
    tone(ac, { frequency: 260, to: 180, start: 0.04, length: 0.06, volume: 0.05, type: "triangle" });
  },
  lay: (ac) => {
    swish(ac, { frequency: 1500, length: 0.07 });
    tone(ac, { frequency: 330, to: 300, start: 0.05, length: 0.08, volume: 0.04, type: "triangle" });
  },
  fanfare: (ac) => {
    [523.3, 659.3, 784, 1046.5].forEach((frequency, i) => tone(ac, { frequency, start: i * 0.08, length: 0.22, volume: 0.05, type: "triangle" }));
  },
  turn: (ac) => {
    tone(ac, { frequency: 660, length: 0.12, volume: 0.04 });
    tone(ac, { frequency: 880, start: 0.12, length: 0.16, volume: 0.04 });
  },
};

/** The instruments a game's own sounds are made with: `tone(ac, {frequency, to, start, length, volume, type})`
 * and `swish(ac, {start, length, volume, frequency})`. */
const INSTRUMENTS = Object.freeze({ tone, swish });

/** Plays the sound `name`: one of `own` (a game's sounds: name → `(ac, {tone, swish})`) or of the shell's. */
export function play(name, own = {}) {
  const ac = context();
  const sound = Object.hasOwn(own, name) ? own[name] : Object.hasOwn(SOUNDS, name) ? SOUNDS[name] : null;
  if (!ac || typeof sound !== "function") return;
  try {
    sound(ac, INSTRUMENTS);
  } catch {
    // A sound is a nicety: a browser that refuses one loses nothing.
  }
}
