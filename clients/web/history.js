// Rounds on the record (protocol/README.md "Rounds on the record"): game recall with the
// `history` request, and the provably fair `commitment` / `reveal` events in the round log.
// Loaded after app.js; app.js calls onHistory() for a `history` reply and fairLog() for
// events it has no display of its own for.
"use strict";

/** The commitment before the first card and the reveal after the round, in the hand log. */
function fairLog(t, type, ev) {
  if (type === "commitment") {
    addLog(t, `Shuffle committed: SHA-256 ${ev.hash.slice(0, 16)}\u2026 (round ${ev.round}).`, "sys");
    return true;
  }
  if (type === "reveal") {
    addLog(t, `Shuffle revealed: secret ${ev.secret.slice(0, 16)}\u2026 for commitment ` +
      `${ev.commitment.slice(0, 16)}\u2026 (check it with croupier verify).`, "sys");
    return true;
  }
  return false;
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
})();
