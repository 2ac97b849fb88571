// The poker room (protocol/README.md, "The poker room"): several tables on one connection
// (a tile per table, with a "your turn" cue, played from the tile), pre-actions, waiting
// lists and seat offers, and the seat's terms (what the player will post, the buy-in range,
// the seat rules) in the lobby row and the buy-in box.
//
// app.js keeps the table in focus in state.table; every other joined table lives here
// (Room.tables) and its messages are applied by app.js's own handlers with that table put
// in focus for the moment (Room.behind is true meanwhile), so there is one way to follow a
// table. Hooks in app.js call Room.* where a table is joined, left, rendered or listed.
"use strict";

const PRE_VERBS = [
  ["check_fold", "Check/Fold"], ["check", "Check"], ["call", "Call"],
  ["call_any", "Call any"], ["fold_any", "Fold to any bet"],
];

// a rule cited in a line of the seat's terms: " (QLD Sch 11 s21(3))", ": ACT 6.3" before a ")"
const CITATION = /\s*\((?:QLD|ACT)\b(?:[^()]|\([^()]*\))*\)|:\s*(?:QLD|ACT)\b(?:[^()]|\([^()]*\))*(?=\))/g;

const Room = {
  tables: {},        // table id -> the table state (as app.js's newTable) of joined tables not in focus
  behind: false,     // a background table's message is being applied
  offer: null,       // the open seat_offer
  waiting: {},       // table id -> place on its waiting list

  // -- hooks from app.js ----------------------------------------------------------------------
  /** A poker table leaves the screen (the lobby, or another table): keep it as a tile. */
  keep(t) {
    if (t && t.poker) this.tables[t.id] = t;
    this.render();
  },

  /** A snapshot: a background table's (reconnect) is applied here; a new table takes the
   *  screen and the one there becomes a tile. True when app.js has nothing more to do. */
  snapshot(msg) {
    const front = state.table;
    const kept = this.tables[msg.table];
    if (kept && front && front.id !== msg.table) {
      const fresh = isBankedView(msg.view) ? newBankedTable(msg) : newTable(msg);
      fresh.log = kept.log;
      this.tables[msg.table] = fresh;
      this.render();
      return true;
    }
    delete this.tables[msg.table];
    if (front && front.id !== msg.table && front.poker) this.tables[front.id] = front;
    return false;
  },

  /** A message for a table not in focus: apply it with that table in focus for a moment. */
  background(msg, apply) {
    const t = this.tables[msg.table];
    if (!t) return;
    if (msg.type === "left") {
      delete this.tables[msg.table];
      toast(`Left ${t.info.name || t.id}: ${money(msg.returned)} returned.`);
      this.render();
      return;
    }
    const front = state.table;
    state.table = t;
    this.behind = true;
    try {
      if (typeof msg.seq === "number") t.seq = msg.seq;
      apply();
    } finally {
      state.table = front;
      this.behind = false;
    }
    this.render();
  },

  /** The table in focus was left: another joined table takes the screen, if any. */
  afterLeft(t, msg) {
    const next = Object.keys(this.tables)[0];
    if (!next) return false;
    toast(`Left ${t.info.name || t.id}: ${money(msg.returned)} returned.`);
    this.focus(next);
    return true;
  },

  resume(ids) {
    for (const id of ids) {
      const kept = this.tables[id];
      const join = { type: "join", table: id };
      if (kept) join.last_seq = kept.seq;
      send(join);
    }
  },

  handle(msg) {
    if (msg.type === "waiting") {
      this.waiting = msg.positions || {};
      const where = Object.entries(this.waiting).map(([id, n]) => `${id} #${n}`).join(", ");
      if (!this.offer) toast(where ? `Waiting list: ${where}.` : "You are on no waiting list.");
      if (!$("lobby").hidden) send({ type: "lobby" });
    } else if (msg.type === "seat_offer") {
      if (msg.expires_ms) {
        this.offer = Object.assign({}, msg, { until: Date.now() + msg.expires_ms });
        this.offerBanner();
      } else {
        this.offer = null;
        this.offerBanner();
        toast(`The seat at ${msg.table} passed to the next player.`);
      }
    }
  },

  /** A seat offer: a banner across the top with its countdown, Take the seat and Pass (a
   *  small toast was missed, and its offer lapsed unseen: issue 27, point 7). */
  offerBanner() {
    let el = $("seat-offer");
    if (!el) {
      el = document.createElement("div");
      el.id = "seat-offer";
      el.className = "seat-offer";
      el.setAttribute("role", "alertdialog");
      el.innerHTML = `<div class="offer-text"></div><div class="offer-clock"></div>
        <button id="offer-take" class="primary">Take the seat</button>
        <button id="offer-pass">Pass</button>`;
      document.body.appendChild(el);
      el.querySelector("#offer-take").onclick = () => {
        if (this.offer) send({ type: "join", table: this.offer.table });
        this.offer = null;
        this.offerBanner();
      };
      el.querySelector("#offer-pass").onclick = () => {
        if (this.offer) send({ type: "unwait", table: this.offer.table });
        this.offer = null;
        this.offerBanner();
      };
      setInterval(() => this.offerTick(), 250);
    }
    const o = this.offer;
    el.hidden = !o;
    if (!o) return;
    const name = (state.lobby || []).find((x) => x.id === o.table);
    el.querySelector(".offer-text").textContent =
      `A seat is free for you: seat ${o.seat} at ${name ? name.name : o.table}.`;
    this.offerTick();
  },

  offerTick() {
    const el = $("seat-offer");
    if (!el || !this.offer) return;
    const left = Math.max(0, this.offer.until - Date.now());
    el.querySelector(".offer-clock").textContent = `${Math.ceil(left / 1000)} s left`;
    el.classList.toggle("low", left < 10_000);
    if (!left) { this.offer = null; el.hidden = true; }
  },

  /** Room events at a poker table; true when handled. */
  onEvent(t, type, ev) {
    if (type === "pre_action") {
      t.pre = ev.verb ? { verb: ev.verb, amount: ev.amount } : null;
      return true;
    }
    if (type === "time_bank") {
      addLog(t, `${seatName(t, ev.seat)} is using the time bank (${Math.round(ev.time_bank_ms / 1000)} s).`, "warn");
      if (t.turn && t.turn.seat === ev.seat) t.turn.bank = ev.time_bank_ms;
      return true;
    }
    if (type === "vacate_warning") {
      addLog(t, "One more hand without playing and your seat is vacated (ACT 18.8).", "warn");
      toast(`${t.info.name || t.id}: sit in, or your seat is vacated after the next hand (ACT 18.8).`);
      return true;
    }
    const mine = t.role === "player" ? t.seats[t.seat] : null;
    if (type === "round_starting") {
      t.pre = null;
      if (mine && (ev.seats || []).includes(t.seat)) {
        mine.owes = 0;  // dealt in: whatever was owed is posted
        mine.wait_for_blind = false;
      } else if (mine && mine.sitting_out && (t.info.entry || {}).not_on_button) {
        mine.owes = Math.max(...Object.values(t.info.stakes || { w: 0 }));  // s23A: W on return
      }
    }
    if (type === "sat_in" && mine && ev.seat === t.seat) mine.wait_for_blind = !!ev.wait_for_blind;
    return false;
  },

  // -- pre-actions ----------------------------------------------------------------------------
  /** What the seat would have to call now (0: nothing), from the round as the page keeps it. */
  toCall(t) {
    const r = t.round;
    const me = r && r.seats[t.seat];
    if (!me) return 0;
    const top = Math.max(0, ...Object.values(r.seats).map((s) => s.bet || 0));
    return Math.min(me.stack, Math.max(0, top - (me.bet || 0)));
  },

  /** The pre-action buttons under the action bar, for a seat in the round, before its turn. */
  controls(t) {
    this.seatTerms(t);
    let bar = $("pre-actions");
    if (!bar) {
      bar = document.createElement("div");
      bar.id = "pre-actions";
      bar.className = "pre-actions";
      bar.setAttribute("role", "group");
      bar.setAttribute("aria-label", "Before your turn");
      $("actions").insertBefore(bar, $("actions").querySelector(".seat-controls"));
    }
    const r = t && t.round;
    const me = r && t.role === "player" ? r.seats[t.seat] : null;
    const show = !!(me && !r.ended && !me.folded && !me.allin && !isMyTurn(t) && r.toAct !== null);
    bar.hidden = !show;
    if (!show) { bar.textContent = ""; return; }
    const owed = this.toCall(t);
    const key = `${owed}|${t.pre ? t.pre.verb + t.pre.amount : ""}`;
    if (bar.dataset.key === key) return;
    bar.dataset.key = key;
    bar.textContent = "";
    const label = document.createElement("span");
    label.className = "muted";
    label.textContent = "Before your turn:";
    bar.appendChild(label);
    for (const [verb, text] of PRE_VERBS) {
      if (verb === "check" && owed > 0) continue;
      if (verb === "call" && owed === 0) continue;
      const b = document.createElement("button");
      b.className = "pre";
      b.dataset.pre = verb;
      b.textContent = verb === "call" ? `Call ${money(owed)}` : text;
      const on = !!(t.pre && t.pre.verb === verb);
      b.classList.toggle("on", on);
      b.setAttribute("aria-pressed", String(on));
      b.onclick = () => {
        const msg = { type: "pre_action", table: t.id, verb: on ? null : verb };
        if (!on && verb === "call") msg.amount = owed;
        send(msg);
      };
      bar.appendChild(b);
    }
  },

  // -- several tables -------------------------------------------------------------------------
  focus(id) {
    const t = this.tables[id];
    if (!t) return;
    delete this.tables[id];
    if (state.table && state.table.id !== id) this.tables[state.table.id] = state.table;
    state.table = t;
    $("lobby").hidden = true;
    $("table").hidden = false;
    $("to-lobby").hidden = false;
    toTop();
    renderTable();
  },

  all() {
    const list = state.table ? [state.table] : [];
    return list.concat(Object.values(this.tables));
  },

  /** One tile per joined table: name, hand, board, own cards, pot, whose turn; the table in
   *  focus is marked, a table where it is your turn glows and can be played from its tile. */
  render() {
    let strip = $("room-strip");
    if (!strip) {
      strip = document.createElement("div");
      strip.id = "room-strip";
      strip.className = "room-strip";
      strip.setAttribute("aria-label", "Your tables");
      document.querySelector("main").before(strip);
    }
    const tables = this.all().filter((t) => t.poker);
    strip.hidden = tables.length < 2 && !(tables.length && !state.table);
    const turns = tables.filter((t) => isMyTurn(t)).length;
    document.title = turns ? `(${turns}) Your turn \u00b7 croupier` : "croupier";
    strip.textContent = "";
    if (strip.hidden) return;
    for (const t of tables) strip.appendChild(this.tile(t));
  },

  tile(t) {
    const el = document.createElement("div");
    const mine = isMyTurn(t);
    const focused = state.table === t;
    el.className = "room-tile" + (mine ? " my-turn" : "") + (focused ? " focused" : "");
    el.dataset.table = t.id;
    const r = t.round;
    const me = r && r.seats[t.seat];
    const pot = r ? Object.values(r.seats).reduce((a, s) => a + (s.inPot || 0), 0) : 0;
    const status = mine ? "Your turn"
      : r && !r.ended && t.turn ? `Waiting for ${seatName(t, t.turn.seat)}`
        : t.role === "spectator" ? "Watching" : "Between hands";
    el.innerHTML = `<div class="tile-head"><b class="tile-name"></b><span class="muted">` +
      `${t.hand ? "hand #" + t.hand : ""}</span></div><div class="tile-cards"></div>` +
      `<div class="tile-line"><span class="tile-status"></span><span class="muted">` +
      `${pot ? "pot " + money(pot) : ""}</span></div><div class="tile-acts"></div>`;
    el.querySelector(".tile-name").textContent = t.info.name || t.id;
    el.querySelector(".tile-status").textContent = status;
    const cards = el.querySelector(".tile-cards");
    for (const c of (me && me.cards) || []) cards.appendChild(cardEl(c, { small: true }));
    if (r && r.board && r.board.length) {
      const sep = document.createElement("span");
      sep.className = "tile-sep";
      cards.appendChild(sep);
      for (const c of r.board) cards.appendChild(cardEl(c, { small: true }));
    }
    if (mine && !focused) {  // play the simple actions right from the tile
      const acts = el.querySelector(".tile-acts");
      for (const verb of ["fold", "check", "call"]) {
        if (!(verb in t.turn.legal)) continue;
        const b = document.createElement("button");
        b.className = "act " + verb;
        b.textContent = verb === "call" ? `Call ${money(t.turn.legal.call.amount)}` : humanize(verb);
        b.onclick = (e) => {
          e.stopPropagation();
          if (send({ type: "act", table: t.id, verb })) { t.turn.legal = {}; this.render(); }
        };
        acts.appendChild(b);
      }
    }
    el.onclick = () => { if (!focused) this.focus(t.id); };
    el.title = focused ? "This table is on the screen" : "Show this table";
    return el;
  },

  // -- the lobby and the buy-in box: the seat's terms, the waiting lists -----------------------
  lobbyRow(tr, tb) {
    const sit = tr.querySelector(".join-player");
    const full = tb.taken >= tb.seats;
    const cell = tr.querySelector(".row-actions");
    if (tb.waiting) {
      const w = document.createElement("span");
      w.className = "waiting-count muted";
      w.textContent = `${tb.waiting} waiting`;
      tr.querySelector(".seats-taken").parentElement.appendChild(w);
    }
    if (full) {
      sit.disabled = false;
      sit.classList.add("join-wait");
      const place = this.waiting[tb.id];
      sit.textContent = place ? `Waiting #${place}` : "Join waiting list";
      sit.onclick = () => send(place ? { type: "unwait", table: tb.id } : { type: "wait", table: tb.id });
      const any = document.createElement("button");
      any.className = "join-any";
      any.textContent = "First available";
      any.title = "a seat at this table or any other with the same game and stakes";
      any.onclick = () => send({ type: "wait", table: tb.id, first_available: true });
      if (!place) cell.insertBefore(any, sit.nextSibling);
    } else if (tb.entry_post) {
      sit.title = this.terms(tb).join(" ");
    }
    const note = document.createElement("div");
    note.className = "entry-note muted";
    note.textContent = tb.entry_post ? `new players post ${money(tb.entry_post)} or wait` : "";
    if (note.textContent) tr.querySelector('[data-label="Buy-in"]').appendChild(note);
  },

  /** Before you sit (and while the seat waits for its first hand): the buy-in range, what
   *  the player will post, and the seat rules of the table's rulebook. ``info`` is a lobby
   *  row or a snapshot's view.table (its ``entry``). */
  terms(info, owes) {
    const qld = /-qld$/.test(info.game || "");
    const manila = /^manila/.test(info.game || "");
    const entry = info.entry || {};
    const post = owes !== undefined ? owes : entry.post !== undefined ? entry.post : info.entry_post;
    const range = info.max_buy_in ? `${money(info.min_buy_in)} \u2013 ${money(info.max_buy_in)}`
      : `at least ${money(info.min_buy_in)}`;
    const lines = [`Buy-in ${range}.`];
    if (post) {
      lines.push(`To be dealt in you post ${money(post)} (the second blind), or wait until ` +
        "the second blind comes to your seat (QLD Sch 11 s23A).");
      lines.push("A new player is not dealt in on the button or the first blind (QLD Sch 11 s21(3)).");
    } else if (qld && !manila) {
      lines.push("You post only the blind of your position when you are dealt in.");
    } else {
      lines.push("You are dealt in at the next hand and post only the blind of your position " +
        `(the buck cannot be declined: ${qld ? "QLD Sch 5 s17(3)" : "ACT 6.3"}).`);
    }
    if (!qld) lines.push("3 hands without playing while the table is full vacate the seat; you are warned first (ACT 18.8).");
    return lines;
  },

  /** The seat's terms in the buy-in box, with the QLD choice to wait for the second blind. */
  seatTerms(t) {
    const box = $("buyin");
    let el = $("seat-terms");
    if (!el) {
      el = document.createElement("div");
      el.id = "seat-terms";
      el.className = "seat-terms";
      box.appendChild(el);
    }
    const mine = t && t.role === "player" && t.poker ? t.seats[t.seat] : null;
    const dealt = !!(mine && t.round && !t.round.ended && t.round.seats[t.seat]);
    el.hidden = !mine || dealt || box.hidden;
    if (el.hidden) return;
    const owes = mine.owes !== undefined && t.hand ? mine.owes : undefined;
    const lines = this.terms(t.info, owes);
    const key = lines.join("|") + `|${mine.wait_for_blind}`;
    if (el.dataset.key === key) return;
    el.dataset.key = key;
    el.textContent = "";
    for (const line of lines) {  // the player's words here; the rule cited in the tooltip
      const p = document.createElement("div");
      const cites = line.match(CITATION) || [];
      p.textContent = line.replace(CITATION, "").replace(/\(\)/g, "");
      if (cites.length) p.title = cites.map((c) => c.trim().replace(/^\((.*)\)$/, "$1").replace(/^:\s*/, "")).join("; ");
      el.appendChild(p);
    }
    if ((t.info.entry || {}).may_wait && (owes || mine.wait_for_blind)) {
      const label = document.createElement("label");
      const box2 = document.createElement("input");
      box2.type = "checkbox";
      box2.id = "wait-for-blind";
      box2.checked = !!mine.wait_for_blind;
      box2.onchange = () => send({ type: "sit_in", table: t.id, wait_for_blind: box2.checked });
      label.append(box2, " Wait for the second blind instead of posting now");
      el.appendChild(label);
    }
  },
};
window.Room = Room;
