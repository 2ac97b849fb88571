// The poker room (protocol/README.md, "The poker room"): several tables on one connection
// (a tile per table, with a "your turn" cue, played from the tile), pre-actions, waiting
// lists and seat offers, and the seat dialog that says what the player will post.
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

const Room = {
  tables: {},        // table id -> the table state (as app.js's newTable) of joined tables not in focus
  behind: false,     // a background table's message is being applied
  offer: null,       // the open seat_offer
  waiting: {},       // table id -> place on its waiting list
  waitForBlind: {},  // table id -> sit_in {wait_for_blind} to send once seated

  // -- hooks from app.js ----------------------------------------------------------------------
  /** A table leaves the screen (the lobby, or another table): keep it as a tile. */
  keep(t) {
    if (t && !t.left) this.tables[t.id] = t;
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
    if (front && front.id !== msg.table) this.tables[front.id] = front;
    if (this.waitForBlind[msg.table] && msg.role === "player") {
      delete this.waitForBlind[msg.table];
      send({ type: "sit_in", table: msg.table, wait_for_blind: true });
    }
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
      toast(where ? `Waiting list: ${where}.` : "You are on no waiting list.");
      if (!$("lobby").hidden) send({ type: "lobby" });
    } else if (msg.type === "seat_offer") {
      if (msg.expires_ms) {
        this.offer = msg;
        toast(`Seat ${msg.seat} at ${msg.table} is yours for ${Math.round(msg.expires_ms / 1000)} s.`,
          "Take the seat", () => { send({ type: "join", table: msg.table }); this.offer = null; });
      } else {
        this.offer = null;
        toast(`The seat at ${msg.table} passed to the next player.`);
      }
    }
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
    if (type === "round_starting") t.pre = null;
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

  // -- the lobby: the seat dialog and the waiting lists -----------------------------------------
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
    } else {
      sit.onclick = () => this.seatDialog(tb);
    }
  },

  /** Before you sit: what you will post, the buy-in range, and the seat rules. */
  seatDialog(tb) {
    let dlg = $("seat-dialog");
    if (!dlg) {
      dlg = document.createElement("dialog");
      dlg.id = "seat-dialog";
      dlg.className = "seat-dialog";
      document.body.appendChild(dlg);
    }
    const qld = /-qld$/.test(tb.game);
    const blinds = Object.values(tb.stakes || {}).map(money).join(" / ");
    const range = tb.max_buy_in ? `${money(tb.min_buy_in)} \u2013 ${money(tb.max_buy_in)}`
      : `at least ${money(tb.min_buy_in)}`;
    const lines = [`Blinds ${blinds}. Buy-in ${range}.`];
    if (tb.entry_post) {
      lines.push(`To be dealt in you post the second blind, ${money(tb.entry_post)}, ` +
        "or you wait until the second blind comes to your seat (QLD Sch 11 s23A).");
      lines.push("You are not dealt in on the button or the first blind (QLD Sch 11 s21(3)).");
    } else if (qld && !/^manila/.test(tb.game)) {
      lines.push("You post only the blind of your position when you are dealt in.");
    } else {
      lines.push("You are dealt in at the next hand and post only the blind of your position" +
        " (the buck cannot be declined: " + (qld ? "QLD Sch 5 s17(3)" : "ACT 6.3") + ").");
    }
    if (!qld) lines.push("A seat that plays no hand for 3 hands while the table is full is vacated; you are warned first (ACT 18.8).");
    dlg.innerHTML = `<h2></h2><ul class="seat-rules"></ul>` +
      (tb.entry_post ? `<label><input type="checkbox" id="seat-wait"> Wait for the second blind</label>` : "") +
      `<div class="dialog-buttons"><button class="primary" id="seat-go">Sit down</button>` +
      `<button id="seat-cancel">Cancel</button></div>`;
    dlg.querySelector("h2").textContent = `Sit at ${tb.name}`;
    const ul = dlg.querySelector(".seat-rules");
    for (const line of lines) {
      const li = document.createElement("li");
      li.textContent = line;
      ul.appendChild(li);
    }
    dlg.querySelector("#seat-cancel").onclick = () => dlg.close();
    dlg.querySelector("#seat-go").onclick = () => {
      const wait = dlg.querySelector("#seat-wait");
      if (wait && wait.checked) this.waitForBlind[tb.id] = true;
      send({ type: "join", table: tb.id, role: "player" });
      dlg.close();
    };
    dlg.showModal();
  },
};
window.Room = Room;
