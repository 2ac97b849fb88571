/* croupier browser client: plain JavaScript, no build step.
 *
 * Speaks only the documented protocol (protocol/README.md): one MessagePack map per binary
 * WebSocket frame, money as integer cents, cards as two-character strings. The global
 * `MessagePack` comes from the vendored @msgpack/msgpack 3.1.3 UMD build.
 *
 * State flows one way: server messages update `state`, then `render()` redraws from it.
 */
"use strict";

const PROTOCOL = 1;
const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
const RANKS = { T: "10" };
const HOLE_CARDS = { "holdem": 2, "omaha": 4, "manila-act": 3, "manila-qld": 2 };
// Player-vs-player poker games: the tables this page plays. Other kinds (banked games
// against the house) are listed and can be watched; their events show in the log.
const POKER = /^(holdem|omaha|manila)-(act|qld)$/;
const isPoker = (game) => POKER.test(String(game || ""));
// The engine's event names and the short names protocol/README.md lists: accept both.
const ALIASES = {
  hole_cards: "hole_cards_dealt", board: "board_dealt", action: "action_taken",
  commission: "commission_taken",
};

const state = {
  ws: null,
  welcome: null,
  balance: null,
  lobby: [],
  table: null,        // the joined table: see newTable()
  wantTable: null,    // {id, role} to join once connected
  reconnecting: false,
  online: false,      // a live connection with a welcome: clocks run, controls are enabled
  offlineAt: null,    // when the connection dropped: clocks show the time left then
  retry: { attempt: 0, timer: null },
  pingSent: null,     // the heartbeat ping awaiting its pong
  storeOut: false,    // the server's money store is out (server_status): replies wait for it
};

const $ = (id) => document.getElementById(id);

// ---- money and cards -----------------------------------------------------------------------
/** The unit of the table in focus when it is not money: tournament chips (tournaments.js). */
const chipUnit = () => (window.Tournaments ? Tournaments.unit() : null);

/** A table's amounts: dollars, or chips at a tournament table (chipUnit). */
function money(cents) {
  const unit = chipUnit();
  return unit ? unit.format(cents) : dollars(cents);
}

/** Integer cents as people read them: always dollars and cents ("$6.00", "$1,234.05"). */
function dollars(cents) {
  if (cents === null || cents === undefined) return "\u2013";
  const neg = cents < 0;
  const c = Math.abs(cents);
  const dollars = Math.floor(c / 100).toLocaleString("en-US");
  return (neg ? "-$" : "$") + dollars + "." + String(c % 100).padStart(2, "0");
}

/**
 * Dollars typed by a person -> {cents} or {error}: "6", "6.5", "$6.50" and "1,234.05" are
 * read as dollars, without floating point ("12.5" -> 1250); a third decimal is refused.
 */
function parseDollars(text) {
  if (chipUnit()) return chipUnit().parse(text);  // a tournament table: chips
  const raw = String(text === undefined || text === null ? "" : text).trim();
  if (!raw) return { error: "Enter an amount in dollars, e.g. 6 or 6.50." };
  const bare = raw.replace(/^\$\s*/, "").replace(/,(?=\d{3}(\D|$))/g, "");
  const m = bare.match(/^(\d*)(?:\.(\d*))?$/);
  if (!m || (m[1] === "" && !m[2])) {
    return { error: `"${raw}" is not an amount: type dollars, e.g. 6 or 6.50.` };
  }
  if ((m[2] || "").length > 2) {
    return { error: `${raw}: amounts go to the cent, at most two decimals (e.g. 6.50).` };
  }
  return { cents: Number(m[1] || "0") * 100 + Number((m[2] || "").padEnd(2, "0")) };
}

/** Dollars typed by a person -> integer cents, or null when it is not an amount. */
function toCents(text) {
  const got = parseDollars(text);
  return got.error ? null : got.cents;
}

/** Cents as an input's editable text ("6.50"). */
function centsInput(cents) {
  if (chipUnit()) return chipUnit().input(cents);
  return (Math.floor(cents / 100)) + "." + String(cents % 100).padStart(2, "0");
}

// A pai gow tile (QLD Sch 6 s6): its pips, low first ("1-3"); each half drawn as a die
// face, the 1 and 4 halves red as on the tiles.
const TILE = /^([1-6])-([1-6])$/;
const DIE_FACES = ["", "\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];

function tileHtml(tile) {
  const m = TILE.exec(tile);
  return [m[1], m[2]].map((n) =>
    `<span class="half${n === "1" || n === "4" ? " red" : ""}">${DIE_FACES[n]}</span>`).join("");
}

function cardEl(card, opts = {}) {
  const el = document.createElement("span");
  if (!card) {
    el.className = "card back" + (opts.small ? " small" : "");
    return el;
  }
  if (TILE.test(card)) {
    el.className = "card tile" + (opts.small ? " small" : "");
    el.dataset.card = card;
    el.title = `tile ${card}`;
    el.innerHTML = tileHtml(card);
    return el;
  }
  const rank = card[0], suit = card[1];
  el.className = "card suit-" + suit + (opts.small ? " small" : "");
  el.dataset.card = card;
  el.innerHTML = `<span class="rank">${RANKS[rank] || rank}</span><span class="pip">${SUITS[suit] || suit}</span>`;
  return el;
}

function cardText(cards) {
  return (cards || []).map((c) => TILE.test(c) ? `[${c}]`
    : (RANKS[c[0]] || c[0]) + (SUITS[c[1]] || c[1])).join(" ");
}

/** The rulebook's own word for the seat marker: ACT calls it the buck (ACT Hold'em/Omaha and
 *  3 Card Manila, Terms "Buck", 6.2), QLD hold'em/Omaha the dealer button (Sch 11 s2, s17),
 *  QLD Manila the buck (Sch 5 s2, s17). Banked games have none. */
function marker(game) {
  const g = String(game || "");
  if (/^(holdem|omaha)-qld$/.test(g)) {
    return { word: "button", title: "Dealer button: its holder is the designated player, " +
      "the last to receive hole cards; it passes clockwise each round (QLD Casino Gaming " +
      "Rule 2010, Sch 11 s2, s17)." };
  }
  if (g === "manila-qld") {
    return { word: "buck", title: "The buck: its holder is the designated player, who posts " +
      "the blind and is dealt first; it moves on each round (QLD Casino Gaming Rule 2010, " +
      "Sch 5 s2, s17)." };
  }
  if (/-act$/.test(g)) {
    return { word: "buck", title: "The buck: its holder is the designated player, who posts " +
      "the first blind and receives the first card; it passes clockwise each round " +
      "(ACT rules, Terms \"Buck\", 6.2, 6.4)." };
  }
  return null;
}

function holeCount(game) {
  if (HOLE_CARDS[game]) return HOLE_CARDS[game];
  return HOLE_CARDS[String(game).split("-")[0]] || 2;
}

// ---- connection ----------------------------------------------------------------------------
function wsUrl() {
  if (state.serverUrl) return state.serverUrl;  // a deployment's redirect (deployment.js)
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws`;
}

// Reconnection backoff (ms) after a dropped connection; then every 10 s (with jitter).
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000];
const HEARTBEAT_MS = 5000;  // a ping this often; no pong within two of these: the link is dead

function connect(hello) {
  const ws = new WebSocket(wsUrl());
  ws.binaryType = "arraybuffer";
  state.ws = ws;
  state.pingSent = null;
  setStatus("connecting", state.welcome ? "reconnecting\u2026" : "connecting\u2026");
  ws.onopen = () => {
    if (state.ws !== ws) return;
    send(Object.assign({ type: "hello", protocol: PROTOCOL }, hello));
  };
  ws.onmessage = (ev) => {
    if (state.ws !== ws) return;
    const msg = decodeFrame(ev.data);  // frames.js
    if (msg) handle(msg);
  };
  ws.onclose = (ev) => connectionLost(ws, ev.code);
}

/** The connection dropped (or the heartbeat found it dead): stop the clocks, disable the
 *  controls, and reconnect with backoff unless another session took this account over. */
function connectionLost(ws, code) {
  if (state.ws !== ws) return;
  state.ws = null;
  goOffline();
  const why = {
    1001: "the server is shutting down", 1008: "closed by the server (policy)",
    1009: "message too large", 4001: "this account connected elsewhere",
    4002: "connection too slow",
  }[code] || "disconnected";
  if (!state.welcome) {
    setStatus("off", "offline");
    return;
  }
  if (code === 4001) {  // reconnecting would take the account back from the other session
    setStatus("off", "offline");
    toast(`Connection lost: ${why}.`, "Reconnect", () => reconnect());
    return;
  }
  const n = state.retry.attempt++;
  const delay = Math.round((BACKOFF_MS[n] || 10000) * (0.8 + Math.random() * 0.4));
  clearTimeout(state.retry.timer);
  state.retry.timer = setTimeout(reconnect, delay);
  setStatus("off", "offline");
  toast(`Connection lost: ${why}. Reconnecting in ${Math.ceil(delay / 1000)}s\u2026`,
    "Reconnect now", () => reconnect());
}

function goOffline() {
  if (state.online || state.offlineAt === null) state.offlineAt = Date.now();
  state.online = false;
  if (state.table) renderTable();
  applyOffline();
}

function goOnline() {
  state.online = true;
  state.offlineAt = null;
  setStatus("on", "online");
  state.retry.attempt = 0;
  clearTimeout(state.retry.timer);
  applyOffline();
}

/** Offline: every control of the table and the lobby is disabled (and marked, so that coming
 *  back online re-enables exactly those; the next render then applies the game's own rules). */
function applyOffline() {
  const off = !state.online;
  document.body.classList.toggle("offline", off && !!state.welcome);
  const els = document.querySelectorAll(
    "#controls button, #controls input, #controls select, #lobby button, #to-lobby");
  for (const el of els) {
    if (off) {
      if (!el.disabled) { el.disabled = true; el.dataset.offline = "1"; }
    } else if (el.dataset.offline) {
      delete el.dataset.offline;
      el.disabled = false;
    }
  }
}

/** Resume with the session token; the server answers a join on a held seat with a snapshot. */
function reconnect() {
  if (!state.welcome) return;
  clearTimeout(state.retry.timer);
  state.reconnecting = true;
  const old = state.ws;
  state.ws = null;
  if (old) old.close();
  if (state.table) state.wantTable = { id: state.table.id, role: state.table.role,
    lastSeq: state.table.seq };
  connect({ token: state.welcome.token });
}

/** Heartbeat: a ping every HEARTBEAT_MS; a connection silent for two of them is dead (a
 *  server that vanished without closing), and is dropped so that the page reconnects. */
function heartbeat() {
  const ws = state.ws;
  if (!ws || ws.readyState !== WebSocket.OPEN || !state.online) return;
  // while the store is out, every reply waits for it (commit, then speak): not a dead link
  if (state.pingSent !== null && !state.storeOut &&
      Date.now() - state.pingSent > 2 * HEARTBEAT_MS) {
    connectionLost(ws, 1006);
    ws.close();
    return;
  }
  if (state.pingSent === null) {
    state.pingSent = Date.now();
    ws.send(MessagePack.encode({ type: "ping", nonce: state.pingSent % 1000000 }));
  }
}

function send(msg) {
  if (!state.ws || state.ws.readyState !== WebSocket.OPEN) {
    toast("Not connected.");
    return false;
  }
  state.ws.send(MessagePack.encode(msg));
  return true;
}

// ---- server messages -----------------------------------------------------------------------
function handle(msg) {
  switch (msg.type) {
    case "welcome": return onWelcome(msg);
    case "lobby": state.lobby = msg.tables || []; return renderLobby();
    case "snapshot": if (window.Fair) Fair.snapshot(msg); return onSnapshot(msg);  // history.js
    case "events":
      if (window.Fair) Fair.frame(msg);  // a deal's server hash: our seed (history.js)
      return onTableMessage(msg, () => onEvents(msg));
    case "left":
      if (window.Fair) Fair.left(msg);
      if (window.Tournaments && Tournaments.onLeft(msg)) return;  // moved, out (tournaments.js)
      return onTableMessage(msg, () => onLeft(msg));
    case "balance": state.balance = msg.balance; return renderAccount();
    case "error": return onError(msg);
    case "pong": state.pingSent = null; return;
    case "server_status":  // the money store went out or came back (protocol/README.md)
      state.storeOut = !msg.ok;
      if (!msg.ok) toast(`Play paused: ${msg.status}`);
      else { state.pingSent = null; toast("Play resumed."); }
      return;
    case "recall": return onRecall(msg);
    case "history": return onHistory(msg);  // history.js
    default:
      if (window.Tournaments && Tournaments.handle(msg)) return;  // tournaments.js
      if (window.Room) Room.handle(msg); return;  // room.js; else ignored (README)
  }
}

function onWelcome(msg) {
  state.welcome = msg;
  state.balance = msg.balance;
  goOnline();
  if (state.reconnecting) toast("Reconnected.");
  try { localStorage.setItem("croupier.token", msg.token); } catch (e) { /* private mode */ }
  $("login").hidden = true;
  renderAccount();
  if (window.Deployment && Deployment.afterWelcome(send)) {  // a redirect's join
    state.wantTable = null;
    return;
  }
  const want = state.wantTable;
  const seated = msg.seated || [];
  if (want && (want.role === "spectator" || seated.includes(want.id))) {
    const join = { type: "join", table: want.id };
    if (want.role === "spectator") join.role = "spectator";
    else if (want.lastSeq !== undefined) join.last_seq = want.lastSeq;
    send(join);
    state.wantTable = null;
  } else if (seated.length) {
    send({ type: "join", table: seated[0] });  // resume a held seat
    if (window.Room) Room.resume(seated.slice(1));  // and the other tables (room.js)
  } else {
    if (want) toast(`Reconnected; your seat at ${want.id} is no longer held.`);
    state.wantTable = null;
    state.table = null;
    showLobby();
  }
  state.reconnecting = false;
}

function showLobby() {
  if (window.Room) Room.keep(state.table);  // a seat held meanwhile stays a tile (room.js)
  state.table = null;
  $("lobby").hidden = false;
  $("table").hidden = true;
  $("to-lobby").hidden = true;
  $("crumb-table").textContent = "";
  send({ type: "lobby" });
  if (window.Tournaments) Tournaments.refresh();  // the tournaments section (tournaments.js)
}

function onTableMessage(msg, apply) {
  const t = state.table;
  if (!t || t.id !== msg.table) { if (window.Room) Room.background(msg, apply); return; }
  if (typeof msg.seq === "number") t.seq = msg.seq;
  apply();
  renderTable();
}

/** One table step's events, in order (protocol/README.md "Events frames"): event i of n is
 *  number seq - n + 1 + i; a "turn" event is the turn (whose turn, legal actions, clock). */
function onEvents(msg) {
  const t = state.table;
  const events = msg.events || [];
  const first = msg.seq - events.length + 1;
  events.forEach((ev, i) => {
    if (state.table !== t) return;  // the step ended our stay at this table
    t.seq = first + i;
    if (ev.type === "turn") onTurn(ev);
    else onEvent(ev || {});
  });
}

function newTable(snapshot) {
  const view = snapshot.view || {};
  const t = {
    id: snapshot.table,
    role: snapshot.role,
    seat: snapshot.seat,
    seq: snapshot.seq,
    info: view.table || { id: snapshot.table },
    status: view.status,
    hand: view.hand || 0,
    designated: view.designated,
    seats: {},          // seat number -> {seat, name, stake, sitting_out, connected, in_round}
    round: null,        // see newRound()
    turn: null,         // {seat, legal, deadline, total}
    log: [],
    result: null,       // {pots: [...], commission, hand}
    lastAmount: null,
  };
  for (const s of view.seats || []) t.seats[s.seat] = Object.assign({}, s);
  t.poker = isPoker(t.info.game);
  if (t.poker && view.round && typeof view.round === "object") {
    const r = newRound(t, Object.keys(view.round.seats || {}).map(Number));
    r.board = view.round.board || [];
    for (const [k, v] of Object.entries(view.round.seats || {})) {
      Object.assign(r.seats[k], { stack: v.stack, bet: v.bet, inPot: v.in_pot,
        folded: v.folded, allin: v.allin, cards: v.cards || null });
    }
    r.toAct = view.round.to_act;
    t.round = r;
  }
  if (t.poker && view.turn) {
    t.turn = { seat: view.turn.seat, legal: (view.round && view.round.legal)
      ? legalMap(view.round.legal) : {}, deadline: Date.now() + view.turn.time_ms,
      total: view.turn.time_ms };
  }
  return t;
}

/** Legal actions ([{verb, ...}] on the wire: turn event and snapshot) as {verb: bounds}. */
function legalMap(legal) {
  if (!Array.isArray(legal)) return legal || {};
  const out = {};
  for (const entry of legal) {
    const copy = Object.assign({}, entry);
    delete copy.verb;
    out[entry.verb] = copy;
  }
  return out;
}

function newRound(t, seats) {
  const r = { seats: {}, board: [], toAct: null, commission: 0, pots: [], ended: false };
  for (const n of seats) {
    const info = t.seats[n] || {};
    r.seats[n] = { stack: info.stake || 0, bet: 0, inPot: 0, folded: false, allin: false,
      cards: null, category: null, won: 0 };
  }
  return r;
}

/** A table opens at its top, whatever the lobby's scroll was (issue 27: a phone opened a
 *  table from lower in the lobby scrolled down, the dealer's cards and the meter hidden). */
function toTop() {
  const main = document.querySelector("main");
  if (main) main.scrollTop = 0;
  window.scrollTo(0, 0);
}

function onSnapshot(msg) {
  if (window.Room && Room.snapshot(msg)) return;  // another table's (room.js)
  const previous = state.table && state.table.id === msg.table ? state.table : null;
  state.table = window.Stadium && Stadium.isView(msg.view) ? Stadium.newTable(msg)
    : isBankedView(msg.view) ? newBankedTable(msg) : newTable(msg);
  if (previous) {  // a resumed seat: the snapshot replaces the state, the log carries on
    state.table.log = previous.log;
    addLog(state.table, `Reconnected (${Math.max(0, msg.seq - previous.seq - 1)} messages missed).`, "sys");
    renderTable();
    return;
  }
  $("lobby").hidden = true;
  $("table").hidden = false;
  $("to-lobby").hidden = false;
  toTop();
  addLog(state.table, msg.role === "spectator" ? "You are watching this table."
    : state.table.banked ? "You joined the table: wager on a free box to play."
      : `You sit at seat ${msg.seat}.`, "sys");
  if (state.table.round && !state.table.banked) addLog(state.table, `Hand #${state.table.hand} in progress.`, "hand");
  if (msg.role === "player" && !state.table.banked) {
    const mine = state.table.seats[msg.seat];
    if (mine && !mine.stake) prefillBuyIn(state.table);
  }
  renderTable();
}

function seatName(t, n) {
  const s = t.seats[n];
  return s ? s.name : `Seat ${n}`;
}

function addLog(t, text, kind = "") {
  t.log.push({ text, kind });
  if (t.log.length > 300) t.log.splice(0, t.log.length - 300);
}

function onEvent(ev) {
  const t = state.table;
  const type = ALIASES[ev.type] || ev.type;
  if (t.stadium) return Stadium.onEvent(t, ev);
  if (t.banked) return onBankedEvent(t, ev);
  if (!t.poker) return logGeneric(t, type, ev);
  if (window.Tournaments && Tournaments.onEvent(t, type, ev)) return;  // chips (tournaments.js)
  if (window.Room && Room.onEvent(t, type, ev)) return;  // pre-actions, time bank (room.js)
  const r = t.round;
  const rs = (n) => (r && r.seats[n]) || null;
  const name = (n) => seatName(t, n);
  switch (type) {
    case "seat_taken":
      t.seats[ev.seat] = { seat: ev.seat, name: ev.name || "", stake: 0, sitting_out: false,
        connected: true, in_round: false };
      addLog(t, `${ev.name} sits at seat ${ev.seat}.`, "sys");
      break;
    case "seat_vacated":
      addLog(t, `${name(ev.seat)} left seat ${ev.seat}` +
        (ev.reason && ev.reason !== "left" ? ` (${ev.reason.replace("_", " ")})` : "") + ".", "sys");
      delete t.seats[ev.seat];
      break;
    case "stake":
      if (t.seats[ev.seat]) t.seats[ev.seat].stake = ev.stake;
      addLog(t, `${name(ev.seat)} ${ev.added === ev.stake ? "buys in for" : "tops up"} ` +
        `${money(ev.added)} (stake ${money(ev.stake)}).`, "sys");
      break;
    case "sat_out": case "sat_in":
      if (t.seats[ev.seat]) t.seats[ev.seat].sitting_out = type === "sat_out";
      addLog(t, `${name(ev.seat)} ${type === "sat_out" ? "sits out" : "is back"}.`, "sys");
      break;
    case "connection":
      if (t.seats[ev.seat]) t.seats[ev.seat].connected = ev.connected;
      addLog(t, `${name(ev.seat)} ${ev.connected ? "reconnected" : "disconnected"}.`, "sys");
      break;
    case "table_closing":
      t.status = "closing";
      addLog(t, "The table is closing.", "sys");
      break;
    case "timed_out":
      addLog(t, `${name(ev.seat)} ran out of time: ${ev.verb}.`, "warn");
      break;
    case "round_starting":
      t.status = "playing";
      t.hand = ev.hand;
      t.designated = ev.designated;
      for (const s of Object.values(t.seats)) s.in_round = (ev.seats || []).includes(s.seat);
      t.round = newRound(t, ev.seats || []);
      t.result = null;
      t.turn = null;
      addLog(t, `Hand #${ev.hand}: ${name(ev.designated)} holds the ` +
        `${(marker(t.info.game) || { word: "buck" }).word}.`, "hand");
      break;
    case "fee_charged":
      if (rs(ev.seat)) rs(ev.seat).stack -= ev.amount;
      addLog(t, `${name(ev.seat)} pays a ${money(ev.amount)} fee.`);
      break;
    case "blind_posted":
      if (rs(ev.seat)) Object.assign(rs(ev.seat), { stack: ev.stack,
        bet: rs(ev.seat).bet + ev.amount, inPot: rs(ev.seat).inPot + ev.amount });
      addLog(t, `${name(ev.seat)} posts ${blindName(ev.kind, Object.keys(t.info.stakes || {}).length)} ${money(ev.amount)}.`);
      break;
    case "hole_cards_dealt":
      if (rs(ev.seat)) rs(ev.seat).cards = ev.cards;
      addLog(t, `Your cards: ${cardText(ev.cards)}.`, "mine");
      break;
    case "board_dealt":
      if (r) r.board = ev.board || r.board.concat(ev.cards || []);
      addLog(t, `Board: ${cardText(ev.board || ev.cards)}.`, "board");
      break;
    case "action_taken": {
      const s = rs(ev.seat);
      if (s) {
        s.inPot += ev.amount;
        s.bet = ev.total;
        s.stack = ev.stack;
        if (ev.verb === "fold") s.folded = true;
        if (ev.verb === "allin" || ev.stack === 0) s.allin = ev.verb !== "fold";
      }
      if (t.turn && t.turn.seat === ev.seat) t.turn = null;
      const amt = ev.verb === "raise" ? ` to ${money(ev.total)}`
        : ["bet", "allin"].includes(ev.verb) ? ` ${money(ev.total)}`
          : ev.verb === "call" ? ` ${money(ev.amount)}` : "";
      addLog(t, `${name(ev.seat)} ${verbText(ev.verb)}${amt}.`);
      break;
    }
    case "betting_round_ended":
      if (r) {
        for (const s of Object.values(r.seats)) s.bet = 0;
        r.collected = ev.pot;
      }
      break;
    case "uncalled_returned":
      if (rs(ev.seat)) {
        const s = rs(ev.seat);
        s.stack += ev.amount; s.bet = Math.max(0, s.bet - ev.amount); s.inPot -= ev.amount;
      }
      addLog(t, `${money(ev.amount)} uncalled returned to ${name(ev.seat)}.`);
      break;
    case "hand_shown":
      if (rs(ev.seat)) Object.assign(rs(ev.seat), { cards: ev.cards, category: ev.category });
      addLog(t, `${name(ev.seat)} shows ${cardText(ev.cards)}` +
        (ev.category ? ` \u2013 ${humanize(ev.category)}` : "") + ".", "show");
      break;
    case "hand_mucked":
      if (rs(ev.seat)) rs(ev.seat).mucked = true;
      addLog(t, `${name(ev.seat)} mucks.`);
      break;
    case "commission_taken":
      if (r) r.commission += ev.amount;
      addLog(t, `Commission ${money(ev.amount)}.`, "sys");
      break;
    case "pot_awarded":
      if (r) {
        r.pots.push(ev);
        for (const [k, v] of Object.entries(ev.shares || {})) if (rs(k)) rs(k).won += v;
      }
      addLog(t, `${ev.pot ? "Side pot " + ev.pot : "Pot"} ${money(ev.amount)} to ` +
        `${(ev.winners || []).map(name).join(" and ")}` +
        (ev.commission ? ` (commission ${money(ev.commission)})` : "") + ".", "win");
      break;
    case "round_voided":
    case "round_ended": {
      finishRound(t, ev.stacks || {});
      if (type === "round_voided") {
        addLog(t, `Hand voided (${ev.reason}): every wager returned.`, "warn");
        t.result = { hand: t.hand, voided: ev.reason, pots: [], commission: 0 };
      } else {
        t.result = { hand: t.hand, pots: r ? r.pots : [], commission: r ? r.commission : 0,
          shown: r ? Object.entries(r.seats).filter(([, s]) => s.category)
            .map(([k, s]) => ({ seat: Number(k), cards: s.cards, category: s.category })) : [] };
        addLog(t, `Hand #${t.hand} is over.`, "hand");
      }
      break;
    }
    default:
      logGeneric(t, type, ev);
  }
}

/** A log line for an event this page has no special display for (protocol/README.md). */
function logGeneric(t, type, ev) {
  if (fairLog(t, type, ev)) return;  // history.js: the deal's commitment
  addLog(t, `${humanize(type)}${ev.seat ? " (seat " + ev.seat + ")" : ""}` +
    `${ev.box ? " (box " + ev.box + ")" : ""}` +
    `${Array.isArray(ev.cards) ? ": " + cardText(ev.cards) : ""}.`, "sys");
}

function finishRound(t, stacks) {
  for (const [k, v] of Object.entries(stacks)) {
    if (t.seats[k]) t.seats[k].stake = v;
    if (t.round && t.round.seats[k]) t.round.seats[k].stack = v;
  }
  if (t.round) {
    t.round.ended = true;
    t.round.toAct = null;
    for (const s of Object.values(t.round.seats)) s.bet = 0;
  }
  t.turn = null;
  if (t.status === "playing") t.status = "waiting";
  for (const s of Object.values(t.seats)) s.in_round = false;
  const mine = t.role === "player" ? t.seats[t.seat] : null;
  if (mine && mine.stake < (t.info.min_buy_in || 0)) prefillBuyIn(t);
}

function blindName(kind, blinds) {
  if (blinds === 1 && kind === "blind1") return "the blind";
  if (blinds === 3 && /^blind\d$/.test(kind)) return "blind " + kind.slice(5);
  return { blind1: "the small blind", blind2: "the big blind", blind3: "the third blind",
    live: "a live blind", dead: "a dead blind" }[kind] || (kind || "a blind");
}

function verbText(verb) {
  return { fold: "folds", check: "checks", call: "calls", bet: "bets", raise: "raises",
    allin: "goes all in for" }[verb] || verb;
}

function humanize(s) {
  return String(s || "").replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

function onTurn(msg) {
  const t = state.table;
  t.turn = { seat: msg.seat, legal: legalMap(msg.legal), deadline: Date.now() + (msg.time_ms || 0),
    total: msg.time_ms || 0, bank: msg.time_bank_ms || 0 };
  if (t.round) t.round.toAct = msg.seat;
  if (isMyTurn(t) && !(window.Room && Room.behind)) prefillAmount(t);
}

function onLeft(msg) {
  const t = state.table;
  addLog(t, `You left the table; ${money(msg.returned)} back to your wallet.`, "sys");
  state.table = null;
  if (window.Deployment) Deployment.moved(msg, send);  // a table that moved: join again
  if (window.Room && Room.afterLeft(t, msg)) return;  // another table takes the screen
  showLobby();
  toast(`Left ${t.info.name || t.id}: ${money(msg.returned)} returned` +
    (msg.reason && msg.reason !== "left" ? ` (${msg.reason.replace("_", " ")})` : "") + ".");
}

// Error fields that carry amounts in cents (a server may send them beside the message).
const AMOUNT_FIELDS = ["amount", "min", "max", "minimum", "maximum", "balance", "stake",
  "needed", "available"];
const has = (m, k) => typeof m[k] === "number";
const ERROR_TEXT = {
  guests_disabled: "This server needs a session token.",
  bad_token: "That session token is not valid.",
  table_full: "Every seat at that table is taken.",
  buy_in_range: (m) => !has(m, "min") ? null : has(m, "max")
    ? `The stake after a buy-in must be between ${money(m.min)} and ${money(m.max)}.`
    : `The stake after a buy-in must be at least ${money(m.min)}.`,
  insufficient_funds: (m) => has(m, "balance")
    ? `Your wallet holds ${money(m.balance)}` +
      (has(m, "amount") ? `, not enough for ${money(m.amount)}.` : ".")
    : null,
};

// Rules refusals (``reason``) that carry their bounds as fields.
const REASON_TEXT = {
  amount_too_small: (m) => has(m, "min") ? `The minimum is ${money(m.min)}.` : null,
  amount_too_large: (m) => has(m, "max") ? `The maximum is ${money(m.max)}.` : null,
};

/** A refusal as people read it: amounts in dollars, whether the server sent them as fields
 *  (formatted here) or as "N cents" in its message text. */
function errorText(msg) {
  const known = REASON_TEXT[msg.reason] || ERROR_TEXT[msg.code];
  const text = typeof known === "function" ? known(msg) : known;
  if (text) return text;
  let said = String(msg.message || msg.code || "refused");
  if (window.Stadium && state.table && state.table.stadium) {  // "win_odds: ..." in player words
    said = said.replace(/^([a-z][a-z0-9_]*)(?=:| \$)/, (id) => Stadium.label(id));
  }
  const base = said
    .replace(/\b(\d+) to (\d+) cents\b/g, (_, lo, hi) => `${money(Number(lo))} to ${money(Number(hi))}`)
    .replace(/\b(\d+) cents\b/g, (_, c) => money(Number(c)));
  const fields = AMOUNT_FIELDS.filter((k) => has(msg, k)).map((k) => `${k} ${money(msg[k])}`);
  const sentence = base.charAt(0).toUpperCase() + base.slice(1);
  return sentence + (fields.length ? ` (${fields.join(", ")})` : "");
}

function onError(msg) {
  if (window.Deployment && state.welcome && Deployment.handle(msg, {  // deployment.js
    moveTo: (url) => { state.serverUrl = url; reconnect(); }, send })) return;
  const text = errorText(msg);
  if (state.reconnecting && (msg.code === "bad_token" || msg.code === "guests_disabled")) {
    state.welcome = null;  // the session is over (e.g. a restarted dev server): sign in again
    state.table = null;
    $("table").hidden = true;
    $("lobby").hidden = true;
    $("login").hidden = false;
  }
  if (!state.welcome) {
    $("login-error").textContent = text;
    $("login-error").hidden = false;
    $("toast").hidden = true;
    state.reconnecting = false;
    if (state.ws) state.ws.close();
    state.ws = null;
    return;
  }
  const t = state.table;
  if (t) addLog(t, `Refused: ${text}`, "error");
  if (t && msg.ref === "act" && t.turn && t.turn.sent && t.turn.seat === t.seat) {
    t.turn.legal = t.turn.sent;  // still this seat's turn: choose again
  }
  if (t && t.banked && msg.ref === "decide" && msg.code !== "no_decision") {
    Object.assign(t.pending, t.sentDecisions || {});  // refused: the decision is still owed
    t.sentDecisions = {};
  }
  toast(text);
  renderTable();
}

function isMyTurn(t) {
  return !!(t && t.role === "player" && t.turn && t.turn.seat === t.seat &&
    Object.keys(t.turn.legal || {}).length);
}

// ---- rendering -----------------------------------------------------------------------------
function setStatus(cls, text) {
  const el = $("conn-status");
  el.className = "status " + cls;
  el.textContent = text;
}

function renderAccount() {
  const w = state.welcome;
  $("account-name").textContent = w ? w.name : "";
  $("account-name").title = w ? `account ${w.account}` : "";
  // the account id, for the cashier and for support (issue 27, point 7)
  let id = $("account-id");
  if (!id) {
    id = document.createElement("div");
    id.id = "account-id";
    id.className = "muted account-id";
    document.querySelector(".lobby-head").after(id);
  }
  id.textContent = w ? `Signed in as ${w.name} \u00b7 account ${w.account}` : "";
  $("balance").hidden = state.balance === null;
  $("balance").textContent = "Wallet " + dollars(state.balance);
}

function renderLobby() {
  const body = $("lobby-rows");
  body.textContent = "";
  const tables = [...state.lobby.filter((x) => isPoker(x.game)),
    ...state.lobby.filter((x) => !isPoker(x.game))];
  let group = null;
  for (const tb of tables) {
    const kind = isPoker(tb.game) ? "Poker: players against each other"
      : "Table games: players against the house";
    if (kind !== group) {
      group = kind;
      const head = document.createElement("tr");
      head.className = "group";
      head.innerHTML = `<td colspan="7">${kind}</td>`;
      body.appendChild(head);
    }
    const tr = document.createElement("tr");
    tr.dataset.table = tb.id;
    const poker = isPoker(tb.game);
    const st = tb.stakes || {};
    const blinds = poker ? "blinds " + Object.values(st).map(money).join(" / ")
      : st.minimum !== undefined ? `wager ${money(st.minimum)} \u2013 ${money(st.maximum)}` : "";
    const buyIn = !poker ? "from the wallet"
      : tb.max_buy_in ? `${money(tb.min_buy_in)} \u2013 ${money(tb.max_buy_in)}`
        : `from ${money(tb.min_buy_in)}`;
    tr.innerHTML = `
      <td><div class="t-name"></div><div class="t-id muted"></div></td>
      <td class="t-game"></td><td>${blinds}</td><td data-label="Buy-in">${buyIn}</td>
      <td data-label="${poker ? "Seats" : "Boxes"}"><span class="seats-taken">${tb.taken}</span> / ${tb.seats}</td>
      <td data-label="Watching">${tb.spectators}</td>
      <td class="row-actions"><button class="primary join-player">Sit down</button>
        <button class="join-spectator">Watch</button></td>`;
    tr.querySelector(".t-name").textContent = tb.name;
    tr.querySelector(".t-id").textContent = tb.id;
    tr.querySelector(".t-game").textContent = tb.description || tb.game;
    const full = tb.taken >= tb.seats;
    const sit = tr.querySelector(".join-player");
    sit.disabled = full;
    if (full) sit.textContent = "Full";
    if (!poker) sit.textContent = "Play";
    sit.onclick = () => send({ type: "join", table: tb.id, role: "player" });
    tr.querySelector(".join-spectator").onclick =
      () => send({ type: "join", table: tb.id, role: "spectator" });
    if (window.Room && poker) Room.lobbyRow(tr, tb);  // seat terms, waiting list (room.js)
    if (window.Tournaments) Tournaments.lobbyRow(tr, tb);  // a tournament's table: watch only
    body.appendChild(tr);
  }
  if (!state.lobby.length) {
    body.innerHTML = `<tr><td colspan="7" class="muted">No tables.</td></tr>`;
  }
  applyOffline();
}

function renderTable() {
  const t = state.table;
  if (!t) return;
  $("crumb-table").textContent = t.info.name || t.id;
  $("table-title").textContent = `${t.info.name || t.id}` + (t.hand ? ` \u00b7 hand #${t.hand}` : "");
  $("banked").hidden = true;
  if (window.Stadium && Stadium.render(t)) {
    // a stadium terminal (stadium.js) draws itself
  } else if (t.banked) renderBanked(t);
  else if (!t.poker) renderOtherTable(t);
  else {
    renderBoard(t);
    renderControls(t);  // first: the action bar's height decides the felt's
    renderResult(t);
    renderSeats(t);
    renderLog(t);
    tick();
  }
  if (window.Tournaments) Tournaments.render();  // level, clock, players left (tournaments.js)
  if (window.Room) Room.render();  // the tiles of every table (room.js)
  applyOffline();
}

/** A table of another kind (a banked game): watched through its event log only. */
function renderOtherTable(t) {
  $("felt").classList.remove("banked");
  $("board").textContent = "";
  $("pot").textContent = "";
  $("seats").textContent = "";
  $("status-line").textContent = `${t.info.description || t.info.game}: ` +
    "this page plays poker tables; this table's events are shown in the log.";
  $("buyin").hidden = true;
  for (const v of ["fold", "check", "call", "bet", "raise", "allin"]) $("act-" + v).hidden = true;
  $("amount-box").hidden = true;
  $("sit-out-btn").hidden = true;
  $("sit-in-btn").hidden = true;
  $("leave-btn").textContent = t.role === "player" ? "Leave table" : "Stop watching";
  $("turn-info").textContent = "Watching";
  $("result").hidden = true;
  renderLog(t);
}

/**
 * The pots as the wagers stand: a new side pot above each all-in seat's total wager
 * (what an all-in seat can win is capped by its own contribution). Uncalled amounts are
 * returned by the server before the award; until then they show in the last pot.
 */
function sidePots(r) {
  const seats = Object.values(r.seats);
  const caps = [...new Set(seats.filter((s) => s.allin && !s.folded).map((s) => s.inPot))]
    .sort((a, b) => a - b);
  const pots = [];
  let below = 0;
  for (const cap of caps) {
    const amount = seats.reduce((a, s) => a + Math.max(0, Math.min(s.inPot, cap) - below), 0);
    if (amount) pots.push(amount);
    below = cap;
  }
  const rest = seats.reduce((a, s) => a + Math.max(0, s.inPot - below), 0);
  if (rest) pots.push(rest);
  return pots;
}

function renderBoard(t) {
  const board = $("board");
  board.textContent = "";
  const cards = (t.round && t.round.board) || [];
  for (const c of cards) board.appendChild(cardEl(c));
  const pot = $("pot");
  const r = t.round;
  if (r && !r.ended) {
    const pots = sidePots(r);
    pot.innerHTML = pots.length > 1
      ? pots.map((p, i) => `<span class="pot-label">${i ? "Side pot " + i : "Main pot"}</span> ` +
        money(p)).join(" &middot; ")
      : `<span class="pot-label">Pot</span> ${money(pots[0] || 0)}`;
  } else {
    pot.textContent = "";
  }
  const line = $("status-line");
  const seated = Object.keys(t.seats).length;
  if (t.status === "closing") line.textContent = "The table is closing.";
  else if (r && !r.ended) line.textContent = t.turn ? `${seatName(t, t.turn.seat)} to act` : "";
  else if (seated < 2) line.textContent = "Waiting for players\u2026";
  else line.textContent = "Next hand soon\u2026";
}

/**
 * Seat centres in pixels inside the felt's box, each seat's box (``--seat-w`` x ``--seat-h``,
 * style.css) wholly inside it, clockwise from the bottom centre (this player's seat, or
 * seat 1 for a spectator). A wide felt (a desktop) puts them on an ellipse at equal arc
 * lengths; a tall one (a phone) in two columns with a row across the top, where boxes
 * cannot meet (an ellipse crowds its diagonals there).
 */
function seatCentres(n, anchor) {
  const felt = $("felt");
  const css = getComputedStyle(felt);
  const sw = parseFloat(css.getPropertyValue("--seat-w")) || 150;
  const sh = parseFloat(css.getPropertyValue("--seat-h")) || 130;
  const w = felt.clientWidth, h = felt.clientHeight;
  const points = h > w && n >= 4 ? columnPoints(n, w, h, sw, sh) : ellipsePoints(n, w, h, sw, sh);
  const out = {};
  points.forEach((p, k) => { out[((anchor - 1 + k) % n) + 1] = p; });
  return out;
}

function ellipsePoints(n, w, h, sw, sh) {
  const a = Math.max(0, w / 2 - sw / 2), b = Math.max(0, h / 2 - sh / 2);
  const steps = 720;
  const at = (i) => Math.PI / 2 + (i * 2 * Math.PI) / steps;
  const length = [0];
  for (let i = 1; i <= steps; i++) {
    length.push(length[i - 1] + Math.hypot(a * (Math.cos(at(i)) - Math.cos(at(i - 1))),
      b * (Math.sin(at(i)) - Math.sin(at(i - 1)))));
  }
  const points = [];
  let i = 0;
  for (let k = 0; k < n; k++) {
    while (i < steps && length[i] < (k * length[steps]) / n) i++;
    points.push({ x: w / 2 + a * Math.cos(at(i)), y: h / 2 + b * Math.sin(at(i)) });
  }
  return points;
}

function columnPoints(n, w, h, sw, sh) {
  const side = Math.ceil((n - 1) / 3);
  const top = n - 1 - 2 * side;
  const points = [{ x: w / 2, y: h - sh / 2 }];
  const rowY = (i) => sh / 2 + ((h - sh) * (i + 0.5)) / side;
  for (let i = side - 1; i >= 0; i--) points.push({ x: sw / 2, y: rowY(i) });  // up the left
  for (let j = 0; j < top; j++) {  // across the top, between the columns
    points.push({ x: sw + ((w - 2 * sw) * (j + 0.5)) / top, y: sh / 2 });
  }
  for (let i = 0; i < side; i++) points.push({ x: w - sw / 2, y: rowY(i) });  // down the right
  return points;
}

function renderSeats(t) {
  const box = $("seats");
  box.textContent = "";
  $("felt").classList.remove("banked");
  const n = t.info.seats || 9;
  const anchor = t.role === "player" && t.seat ? t.seat : 1;
  const centres = seatCentres(n, anchor);
  for (let seat = 1; seat <= n; seat++) {
    const el = document.createElement("div");
    el.className = "seat";
    el.dataset.seat = seat;
    el.style.left = centres[seat].x + "px";
    el.style.top = centres[seat].y + "px";
    const info = t.seats[seat];
    if (!info) {
      el.classList.add("empty");
      el.innerHTML = `<div class="plate"><span class="muted">Seat ${seat}</span></div>`;
      box.appendChild(el);
      continue;
    }
    const rs = t.round && t.round.seats[seat];
    const mine = t.role === "player" && seat === t.seat;
    if (mine) el.classList.add("mine");
    if (t.turn && t.turn.seat === seat && t.round && !t.round.ended) el.classList.add("acting");
    if (rs && rs.folded) el.classList.add("folded");
    if (rs && rs.won) el.classList.add("winner");
    if (!info.connected) el.classList.add("away");
    const cards = document.createElement("div");
    cards.className = "hole";
    if (rs && !rs.folded) {
      if (rs.cards) for (const c of rs.cards) cards.appendChild(cardEl(c, { small: !mine }));
      else if (!rs.mucked) {
        for (let i = 0; i < holeCount(t.info.game); i++) cards.appendChild(cardEl(null, { small: true }));
      }
    }
    cards.classList.toggle("many", cards.children.length > 3);
    el.appendChild(cards);
    const plate = document.createElement("div");
    plate.className = "plate";
    const stack = rs && !t.round.ended ? rs.stack : info.stake;
    const tags = [];
    const mark = marker(t.info.game);
    const buck = t.designated === seat && mark
      ? `<span class="marker" title="${escapeHtml(mark.title)}">${mark.word}</span>` : "";
    if (info.sitting_out) tags.push(`<span class="tag">sitting out</span>`);
    if (!info.connected) tags.push(`<span class="tag">away</span>`);
    if (rs && rs.allin && !rs.folded && !t.round.ended) tags.push(`<span class="tag allin-tag">all in</span>`);
    plate.innerHTML = `<div class="who"><span class="nm"></span>${buck}</div>
      <div class="stack">${money(stack)}</div><div class="timer"><div class="bar"></div></div>`;
    plate.querySelector(".nm").textContent = mine ? `${info.name} (you)` : info.name;
    plate.querySelector(".nm").title = info.name;
    el.appendChild(plate);
    // the seat's wager this betting round, or what it won, or its shown hand
    const line = document.createElement("div");
    line.className = "seat-line";
    line.innerHTML = tags.join("");
    if (rs && (rs.bet || rs.won)) {
      const chip = document.createElement("span");
      chip.className = "chip" + (rs.won ? " won" : "");
      chip.textContent = rs.won ? `+${money(rs.won)}` : money(rs.bet);
      chip.dataset.seat = seat;
      line.appendChild(chip);
    }
    if (rs && rs.category) {
      const cat = document.createElement("span");
      cat.className = "category";
      cat.textContent = humanize(rs.category);
      line.appendChild(cat);
    }
    el.appendChild(line);
    box.appendChild(el);
  }
}

function renderControls(t) {
  const player = t.role === "player";
  const mine = player ? t.seats[t.seat] : null;
  const inRound = !!(mine && t.round && !t.round.ended && t.round.seats[t.seat]);
  // buy-in: between rounds (or while not dealt in) only
  const buy = $("buyin");
  buy.hidden = !player || inRound || t.status === "closing";
  if (!buy.hidden && mine) {
    const lo = Math.max(1, (t.info.min_buy_in || 0) - mine.stake);
    const hi = t.info.max_buy_in ? t.info.max_buy_in - mine.stake : null;
    $("buyin-label").textContent = mine.stake ? "Top up" : "Buy in";
    $("buyin-btn").textContent = mine.stake ? "Top up" : "Buy in";
    $("buyin-range").textContent = mine.stake
      ? `stake ${money(mine.stake)}` + (hi !== null ? `, up to ${money(hi)} more` : "")
      : hi !== null ? `${money(lo)} \u2013 ${money(hi)}` : `at least ${money(lo)}`;
    buy.classList.toggle("needed", !mine.stake);
  }
  $("sit-out-btn").hidden = !player || !mine || mine.sitting_out;
  $("sit-in-btn").hidden = !player || !mine || !mine.sitting_out;
  $("leave-btn").textContent = player ? "Leave table" : "Stop watching";

  const legal = isMyTurn(t) ? t.turn.legal : {};
  const verbs = ["fold", "check", "call", "bet", "raise", "allin"];
  for (const v of verbs) {
    const btn = $("act-" + v);
    btn.hidden = !(v in legal);
    btn.disabled = false;
  }
  if ("call" in legal) $("act-call").textContent = `Call ${money(legal.call.amount)}`;
  if ("allin" in legal) $("act-allin").textContent = `All in ${money(legal.allin.amount)}`;
  const sized = legal.bet || legal.raise;
  $("amount-box").hidden = !sized;
  if (sized) setupAmount(t, sized);
  else $("amount-hint").textContent = "";
  $("actions").classList.toggle("live", isMyTurn(t));
  const info = $("turn-info");
  if (isMyTurn(t)) info.textContent = "Your turn";
  else if (!player) info.textContent = "Watching";
  else if (mine && !mine.stake) info.textContent = "Buy in to be dealt into the next hand";
  else if (t.turn && t.round && !t.round.ended) info.textContent = `Waiting for ${seatName(t, t.turn.seat)}`;
  else info.textContent = "";
  if (window.Room) Room.controls(t);  // the pre-action buttons (room.js)
}

function setupAmount(t, bounds) {
  const range = $("amount-range"), input = $("amount"), sizes = $("amount-sizes");
  const presets = $("amount-presets");
  if (bounds.sizes && bounds.sizes.length) {
    sizes.hidden = false; range.hidden = true; input.hidden = true; presets.hidden = true;
    const key = bounds.sizes.join(",");
    if (sizes.dataset.key !== key) {
      sizes.dataset.key = key;
      sizes.textContent = "";
      for (const s of bounds.sizes) {
        const o = document.createElement("option");
        o.value = s; o.textContent = money(s);
        sizes.appendChild(o);
      }
    }
    $("amount-hint").textContent = "";
    validateAmount();
    return;
  }
  sizes.hidden = true; range.hidden = false; input.hidden = false;
  range.min = bounds.min; range.max = bounds.max; range.step = 1;
  const choices = presetAmounts(t, bounds);
  presets.hidden = !choices.length;
  const key = choices.map(([label, c]) => label + c).join(",");
  if (presets.dataset.key !== key) {
    presets.dataset.key = key;
    presets.textContent = "";
    for (const [label, cents] of choices) {
      const b = document.createElement("button");
      b.className = "preset";
      b.dataset.cents = cents;
      b.textContent = label;
      b.title = money(cents);
      b.onclick = () => {
        $("amount").value = centsInput(cents);
        $("amount-range").value = cents;
        validateAmount();
      };
      presets.appendChild(b);
    }
  }
  $("amount-hint").textContent = `${money(bounds.min)} to ${money(bounds.max)}`;
  validateAmount();
}

/**
 * Preset "raise to" totals within the legal bounds: half the pot and the pot (the pot after
 * this seat calls, on top of the highest wager), and all in when the maximum is all in.
 */
function presetAmounts(t, bounds) {
  const r = t.round;
  if (!r || !r.seats[t.seat]) return [];
  const seats = Object.values(r.seats);
  const pot = seats.reduce((sum, x) => sum + x.inPot, 0);
  const top = Math.max(0, ...seats.map((x) => x.bet));
  const mine = r.seats[t.seat];
  const toCall = top - mine.bet;
  const legal = t.turn.legal;
  const out = [];
  for (const [label, num, den] of [["\u00bd pot", 1, 2], ["Pot", 1, 1]]) {
    const to = top + Math.floor(((pot + toCall) * num) / den);
    if (to >= bounds.min && to <= bounds.max) out.push([label, to]);
  }
  if (legal.allin && mine.bet + legal.allin.amount === bounds.max) out.push(["All in", bounds.max]);
  // one button per amount: the later (larger) name wins ("Pot" that is all in says so)
  return out.filter(([, c], i) => !out.slice(i + 1).some(([, d]) => d === c));
}

/** The bet/raise amount chosen: {amount} within the bounds, or {error} to show. */
function amountChoice() {
  const t = state.table;
  const legal = (t && t.turn && t.turn.legal) || {};
  const bounds = legal.bet || legal.raise;
  if (!bounds) return { error: "" };
  if (bounds.sizes && bounds.sizes.length) return { amount: Number($("amount-sizes").value) };
  const got = parseDollars($("amount").value);
  if (got.error) return { error: got.error };
  if (got.cents < bounds.min) return { error: `The minimum is ${money(bounds.min)}.` };
  if (got.cents > bounds.max) return { error: `The maximum is ${money(bounds.max)}.` };
  return { amount: got.cents };
}

/** The amount chosen for bet/raise in cents, or null when it is not a legal amount. */
function chosenAmount() {
  const got = amountChoice();
  return got.error === undefined ? got.amount : null;
}

/** Show (or clear) the message under an amount input. */
function inputError(inputId, errorId, text) {
  $(inputId).classList.toggle("invalid", !!text);
  $(inputId).setAttribute("aria-invalid", text ? "true" : "false");
  $(errorId).textContent = text || "";
  $(errorId).hidden = !text;
}

function validateAmount() {
  const got = amountChoice();
  const ok = got.error === undefined;
  $("act-bet").textContent = ok ? `Bet ${money(got.amount)}` : "Bet";
  $("act-raise").textContent = ok ? `Raise to ${money(got.amount)}` : "Raise to";
  inputError("amount", "amount-error", ok ? "" : got.error);
  $("act-bet").disabled = !ok;
  $("act-raise").disabled = !ok;
  for (const b of $("amount-presets").children) {
    b.classList.toggle("chosen", ok && Number(b.dataset.cents) === got.amount);
  }
}

function prefillAmount(t) {
  const legal = t.turn.legal;
  const bounds = legal.bet || legal.raise;
  if (!bounds || bounds.sizes) return;
  $("amount").value = centsInput(bounds.min);
  $("amount-range").value = bounds.min;
}

let buyInTouched = false;  // never overwrite an amount the user is typing

function prefillBuyIn(t) {
  const mine = t.seats[t.seat];
  if (!mine || buyInTouched) return;
  const lo = (t.info.min_buy_in || 0) - mine.stake;
  const target = t.info.max_buy_in ? Math.min(t.info.max_buy_in, 5 * t.info.min_buy_in)
    : 5 * (t.info.min_buy_in || 0);
  const amount = Math.min(Math.max(lo, target - mine.stake), Math.max(lo, state.balance || 0));
  $("buyin-amount").value = centsInput(Math.max(amount, 0));
}

function renderResult(t) {
  const box = $("result");
  const res = t.result;
  box.hidden = !res;
  if (!res) return;
  box.textContent = "";
  const h = document.createElement("h3");
  h.textContent = res.voided ? `Hand #${res.hand} voided` : `Hand #${res.hand} result`;
  box.appendChild(h);
  for (const p of res.pots) {
    const line = document.createElement("div");
    line.className = "res-line";
    line.textContent = `${p.pot ? "Side pot " + p.pot : "Main pot"} ${money(p.amount)} \u2192 ` +
      (p.winners || []).map((w) => seatName(t, w)).join(", ");
    box.appendChild(line);
  }
  for (const s of res.shown || []) {
    const line = document.createElement("div");
    line.className = "res-line shown";
    line.textContent = `${seatName(t, s.seat)}: ${humanize(s.category)}`;
    const cards = document.createElement("span");
    cards.className = "res-cards";
    for (const c of s.cards || []) cards.appendChild(cardEl(c, { small: true }));
    line.appendChild(cards);
    box.appendChild(line);
  }
  if (res.commission) {
    const line = document.createElement("div");
    line.className = "res-line muted";
    line.textContent = `Commission ${money(res.commission)}`;
    box.appendChild(line);
  }
}

let logStick = true;  // keep the log scrolled to the newest line unless the user scrolled up

function renderLog(t) {
  const ol = $("log");
  ol.textContent = "";
  for (const entry of t.log.slice(-150)) {
    const li = document.createElement("li");
    li.className = entry.kind ? "log-" + entry.kind : "";
    li.textContent = entry.text;
    ol.appendChild(li);
  }
  if (logStick) ol.scrollTop = ol.scrollHeight;
}

/** The clocks' "now": while offline they stop at the moment the connection dropped (the
 *  server's clock is unknown until the snapshot after reconnecting resets them). */
function clockNow() {
  return state.online || state.offlineAt === null ? Date.now() : state.offlineAt;
}

function clockHtml(left, lowBelow) {
  const cls = "clock" + (!state.online ? " paused" : left < lowBelow ? " low" : "");
  const title = state.online ? "" : ` title="offline: the clock is stopped until the page reconnects"`;
  return `<span class="${cls}"${title}>${Math.ceil(left / 1000)}s</span>`;
}

/** Turn timer: the acting seat's bar and the countdown in the action bar. */
function tick() {
  const t = state.table;
  if (!t || !t.turn || !t.round || t.round.ended) return;
  const left = Math.max(0, t.turn.deadline - clockNow());
  const frac = t.turn.total ? left / t.turn.total : 0;
  const seatEl = document.querySelector(`.seat[data-seat="${t.turn.seat}"] .timer .bar`);
  if (seatEl) {
    seatEl.style.width = (frac * 100).toFixed(1) + "%";
    seatEl.classList.toggle("low", left < 5000);
  }
  const info = $("turn-info");
  const html = isMyTurn(t) ? `Your turn ${clockHtml(left, 5000)}`
    : `Waiting for ${escapeHtml(seatName(t, t.turn.seat))} ${clockHtml(left, 0)}`;
  if (info.innerHTML !== html) info.innerHTML = html;
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;",
    '"': "&quot;", "'": "&#39;" }[c]));
}

let toastTimer = null;
function toast(text, actionText, action) {
  const el = $("toast");
  el.textContent = text;
  if (actionText) {
    const b = document.createElement("button");
    b.textContent = actionText;
    b.onclick = () => { el.hidden = true; action(); };
    el.appendChild(b);
  }
  el.hidden = false;
  clearTimeout(toastTimer);
  if (!actionText) toastTimer = setTimeout(() => { el.hidden = true; }, 4000);
}

// ---- user input ----------------------------------------------------------------------------
function act(verb) {
  const t = state.table;
  if (!state.online || !isMyTurn(t) || !(verb in t.turn.legal)) return;
  const msg = { type: "act", table: t.id, verb };
  if (verb === "bet" || verb === "raise") {
    const amount = chosenAmount();
    if (amount === null) { validateAmount(); return; }
    msg.amount = amount;
  }
  if (send(msg)) {
    t.turn.sent = t.turn.legal;  // kept in case the server refuses the action
    t.turn.legal = {};           // no double clicks; the server's events follow
    renderControls(t);
  }
}

function wire() {
  $("guest-btn").onclick = () => {
    $("login-error").hidden = true;
    const name = $("login-name").value.trim();
    const hello = {};
    if (name) hello.name = name;
    try { localStorage.setItem("croupier.name", name); } catch (e) { /* ignore */ }
    connect(hello);
  };
  $("token-btn").onclick = () => {
    $("login-error").hidden = true;
    const token = $("login-token").value.trim();
    if (token) connect({ token });
  };
  $("login-name").addEventListener("keydown", (e) => { if (e.key === "Enter") $("guest-btn").click(); });
  $("log").addEventListener("scroll", () => {
    const ol = $("log");
    logStick = ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 8;
  });
  $("refresh-lobby").onclick = () => send({ type: "lobby" });
  $("to-lobby").onclick = () => {
    const t = state.table;
    if (t && t.role === "spectator") send({ type: "leave", table: t.id });
    else showLobby();   // a seated player keeps the seat; the lobby is just a view
  };
  $("leave-btn").onclick = () => { if (state.table) send({ type: "leave", table: state.table.id }); };
  $("sit-out-btn").onclick = () => send({ type: "sit_out", table: state.table.id });
  $("sit-in-btn").onclick = () => send({ type: "sit_in", table: state.table.id });
  $("buyin-btn").onclick = () => {
    const got = parseDollars($("buyin-amount").value);
    const error = got.error || (got.cents ? "" : "Enter an amount above $0.00.");
    inputError("buyin-amount", "buyin-error", error);
    if (error) return;
    if (send({ type: "buy_in", table: state.table.id, amount: got.cents })) buyInTouched = false;
  };
  $("buyin-amount").addEventListener("input", () => {
    buyInTouched = true;
    const got = parseDollars($("buyin-amount").value);
    inputError("buyin-amount", "buyin-error", $("buyin-amount").value.trim() ? got.error : "");
  });
  const keys = { fold: "F", check: "K", call: "C", bet: "B", raise: "R", allin: "A" };
  for (const v of Object.keys(keys)) {
    $("act-" + v).onclick = () => act(v);
    $("act-" + v).title = `key ${keys[v]}`;
  }
  $("amount").addEventListener("input", () => {
    const c = toCents($("amount").value);
    if (c !== null) $("amount-range").value = c;
    validateAmount();
  });
  $("amount-sizes").addEventListener("change", validateAmount);
  $("amount-range").addEventListener("input", () => {
    $("amount").value = centsInput(Number($("amount-range").value));
    validateAmount();
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || !isMyTurn(state.table)) return;
    const key = { f: "fold", k: "check", c: "call", b: "bet", r: "raise", a: "allin" }[e.key];
    if (key) act(key);
  });
  try {
    $("login-name").value = localStorage.getItem("croupier.name") || "";
    const token = localStorage.getItem("croupier.token");
    if (token) $("login-token").value = token;
  } catch (e) { /* ignore */ }
  setInterval(tick, 250);
  setInterval(heartbeat, HEARTBEAT_MS);
  // seats are laid out in pixels for the felt's size: lay them out again when it changes
  let resizeFrame = null;
  let feltSize = "";
  new ResizeObserver(() => {
    const felt = $("felt");
    const size = felt.clientWidth + "x" + felt.clientHeight;
    if (size === feltSize) return;
    feltSize = size;
    cancelAnimationFrame(resizeFrame);
    resizeFrame = requestAnimationFrame(() => {
      const t = state.table;
      if (t && t.poker) renderSeats(t);
    });
  }).observe($("felt"));
}

wire();

// ---- banked tables: players against the house (protocol/README.md "Banked tables") ------------
// A betting window (wagers on boxes, straight from the wallet), "no more bets", the deal,
// decisions per box on a clock, then every box's result. Only the documented messages are
// used: wager, decide, recall, leave.

function isBankedView(view) {
  return !!(view && view.table && Array.isArray(view.table.wagers));
}

function newBankedTable(snapshot) {
  const view = snapshot.view || {};
  const t = {
    id: snapshot.table, role: snapshot.role, seat: snapshot.seat, seq: snapshot.seq,
    info: view.table || { id: snapshot.table }, banked: true, poker: false,
    status: view.status, round: view.round || 0,
    closesAt: view.status === "betting" && view.closes_in_ms ? Date.now() + view.closes_in_ms : null,
    boxes: {}, myBoxes: new Set(view.my_boxes || []), cards: {}, hands: {},
    dealer: { cards: [], hand: null, status: null }, board: [], pending: {}, named: {},
    decisionAt: null, decisionTotal: 0, result: null, lastRound: view.last_round || null,
    jackpot: view.jackpot || null, log: [], seated: snapshot.role === "player",
  };
  for (const b of view.boxes || []) t.boxes[b.box] = { player: b.player, wagers: b.wagers || {} };
  for (const ev of view.round_events || []) onBankedEvent(t, ev, true);
  for (const d of view.pending || []) {
    t.pending[d.box] = d;
    t.decisionAt = Date.now() + (d.time_ms || 0);
    t.decisionTotal = d.time_ms || 0;
  }
  return t;
}

/** A hand of the table's own, not a box's nor the dealer's: baccarat deals the Player hand
 *  and the Banker hand (BAC s19(2)-(4)), both face up on the layout (s4(2)). */
function namedHand(t, name) {
  if (!t.named) t.named = {};
  if (!t.named[name]) t.named[name] = { cards: [], hand: null };
  return t.named[name];
}

function wagerText(wagers) {
  return Object.entries(wagers || {}).map(([n, a]) => `${humanize(n)} ${money(a)}`).join(", ");
}

function onBankedEvent(t, ev, quiet = false) {
  // hands, splits, offers, backers (blackjack.js); true: handled there alone
  if (window.Blackjack && Blackjack.onEvent(t, ev, quiet)) return;
  if (window.PaiGow && PaiGow.onEvent(t, ev, quiet)) return;  // tiles, high and low (paigow.js)
  const type = ev.type;
  const log = (text, kind = "") => { if (!quiet) addLog(t, text, kind); };
  const boxName = (b) => `box ${b}` + (t.myBoxes.has(b) ? " (yours)" : "");
  switch (type) {
    case "betting_open":
      Object.assign(t, { status: "betting", round: ev.round, pending: {}, cards: {}, hands: {},
        board: [], closesAt: Date.now() + (ev.closes_in_ms || 0) });
      // the last coup (baccarat's two hands) and its result stay on show while the next
      // round's wagers are placed, as on a live table, until no more bets
      t.dealer = { cards: [], hand: null, status: null };
      for (const b of Object.values(t.boxes)) b.wagers = {};
      log(`Round #${ev.round}: place your wagers.`, "hand");
      break;
    case "wager_placed":
      t.boxes[ev.box] = { player: ev.name, wagers: ev.box_wagers || {} };
      if (t.wagering === ev.box && state.welcome && ev.name === state.welcome.name) {
        t.myBoxes.add(ev.box);
      }
      log(ev.amount ? `${ev.name}: ${humanize(ev.wager)} ${money(ev.amount)} on box ${ev.box}.`
        : `${ev.name} withdraws ${humanize(ev.wager)} from box ${ev.box}.`);
      break;
    case "box_taken":
      t.boxes[ev.box] = Object.assign(t.boxes[ev.box] || { wagers: {} }, { player: ev.name });
      if (t.wagering === ev.box && state.welcome && ev.name === state.welcome.name) {
        t.myBoxes.add(ev.box);
      }
      break;
    case "player_joined":
      log(`${ev.name} joins the table.`, "sys");
      break;
    case "player_left":
      for (const b of ev.boxes || []) delete t.boxes[b];
      log(`${ev.name} leaves the table.`, "sys");
      break;
    case "no_more_bets":
      t.status = "dealing";
      t.closesAt = null;
      t.named = {};
      t.result = null;
      for (const [b, ws] of Object.entries(ev.boxes || {})) {
        t.boxes[b] = Object.assign(t.boxes[b] || {}, { wagers: ws });
      }
      log("No more bets.", "warn");
      break;
    case "round_started":
      t.status = "deciding";
      break;
    case "cards_dealt":
      if (ev.to === "box") t.cards[ev.box] = (t.cards[ev.box] || []).concat(ev.cards || []);
      else if (ev.to === "dealer") t.dealer.cards = t.dealer.cards.concat(ev.cards || []);
      else if (ev.to === "board") t.board = t.board.concat(ev.cards || []);
      else namedHand(t, ev.to).cards.push(...(ev.cards || []));  // baccarat: player, banker
      if (ev.to === "box" && t.myBoxes.has(ev.box)) log(`Box ${ev.box}: ${cardText(ev.cards)}.`, "mine");
      else if (ev.to !== "box") log(`${humanize(ev.to)}: ${cardText(ev.cards)}.`, "board");
      break;
    case "street_opened":
      log(`${humanize(ev.street)} for box ${(ev.boxes || []).join(", ")}.`);
      break;
    case "decision":
      t.pending[ev.box] = ev;
      t.decisionAt = Date.now() + (ev.time_ms || 0);
      t.decisionTotal = ev.time_ms || 0;
      break;
    case "decision_made":
      delete t.pending[ev.box];
      if (t.sentDecisions) delete t.sentDecisions[ev.box];
      log(`${humanize(boxName(ev.box))}: ${ev.verb}${ev.amount ? " " + money(ev.amount) : ""}` +
        (ev.cause && ev.cause !== "player" ? ` (${ev.cause})` : "") + ".");
      break;
    case "hand_shown":
      if ((ev.box === null || ev.box === undefined) && t.named[String(ev.hand).split(" ")[0]]) {
        Object.assign(t.named[String(ev.hand).split(" ")[0]], { cards: ev.cards, hand: ev.hand });
      } else if (ev.box === null || ev.box === undefined) Object.assign(t.dealer, { cards: ev.cards, hand: ev.hand });
      else { t.cards[ev.box] = ev.cards; t.hands[ev.box] = ev.hand; }
      log(`${ev.box ? humanize(boxName(ev.box)) : t.named[String(ev.hand).split(" ")[0]] ? "Shown" : "Dealer"}: ` +
        `${cardText(ev.cards)} \u2013 ${humanize(ev.hand)}.`, "show");
      break;
    case "dealer_declared":
      t.dealer.status = ev.status;
      log(`Dealer ${ev.status}.`, "show");
      break;
    case "wager_settled":
      break;  // round_result carries every wager's figures
    case "round_result":
      t.status = "settled";
      t.pending = {};
      t.result = ev;
      for (const [b, r] of Object.entries(ev.boxes || {})) {
        const net = (r.paid || 0) - (r.bet || 0);
        log(`Box ${b} (${r.player}): ${net > 0 ? "wins " + money(net) : net < 0 ? "loses " + money(-net) : "even"}.`,
          net > 0 ? "win" : "");
      }
      break;
    case "round_voided":
      t.status = "settled";
      t.pending = {};
      t.result = { voided: ev.reason, boxes: {} };
      log(`Round voided (${ev.reason}): wagers returned.`, "warn");
      break;
    case "timed_out":
      log(`Box ${ev.box} ran out of time.`, "warn");
      break;
    case "insufficient":
      log(`Box ${ev.box}: the wallet cannot fund that decision; the rules decide.`, "warn");
      break;
    case "meter":
      if (t.jackpot) t.jackpot.meter = ev.meter;
      break;
    case "jackpot_status":
      if (t.jackpot) Object.assign(t.jackpot, { open: ev.open, status: ev.status });
      log(ev.open ? "The jackpot system is available again." : ev.status, "warn");
      break;
    case "jackpot_paid":
      log(`Jackpot! Box ${ev.box} (${humanize(ev.hand)}) wins ${money(ev.amount)}.`, "win");
      break;
    case "jackpot_wager_returned":
      log(`Box ${ev.box}: jackpot wager ${money(ev.amount)} returned (${ev.reason}).`, "warn");
      break;
    case "table_closing":
      t.status = "closing";
      log("The table is closing.", "sys");
      break;
    default:
      if (!quiet) logGeneric(t, type, ev);
  }
}

function renderBanked(t) {
  $("board").textContent = "";
  for (const c of t.board) $("board").appendChild(cardEl(c));
  const jp = t.jackpot;
  $("pot").innerHTML = jp ? `<span class="pot-label">Jackpot</span> ${money(jp.meter)}` +
    (jp.open ? "" : ` <span class="muted">(unavailable)</span>`) : "";
  const line = $("status-line");
  line.textContent = {
    betting: "Place your wagers", dealing: "No more bets", deciding: "Decisions",
    settled: "Round over", closing: "The table is closing", idle: "Waiting for players",
    pause: "Next round soon\u2026",
  }[t.status] || "";
  const box = $("seats");
  box.textContent = "";
  $("felt").classList.add("banked");
  // the dealer at the top, the centre (board, jackpot, status), then the boxes in rows that
  // wrap to the felt's width (style.css: .felt.banked)
  const dealer = document.createElement("div");
  dealer.className = "dealer-spot";
  dealer.innerHTML = `<div class="dealer-label">Dealer</div><div class="hole"></div>`;
  for (const c of t.dealer.cards) dealer.querySelector(".hole").appendChild(cardEl(c, { small: true }));
  const named = Object.entries(t.named || {});
  if (named.length) {  // baccarat: the Player and Banker hands side by side, each with its total
    dealer.querySelector(".dealer-label").hidden = true;
    dealer.querySelector(".hole").className = "bac-hands";
    for (const [name, h] of named) {
      const el = document.createElement("div");
      el.className = "bac-hand";
      el.dataset.hand = name;
      el.innerHTML = `<div class="dealer-label"></div><div class="hole"></div>`;
      el.querySelector(".dealer-label").textContent = humanize(h.hand || name);
      for (const c of h.cards) el.querySelector(".hole").appendChild(cardEl(c, { small: true }));
      dealer.querySelector(".bac-hands").appendChild(el);
    }
  }
  if (t.dealer.hand || t.dealer.status) {
    const d = document.createElement("div");
    d.className = "category";
    d.textContent = humanize(t.dealer.status || t.dealer.hand);
    dealer.appendChild(d);
  }
  box.appendChild(dealer);
  const row = document.createElement("div");
  row.className = "boxes" + ((t.info.boxes || 7) > 7 ? " many" : "");  // baccarat's 14
  box.appendChild(row);
  const n = t.info.boxes || 7;
  const results = (t.status !== "betting" && t.result && t.result.boxes) || {};
  for (let b = 1; b <= n; b++) {
    const el = document.createElement("div");
    el.className = "seat box";
    el.dataset.box = b;
    const info = t.boxes[b];
    if (t.myBoxes.has(b)) el.classList.add("mine");
    if (t.pending[b]) el.classList.add("acting");
    const res = results[b];
    const net = res ? (res.paid || 0) - (res.bet || 0) : 0;
    if (res && net > 0) el.classList.add("winner");
    const hole = document.createElement("div");
    hole.className = "hole";
    for (const c of t.cards[b] || []) hole.appendChild(cardEl(c, { small: true }));
    el.appendChild(hole);
    const plate = document.createElement("div");
    plate.className = "plate";
    plate.innerHTML = `<div class="who"><span class="nm"></span></div><div class="wagers"></div>`;
    plate.querySelector(".nm").textContent = info && info.player ? `Box ${b} \u00b7 ${info.player}` : `Box ${b}`;
    plate.querySelector(".wagers").textContent = info ? wagerText(info.wagers) : "open";
    if (b === t.info.bank_box && !info) {  // the house's bank sits here (pai gow s18(13))
      el.classList.add("bank-box");
      plate.querySelector(".wagers").textContent = "the bank";
    } else if (!info) el.classList.add("empty");
    el.appendChild(plate);
    const line = document.createElement("div");
    line.className = "seat-line";
    if (t.hands[b]) {
      const cat = document.createElement("span");
      cat.className = "category";
      cat.textContent = humanize(t.hands[b]);
      line.appendChild(cat);
    }
    if (res) {
      const chip = document.createElement("span");
      chip.className = "chip" + (net > 0 ? " won" : "");
      chip.textContent = net > 0 ? `+${money(net)}` : net < 0 ? `-${money(-net)}` : "even";
      line.appendChild(chip);
    }
    el.appendChild(line);
    row.appendChild(el);
  }
  renderBankedControls(t);
  if (window.Blackjack) Blackjack.render(t);  // hands and the verb row (blackjack.js)
  if (window.PaiGow) PaiGow.render(t);  // high and low hands, the setting panel (paigow.js)
  renderBankedResult(t);
  renderLog(t);
  tickBanked();
}

function renderBankedControls(t) {
  $("buyin").hidden = true;
  for (const v of ["fold", "check", "call", "bet", "raise", "allin"]) $("act-" + v).hidden = true;
  $("amount-box").hidden = true;
  $("sit-out-btn").hidden = true;
  $("sit-in-btn").hidden = true;
  $("leave-btn").textContent = t.role === "player" ? "Leave table" : "Stop watching";
  $("turn-info").textContent = t.role === "player" ? "" : "Watching";
  const panel = $("banked");
  panel.hidden = t.role !== "player";
  if (panel.hidden) return;
  const betting = t.status === "betting";
  $("wager-row").classList.toggle("closed", !betting);
  for (const id of ["wager-box", "wager-name", "wager-amount", "wager-btn", "withdraw-btn"]) {
    $(id).disabled = !betting;
  }
  // boxes this player may wager on: its own and the free ones
  const boxSel = $("wager-box");
  const keep = boxSel.value;
  const options = [];
  for (let b = 1; b <= (t.info.boxes || 7); b++) {
    if (b === t.info.bank_box) continue;  // the house's bank (pai gow, Sch 6 s18(13))
    if (t.myBoxes.has(b) || !t.boxes[b] || !t.boxes[b].player) options.push(b);
  }
  const key = t.id + ":" + options.map((b) => b + (t.myBoxes.has(b) ? "*" : "")).join(",");
  if (boxSel.dataset.key !== key) {
    boxSel.dataset.key = key;
    boxSel.textContent = "";
    for (const b of options) {
      const o = document.createElement("option");
      o.value = b;
      o.textContent = `${b}${t.myBoxes.has(b) ? " (yours)" : ""}`;
      boxSel.appendChild(o);
    }
    const mine = options.find((b) => t.myBoxes.has(b));
    if (mine !== undefined) boxSel.value = String(mine);
    else if (options.map(String).includes(keep)) boxSel.value = keep;
  }
  const nameSel = $("wager-name");
  if (nameSel.dataset.table !== t.id) {  // this table's wagers (not the previous table's)
    nameSel.dataset.table = t.id;
    nameSel.textContent = "";
    $("wager-amount").value = "";
    for (const w of t.info.wagers || []) {
      if (!w.initial || (w.limits === "jackpot" && !t.jackpot)) continue;
      const o = document.createElement("option");
      o.value = w.name;
      o.textContent = humanize(w.name) + (w.required ? " (required)" : "");
      nameSel.appendChild(o);
    }
    prefillWager(t);
  }
  const stakes = t.info.stakes || {};
  const spec = (t.info.wagers || []).find((w) => w.name === nameSel.value) || {};
  $("wager-hint").textContent = spec.limits === "jackpot"
    ? `exactly ${money(stakes.jackpot_wager)}`
    : `${money(stakes.minimum)} to ${money(stakes.maximum)}` + (spec.needs ? `, needs ${humanize(spec.needs)}` : "");
  // decisions owed by this player's boxes
  const dec = $("decisions");
  dec.textContent = "";
  for (const [b, d] of Object.entries(t.pending)) {
    const row = document.createElement("div");
    row.className = "decision";
    row.dataset.box = b;
    const label = document.createElement("span");
    label.className = "decision-label";
    label.textContent = `Box ${b} \u00b7 ${humanize(d.street)}`;
    row.appendChild(label);
    for (const choice of d.legal || []) {
      const amounts = choice.amounts || [];
      let select = null;
      if (amounts.length > 1) {
        select = document.createElement("select");
        for (const a of amounts) {
          const o = document.createElement("option");
          o.value = a; o.textContent = money(a);
          select.appendChild(o);
        }
        row.appendChild(select);
      }
      const btn = document.createElement("button");
      btn.className = "act " + (choice.verb === "fold" || choice.verb === "surrender" ? "fold" : "call");
      btn.dataset.verb = choice.verb;
      btn.textContent = humanize(choice.verb) + (amounts.length === 1 ? ` ${money(amounts[0])}` : "");
      btn.onclick = () => {
        const msg = { type: "decide", table: t.id, box: Number(b), verb: choice.verb };
        if (select) msg.amount = Number(select.value);
        if (send(msg)) {
          t.sentDecisions = Object.assign(t.sentDecisions || {}, { [b]: d });
          delete t.pending[b];
          renderTable();
        }
      };
      row.appendChild(btn);
    }
    dec.appendChild(row);
  }
}

function prefillWager(t) {
  const stakes = t.info.stakes || {};
  if (!$("wager-amount").value) $("wager-amount").value = centsInput(stakes.minimum || 0);
}

function renderBankedResult(t) {
  const box = $("result");
  const res = t.result;
  box.hidden = !res;
  if (!res) return;
  box.textContent = "";
  const h = document.createElement("h3");
  const no = res.round || t.round;
  h.textContent = res.voided ? `Round #${no} voided` : `Round #${no} result`;
  box.appendChild(h);
  const named = Object.entries(t.named || {});
  if (named.length && res.dealer && res.dealer.status) {  // baccarat: "Banker wins 6-3"
    const line = document.createElement("div");
    line.className = "res-line res-outcome";
    line.textContent = humanize(res.dealer.status);
    box.appendChild(line);
  }
  for (const [name, h] of named) {  // both hands, each with its cards and points
    const line = document.createElement("div");
    line.className = "res-line";
    line.textContent = humanize(h.hand || name) + ":";
    const cards = document.createElement("span");
    cards.className = "res-cards";
    for (const c of h.cards) cards.appendChild(cardEl(c, { small: true }));
    line.appendChild(cards);
    box.appendChild(line);
  }
  if (!named.length && res.dealer && (res.dealer.cards || res.dealer.status)) {
    const line = document.createElement("div");
    line.className = "res-line";
    line.textContent = "Dealer: " + humanize(res.dealer.status || res.dealer.hand || "");
    const cards = document.createElement("span");
    cards.className = "res-cards";
    for (const c of res.dealer.cards || []) cards.appendChild(cardEl(c, { small: true }));
    line.appendChild(cards);
    box.appendChild(line);
  }
  for (const [b, r] of Object.entries(res.boxes || {})) {
    const line = document.createElement("div");
    line.className = "res-line";
    const parts = Object.entries(r.wagers || {}).map(([name, w]) =>
      `${humanize(name)} ${w.outcome}${w.net ? (w.net > 0 ? " +" : " -") + money(Math.abs(w.net)) : ""}`);
    line.textContent = `Box ${b} (${r.player}): ${parts.join(", ")}; paid ${money(r.paid)}`;
    box.appendChild(line);
  }
}

/** The reply to ``recall`` (QLD Sch 19 s3(2)): this player's previous round here. */
function onRecall(msg) {
  const t = state.table;
  if (!t || t.id !== msg.table) return;
  if (t.stadium) { Stadium.onRecall(t, msg); renderTable(); return; }
  const r = msg.last_round;
  if (!r) { toast("No previous round at this table yet."); return; }
  const boxes = Object.entries(r.boxes || {}).map(([b, x]) =>
    `box ${b}: ${wagerText(Object.fromEntries(Object.entries(x.wagers || {}).map(([n, w]) => [n, w.stake])))}`);
  addLog(t, `Last round #${r.round}: ${boxes.join("; ")}; bet ${money(r.bet_total)}, ` +
    `paid ${money(r.paid_total)}, ${r.net >= 0 ? "won " + money(r.net) : "lost " + money(-r.net)}.`, "hand");
  renderTable();
}

function tickBanked() {
  const t = state.table;
  if (!t || !t.banked) return;
  const clock = $("bet-clock");
  if (t.status === "betting" && t.closesAt) {
    const left = Math.max(0, t.closesAt - clockNow());
    clock.innerHTML = `Betting closes ${clockHtml(left, 3000)}`;
    $("status-line").textContent = `Place your wagers \u00b7 ${Math.ceil(left / 1000)}s`;
  } else {
    clock.textContent = t.status === "betting" ? "" : "No more bets";
  }
  const mine = Object.keys(t.pending).length;
  if (mine && t.decisionAt) {
    const left = Math.max(0, t.decisionAt - clockNow());
    $("turn-info").innerHTML = `Your decision ${clockHtml(left, 5000)}`;
  }
}

function placeWager(withdraw) {
  const t = state.table;
  if (!t || !t.banked) return;
  const boxNo = Number($("wager-box").value);
  const wager = $("wager-name").value;
  const got = withdraw ? { cents: 0 } : parseDollars($("wager-amount").value);
  inputError("wager-amount", "wager-error", got.error || "");
  if (got.error) return;
  const amount = got.cents;
  if (!boxNo || !wager) { toast("Choose a box and a wager."); return; }
  t.wagering = boxNo;
  send({ type: "wager", table: t.id, box: boxNo, wager, amount });
}

function wireBanked() {
  $("wager-btn").onclick = () => placeWager(false);
  $("withdraw-btn").onclick = () => placeWager(true);
  $("recall-btn").onclick = () => { if (state.table) send({ type: "recall", table: state.table.id }); };
  $("wager-name").addEventListener("change", () => renderTable());
  $("wager-amount").addEventListener("input", () => {
    const text = $("wager-amount").value;
    inputError("wager-amount", "wager-error", text.trim() ? parseDollars(text).error || "" : "");
  });
  setInterval(tickBanked, 250);
}

wireBanked();
