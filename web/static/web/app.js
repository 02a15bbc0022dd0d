/* Casino War web front end: what every page shares (API calls, money, cards, reality check). */
"use strict";

const CW = (() => {
  const tr = (s) => (window.gettext ? window.gettext(s) : s);
  const fmt = (s, obj) => (window.interpolate ? window.interpolate(s, obj, true) : s.replace(/%\((\w+)\)s/g, (_, k) => obj[k]));
  const language = () => document.documentElement.dataset.language || "en";

  function cookie(name) {
    const match = document.cookie.match(new RegExp("(?:^|; )" + name + "=([^;]*)"));
    return match ? decodeURIComponent(match[1]) : "";
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  class ApiError extends Error {
    constructor(status, problem) {
      super((problem && problem.detail) || gettext("The service could not answer. Please try again."));
      this.status = status;
      this.code = (problem && problem.code) || "network_error";
      this.problem = problem || {};
    }
  }

  /* One call to the public API with the session cookie; a POST that creates or moves money carries
     an Idempotency-Key, so that a retry of the same click can never bet twice. */
  /* A game launched by a partner (game.js) sends its session's credential instead of cookies. */
  const game = () => (typeof CWGame !== "undefined" ? CWGame : null);

  async function api(method, path, body, { key } = {}) {
    const headers = { Accept: "application/json" };
    const launched = game();
    if (launched) {
      Object.assign(headers, launched.headers());
      if (method !== "GET") headers["Content-Type"] = "application/json";
    } else if (method !== "GET") {
      headers["Content-Type"] = "application/json";
      headers["X-CSRFToken"] = cookie("csrftoken");
    }
    if (key) headers["Idempotency-Key"] = key;
    let response;
    try {
      response = await fetch("/api/v1/" + path, {
        method, headers, credentials: launched ? "omit" : "same-origin", body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new ApiError(0, null);
    }
    const data = response.status === 204 ? null : await response.json().catch(() => null);
    if (!response.ok) {
      if (launched && response.status === 401) launched.end(data);
      throw new ApiError(response.status, data);
    }
    return data;
  }

  /* Where a round is recalled: the round's page, or in a launched game its history. */
  function roundUrl(id) {
    const launched = game();
    return launched ? launched.path("history/") : `/history/${id}/`;
  }

  /* The one money format of the service (ledger/money.py): €1,234.50 in English, 1.234,50 € in
     Portuguese and Spanish, R$ 1.234,50 for reais; the space is a no-break space, so that an
     amount never breaks across two lines. */
  const SYMBOLS = { EUR: "€", USD: "$", GBP: "£", BRL: "R$" };
  const NBSP = "\u00a0";
  function number(value, decimals = 0) {
    const english = language().startsWith("en");
    const [thousands, decimal] = english ? [",", "."] : [".", ","];
    const sign = value < 0 ? "-" : "";
    const abs = Math.abs(value);
    const units = Math.floor(abs / 10 ** decimals);
    const grouped = String(units).replace(/\B(?=(\d{3})+(?!\d))/g, thousands);
    if (!decimals) return sign + grouped;
    return sign + grouped + decimal + String(abs % 10 ** decimals).padStart(decimals, "0");
  }
  function money(minor, currency) {
    if (minor === null || minor === undefined) return "";
    const sign = minor < 0 ? "-" : "";
    const amount = number(Math.abs(minor), 2);
    const symbol = SYMBOLS[currency];
    if (!symbol) return `${sign}${amount}${NBSP}${currency}`;
    if (currency === "BRL") return `${sign}R$${NBSP}${amount}`;
    return language().startsWith("en") ? `${sign}${symbol}${amount}` : `${sign}${amount}${NBSP}${symbol}`;
  }
  /* A chip's label: whole amounts without cents (€5, 5 €), others as money. */
  function moneyShort(minor, currency) {
    if (minor % 100 !== 0) return money(minor, currency);
    const full = money(minor, currency);
    const english = language().startsWith("en");
    return full.replace(english ? /\.00$/ : /,00(?=\u00a0)/, "");
  }
  function percent(fraction, digits = 2) {
    const english = language().startsWith("en");
    const text = (fraction * 100).toFixed(digits);
    return (english ? text : text.replace(".", ",")) + NBSP + "%";
  }
  /* A translated sentence with its values (amounts, counts) each in a span that never breaks
     across lines ("-€0.50" would otherwise break after its sign): a fragment for the page. */
  function phrase(template, values) {
    const fragment = document.createDocumentFragment();
    let last = 0;
    const text = template;  // already translated: phrase(gettext("..."), {...})
    text.replace(/%\((\w+)\)s/g, (match, name, at) => {
      fragment.append(text.slice(last, at));
      const value = document.createElement("span");
      value.className = "nowrap";
      value.textContent = String(values[name]);
      fragment.append(value);
      last = at + match.length;
      return match;
    });
    fragment.append(text.slice(last));
    return fragment;
  }
  /* A moment as the pages write it (config/formats: one format per language, with the time
     zone): "2 Dec 2026, 04:56:12 UTC" in English, "02/12/2026 04:56:12 UTC" in Portuguese and
     Spanish, in the service's time zone (the page's data-time-zone). */
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  function when(iso) {
    if (!iso) return "";
    const zone = document.documentElement.dataset.timeZone || "UTC";
    const parts = {};
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit",
      second: "2-digit", hourCycle: "h23", timeZoneName: "short",
    }).formatToParts(new Date(iso)).forEach((part) => (parts[part.type] = part.value));
    const time = `${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
    if (!language().startsWith("en")) return `${parts.day}/${parts.month}/${parts.year} ${time}`;
    return `${Number(parts.day)} ${MONTHS[Number(parts.month) - 1]} ${parts.year}, ${time}`;
  }

  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const gettext_noop = window.gettext_noop || ((s) => s);
  const SUIT_NAMES = { S: gettext_noop("spades"), H: gettext_noop("hearts"), D: gettext_noop("diamonds"), C: gettext_noop("clubs") };
  const RANK_NAMES = { A: gettext_noop("ace"), K: gettext_noop("king"), Q: gettext_noop("queen"), J: gettext_noop("jack"), T: "10" };
  function cardLabel(code) {
    if (code[0] === "X") return gettext("joker");
    const rank = RANK_NAMES[code[0]] ? gettext(RANK_NAMES[code[0]]) : code[0];
    return fmt(gettext("%(rank)s of %(suit)s"), { rank, suit: gettext(SUIT_NAMES[code[1]]) });
  }
  /* A card element: rank and suit, red or black; `faceDown` shows its back. */
  function card(code, { faceDown = false, small = false } = {}) {
    const el = document.createElement("span");
    el.className = "card" + (small ? " small" : "");
    if (faceDown || !code) {
      el.classList.add("back");
      el.setAttribute("role", "img");
      el.setAttribute("aria-label", gettext("a card face down"));
      return el;
    }
    el.dataset.card = code;
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", cardLabel(code));
    el.title = code;
    if (code[0] === "X") {
      el.classList.add("joker");
      el.textContent = "★";
      return el;
    }
    el.classList.add("HD".includes(code[1]) ? "red" : "black");
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = code[0] === "T" ? "10" : code[0];
    const suit = document.createElement("span");
    suit.className = "suit";
    suit.textContent = SUITS[code[1]];
    el.append(rank, suit);
    return el;
  }

  function duration(seconds) {
    const h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
    if (h) return fmt(gettext("%(h)s h %(m)s min"), { h, m });
    if (m) return fmt(gettext("%(m)s min %(s)s s"), { m, s });
    return fmt(gettext("%(s)s s"), { s });
  }

  async function refreshBalance() {
    const el = document.getElementById("header-balance");
    if (!el) return null;
    const wallet = await api("GET", "wallet/");
    el.textContent = money(wallet.balance, wallet.currency);
    document.dispatchEvent(new CustomEvent("cw:wallet", { detail: wallet }));
    return wallet;
  }

  /* The reality check: at the interval the player chose, show the session's time and net result
     and ask to go on or stop; the figures come from the service, not from this page. */
  async function realityCheck() {
    const dialog = document.getElementById("reality-check");
    if (!dialog) return;
    let timer = null;
    async function schedule() {
      let figures;
      try { figures = await api("GET", "protection/session/"); } catch (e) { return; }
      if (!figures.next_reality_check_at) return;
      const due = new Date(figures.next_reality_check_at).getTime() - Date.now();
      clearTimeout(timer);
      timer = setTimeout(show, Math.max(0, due) + 250);
    }
    async function show() {
      const figures = await api("GET", "protection/session/");
      const currency = (document.getElementById("header-balance") || {}).dataset?.currency || "EUR";
      dialog.querySelector('[data-field="elapsed"]').textContent = duration(figures.elapsed_s);
      dialog.querySelector('[data-field="rounds"]').textContent = number(figures.rounds);
      dialog.querySelector('[data-field="staked"]').textContent = money(figures.staked, currency);
      dialog.querySelector('[data-field="net"]').textContent = money(figures.net, currency);
      if (!dialog.open) dialog.showModal();
    }
    dialog.querySelector('[data-action="continue"]').addEventListener("click", () => { dialog.close(); schedule(); });
    dialog.querySelector('[data-action="stop"]').addEventListener("click", async () => {
      if (game()) {
        dialog.close();
        return game().stop();
      }
      try { await api("DELETE", "auth/session/"); } finally { window.location.href = "/"; }
    });
    schedule();
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (document.body.dataset.player) realityCheck();
    // The language switcher sends itself on change (no inline handler: the pages allow only their own scripts).
    document.querySelectorAll("select[data-submit-on-change]").forEach((select) => {
      select.addEventListener("change", () => select.form.submit());
    });
  });

  return { api, ApiError, roundUrl, money, moneyShort, number, percent, phrase, when, card, cardLabel, duration, refreshBalance, newKey, tr, fmt, language };
})();
