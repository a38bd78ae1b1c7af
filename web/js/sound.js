// Short sounds, made with WebAudio when they are played: no audio file is
// loaded. Each is a few tones or a breath of filtered noise, quiet and
// under half a second, so that a game's many cards never tire the ear.
// Browsers keep audio silent until the page is touched; the context is
// made (or woken) at the first sound after that.

let context = null;

function audio() {
  const Context = globalThis.AudioContext ?? globalThis.webkitAudioContext;
  if (!Context) return null;
  context ??= new Context();
  if (context.state === 'suspended') context.resume().catch(() => {});
  return context;
}

/** A tone from `start` for `length` seconds, gliding to `to` when given. */
function tone(ac, { freq, to, start, length, type = 'sine', gain = 0.12 }) {
  const osc = ac.createOscillator();
  const volume = ac.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, start);
  if (to) osc.frequency.exponentialRampToValueAtTime(to, start + length);
  volume.gain.setValueAtTime(0.0001, start);
  volume.gain.exponentialRampToValueAtTime(gain, start + 0.012);
  volume.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(volume).connect(ac.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

/** Noise through a band-pass filter: the snap of a card, the sweep of a trick. */
function breath(ac, { start, length, freq, to, gain = 0.2, q = 1.5 }) {
  const frames = Math.ceil(ac.sampleRate * length);
  const buffer = ac.createBuffer(1, frames, ac.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < frames; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / frames);
  const source = ac.createBufferSource();
  source.buffer = buffer;
  const filter = ac.createBiquadFilter();
  filter.type = 'bandpass';
  filter.Q.value = q;
  filter.frequency.setValueAtTime(freq, start);
  if (to) filter.frequency.exponentialRampToValueAtTime(to, start + length);
  const volume = ac.createGain();
  volume.gain.value = gain;
  source.connect(filter).connect(volume).connect(ac.destination);
  source.start(start);
}

const SOUNDS = {
  // Two rising notes: a bell that asks for attention.
  turn: (ac, t) => {
    tone(ac, { freq: 660, start: t, length: 0.22 });
    tone(ac, { freq: 990, start: t + 0.13, length: 0.3 });
  },
  card: (ac, t) => breath(ac, { start: t, length: 0.07, freq: 2400, q: 0.8, gain: 0.35 }),
  trick: (ac, t) => breath(ac, { start: t, length: 0.28, freq: 500, to: 1800, gain: 0.25 }),
  // A falling run in a low voice: the trump suit is open.
  spades: (ac, t) => [523, 392, 330, 262].forEach((freq, i) => tone(ac, { freq, start: t + i * 0.07, length: 0.2, type: 'triangle', gain: 0.1 })),
  nilMade: (ac, t) => [523, 659, 784, 1047].forEach((freq, i) => tone(ac, { freq, start: t + i * 0.08, length: 0.25, gain: 0.1 })),
  nilSet: (ac, t) => {
    tone(ac, { freq: 311, to: 207, start: t, length: 0.45, type: 'sawtooth', gain: 0.05 });
    tone(ac, { freq: 233, to: 155, start: t + 0.05, length: 0.45, type: 'triangle', gain: 0.08 });
  },
};

/** The names of the sounds: `turn`, `card`, `trick`, `spades`, `nilMade`, `nilSet`. */
export const SOUND_NAMES = Object.keys(SOUNDS);

/**
 * Plays a sound at `at` (on Date.now()'s clock; now when it has passed),
 * if `enabled()` says so then.
 */
export function playSound(name, enabled, at = Date.now()) {
  const go = () => {
    if (!enabled()) return;
    const ac = audio();
    if (!ac) return;
    try {
      SOUNDS[name]?.(ac, ac.currentTime + 0.01);
    } catch {
      // A sound that cannot be made is not worth a broken page.
    }
  };
  const wait = at - Date.now();
  if (wait > 5) setTimeout(go, wait);
  else go();
}
