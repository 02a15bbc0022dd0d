/* Table sounds, made in the browser with the Web Audio API (no audio files): a card leaving the
   shoe, a card turning, chips, a win. Muted until the player turns sound on; the choice is kept
   in this browser (localStorage). Every sound asked for is announced as a "cw:sound" event, heard
   or not, so that the page and its tests can follow what would play. */
"use strict";

const CWSound = (() => {
  const KEY = "cw.sound";
  let context = null;
  let on = false;
  try { on = localStorage.getItem(KEY) === "on"; } catch (error) { on = false; }

  function audio() {
    if (!context) {
      const Context = window.AudioContext || window.webkitAudioContext;
      if (!Context) return null;
      try { context = new Context(); } catch (error) { return null; }
    }
    if (context.state === "suspended") context.resume().catch(() => {});
    return context;
  }

  function envelope(ctx, start, peak, length) {
    const gain = ctx.createGain();
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(peak, start + 0.008);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
    gain.connect(ctx.destination);
    return gain;
  }

  function tone(ctx, { start, frequency, length, type = "sine", peak = 0.2, glide = null }) {
    const osc = ctx.createOscillator();
    osc.type = type;
    osc.frequency.setValueAtTime(frequency, start);
    if (glide) osc.frequency.exponentialRampToValueAtTime(glide, start + length);
    osc.connect(envelope(ctx, start, peak, length));
    osc.start(start);
    osc.stop(start + length + 0.02);
  }

  function hiss(ctx, { start, length, frequency, peak = 0.25, q = 1.2 }) {
    const frames = Math.max(1, Math.floor(ctx.sampleRate * length));
    const buffer = ctx.createBuffer(1, frames, ctx.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < frames; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / frames);
    const source = ctx.createBufferSource();
    source.buffer = buffer;
    const filter = ctx.createBiquadFilter();
    filter.type = "bandpass";
    filter.frequency.setValueAtTime(frequency, start);
    filter.Q.value = q;
    source.connect(filter);
    filter.connect(envelope(ctx, start, peak, length));
    source.start(start);
  }

  const SOUNDS = {
    deal: (ctx, t) => hiss(ctx, { start: t, length: 0.12, frequency: 2600, peak: 0.22 }),
    flip: (ctx, t) => hiss(ctx, { start: t, length: 0.05, frequency: 4200, peak: 0.18, q: 2 }),
    chip: (ctx, t) => {
      tone(ctx, { start: t, frequency: 2300, length: 0.05, type: "triangle", peak: 0.12 });
      tone(ctx, { start: t + 0.035, frequency: 3100, length: 0.04, type: "triangle", peak: 0.08 });
    },
    win: (ctx, t) => [523.25, 659.25, 783.99, 1046.5].forEach((frequency, i) =>
      tone(ctx, { start: t + i * 0.09, frequency, length: 0.35, type: "triangle", peak: 0.16 })),
    lose: (ctx, t) => tone(ctx, { start: t, frequency: 330, glide: 220, length: 0.3, type: "sine", peak: 0.1 }),
  };

  function play(name) {
    document.dispatchEvent(new CustomEvent("cw:sound", { detail: { name, heard: on } }));
    if (!on || !SOUNDS[name]) return;
    const ctx = audio();
    if (ctx) SOUNDS[name](ctx, ctx.currentTime + 0.01);
  }

  function set(value) {
    on = Boolean(value);
    try { localStorage.setItem(KEY, on ? "on" : "off"); } catch (error) { /* private mode: for this page only */ }
    if (on) audio();
  }

  // Browsers start audio only from a person's gesture: wake the context on the first one.
  const wake = () => { if (on) audio(); };
  document.addEventListener("pointerdown", wake, { passive: true });
  document.addEventListener("keydown", wake);

  return { play, set, get on() { return on; } };
})();
