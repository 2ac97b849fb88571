// Rounds on the record (protocol/README.md "Rounds on the record"): game recall with the
// `history` request, the provably fair `commitment` in the round log, and the player's own
// seed for every deal (`seed`). Loaded after app.js; app.js calls onHistory() for a
// `history` reply, fairLog() for events it has no display of its own for, and Fair.snapshot()
// / Fair.frame() for every snapshot and events frame.
"use strict";

/** Players add their own seed: on every deal's server hash (`secret_committed`, and the
 *  snapshot's `fair`) a seated player sends a seed, the one typed in the Seed box or a fresh
 *  random one this page makes; the deal mixes it with the server's secret (server/fair.py). */
window.Fair = (() => {
  const roles = {};  // table id -> "player" | "spectator"
  const sent = {};   // a deal's server hash -> the seed this page sent for it
  function randomSeed() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }
  function mySeed() {
    const box = document.getElementById("seed-input");
    const typed = box ? box.value.replace(/[^\x20-\x7e]/g, "").trim().slice(0, 64) : "";
    return typed || randomSeed();
  }
  function give(table, serverHash) {
    if (roles[table] !== "player" || !serverHash) return;
    sent[serverHash] = mySeed();
    send({ type: "seed", table, seed: sent[serverHash] });
  }
  return {
    snapshot(msg) {
      roles[msg.table] = msg.role;
      if (msg.view && msg.view.fair) give(msg.table, msg.view.fair.server_hash);
    },
    frame(msg) {
      for (const ev of msg.events || []) {
        if (ev && ev.type === "secret_committed") give(msg.table, ev.server_hash);
      }
    },
    left(msg) { delete roles[msg.table]; },
    /** The seed this page sent for the deal of ``serverHash`` (undefined: none). */
    mine(serverHash) { return sent[serverHash]; },
    /** Our seeds a commitment listed, in order (what the log's "your seed included" says). */
    included: [],
  };
})();

/** The commitment before the first card (and the seed taken), in the hand log. */
function fairLog(t, type, ev) {
  if (type === "commitment") {
    const what = ev.shoe ? `Shoe stack ${ev.stack}` : "Deal";
    const ours = Fair.mine(ev.server_hash);
    const taken = ours !== undefined && (ev.seeds || []).includes(ours);
    if (taken) Fair.included.push(ours);
    const mine = taken ? ", your seed included" : "";
    addLog(t, `${what} committed: root ${ev.root.slice(0, 16)}\u2026 of ${ev.size} cards` +
      `${mine} (check it with croupier verify).`, "sys");
    return true;
  }
  // the next deal's hash and our seed for it (sent by Fair), cards opened with no event of
  // their own: nothing to read in the log
  return type === "secret_committed" || type === "seed_taken" || type === "opened";
}

/** One recalled round as a line: its cards, the board, shown hands and the result. */
function historyLine(r) {
  const mine = [], board = [], shown = [];
  for (const ev of r.events || []) {
    if (ev.type === "hole_cards_dealt") mine.push(...ev.cards);
    else if (ev.type === "board_dealt") board.splice(0, board.length, ...(ev.board || ev.cards));
    else if (ev.type === "hand_shown") shown.push(`seat ${ev.seat} ${cardText(ev.cards)}`);
    else if (ev.type === "card_dealt" || ev.type === "cards_dealt") mine.push(...(ev.cards || []));
  }
  const when = new Date(r.at).toLocaleString();
  const parts = [`${when}: ${r.game}`];
  if (r.seat != null) parts.push(`seat ${r.seat}, stake ${money(r.stake)}`);
  if (r.boxes) {
    parts.push(Object.entries(r.boxes).map(([b, ws]) =>
      `box ${b} ` + Object.entries(ws).map(([n, c]) => `${humanize(n)} ${money(c)}`).join(", ")).join("; "));
  }
  if (mine.length) parts.push(`your cards ${cardText(mine)}`);
  if (board.length) parts.push(`board ${cardText(board)}`);
  if (shown.length) parts.push(`shown ${shown.join(", ")}`);
  parts.push(r.state === "voided" ? "voided, every wager returned"
    : r.net >= 0 ? `won ${money(r.net)}` : `lost ${money(-r.net)}`);
  return parts.join(" \u00b7 ");
}

/** The reply to `history`: the player's last rounds at the table (oldest first). */
function onHistory(msg) {
  const t = state.table;
  if (!t || t.id !== msg.table) return;
  const rounds = msg.rounds || [];
  if (!rounds.length) { toast("No rounds of yours at this table yet."); return; }
  addLog(t, `Your last ${rounds.length} rounds here:`, "hand");
  for (const r of rounds) addLog(t, historyLine(r), "mine");
  renderTable();
}

(function wireHistory() {
  const leave = document.getElementById("leave-btn");
  if (!leave || document.getElementById("history-btn")) return;
  const btn = document.createElement("button");
  btn.id = "history-btn";
  btn.textContent = "History";
  btn.title = "your last 10 rounds at this table";
  btn.onclick = () => { if (state.table) send({ type: "history", table: state.table.id }); };
  leave.parentNode.insertBefore(btn, leave);
  const seed = document.createElement("input");
  seed.id = "seed-input";
  seed.maxLength = 64;
  seed.size = 10;
  seed.placeholder = "seed";
  seed.title = "your seed for every deal (blackjack: every shoe), mixed with the server's " +
    "secret; empty: a random one per deal";
  leave.parentNode.insertBefore(seed, leave);
})();
