/* The fairness page: seeds, rotation, and the verifier of RULES.md section 2 in Web Crypto. */
"use strict";

const Fairness = (() => {
  const enc = new TextEncoder();
  const SUITS = "SHDC", RANKS = "23456789TJQKA";

  const hex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
  function seedBytes(seedHex) {
    if (!/^[0-9a-fA-F]{64}$/.test(seedHex)) throw new Error(gettext("A server seed is 64 hex digits."));
    return new Uint8Array(seedHex.match(/../g).map((h) => parseInt(h, 16)));
  }
  function requireCrypto() {
    if (!(window.crypto && crypto.subtle)) throw new Error(gettext("Your browser offers Web Crypto only on https or localhost pages."));
  }
  async function sha256(seedHex) {
    requireCrypto();
    return hex(await crypto.subtle.digest("SHA-256", seedBytes(seedHex)));
  }

  /* The HMAC-SHA256 stream read four bytes at a time (the engine's HmacStream). */
  async function stream(seedHex, clientSeed, nonce) {
    requireCrypto();
    const key = await crypto.subtle.importKey("raw", seedBytes(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    let counter = 0, block = null, index = 8;
    async function nextU32() {
      if (index === 8) {
        block = new DataView(await crypto.subtle.sign("HMAC", key, enc.encode(`${clientSeed}:${nonce}:${counter}`)));
        counter += 1;
        index = 0;
      }
      return block.getUint32(4 * index++, false);
    }
    return {
      async uniform(m) {
        const limit = 2 ** 32 - (2 ** 32 % m);
        for (;;) {
          const u = await nextU32();
          if (u < limit) return u % m;
        }
      },
    };
  }

  function shoe(decks) {
    const cards = [];
    for (let d = 0; d < decks; d++) for (const s of SUITS) for (const r of RANKS) cards.push(r + s);
    return cards;
  }

  /* The first `count` cards of the forward Fisher-Yates shuffle of the shoe. */
  async function firstCards({ seed, clientSeed, nonce, decks, count }) {
    const cards = shoe(decks), n = cards.length, s = await stream(seed, clientSeed, nonce);
    count = Math.min(count, n);
    for (let i = 0; i < count && i < n - 1; i++) {
      const j = i + (await s.uniform(n - i));
      [cards[i], cards[j]] = [cards[j], cards[i]];
    }
    return cards.slice(0, count);
  }

  /* A round's cards as its seed deals them: player, dealer, burned, player's and dealer's war cards. */
  async function roundCards({ seed, clientSeed, nonce, decks, burn, shuffle = "fresh", shoeNonce = null, shoePosition = 0 }) {
    const persistent = shuffle === "persistent";
    const start = persistent ? shoePosition : 0;
    const cards = await firstCards({ seed, clientSeed, nonce: persistent ? shoeNonce : nonce, decks, count: start + 4 + burn });
    const c = cards.slice(start);
    return { player: c[0], dealer: c[1], burned: c.slice(2, 2 + burn), playerWar: c[2 + burn], dealerWar: c[3 + burn] };
  }

  return { sha256, roundCards, firstCards };
})();

document.addEventListener("DOMContentLoaded", () => {
  const { api, card, fmt } = CW;
  const $ = (id) => document.getElementById(id);

  function row(label, content, ok) {
    const p = document.createElement("p");
    const strong = document.createElement("strong");
    strong.textContent = label + " ";
    p.append(strong);
    if (content instanceof Node) p.append(content); else p.append(String(content));
    if (ok !== undefined) {
      const mark = document.createElement("span");
      mark.className = "verify-result " + (ok ? "ok" : "bad");
      mark.textContent = ok ? " ✓ " + gettext("matches") : " ✗ " + gettext("does not match");
      p.append(mark);
    }
    return p;
  }
  const cards = (...codes) => { const span = document.createElement("span"); codes.filter(Boolean).forEach((c) => span.append(card(c, { small: true }))); return span; };

  async function loadSeeds() {
    const f = await api("GET", "fairness/");
    $("current-hash").textContent = f.server_seed_hash;
    $("current-client").textContent = f.client_seed;
    $("current-nonce").textContent = f.nonce;
    $("next-hash").textContent = f.next_server_seed_hash;
    if (f.previous) {
      $("previous-seed").textContent = f.previous.server_seed;
      $("previous-hash").textContent = f.previous.server_seed_hash;
      $("previous-client").textContent = f.previous.client_seed;
      $("previous-nonce").textContent = f.previous.last_nonce ?? "—";
    }
  }

  $("rotate-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const clientSeed = $("client-seed").value.trim();
    $("rotate-message").textContent = "";
    try {
      await api("POST", "fairness/rotate/", clientSeed ? { client_seed: clientSeed } : {}, { key: CW.newKey() });
      $("client-seed").value = "";
      $("rotate-message").className = "message";
      $("rotate-message").textContent = gettext("Rotated: the server seed you played with is revealed in “Previous seed pair”.");
      await loadSeeds();
      $("previous-panel").classList.add("fresh");
      $("previous-panel").scrollIntoView({ block: "nearest" });
    } catch (error) {
      $("rotate-message").className = "message error";
      $("rotate-message").textContent = error.message;
    }
  });

  // The rotation's message is about that click only: the next thing the player does clears it.
  function forgetRotation() {
    $("rotate-message").textContent = "";
    $("previous-panel").classList.remove("fresh");
  }
  $("client-seed").addEventListener("input", forgetRotation);

  $("verify-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    forgetRotation();
    const out = $("verify-output");
    out.replaceChildren();
    const id = $("round-id").value.trim();
    if (!id) return;
    try {
      const round = await api("GET", `rounds/${encodeURIComponent(id)}/`);
      const f = round.fairness;
      out.append(row(gettext("Round dealt:"), cards(round.player_card, round.dealer_card, round.war && round.war.player_card, round.war && round.war.dealer_card)));
      if (!f.server_seed) {
        out.append(row(gettext("Not yet:"), gettext("this round's server seed is still secret. Rotate your seed pair above to reveal it, then verify again.")));
        return;
      }
      const hash = await Fairness.sha256(f.server_seed);
      out.append(row(gettext("SHA-256 of the revealed seed:"), hash, hash === f.server_seed_hash));
      const dealt = await Fairness.roundCards({
        seed: f.server_seed, clientSeed: f.client_seed, nonce: f.nonce, decks: f.decks, burn: f.burn,
        shuffle: f.shuffle, shoeNonce: f.shoe_nonce, shoePosition: f.shoe_position,
      });
      const first = dealt.player === round.player_card && dealt.dealer === round.dealer_card;
      out.append(row(gettext("The seed deals you and the dealer:"), cards(dealt.player, dealt.dealer), first));
      if (round.war) {
        const war = dealt.playerWar === round.war.player_card && dealt.dealerWar === round.war.dealer_card;
        out.append(row(fmt(gettext("Burned %(n)s, then the war cards:"), { n: dealt.burned.length }), cards(...dealt.burned, dealt.playerWar, dealt.dealerWar), war));
      }
      const verdict = document.createElement("p");
      const good = hash === f.server_seed_hash && first && (!round.war || (dealt.playerWar === round.war.player_card && dealt.dealerWar === round.war.dealer_card));
      verdict.className = "verify-result " + (good ? "ok" : "bad");
      verdict.id = "verdict";
      verdict.textContent = good ? gettext("Verified: the revealed seed deals exactly these cards.") : gettext("NOT verified: the seed does not deal these cards.");
      out.append(verdict);
    } catch (error) {
      out.append(row(gettext("Error:"), error.message));
    }
  });

  $("manual-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    forgetRotation();
    const out = $("manual-output");
    out.replaceChildren();
    try {
      const seed = $("m-seed").value.trim(), burn = Number($("m-burn").value);
      out.append(row(gettext("SHA-256:"), await Fairness.sha256(seed)));
      const dealt = await Fairness.roundCards({ seed, clientSeed: $("m-client").value, nonce: Number($("m-nonce").value), decks: Number($("m-decks").value), burn });
      out.append(row(gettext("You and the dealer:"), cards(dealt.player, dealt.dealer)));
      out.append(row(gettext("Burned, then the war cards:"), cards(...dealt.burned, dealt.playerWar, dealt.dealerWar)));
    } catch (error) {
      out.append(row(gettext("Error:"), error.message));
    }
  });

  loadSeeds().catch((error) => ($("rotate-message").textContent = error.message));
  if ($("round-id").value) $("verify-form").requestSubmit();
});
