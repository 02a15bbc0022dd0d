/* The Casino War table: build the bets with chips, deal, decide a tie, watch settlement land. */
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const { api, money, card, fmt, newKey, refreshBalance } = CW;
  const table = JSON.parse(document.getElementById("table-data").textContent);
  const $ = (id) => document.getElementById(id);
  const currency = table.currency;
  const state = { spot: "main", bets: { main: 0, tie: 0 }, last: null, round: null, busy: false, countdown: null };

  const OUTCOMES = {
    win: gettext("You win."), lose: gettext("The dealer wins."), surrender: gettext("You surrendered half your bet."),
    war_win: gettext("You won the war."), war_lose: gettext("You lost the war."), war_tie: gettext("A tie in the war: you win the bonus."),
  };

  // Chips: the table's step times 1, 5, 25, 100 and 500, as long as they fit under the maximum bet.
  const chipValues = [1, 5, 25, 100, 500].map((n) => n * table.bet_step).filter((v) => v <= table.max_bet);
  chipValues.forEach((value, index) => {
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = `chip chip-${index + 1}`;
    chip.dataset.value = value;
    chip.innerHTML = `<span>${CW.moneyShort(value, currency)}</span><kbd>${index + 1}</kbd>`;
    chip.setAttribute("aria-label", fmt(gettext("Add %(amount)s"), { amount: money(value, currency) }));
    chip.addEventListener("click", () => addChip(value));
    $("chips").append(chip);
  });

  function explain(error) {
    if (error.code === "insufficient_funds") {
      const balance = $("side-balance").textContent;
      return fmt(gettext("Not enough money: your wallet holds %(balance)s. Lower the bet or top up your wallet."), { balance });
    }
    return error.message;
  }

  function showMessage(text, kind = "error") {
    $("message").textContent = text || "";
    $("message").className = "message " + kind;
  }

  function renderBets() {
    $("main-amount").textContent = money(state.bets.main, currency);
    $("tie-amount").textContent = money(state.bets.tie, currency);
    for (const spot of ["main", "tie"]) $(`spot-${spot}`).setAttribute("aria-pressed", String(state.spot === spot));
    const deciding = state.round && state.round.status === "awaiting_decision";
    $("deal").disabled = state.busy || deciding || state.bets.main === 0;
    $("repeat").disabled = state.busy || deciding || !state.last;
    $("clear").disabled = state.busy || deciding;
    document.querySelectorAll(".chip").forEach((chip) => (chip.disabled = state.busy || deciding));
  }

  function selectSpot(spot) {
    if (spot === "tie" && !table.max_tie_bet) return;
    state.spot = spot;
    renderBets();
  }

  function addChip(value) {
    if (state.busy || (state.round && state.round.status === "awaiting_decision")) return;
    const cap = state.spot === "main" ? table.max_bet : table.max_tie_bet;
    const next = state.bets[state.spot] + value;
    if (next > cap) {
      showMessage(fmt(gettext("The most this bet takes is %(amount)s."), { amount: money(cap, currency) }));
      state.bets[state.spot] = cap;
    } else {
      showMessage("");
      state.bets[state.spot] = next;
    }
    renderBets();
  }

  function clearBets() {
    state.bets = { main: 0, tie: 0 };
    showMessage("");
    renderBets();
  }

  function showCards(round, { animate = true } = {}) {
    const player = $("player-cards"), dealer = $("dealer-cards");
    player.replaceChildren();
    dealer.replaceChildren();
    const deal = (container, code, delay) => {
      const el = card(code);
      if (animate) {
        el.classList.add("dealt");
        el.style.animationDelay = `${delay}ms`;
      }
      container.append(el);
    };
    deal(player, round.player_card, 0);
    deal(dealer, round.dealer_card, 150);
    if (round.war) {
      const burned = round.fairness ? round.fairness.burn : 0;
      for (let i = 0; i < Math.min(burned, 3); i++) {
        const back = card(null, { faceDown: true, small: true });
        back.classList.add("burned");
        dealer.append(back);
      }
      deal(player, round.war.player_card, animate ? 300 : 0);
      deal(dealer, round.war.dealer_card, animate ? 450 : 0);
    }
  }

  function describeNets(round) {
    const parts = [];
    const nets = round.nets || {};
    if (nets.tie) parts.push(fmt(gettext("tie bet %(amount)s"), { amount: money(nets.tie, currency) }));
    if (nets.bonus) parts.push(fmt(gettext("bonus %(amount)s"), { amount: money(nets.bonus, currency) }));
    const total = fmt(gettext("Net %(amount)s"), { amount: money(round.net, currency) });
    return parts.length ? `${total} (${parts.join(", ")})` : total;
  }

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
    $("outcome").textContent = fmt(gettext("Tie! Going to war raises %(amount)s; surrendering returns half your bet."), { amount: money(round.main_bet, currency) });
    stopCountdown();
    const deadline = round.decision_deadline ? new Date(round.decision_deadline).getTime() : null;
    const tick = () => {
      if (!deadline) return;
      const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
      $("deadline").textContent = fmt(gettext("%(s)s s left to decide."), { s: left });
      if (left === 0) {
        stopCountdown();
        setTimeout(() => follow(round.id), 2500);  // the table decides: fetch what it did
      }
    };
    tick();
    state.countdown = setInterval(tick, 1000);
    $("war").focus();
  }

  function hideDecision() {
    stopCountdown();
    $("decision").hidden = true;
    $("betting-actions").hidden = false;
  }

  function remember(round) {
    const item = document.createElement("li");
    item.innerHTML = `<a href="/history/${round.id}/"></a>`;
    const link = item.firstChild;
    link.append(card(round.player_card, { small: true }), card(round.dealer_card, { small: true }));
    link.append(" " + money(round.net, currency));
    link.classList.add(round.net > 0 ? "up" : round.net < 0 ? "down" : "even");
    $("recent").prepend(item);
    while ($("recent").children.length > 8) $("recent").lastChild.remove();
  }

  async function waitForSettlement(round) {
    // Settlement runs in the background: poll the round until its payout is in the wallet.
    for (let delay = 150; round.status !== "settled"; delay = Math.min(delay * 1.6, 2000)) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      round = await api("GET", `rounds/${round.id}/`);
    }
    const wallet = await refreshBalance();
    if (round.payout > 0) $("outcome").append(" " + fmt(gettext("%(amount)s paid into your wallet."), { amount: money(round.payout, currency) }));
    return wallet;
  }

  async function show(round, { animate = true } = {}) {
    state.round = round;
    showCards(round, { animate });
    if (round.status === "awaiting_decision") {
      showDecision(round);
    } else {
      hideDecision();
      $("outcome").textContent = `${OUTCOMES[round.outcome] || ""} ${describeNets(round)}.`;
      $("outcome").className = "outcome " + (round.net > 0 ? "up" : round.net < 0 ? "down" : "even");
      remember(round);
      waitForSettlement(round).catch((error) => showMessage(error.message));
    }
    renderBets();
  }

  async function follow(roundId) {
    try {
      await show(await api("GET", `rounds/${roundId}/`), { animate: false });
      refreshBalance();
    } catch (error) {
      showMessage(error.message);
    }
  }

  async function deal() {
    if (state.busy || state.bets.main === 0 || (state.round && state.round.status === "awaiting_decision")) return;
    state.busy = true;
    renderBets();
    showMessage("");
    $("outcome").textContent = "";
    const body = { table: Number(table.id), main_bet: state.bets.main, tie_bet: state.bets.tie };
    try {
      const round = await api("POST", "rounds/", body, { key: newKey() });
      state.last = { ...state.bets };
      await refreshBalance();
      await show(round);
    } catch (error) {
      showMessage(explain(error));  // a refused bet changes nothing: the bets stay as they were
    } finally {
      state.busy = false;
      renderBets();
    }
  }

  async function decide(action) {
    if (state.busy || !state.round || state.round.status !== "awaiting_decision") return;
    state.busy = true;
    $("war").disabled = $("surrender").disabled = true;
    showMessage("");
    try {
      const round = await api("POST", `rounds/${state.round.id}/decision/`, { action }, { key: newKey() });
      await refreshBalance();
      await show(round);
    } catch (error) {
      showMessage(explain(error));
      if (error.code === "round_not_awaiting_decision") follow(state.round.id);
    } finally {
      state.busy = false;
      $("war").disabled = $("surrender").disabled = false;
      renderBets();
    }
  }

  function repeat() {
    if (!state.last) return;
    state.bets = { ...state.last };
    renderBets();
    deal();
  }

  document.addEventListener("cw:wallet", (event) => {
    $("side-balance").textContent = money(event.detail.balance, event.detail.currency);
    $("side-in-play").textContent = money(event.detail.in_play, event.detail.currency);
  });
  document.querySelectorAll(".spot").forEach((el) => el.addEventListener("click", () => selectSpot(el.dataset.spot)));
  $("deal").addEventListener("click", deal);
  $("repeat").addEventListener("click", repeat);
  $("clear").addEventListener("click", clearBets);
  $("war").addEventListener("click", () => decide("war"));
  $("surrender").addEventListener("click", () => decide("surrender"));
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest("input, select, textarea") || document.querySelector("dialog[open]")) return;
    const key = event.key.toLowerCase();
    const actions = {
      d: deal, r: repeat, c: clearBets, w: () => decide("war"), s: () => decide("surrender"),
      m: () => selectSpot("main"), t: () => selectSpot("tie"),
    };
    if (actions[key]) {
      event.preventDefault();
      actions[key]();
    } else if (/^[1-5]$/.test(key) && chipValues[Number(key) - 1]) {
      event.preventDefault();
      addChip(chipValues[Number(key) - 1]);
    }
  });

  state.bets.main = table.min_bet;
  renderBets();
  // The recent rounds at this table, from the service (they survive a reload or another device).
  api("GET", "rounds/?limit=20").then((page) => {
    page.results.filter((r) => r.table === String(table.id) && r.status !== "awaiting_decision").slice(0, 8).reverse().forEach(remember);
  }).catch(() => {});
  const pending = $("play").dataset.pendingRound;
  if (pending) follow(pending);  // a decision left waiting (another tab, a reload) is still there
});
