/* The Casino War table: build the bets with chips, deal from the shoe, decide a tie, watch
   settlement land. Every round is played through the public API; this page only shows it, and
   every text it writes follows the rules the round was placed under (round.rules). */
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const { api, money, moneyShort, card, cardLabel, fmt, phrase, newKey, refreshBalance } = CW;
  const sound = CWSound;  // sound.js, loaded before this script
  const table = JSON.parse(document.getElementById("table-data").textContent);
  const $ = (id) => document.getElementById(id);
  const currency = table.currency;
  const chipValues = table.chips;
  const caps = { main: table.max_bet, tie: table.max_tie_bet };
  const calm = window.matchMedia("(prefers-reduced-motion: reduce)");
  const moving = () => !calm.matches;
  const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const TIE_MOMENT_MS = 1600;  // the tie and both choices' worth, before the buttons
  const PAID_AFTER_MS = 1100;  // the winnings lie on the felt this long before they go to the player
  const state = {
    spot: "main",
    bets: { main: 0, tie: 0 },
    stacks: { main: [], tie: [], war: [] },
    last: null,  // the bets of the last round dealt here: what Rebet puts back
    round: null,
    shown: { round: null, war: false, tie: false },  // what of the round is on the felt
    seq: 0,  // the round on show; an answer about an older one changes nothing on the felt
    busy: false,
    countdown: null,
    discarded: 0,
  };

  const HEADLINES = {
    win: gettext("You win"), lose: gettext("Dealer wins"), surrender: gettext("Surrendered"),
    war_win: gettext("War won"), war_lose: gettext("War lost"),
  };
  const ROAD = {
    win: ["+", gettext("win")], lose: ["−", gettext("loss")], surrender: ["½", gettext("surrender")],
    war_win: ["+", gettext("war won")], war_lose: ["−", gettext("war lost")], war_tie: ["★", gettext("tie in the war")],
  };
  const BETS = { main: gettext("Main bet"), raise: gettext("War raise"), tie: gettext("Tie bet"), bonus: gettext("Bonus") };
  const signed = (minor) => (minor > 0 ? "+" : "") + money(minor, currency);
  const rulesOf = (round) => round.rules;  // the rules the round was placed under (casino.selectors.round_rules)
  const bonusPaid = (round) => Boolean(round.nets && round.nets.bonus > 0);

  /* What the round's outcome was, in words true to what it paid: a tie in the war names the bonus
     only when the table paid one. */
  function outcomeSentence(round) {
    switch (round.outcome) {
      case "win": return gettext("You win.");
      case "lose": return gettext("The dealer wins.");
      case "surrender": return gettext("You surrendered half your bet.");
      case "war_win": return gettext("You won the war.");
      case "war_lose": return gettext("You lost the war.");
      case "war_tie": return bonusPaid(round)
        ? gettext("A tie in the war: your raise wins and the bonus pays your bet.")
        : gettext("A tie in the war: your raise wins and your bet comes back.");
      default: return "";
    }
  }
  function headline(round) {
    let words = round.outcome === "war_tie" ? (bonusPaid(round) ? gettext("War tie: bonus") : gettext("War tie")) : HEADLINES[round.outcome] || "";
    if (round.nets && round.nets.tie > 0) words += " · " + gettext("tie bet wins");
    return words;
  }
  function timedOutSentence(round) {
    if (!round.decision_timed_out) return "";
    return round.decision === "war" ? gettext("Time ran out: the table went to war for you.") : gettext("Time ran out: the table surrendered for you.");
  }
  const tieWin = (round) => (round.tie_bet ? round.tie_bet * rulesOf(round).tie_pays : 0);

  // --- chips and the stacks on the spots ------------------------------------------------------
  const chipClass = (value) => (chipValues.includes(value) ? `chip-${chipValues.indexOf(value) + 1}` : "chip-odd");
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

  function discs(chips) {
    const shown = chips.slice(-12);  // a tall stack shows its top twelve
    return shown.map((value, i) => {
      const disc = document.createElement("span");
      disc.className = `disc ${chipClass(value)}`;
      disc.style.setProperty("--i", String(i));
      if (i === shown.length - 1) disc.textContent = moneyShort(value, currency);
      return disc;
    });
  }

  function renderStack(spot) {
    const el = $(`${spot}-stack`);
    el.replaceChildren(...discs(state.stacks[spot]));
    el.dataset.chips = String(state.stacks[spot].length);
  }

  function deciding() {
    return Boolean(state.round && state.round.status === "awaiting_decision");
  }

  function renderBets() {
    $("main-amount").textContent = money(state.bets.main, currency);
    $("tie-amount").textContent = money(state.bets.tie, currency);
    $("war-amount").textContent = money(state.round ? state.round.raise || 0 : 0, currency);
    ["main", "tie", "war"].forEach(renderStack);
    for (const spot of ["main", "tie"]) $(`spot-${spot}`).setAttribute("aria-pressed", String(state.spot === spot));
    $("spot-war").hidden = !(state.round && (deciding() || state.round.raise));
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

  /* Chips of a stack (or a pile) that slide in from somewhere else on the felt, one after another. */
  function slideIn(el, fromRect, { duration = 320, gap = 35 } = {}) {
    const flights = [...el.children].map((disc, i) => {
      const b = disc.getBoundingClientRect();
      return disc.animate([
        { transform: `translate(${fromRect.left + fromRect.width / 2 - (b.left + b.width / 2)}px, ${fromRect.top + fromRect.height / 2 - (b.top + b.height / 2)}px)`, opacity: 0.6 },
        { transform: "none", opacity: 1 },
      ], { duration, delay: i * gap, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" }).finished.catch(() => {});
    });
    return Promise.all(flights);
  }

  /* ... and chips that slide away to somewhere else on the felt, fading as they arrive. */
  function slideOut(el, toRect, { duration = 420, gap = 30 } = {}) {
    const flights = [...el.children].map((disc, i) => {
      const b = disc.getBoundingClientRect();
      return disc.animate([
        { transform: "none", opacity: 1 },
        { transform: `translate(${toRect.left + toRect.width / 2 - (b.left + b.width / 2)}px, ${toRect.top + toRect.height / 2 - (b.top + b.height / 2)}px) scale(.8)`, opacity: 0 },
      ], { duration, delay: i * gap, easing: "cubic-bezier(.5,0,.7,.4)", fill: "forwards" }).finished.catch(() => {});
    });
    return Promise.all(flights);
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

  // --- winnings: paid as chips beside the bet, then slid to the player ----------------------------
  /* The pile of a bet's winnings, beside its stack; `from` the dealer's side when it is paid now. */
  function payPile(spot, amount, animate) {
    const pile = $(`${spot}-pay`);
    pile.replaceChildren(...discs(chipsFor(amount)));
    pile.dataset.amount = String(amount);
    pile.title = signed(amount);
    pile.classList.remove("gone");
    if (animate) return slideIn(pile, $("dealer-hand").getBoundingClientRect(), { duration: 380 });
    return Promise.resolve();
  }

  function clearPiles() {
    for (const spot of ["main", "tie", "war"]) {
      const pile = $(`${spot}-pay`);
      pile.getAnimations({ subtree: true }).forEach((a) => a.cancel());
      pile.replaceChildren();
      delete pile.dataset.amount;
      pile.classList.remove("gone");
    }
    $("war-stack").classList.remove("gone");
  }

  /* The round is over: what it won goes to the player (the money on the felt under the spots), a
     lost raise to the dealer. The bets themselves stay on their spots: they are the next round's. */
  async function collect(round, seq, animate) {
    const nets = round.nets || {};
    const piles = ["main", "tie", "war"].filter((spot) => $(`${spot}-pay`).childElementCount);
    const paid = piles.reduce((sum, spot) => sum + Number($(`${spot}-pay`).dataset.amount || 0), 0);
    if (!animate) {
      if (paid) document.dispatchEvent(new CustomEvent("cw:paid", { detail: { round: round.id, amount: paid } }));
      return;
    }
    await wait(PAID_AFTER_MS);
    if (seq !== state.seq) return;
    const bank = $("bank").getBoundingClientRect();
    const moves = piles.map((spot) => slideOut($(`${spot}-pay`), bank));
    if (round.raise) {
      const raised = $("war-stack");
      moves.push(slideOut(raised, nets.raise >= 0 ? bank : $("dealer-hand").getBoundingClientRect()));
    }
    if (paid) sound.play("chip");
    await Promise.all(moves);
    if (seq !== state.seq) return;
    piles.forEach((spot) => $(`${spot}-pay`).replaceChildren());  // paid: the bet's own chips stay
    if (round.raise) $("war-stack").classList.add("gone");
    if (paid) document.dispatchEvent(new CustomEvent("cw:paid", { detail: { round: round.id, amount: paid } }));
  }

  // --- messages ------------------------------------------------------------------------------------
  function explain(error) {
    switch (error.code) {
      case "insufficient_funds":
        return fmt(gettext("Not enough money: your wallet holds %(balance)s. Lower the bet or top up your wallet."), { balance: $("felt-balance").textContent });
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
  const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  /* Where the pips of a number card lie (per cent of the card, across and down), as printed on a
     real card: two columns clear of the corner indices; those in the lower half upside down. */
  const PIPS = {
    A: [[50, 50]],
    2: [[50, 19], [50, 81]],
    3: [[50, 19], [50, 50], [50, 81]],
    4: [[33, 19], [67, 19], [33, 81], [67, 81]],
    5: [[33, 19], [67, 19], [50, 50], [33, 81], [67, 81]],
    6: [[33, 19], [67, 19], [33, 50], [67, 50], [33, 81], [67, 81]],
    7: [[33, 19], [67, 19], [50, 34.5], [33, 50], [67, 50], [33, 81], [67, 81]],
    8: [[33, 19], [67, 19], [50, 34.5], [33, 50], [67, 50], [50, 65.5], [33, 81], [67, 81]],
    9: [[33, 19], [67, 19], [33, 39.5], [67, 39.5], [50, 50], [33, 60.5], [67, 60.5], [33, 81], [67, 81]],
    T: [[33, 19], [67, 19], [50, 29], [33, 39.5], [67, 39.5], [33, 60.5], [67, 60.5], [50, 71], [33, 81], [67, 81]],
  };

  /* The face of a card as printed: the index in two corners, the pips of a number card, the
     figure of a court card (court-*.svg), a big pip for an ace. */
  function cardFace(code) {
    const face = card(code);
    if (code[0] === "X") return face;
    const suit = SUIT_SYMBOLS[code[1]];
    face.replaceChildren();
    face.classList.add("printed-face");
    for (const corner of ["top", "bottom"]) {
      const index = document.createElement("span");
      index.className = `index ${corner}`;
      const rank = document.createElement("span");
      rank.className = code[0] === "T" ? "rank ten" : "rank";
      rank.textContent = code[0] === "T" ? "10" : code[0];
      const pip = document.createElement("span");
      pip.className = "suit";
      pip.textContent = suit;
      index.append(rank, pip);
      face.append(index);
    }
    if ("JQK".includes(code[0])) {
      const art = document.createElement("span");
      art.className = `court court-${code[0]}`;
      const mark = document.createElement("span");
      mark.className = "court-suit";
      mark.textContent = suit;
      art.append(mark);
      face.append(art);
      face.classList.add("has-court");
      return face;
    }
    const field = document.createElement("span");
    field.className = "pips" + (code[0] === "A" ? " ace" : "");
    for (const [x, y] of PIPS[code[0]]) {
      const pip = document.createElement("span");
      pip.className = "pip" + (y > 50 ? " turned" : "");
      pip.style.setProperty("--x", `${x}%`);
      pip.style.setProperty("--y", `${y}%`);
      pip.textContent = suit;
      field.append(pip);
    }
    face.append(field);
    return face;
  }

  function playingCard(code) {
    const slot = document.createElement("span");
    slot.className = "flip down";
    slot.dataset.card = code;
    slot.setAttribute("role", "img");
    slot.setAttribute("aria-label", cardLabel(code));
    const inner = document.createElement("span");
    inner.className = "flip-inner";
    const face = cardFace(code);
    const back = card(null, { faceDown: true });
    for (const side of [face, back]) ["role", "aria-label", "title"].forEach((name) => side.removeAttribute(name));
    face.classList.add("face");
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
      state.shown = { round: round.id, war: false, tie: false };
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
    $("tie-moment").hidden = true;
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

  /* Each bet's result when more than one bet had one: Main bet -€2.00 · Tie bet +€10.00. */
  function betResults(round) {
    const nets = round.nets || {};
    const parts = ["main", "raise", "tie", "bonus"].filter((bet) => nets[bet]);
    return parts.length > 1 ? parts.map((bet) => `${BETS[bet]} ${signed(nets[bet])}`) : [];
  }

  function celebrate(round, animate) {
    const kind = round.net > 0 ? "win" : round.net < 0 ? "lose" : "even";
    const banner = $("result-banner");
    banner.className = `result-banner ${kind}`;
    banner.querySelector(".label").textContent = headline(round);
    countUp(banner.querySelector(".net"), round.net, animate);
    const parts = banner.querySelector(".parts");
    parts.replaceChildren(...betResults(round).map((text) => {
      const part = document.createElement("span");
      part.textContent = text;
      return part;
    }));
    parts.hidden = !parts.childElementCount;
    banner.hidden = false;
    $("player-hand").classList.toggle("win", round.net > 0);
    $("player-hand").classList.toggle("lose", round.net < 0);
    $("dealer-hand").classList.toggle("win", round.net < 0);
    sound.play(round.net > 0 ? "win" : "lose");
  }

  function resultLine(round) {
    const line = document.createDocumentFragment();
    const timedOut = timedOutSentence(round);
    if (timedOut) line.append(timedOut, " ");
    line.append(outcomeSentence(round), " ", phrase(gettext("Net %(amount)s"), { amount: money(round.net, currency) }));
    const nets = round.nets || {};
    const parts = [];
    if (nets.tie) parts.push(phrase(gettext("tie bet %(amount)s"), { amount: money(nets.tie, currency) }));
    if (nets.bonus) parts.push(phrase(gettext("bonus %(amount)s"), { amount: money(nets.bonus, currency) }));
    if (parts.length) {
      line.append(" (");
      parts.forEach((part, i) => line.append(...(i ? [", ", part] : [part])));
      line.append(")");
    }
    line.append(".");
    return line;
  }

  function setOutcome(content, kind = "") {
    const outcome = $("outcome");
    outcome.replaceChildren(typeof content === "string" ? document.createTextNode(content) : content);
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

  /* A round in the side panel: its first cards, and after an arrow the war cards when it went to war. */
  function remember(round) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = CW.roundUrl(round.id);
    link.append(card(round.player_card, { small: true }), card(round.dealer_card, { small: true }));
    if (round.war) {
      const arrow = document.createElement("span");
      arrow.className = "then";
      arrow.setAttribute("aria-hidden", "true");
      arrow.textContent = "→";
      const said = document.createElement("span");
      said.className = "sr-only";
      said.textContent = gettext("then the war:");
      link.append(arrow, said, card(round.war.player_card, { small: true }), card(round.war.dealer_card, { small: true }));
    }
    const net = document.createElement("span");
    net.className = "nowrap";
    net.textContent = signed(round.net);
    link.append(" ", net);
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

  // --- a tie: the moment, then the decision ------------------------------------------------------------
  function stopCountdown() {
    clearInterval(state.countdown);
    state.countdown = null;
  }

  const worth = (round, value) => (value === undefined ? "" : money(Math.round(value * round.main_bet), currency));

  /* The tie as it happens: "Tie", what the tie bet won (its winnings laid beside it), and what
     each choice is worth, for a moment before the buttons come. */
  async function tieMoment(round, { fresh, animate }) {
    const won = tieWin(round);
    if (!state.shown.tie) {
      state.shown.tie = true;
      if (won) await payPile("tie", won, animate && fresh);
    }
    if (!fresh) return;
    const values = round.decision_values || {};
    $("moment-war").textContent = worth(round, values.war);
    $("moment-surrender").textContent = worth(round, values.surrender);
    $("tie-won").hidden = !won;
    $("tie-won").textContent = won ? fmt(gettext("Tie bet wins %(amount)s"), { amount: signed(won) }) : "";
    $("tie-moment").hidden = false;
    sound.play(won ? "win" : "chip");
    await wait(TIE_MOMENT_MS);
    $("tie-moment").hidden = true;
  }

  function showDecision(round) {
    $("decision").hidden = false;
    $("betting-actions").hidden = true;
    $("war").disabled = $("surrender").disabled = false;
    const values = round.decision_values || {};
    const worded = (value) => (value === undefined ? "" : fmt(gettext("worth %(amount)s on average"), { amount: worth(round, value) }));
    $("war-value").textContent = worded(values.war);
    $("surrender-value").textContent = worded(values.surrender);
    const line = document.createDocumentFragment();
    line.append(phrase(gettext("Tie! Going to war raises %(amount)s; surrendering returns half your bet."), { amount: money(round.main_bet, currency) }));
    const won = tieWin(round);
    if (won) line.append(" ", phrase(gettext("Your tie bet wins %(amount)s."), { amount: money(won, currency) }));
    setOutcome(line, won ? "up" : "");
    stopCountdown();
    const deadline = round.decision_deadline ? new Date(round.decision_deadline).getTime() : null;
    const seq = state.seq;
    const decides = rulesOf(round).house_rule;
    const tick = () => {
      if (!deadline || seq !== state.seq) return;
      const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
      $("deadline").textContent = fmt(gettext("%(s)s s left to decide."), { s: left });
      if (left === 0) {
        stopCountdown();
        // The table decides now: say what it does, then fetch what it did.
        $("war").disabled = $("surrender").disabled = true;
        $("deadline").textContent = decides === "surrender" ? gettext("Time is up: the table surrenders for you.") : gettext("Time is up: the table goes to war for you (or surrenders if you cannot afford the raise).");
        setTimeout(() => follow(round.id, { animate: true }), 2500);
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
    paid.append(" ", phrase(gettext("%(amount)s paid into your wallet."), { amount: money(round.payout, currency) }));
    $("outcome").append(paid);
  }

  /* The winnings of each bet, laid beside it: the tie bet's at the tie, the rest now. */
  function payWinnings(round, animate) {
    const nets = round.nets || {};
    const pays = [];
    if (nets.main > 0 || nets.bonus > 0) pays.push(payPile("main", Math.max(0, nets.main) + Math.max(0, nets.bonus), animate));
    if (nets.raise > 0) pays.push(payPile("war", nets.raise, animate));
    if (nets.tie > 0 && !$("tie-pay").childElementCount) pays.push(payPile("tie", nets.tie, animate));
    return Promise.all(pays);
  }

  async function show(round, { animate = true } = {}) {
    const seq = ++state.seq;
    document.dispatchEvent(new CustomEvent("cw:round", { detail: round }));
    const motion = animate && moving();
    const before = state.round;
    state.round = round;
    if (state.shown.round !== round.id) {
      hideResult();
      clearPiles();
      setOutcome("");
      state.stacks.war = [];
    }
    const raised = round.raise && !(before && before.id === round.id && before.raise);
    state.stacks.war = round.raise ? chipsFor(round.raise) : [];
    renderBets();
    if (raised && motion) slideIn($("war-stack"), $("bank").getBoundingClientRect());  // the raise, from the player's money
    await layCards(round, motion);
    if (seq !== state.seq) return;
    if (round.status === "awaiting_decision") {
      await tieMoment(round, { fresh: animate && !(before && before.id === round.id), animate: motion });
      if (seq !== state.seq) return;
      showDecision(round);
    } else {
      hideDecision();
      $("tie-moment").hidden = true;
      setOutcome(resultLine(round), round.net > 0 ? "up" : round.net < 0 ? "down" : "even");
      celebrate(round, motion);
      road(round);
      remember(round);
      waitForSettlement(round, seq).catch((error) => showMessage(error.message));
      payWinnings(round, motion).then(() => collect(round, seq, motion));
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
    $("felt-balance").textContent = money(event.detail.balance, event.detail.currency);
    $("felt-in-play").textContent = money(event.detail.in_play, event.detail.currency);
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
