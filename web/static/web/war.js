/* War games: deal any variant from a seed, replay it battle by battle, play Steal War against bots. */
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const { api, card, fmt, number } = CW;
  const $ = (id) => document.getElementById(id);
  const presets = JSON.parse($("war-presets").textContent);
  const COLOURS = ["#0b5394", "#b3261e", "#1b6e3c", "#8a6408"];
  const REASONS = {
    all_cards: gettext("took every card"), limit_count: gettext("held the most cards at the battle limit"),
    limit_draw: gettext("a draw at the battle limit"), stuck_draw: gettext("a draw: the last cards tie and nobody can fight on"),
    short_draw: gettext("a draw: every seat ran short of cards in a war"), cycle: gettext("a draw: the game would repeat forever"),
    broke: gettext("the others went broke"), scored: gettext("won on points"),
  };
  let match = null, groups = [], pos = 0, timer = null;

  // --- the form ------------------------------------------------------------------------------------
  for (const p of presets) $("preset").append(new Option(p.title, p.name));
  $("preset").value = "standard";
  function presetChanged() {
    const p = presets.find((x) => x.name === $("preset").value);
    $("preset-description").textContent = p.description;
    $("seats").replaceChildren(...Array.from({ length: p.seats[1] - p.seats[0] + 1 }, (_, i) => new Option(String(p.seats[0] + i))));
    $("seats").selectedIndex = 0;
    $("seats").closest("div").hidden = p.seats[0] === p.seats[1];
    $("human-seat-field").hidden = p.name !== "steal";
    seatsChanged();
  }
  /* Only the options this variant lets a player change (the engine's answer, from the page); who
     fights a war matters only with more than two seats. A hidden option is left at its default. */
  function showOptions(p) {
    const seats = Number($("seats").value);
    document.querySelectorAll(".option-field").forEach((field) => {
      const option = field.dataset.for;
      const shown = p.options.includes(option) && (option !== "war_participants" || seats > 2);
      field.hidden = !shown;
      if (!shown) field.querySelector("[data-option]").value = "";
    });
  }
  function seatsChanged() {
    const n = Number($("seats").value);
    showOptions(presets.find((x) => x.name === $("preset").value));
    $("human-seat").replaceChildren(new Option(gettext("watch only"), ""), ...Array.from({ length: n }, (_, i) => new Option(fmt(gettext("seat %(n)s"), { n: i + 1 }), String(i))));
    $("human-seat").selectedIndex = 0;
  }
  $("preset").addEventListener("change", presetChanged);
  $("seats").addEventListener("change", seatsChanged);
  presetChanged();

  $("war-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("war-error").textContent = "";
    const p = presets.find((x) => x.name === $("preset").value);
    const options = {};
    if (p.seats[0] !== p.seats[1]) options.seats = Number($("seats").value);
    document.querySelectorAll("[data-option]").forEach((el) => {
      if (el.value === "" || el.closest(".option-field").hidden) return;
      const type = el.dataset.type;
      options[el.dataset.option] = type === "int" ? Number(el.value) : type === "bool" ? el.value === "true" : el.value;
    });
    const body = { preset: p.name, options, client_seed: $("war-client-seed").value };
    if ($("server-seed").value.trim()) body.server_seed = $("server-seed").value.trim();
    if (p.name === "steal" && $("human-seat").value !== "") body.human_seat = Number($("human-seat").value);
    try {
      load(await whole(await api("POST", "matches/", body)));
      $("viewer").scrollIntoView({ behavior: "smooth", block: "start" });
    } catch (error) {
      $("war-error").textContent = error.message;
    }
  });

  // --- the replay ----------------------------------------------------------------------------------
  /* A long match comes in pages of battles and their events (`page.next`): the rest is read
     before the replay starts, in pages as large as the service gives. */
  async function whole(data) {
    let page = data.page;
    while (page && page.next) {
      const next = await api("GET", `matches/${data.id}/?offset=${page.offset + page.limit}&limit=2000`);
      data.battles.push(...next.battles);
      data.events.push(...next.events);
      page = next.page;
    }
    return data;
  }

  function load(data, { keepPosition = false } = {}) {
    match = data;
    groups = [];
    for (const e of match.events) (groups[e.battle] ||= []).push(e);
    groups = groups.filter(Boolean);
    $("viewer").hidden = false;
    $("scrub").max = groups.length;
    if (!keepPosition) pos = 0;
    const f = match.fairness;
    $("match-fairness").textContent = f.server_seed
      ? fmt(gettext("Dealt from server seed %(seed)s, client seed \"%(client)s\", nonce 0."), { seed: f.server_seed, client: f.client_seed })
      : fmt(gettext("Server seed hash %(hash)s: the seed is revealed when the game ends."), { hash: f.server_seed_hash });
    render();
    if (match.pending && !keepPosition) play(80);  // run quickly up to the person's first decision
  }

  const seatName = (s) => fmt(match.human_seat === s ? gettext("Seat %(n)s (you)") : gettext("Seat %(n)s"), { n: s + 1 });

  function countsAt(k) {
    if (k === 0) return match.deal_counts;
    const end = groups[k - 1].find((e) => e.type === "battle_end");
    if (end) return end.counts;
    return k > 1 ? countsAt(k - 1) : match.deal_counts;
  }

  const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const short = (code) => (code[0] === "X" ? "★" : (code[0] === "T" ? "10" : code[0]) + (SUIT_SYMBOLS[code[1]] || ""));
  const mine = (seat) => match.human_seat !== null && match.human_seat !== undefined && seat === match.human_seat;

  /* One line of the battle log. The person's own seat is "you" (a sentence of its own, not
     «Seat 1 (you) turns its pile over»); other seats by number. */
  function describe(e) {
    const you = mine(e.seat);
    const s = e.seat !== undefined ? seatName(e.seat) : "";
    const cards = (e.cards || []).map(short).join(" ");
    const up = e.cards && e.cards.length ? CW.cardLabel(e.cards[0]) : "";
    const victim = e.seats && e.seats.length ? e.seats[0] : null;
    switch (e.type) {
      case "battle": return fmt(gettext("Battle %(n)s"), { n: e.battle });
      case "turn_up": return you ? fmt(gettext("You turn up %(card)s"), { card: up }) : fmt(gettext("%(seat)s turns up %(card)s"), { seat: s, card: up });
      case "war_step": return fmt(gettext("War! %(seats)s fight (step %(step)s)"), { seats: e.seats.map(seatName).join(", "), step: e.step });
      case "face_down": return you ? fmt(gettext("You lay %(n)s face down"), { n: e.cards.length }) : fmt(gettext("%(seat)s lays %(n)s face down"), { seat: s, n: e.cards.length });
      case "face_up": return you ? fmt(gettext("You lay %(card)s face up"), { card: up }) : fmt(gettext("%(seat)s lays %(card)s face up"), { seat: s, card: up });
      case "stand": return you ? fmt(gettext("You have no card left and stand on %(card)s"), { card: up }) : fmt(gettext("%(seat)s has no card left and stands on %(card)s"), { seat: s, card: up });
      case "drop_out": return you ? gettext("You are short of cards and leave the game") : fmt(gettext("%(seat)s is short of cards and leaves the game"), { seat: s });
      case "reshuffle": return you ? gettext("You turn your pile over and shuffle it") : fmt(gettext("%(seat)s turns its pile over and shuffles it"), { seat: s });
      case "steal":
        if (you) return fmt(gettext("You steal the pile of %(victim)s with %(card)s (%(n)s cards)"), { victim: seatName(victim), card: up, n: e.counts[0] });
        if (mine(victim)) return fmt(gettext("%(seat)s steals your pile with %(card)s (%(n)s cards)"), { seat: s, card: up, n: e.counts[0] });
        return fmt(gettext("%(seat)s steals the pile of %(victim)s with %(card)s (%(n)s cards)"), { seat: s, victim: seatName(victim), card: up, n: e.counts[0] });
      case "void_steal":
        if (you) return fmt(gettext("Your steal from %(victim)s is void; the card is played"), { victim: seatName(victim) });
        if (mine(victim)) return fmt(gettext("The steal of %(seat)s from you is void; the card is played"), { seat: s });
        return fmt(gettext("%(seat)s's steal from %(victim)s is void; the card is played"), { seat: s, victim: seatName(victim) });
      case "protect": return you ? fmt(gettext("You protect your pile with %(card)s"), { card: up }) : fmt(gettext("%(seat)s protects its pile with %(card)s"), { seat: s, card: up });
      case "take": return you ? fmt(gettext("You take %(n)s cards: %(cards)s"), { n: e.cards.length, cards }) : fmt(gettext("%(seat)s takes %(n)s cards: %(cards)s"), { seat: s, n: e.cards.length, cards });
      case "score": return you ? fmt(gettext("You score %(cards)s"), { cards }) : fmt(gettext("%(seat)s scores %(cards)s"), { seat: s, cards });
      case "battle_end": return fmt(gettext("Cards held: %(counts)s"), { counts: e.counts.join(" · ") });
      default: return e.type;
    }
  }

  function render() {
    const n = match.seats;
    const counts = countsAt(pos);
    const battle = pos > 0 ? groups[pos - 1] : [];
    const winner = (battle.find((e) => e.type === "take" || e.type === "score") || {}).seat;
    const out = new Set(battle.filter((e) => e.type === "drop_out").map((e) => e.seat));
    const seats = [];
    for (let s = 0; s < n; s++) {
      const el = document.createElement("div");
      el.className = "seat" + (winner === s && battle.some((e) => e.type === "take") ? " won" : "") + (out.has(s) || counts[s] === 0 ? " out" : "") + (match.human_seat === s ? " human" : "");
      el.dataset.seat = s;
      const head = document.createElement("h3");
      head.innerHTML = `<span></span><span class="count"></span>`;
      head.firstChild.textContent = seatName(s);
      head.lastChild.textContent = counts[s] !== undefined ? fmt(gettext("%(n)s cards"), { n: counts[s] }) : "";
      const laid = document.createElement("div");
      for (const e of battle) {
        if (e.seat !== s) continue;
        if (e.type === "turn_up" || e.type === "face_up" || e.type === "stand") laid.append(card(e.cards[0], { small: true }));
        if (e.type === "face_down") e.cards.forEach(() => laid.append(card(null, { faceDown: true, small: true })));
      }
      el.append(head, laid);
      seats.push(el);
    }
    $("seat-panels").replaceChildren(...seats);
    $("log").replaceChildren(...battle.map((e) => { const li = document.createElement("li"); li.textContent = describe(e); return li; }));
    $("scrub").value = pos;
    $("battle-label").textContent = pos === 0 ? gettext("The deal") : fmt(gettext("Battle %(n)s of %(total)s"), { n: pos, total: groups.length });
    const atEnd = pos >= groups.length;
    if (atEnd && match.result) {
      const r = match.result;
      $("result").textContent = r.winner === null
        ? fmt(gettext("No winner after %(n)s battles: %(reason)s."), { n: r.battles, reason: REASONS[r.reason] || r.reason })
        : (mine(r.winner)
          ? fmt(gettext("You win after %(n)s battles: %(reason)s."), { n: r.battles, reason: REASONS[r.reason] || r.reason })
          : fmt(gettext("%(seat)s wins after %(n)s battles: %(reason)s."), { seat: seatName(r.winner), n: r.battles, reason: REASONS[r.reason] || r.reason }));
      if (r.loser !== undefined && r.loser !== null) {
        $("result").textContent += " " + (mine(r.loser) ? gettext("You are the drunkard.") : fmt(gettext("The drunkard is %(seat)s."), { seat: seatName(r.loser) }));
      }
    } else {
      $("result").textContent = "";
    }
    renderQuestion(atEnd);
    drawChart();
    if (atEnd) stop();
  }

  function renderQuestion(atEnd) {
    const q = match.pending;
    const box = $("question");
    if (!q || !atEnd) { box.hidden = true; return; }
    box.hidden = false;
    box.replaceChildren();
    const title = document.createElement("p");
    const buttons = document.createElement("div");
    if (q.kind === "steal") {
      title.append(fmt(gettext("You look at your next card: %(card)s. It matches the top of another pile: steal it, or play the card?"), { card: CW.cardLabel(q.card) }), " ", card(q.card, { small: true }));
      for (const target of q.targets) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "button";
        b.dataset.steal = target;
        b.textContent = fmt(gettext("Steal from %(seat)s (%(n)s cards)"), { seat: seatName(target), n: q.pile_sizes[target] });
        b.addEventListener("click", () => decide({ steal: target }));
        buttons.append(b);
      }
      const play = document.createElement("button");
      play.type = "button";
      play.className = "button secondary";
      play.dataset.steal = "none";
      play.textContent = gettext("Play the card");
      play.addEventListener("click", () => decide({ steal: null }));
      buttons.append(play);
    } else {
      title.textContent = gettext("You won the trick. Which card goes on top of your pile? (A card on top can be stolen by a seat that turns up the same rank.)");
      q.cards.forEach((code, index) => {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "button secondary";
        b.dataset.top = index;
        b.setAttribute("aria-label", fmt(gettext("Lay %(card)s on top"), { card: CW.cardLabel(code) }));
        b.append(card(code, { small: true }));
        b.addEventListener("click", () => decide({ top: index }));
        buttons.append(b);
      });
    }
    box.append(title, buttons);
    const first = box.querySelector("button");
    if (first) first.focus();
  }

  async function decide(decision) {
    $("question").querySelectorAll("button").forEach((b) => (b.disabled = true));
    try {
      const before = groups.length;
      load(await whole(await api("POST", `matches/${match.id}/decision/`, decision)), { keepPosition: true });
      pos = Math.max(0, before - 1);  // replay the battle the decision was in, then on to the next question
      render();
      play();
    } catch (error) {
      $("war-error").textContent = error.message;
      render();
    }
  }

  function drawChart() {
    const total = Math.max(groups.length, 1);
    const width = 600, height = 180, pad = 24;
    const maxCount = Math.max(1, ...countsAt(0), ...groups.map((_, k) => Math.max(...countsAt(k + 1))));
    const stride = Math.max(1, Math.ceil(total / 600));
    const x = (k) => pad + ((width - 2 * pad) * k) / total;
    const y = (c) => height - pad - ((height - 2 * pad) * c) / maxCount;
    let svg = `<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${gettext("Cards held by each seat, battle by battle")}">`;
    svg += `<line x1="${pad}" y1="${height - pad}" x2="${width - pad}" y2="${height - pad}" stroke="#999"/>`;
    svg += `<text x="${pad}" y="${height - 6}" font-size="11">0</text><text x="${width - pad}" y="${height - 6}" font-size="11" text-anchor="end">${number(total)}</text>`;
    svg += `<text x="4" y="${pad}" font-size="11">${maxCount}</text>`;
    for (let s = 0; s < match.seats; s++) {
      const points = [];
      for (let k = 0; k <= groups.length; k += stride) {
        const c = countsAt(k)[s];
        if (c !== undefined) points.push(`${x(k).toFixed(1)},${y(c).toFixed(1)}`);
      }
      svg += `<polyline fill="none" stroke="${COLOURS[s]}" stroke-width="2" points="${points.join(" ")}"/>`;
      svg += `<text x="${width - pad + 2}" y="${pad + 12 * s}" font-size="11" fill="${COLOURS[s]}">${s + 1}</text>`;
    }
    svg += `<line x1="${x(pos)}" y1="${pad / 2}" x2="${x(pos)}" y2="${height - pad}" stroke="#e0a800" stroke-width="2"/></svg>`;
    $("chart").innerHTML = svg;
  }

  function go(k) {
    pos = Math.max(0, Math.min(groups.length, k));
    render();
  }
  function play(interval) {
    stop();
    $("play-button").textContent = gettext("Pause");
    timer = setInterval(() => (pos >= groups.length ? stop() : go(pos + 1)), interval || Number($("speed").value));
  }
  function stop() {
    clearInterval(timer);
    timer = null;
    $("play-button").textContent = gettext("Play");
  }
  const controls = {
    start: () => { stop(); go(0); }, back: () => { stop(); go(pos - 1); }, step: () => { stop(); go(pos + 1); },
    fast: () => go(pos + 10), end: () => { stop(); go(groups.length); }, play: () => (timer ? stop() : play()),
  };
  document.querySelectorAll("[data-control]").forEach((b) => b.addEventListener("click", () => controls[b.dataset.control]()));
  $("scrub").addEventListener("input", () => { stop(); go(Number($("scrub").value)); });
  $("speed").addEventListener("change", () => timer && play());
  document.addEventListener("keydown", (event) => {
    if (!match || event.target.closest("input, select, textarea, button") || event.ctrlKey || event.metaKey) return;
    const keys = { ArrowRight: "step", ArrowLeft: "back", " ": "play", Home: "start", End: "end" };
    if (keys[event.key]) { event.preventDefault(); controls[keys[event.key]](); }
  });
});
