/* A game session launched by a partner casino (web/game.py): the page plays with the session's
   credential, tells the partner's page what happens, and stops when the session ends.

   The credential: the launch page carries it once; this script keeps it in memory and in the
   frame's window.name, so that a reload or the next page of this frame (lobby, table, history)
   finds it. A browser that blocks third-party cookies refuses a cross-site frame both cookies and
   storage, and a header the page sends itself is no ambient credential: nothing to forge.

   Events for the partner's page, posted to each of the partner's origins (never "*"), as
   {source: "casino-war", type, session, ...}: ready, round.placed, round.settled,
   balance.changed, session.ended (docs/PARTNERS.md). */
"use strict";

const CWGame = (() => {
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const KEPT = `cw-game:${data.id}:`;
  const given = document.getElementById("game-credential");
  let token = null;
  if (given) {
    token = JSON.parse(given.textContent);
    given.remove();
    // The launch URL opens once: the address (and a reload) is the session's own page from now on.
    history.replaceState(null, "", data.path);
  } else if (window.name.startsWith(KEPT)) {
    token = window.name.slice(KEPT.length);
  }
  if (token) window.name = KEPT + token;
  let over = false;
  let poller = null;

  function post(type, detail = {}) {
    if (window.parent === window) return;  // a window of its own: nobody to tell
    const message = { source: "casino-war", type, session: data.id, ...detail };
    for (const origin of data.origins) window.parent.postMessage(message, origin);
  }

  function headers() {
    return { Authorization: `GameSession ${token || "-"}`, "Accept-Language": data.language };
  }

  function path(rest = "") {
    return `/play/${data.id}/${rest}`;
  }

  /* The session is over (or this page has no credential): say so and stop playing. */
  function end(problem, { told = true } = {}) {
    if (over) return;
    over = true;
    clearInterval(poller);
    if (told) {
      token = null;
      if (window.name.startsWith(KEPT)) window.name = "";
    }
    document.body.dataset.gameEnded = "true";
    const text = (problem && problem.detail) || gettext("This game session has ended.");
    document.getElementById("game-ended-text").textContent = text;
    document.getElementById("game-ended").hidden = false;
    const play = document.getElementById("play");
    if (play) {
      play.hidden = true;
      play.inert = true;
    }
    document.querySelector("dialog[open]")?.close();
    if (told) post("session.ended", { reason: (problem && problem.reason) || "ended" });
  }

  async function state() {
    if (over) return;
    let response;
    try {
      response = await fetch(path("state/"), { headers: headers(), credentials: "omit" });
    } catch (error) {
      return;  // offline for a moment: ask again at the next tick
    }
    const body = await response.json().catch(() => ({}));
    if (response.status === 401 || body.active === false) end(body);
  }

  async function stop() {
    let body = {};
    try {
      const response = await fetch(path("end/"), { method: "POST", headers: headers(), credentials: "omit" });
      body = await response.json().catch(() => ({}));
    } finally {
      end(body);
    }
  }

  // --- what the partner's page hears ---------------------------------------------------------------
  const rounds = new Map();  // the rounds this page has told of, and their last status
  document.addEventListener("cw:round", (event) => {
    const round = event.detail;
    const was = rounds.get(round.id);
    if (was === undefined) post("round.placed", { round: round.id, table: round.table, main_bet: round.main_bet, tie_bet: round.tie_bet });
    if (round.status === "settled" && was !== "settled") {
      post("round.settled", { round: round.id, table: round.table, outcome: round.outcome, net: round.net, payout: round.payout });
    }
    rounds.set(round.id, round.status);
  });
  let balance = null;
  document.addEventListener("cw:wallet", (event) => {
    const wallet = event.detail;
    if (balance !== null && balance.balance === wallet.balance && balance.in_play === wallet.in_play) return;
    balance = wallet;
    post("balance.changed", { balance: wallet.balance, in_play: wallet.in_play, currency: wallet.currency });
  });

  // --- the history page: the player's rounds, read with the credential --------------------------------
  const OUTCOMES = {
    win: gettext("win"), lose: gettext("loss"), surrender: gettext("surrender"),
    war_win: gettext("war won"), war_lose: gettext("war lost"), war_tie: gettext("tie in the war"),
  };
  async function showHistory(list) {
    const [page, tables] = await Promise.all([CW.api("GET", "rounds/?limit=50"), CW.api("GET", "tables/")]);
    const names = Object.fromEntries(tables.map((t) => [t.id, t.name]));
    const body = list.querySelector("tbody");
    const cell = (text, className = "") => {
      const td = document.createElement("td");
      td.className = className;
      if (typeof text === "string") td.textContent = text; else td.append(...text);
      return td;
    };
    const currency = data.currency;
    for (const r of page.results) {
      const row = document.createElement("tr");
      row.id = `round-${r.id}`;
      const cards = [CW.card(r.player_card, { small: true }), CW.card(r.dealer_card, { small: true })];
      if (r.war) cards.push(" → ", CW.card(r.war.player_card, { small: true }), CW.card(r.war.dealer_card, { small: true }));
      const bets = CW.money(r.main_bet + r.tie_bet + (r.raise || 0), currency);
      const outcome = r.outcome ? OUTCOMES[r.outcome] || r.outcome : gettext("awaiting your decision");
      row.append(
        cell(CW.when(r.created_at)), cell(names[r.table] || r.table), cell(cards),
        cell(bets, "num"), cell(outcome), cell(r.status === "awaiting_decision" ? "" : CW.money(r.net, currency), "num " + (r.net > 0 ? "up" : r.net < 0 ? "down" : "")),
      );
      body.append(row);
    }
    list.setAttribute("aria-busy", "false");
    document.getElementById("game-history-empty").hidden = page.results.length > 0;
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (document.querySelector("[data-game-ended]")) {
      post("session.ended", { reason: "ended" });
      over = true;
      return;
    }
    if (!token) {
      // Opened outside the frame or window the casino launched (a copied address): nothing to play with.
      end({ detail: gettext("This game opens from the casino's site: open it again there.") }, { told: false });
      return;
    }
    CW.refreshBalance().catch(() => {});
    const list = document.getElementById("game-history");
    if (list) showHistory(list).catch(() => {});
    poller = setInterval(state, data.poll_s * 1000);
    const table = JSON.parse(document.getElementById("table-data")?.textContent || "null");
    post("ready", { page: table ? "table" : list ? "history" : "lobby", table: table ? String(table.id) : null, demo: data.demo });
  });

  return { headers, path, end, stop, post, get over() { return over; } };
})();
