/* The Casino War table: build the bets with chips, deal from the shoe, decide a tie, watch
   settlement land. Every round is played through the public API; this page only shows it. */
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const { api, money, moneyShort, card, cardLabel, fmt, newKey, refreshBalance } = CW;
  const sound = CWSound;  // sound.js, loaded before this script
  const table = JSON.parse(document.getElementById("table-data").textContent);
  const $ = (id) => document.getElementById(id);
  const currency = table.currency;
  const chipValues = table.chips;
  const caps = { main: table.max_bet, tie: table.max_tie_bet };
  const calm = window.matchMedia("(prefers-reduced-motion: reduce)");
  const moving = () => !calm.matches;
  const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const state = {
    spot: "main",
    bets: { main: 0, tie: 0 },
    stacks: { main: [], tie: [], war: [] },
    last: null,  // the bets of the last round dealt here: what Rebet puts back
    round: null,
    shown: { round: null, war: false },  // the cards on the felt
    seq: 0,  // the round on show; an answer about an older one changes nothing on the felt
    busy: false,
    countdown: null,
    discarded: 0,
  };

  const OUTCOMES = {
    win: gettext("You win."), lose: gettext("The dealer wins."), surrender: gettext("You surrendered half your bet."),
    war_win: gettext("You won the war."), war_lose: gettext("You lost the war."), war_tie: gettext("A tie in the war: you win the bonus."),
  };
  const HEADLINES = {
    win: gettext("You win"), lose: gettext("Dealer wins"), surrender: gettext("Surrendered"),
    war_win: gettext("War won"), war_lose: gettext("War lost"), war_tie: gettext("War tie: bonus"),
  };
  const ROAD = {
    win: ["+", gettext("win")], lose: ["−", gettext("loss")], surrender: ["½", gettext("surrender")],
    war_win: ["+", gettext("war won")], war_lose: ["−", gettext("war lost")], war_tie: ["★", gettext("tie in the war")],
  };
  const signed = (minor) => (minor > 0 ? "+" : "") + money(minor, currency);

  // --- chips and the stacks on the spots ------------------------------------------------------
  const chipClass = (value) => `chip-${chipValues.indexOf(value) + 1}`;
  chipValues.forEach((value, index) => {
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = `chip ${chipClass(value)}`;
    chip.dataset.value = value;
    const label = document.createElement("span");
    label.textContent = moneyShort(value, currency);
    const key = document.createElement("kbd");
    key.textContent = String(index + 1);
    chip.append(label, key);
    chip.setAttribute("aria-label", fmt(gettext("Add %(amount)s"), { amount: money(value, currency) }));
    chip.addEventListener("click", () => addChip(value, chip));
    $("chips").append(chip);
  });

  /* The chips that make an amount, largest first (what a dealer would stack); a remainder no
     chip makes (never on a step the chips divide) lies on top as a chip of its own. */
  function chipsFor(amount) {
    const chips = [];
    let left = amount;
    for (const value of [...chipValues].reverse()) {
      while (left >= value && chips.length < 40) {
        chips.push(value);
        left -= value;
      }
    }
    if (left > 0) chips.push(left);
    return chips;
  }

  function setBet(spot, amount) {
    state.bets[spot] = amount;
    state.stacks[spot] = chipsFor(amount);
  }

  function renderStack(spot) {
    const el = $(`${spot}-stack`);
    const chips = state.stacks[spot];
    const shown = chips.slice(-12);  // a tall stack shows its top twelve
    el.replaceChildren(...shown.map((value, i) => {
      const disc = document.createElement("span");
      disc.className = `disc ${chipValues.includes(value) ? chipClass(value) : "chip-odd"}`;
      disc.style.setProperty("--i", String(i));
      if (i === shown.length - 1) disc.textContent = moneyShort(value, currency);
      return disc;
    }));
    el.dataset.chips = String(chips.length);
  }

  function deciding() {
    return Boolean(state.round && state.round.status === "awaiting_decision");
  }

  function renderBets() {
    $("main-amount").textContent = money(state.bets.main, currency);
    $("tie-amount").textContent = money(state.bets.tie, currency);
    $("war-amount").textContent = money(state.stacks.war.reduce((a, b) => a + b, 0), currency);
    ["main", "tie", "war"].forEach(renderStack);
    for (const spot of ["main", "tie"]) $(`spot-${spot}`).setAttribute("aria-pressed", String(state.spot === spot));
    const locked = state.busy || deciding();
    $("deal").disabled = locked || state.bets.main === 0;
    $("repeat").disabled = locked || !state.last;
    $("double").disabled = locked || state.bets.main === 0 || (state.bets.main >= caps.main && state.bets.tie >= (caps.tie || 0));
    $("clear").disabled = locked || (state.bets.main === 0 && state.bets.tie === 0);
    document.querySelectorAll(".chip").forEach((chip) => (chip.disabled = locked));
    $("felt").classList.toggle("deciding", deciding());
  }

  function selectSpot(spot) {
    if (spot === "tie" && !table.max_tie_bet) return;
    state.spot = spot;
    renderBets();
  }

  function addChip(value, from) {
    if (state.busy || deciding()) return;
    const spot = state.spot;
    const cap = caps[spot];
    const next = state.bets[spot] + value;
    if (next > cap) {
      showMessage(fmt(gettext("The most this bet takes is %(amount)s."), { amount: money(cap, currency) }));
      setBet(spot, cap);
    } else {
      showMessage("");
      state.bets[spot] = next;
      state.stacks[spot].push(value);
    }
    sound.play("chip");
    renderBets();
    if (from && moving()) flyChip(from, $(`${spot}-stack`));
  }

  function flyChip(from, to) {
    const top = to.lastElementChild;
    if (!top) return;
    const a = from.getBoundingClientRect(), b = top.getBoundingClientRect();
    top.animate([
      { transform: `translate(${a.left - b.left}px, ${a.top - b.top}px) scale(1.3)`, opacity: 0.7 },
      { transform: "none", opacity: 1 },
    ], { duration: 220, easing: "cubic-bezier(.2,.7,.3,1)" });
  }

  function clearBets() {
    if (state.busy || deciding()) return;
    setBet("main", 0);
    setBet("tie", 0);
    showMessage("");
    renderBets();
  }

  function double() {
    if (state.busy || deciding() || state.bets.main === 0) return;
    let capped = null;
    for (const spot of ["main", "tie"]) {
      if (!state.bets[spot]) continue;
      const wanted = state.bets[spot] * 2;
      if (wanted > caps[spot]) {
        capped = caps[spot];
        setBet(spot, caps[spot]);
      } else {
        state.bets[spot] = wanted;
        state.stacks[spot] = [...state.stacks[spot], ...state.stacks[spot]];
      }
    }
    showMessage(capped === null ? "" : fmt(gettext("The most this bet takes is %(amount)s."), { amount: money(capped, currency) }));
    sound.play("chip");
    renderBets();
  }

  // --- messages ------------------------------------------------------------------------------------
  function explain(error) {
    switch (error.code) {
      case "insufficient_funds":
        return fmt(gettext("Not enough money: your wallet holds %(balance)s. Lower the bet or top up your wallet."), { balance: $("side-balance").textContent });
      case "bet_out_of_limits":
        return fmt(gettext("This table takes main bets of %(low)s to %(high)s in steps of %(step)s."), {
          low: money(table.min_bet, currency), high: money(table.max_bet, currency), step: money(table.bet_step, currency),
        });
      case "table_closed":
        return gettext("This table has just closed. Pick another one in the lobby.");
      case "round_awaiting_decision":
        return gettext("Another round waits for your decision: finish it first (see your history).");
      case "idempotency_in_flight":
        return gettext("Your last click is still on its way. Please wait a moment.");
      default:
        return error.message;
    }
  }

  function showMessage(text, kind = "error") {
    $("message").textContent = text || "";
    $("message").className = "message " + kind;
  }

  // --- cards: from the shoe, face down, turned over; to the discard tray -------------------------
  function playingCard(code) {
    const slot = document.createElement("span");
    slot.className = "flip down";
    slot.dataset.card = code;
    slot.setAttribute("role", "img");
    slot.setAttribute("aria-label", cardLabel(code));
    const inner = document.createElement("span");
    inner.className = "flip-inner";
    const face = card(code);
    const back = card(null, { faceDown: true });
    for (const side of [face, back]) ["role", "aria-label", "title"].forEach((name) => side.removeAttribute(name));
    face.classList.add("face");
    const pip = face.querySelector(".suit");
    if (pip) face.dataset.pip = pip.textContent;  // the big suit in the middle of the face (table.css)
    back.classList.add("reverse");
    inner.append(face, back);
    slot.append(inner);
    return slot;
  }

  function travel(el, fromRect, { duration = 240, delay = 0, toRect = null, fade = false } = {}) {
    const here = el.getBoundingClientRect();
    const target = toRect || here;
    const shift = (r) => `translate(${r.left + r.width / 2 - (here.left + here.width / 2)}px, ${r.top + r.height / 2 - (here.top + here.height / 2)}px)`;
    const frames = toRect
      ? [{ transform: "none", opacity: 1 }, { transform: `${shift(target)} rotate(8deg) scale(.6)`, opacity: fade ? 0 : 1 }]
      : [{ transform: `${shift(fromRect)} rotate(-14deg) scale(.75)`, opacity: 0.85 }, { transform: "none", opacity: 1 }];
    return el.animate(frames, { duration, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "both" }).finished.catch(() => {});
  }

  async function dealTo(container, code, { animate, delay = 0 }) {
    const slot = playingCard(code);
    container.append(slot);
    if (!animate) {
      slot.classList.remove("down");
      return;
    }
    const flight = travel(slot, $("shoe").getBoundingClientRect(), { delay });
    await wait(delay);
    sound.play("deal");
    await flight;
    slot.classList.remove("down");
    sound.play("flip");
    await wait(230);
  }

  function renderDiscard() {
    const layers = Math.min(8, Math.ceil(state.discarded / 2));
    $("discard").replaceChildren(...Array.from({ length: layers }, (_, i) => {
      const back = document.createElement("span");
      back.className = "card back small";
      back.style.setProperty("--i", String(i));
      return back;
    }));
    $("discard").dataset.count = String(state.discarded);
  }

  async function sweep(animate) {
    const cards = [...document.querySelectorAll("#player-cards .flip, #dealer-cards .flip")];
    if (animate && cards.length) {
      const tray = $("discard").getBoundingClientRect();
      await Promise.all(cards.map((el, i) => travel(el, null, { toRect: tray, duration: 200, delay: i * 30, fade: true })));
    }
    cards.forEach((el) => el.remove());
    state.discarded += cards.length;
    renderDiscard();
  }

  async function burn(count, animate) {
    if (animate) {
      const from = $("shoe").getBoundingClientRect(), tray = $("discard").getBoundingClientRect();
      await Promise.all(Array.from({ length: count }, async (_, i) => {
        const back = card(null, { faceDown: true });
        back.removeAttribute("role");
        back.removeAttribute("aria-label");
        back.classList.add("burning");
        $("felt").append(back);
        back.style.setProperty("left", `${from.left - $("felt").getBoundingClientRect().left}px`);
        back.style.setProperty("top", `${from.top - $("felt").getBoundingClientRect().top}px`);
        await wait(i * 110);
        sound.play("deal");
        await travel(back, null, { toRect: tray, duration: 260, fade: false });
        back.remove();
        state.discarded += 1;
        renderDiscard();
      }));
    } else {
      state.discarded += count;
      renderDiscard();
    }
  }

  /* Bring the felt to the round: the first two cards (after sweeping the last round's away), then
     the burned cards and the war cards when the round went to war. Only what is not there yet is
     dealt, so a decision adds the war to the cards already on the felt. */
  async function layCards(round, animate) {
    const player = $("player-cards"), dealer = $("dealer-cards");
    if (state.shown.round !== round.id) {
      await sweep(animate);
      state.shown = { round: round.id, war: false };
      await Promise.all([dealTo(player, round.player_card, { animate }), dealTo(dealer, round.dealer_card, { animate, delay: 130 })]);
    }
    if (round.war && !state.shown.war) {
      state.shown.war = true;
      await burn(round.fairness ? round.fairness.burn : 0, animate);
      await Promise.all([dealTo(player, round.war.player_card, { animate }), dealTo(dealer, round.war.dealer_card, { animate, delay: 130 })]);
    }
  }

  // --- the result moment -----------------------------------------------------------------------------
  function hideResult() {
    $("result-banner").hidden = true;
    $("player-hand").classList.remove("win", "lose");
    $("dealer-hand").classList.remove("win");
  }

  function countUp(el, target, animate) {
    if (!animate || target === 0) {
      el.textContent = signed(target);
      return;
    }
    const start = performance.now(), length = 650;
    const step = (now) => {
      const done = Math.min(1, (now - start) / length);
      const eased = 1 - (1 - done) ** 3;
      el.textContent = signed(done === 1 ? target : Math.round(target * eased));
      if (done < 1) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }

  function celebrate(round, animate) {
    const kind = round.net > 0 ? "win" : round.net < 0 ? "lose" : "even";
    const banner = $("result-banner");
    banner.className = `result-banner ${kind}`;
    banner.querySelector(".label").textContent = HEADLINES[round.outcome] || "";
    countUp(banner.querySelector(".net"), round.net, animate);
    banner.hidden = false;
    $("player-hand").classList.toggle("win", round.net > 0);
    $("player-hand").classList.toggle("lose", round.net < 0);
    $("dealer-hand").classList.toggle("win", round.net < 0);
    sound.play(round.net > 0 ? "win" : "lose");
  }

  function describeNets(round) {
    const parts = [];
    const nets = round.nets || {};
    if (nets.tie) parts.push(fmt(gettext("tie bet %(amount)s"), { amount: money(nets.tie, currency) }));
    if (nets.bonus) parts.push(fmt(gettext("bonus %(amount)s"), { amount: money(nets.bonus, currency) }));
    const total = fmt(gettext("Net %(amount)s"), { amount: money(round.net, currency) });
    return parts.length ? `${total} (${parts.join(", ")})` : total;
  }

  function setOutcome(text, kind = "") {
    const outcome = $("outcome");
    outcome.replaceChildren(document.createTextNode(text));
    outcome.className = "outcome " + kind;
  }

  // --- the strip of last outcomes and the recent rounds ---------------------------------------------
  function road(round) {
    const [symbol, name] = ROAD[round.outcome] || ["·", ""];
    const item = document.createElement("li");
    item.className = `road-${round.outcome}` + (round.war ? " went-to-war" : "");
    item.title = `${name} ${signed(round.net)}`;
    const mark = document.createElement("span");
    mark.setAttribute("aria-hidden", "true");
    mark.textContent = symbol;
    const said = document.createElement("span");
    said.className = "sr-only";
    said.textContent = `${name} ${signed(round.net)}`;
    item.append(mark, said);
    $("road").append(item);
    while ($("road").children.length > 16) $("road").firstElementChild.remove();
  }

  function remember(round) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = CW.roundUrl(round.id);
    link.append(card(round.player_card, { small: true }), card(round.dealer_card, { small: true }), " " + signed(round.net));
    link.classList.add(round.net > 0 ? "up" : round.net < 0 ? "down" : "even");
    item.append(link);
    $("recent").prepend(item);
    while ($("recent").children.length > 8) $("recent").lastChild.remove();
  }

  async function refreshSession() {
    try {
      const figures = await api("GET", "protection/session/");
      $("session-rounds").textContent = CW.number(figures.rounds);
      $("session-net").textContent = signed(figures.net);
      $("session-net").className = figures.net > 0 ? "up" : figures.net < 0 ? "down" : "";
    } catch (error) { /* the figures come back with the next round */ }
  }

  // --- a round on the felt ------------------------------------------------------------------------------
  function stopCountdown() {
    clearInterval(state.countdown);
    state.countdown = null;
  }

  function showDecision(round) {
    $("decision").hidden = false;
    $("betting-actions").hidden = true;
    const values = round.decision_values || {};
    const worth = (value) => (value === undefined ? "" : fmt(gettext("worth %(amount)s on average"), { amount: money(Math.round(value * round.main_bet), currency) }));
    $("war-value").textContent = worth(values.war);
    $("surrender-value").textContent = worth(values.surrender);
    setOutcome(fmt(gettext("Tie! Going to war raises %(amount)s; surrendering returns half your bet."), { amount: money(round.main_bet, currency) }));
    stopCountdown();
    const deadline = round.decision_deadline ? new Date(round.decision_deadline).getTime() : null;
    const seq = state.seq;
    const tick = () => {
      if (!deadline || seq !== state.seq) return;
      const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
      $("deadline").textContent = fmt(gettext("%(s)s s left to decide."), { s: left });
      if (left === 0) {
        stopCountdown();
        setTimeout(() => follow(round.id, { animate: true }), 2500);  // the table decides: fetch what it did
      }
    };
    tick();
    state.countdown = setInterval(tick, 1000);
    $("war").focus({ preventScroll: true });
    $("decision").scrollIntoView({ block: "nearest" });  // on a phone both choices must be in view
  }

  function hideDecision() {
    stopCountdown();
    $("decision").hidden = true;
    $("betting-actions").hidden = false;
  }

  async function waitForSettlement(round, seq) {
    // Settlement runs in the background: poll the round until its payout is in the wallet.
    for (let delay = 150; round.status !== "settled"; delay = Math.min(delay * 1.6, 2000)) {
      await wait(delay);
      round = await api("GET", `rounds/${round.id}/`);
    }
    document.dispatchEvent(new CustomEvent("cw:round", { detail: round }));
    await refreshBalance();
    refreshSession();
    if (seq !== state.seq || round.payout <= 0) return;  // the player dealt again meanwhile
    const paid = document.createElement("span");
    paid.className = "paid";
    paid.textContent = " " + fmt(gettext("%(amount)s paid into your wallet."), { amount: money(round.payout, currency) });
    $("outcome").append(paid);
  }

  async function show(round, { animate = true } = {}) {
    const seq = ++state.seq;
    document.dispatchEvent(new CustomEvent("cw:round", { detail: round }));
    const motion = animate && moving();
    state.round = round;
    if (state.shown.round !== round.id) {
      hideResult();
      setOutcome("");
      state.stacks.war = [];
    }
    if (round.raise) state.stacks.war = chipsFor(round.raise);
    renderBets();
    await layCards(round, motion);
    if (seq !== state.seq) return;
    if (round.status === "awaiting_decision") {
      showDecision(round);
    } else {
      hideDecision();
      setOutcome(`${OUTCOMES[round.outcome] || ""} ${describeNets(round)}.`, round.net > 0 ? "up" : round.net < 0 ? "down" : "even");
      celebrate(round, motion);
      road(round);
      remember(round);
      waitForSettlement(round, seq).catch((error) => showMessage(error.message));
    }
    renderBets();
  }

  async function follow(roundId, { animate = false } = {}) {
    try {
      const round = await api("GET", `rounds/${roundId}/`);
      if (round.status === "awaiting_decision") {
        // The bets in play are the round's: the spots show them, and Rebet puts them back later.
        setBet("main", round.main_bet);
        setBet("tie", round.tie_bet);
        state.last = { main: round.main_bet, tie: round.tie_bet };
      }
      await show(round, { animate });
      refreshBalance().catch(() => {});
    } catch (error) {
      showMessage(error.message);
    }
  }

  async function deal() {
    if (state.busy || state.bets.main === 0 || deciding()) return;
    state.busy = true;
    renderBets();
    showMessage("");
    const body = { table: Number(table.id), main_bet: state.bets.main, tie_bet: state.bets.tie };
    try {
      const round = await api("POST", "rounds/", body, { key: newKey() });
      state.last = { ...state.bets };
      refreshBalance().catch(() => {});
      await show(round);
    } catch (error) {
      showMessage(explain(error));  // a refused bet changes nothing: the bets stay as they were
    } finally {
      state.busy = false;
      renderBets();
    }
  }

  async function decide(action) {
    if (state.busy || !deciding()) return;
    state.busy = true;
    $("war").disabled = $("surrender").disabled = true;
    showMessage("");
    try {
      const round = await api("POST", `rounds/${state.round.id}/decision/`, { action }, { key: newKey() });
      if (action === "war") sound.play("chip");
      refreshBalance().catch(() => {});
      await show(round);
    } catch (error) {
      showMessage(explain(error));
      if (error.code === "round_not_awaiting_decision") follow(state.round.id, { animate: true });
    } finally {
      state.busy = false;
      $("war").disabled = $("surrender").disabled = false;
      renderBets();
    }
  }

  function repeat() {
    if (!state.last || state.busy || deciding()) return;
    setBet("main", state.last.main);
    setBet("tie", state.last.tie);
    renderBets();
    deal();
  }

  // --- sound -------------------------------------------------------------------------------------------
  function renderSound() {
    $("sound").setAttribute("aria-pressed", String(sound.on));
    $("sound").title = sound.on ? gettext("Sound is on: press to mute") : gettext("Sound is off: press to turn it on");
  }
  $("sound").addEventListener("click", () => {
    sound.set(!sound.on);
    renderSound();
    sound.play("chip");
  });
  renderSound();

  // --- wiring --------------------------------------------------------------------------------------------
  document.addEventListener("cw:wallet", (event) => {
    $("side-balance").textContent = money(event.detail.balance, event.detail.currency);
    $("side-in-play").textContent = money(event.detail.in_play, event.detail.currency);
  });
  document.querySelectorAll("button.spot").forEach((el) => el.addEventListener("click", () => selectSpot(el.dataset.spot)));
  $("deal").addEventListener("click", deal);
  $("repeat").addEventListener("click", repeat);
  $("double").addEventListener("click", double);
  $("clear").addEventListener("click", clearBets);
  $("war").addEventListener("click", () => decide("war"));
  $("surrender").addEventListener("click", () => decide("surrender"));
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest("input, select, textarea") || document.querySelector("dialog[open]")) return;
    const key = event.key.toLowerCase();
    const actions = {
      d: deal, r: repeat, c: clearBets, x: double, w: () => decide("war"), s: () => decide("surrender"),
      m: () => selectSpot("main"), t: () => selectSpot("tie"),
    };
    if (actions[key]) {
      event.preventDefault();
      actions[key]();
    } else if (/^[1-5]$/.test(key) && chipValues[Number(key) - 1]) {
      event.preventDefault();
      addChip(chipValues[Number(key) - 1], document.querySelectorAll(".chip")[Number(key) - 1]);
    }
  });

  setBet("main", table.min_bet);
  renderBets();
  renderDiscard();
  const pending = $("play").dataset.pendingRound;
  if (pending) follow(pending);  // a decision left waiting (another tab, a reload) is still there
  // The last rounds at this table, from the service (they survive a reload or another device);
  // the newest one's bets are what Rebet and the spots start from.
  api("GET", "rounds/?limit=40").then((page) => {
    const here = page.results.filter((r) => r.table === String(table.id) && r.status !== "awaiting_decision");
    here.slice(0, 16).reverse().forEach(road);
    here.slice(0, 8).reverse().forEach(remember);
    // A decision left waiting that the page was not told of (a launched game's page knows no round).
    const waiting = page.results.find((r) => r.table === String(table.id) && r.status === "awaiting_decision");
    if (waiting && !pending && !state.round) follow(waiting.id);
    if (here.length && !pending && !state.last && !state.busy && !state.round) {
      state.last = { main: here[0].main_bet, tie: here[0].tie_bet };
      setBet("main", here[0].main_bet);
      setBet("tie", here[0].tie_bet);
      renderBets();
    }
  }).catch(() => {});
  refreshSession();
  document.body.dataset.tableReady = "true";
  performance.mark("cw-table-ready");
});
