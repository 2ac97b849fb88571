// Tournaments (protocol/README.md "Tournaments"; issue 15). The lobby lists the tournaments
// with their published conditions (2017 r 17.2(b)) and a register / unregister button; while
// you are in one, a bar over the table shows its level and blinds, the time left in the
// level (or the break), the players left, and the notice of a move: the tournament seats you
// itself, so the new table's snapshot arrives by itself and takes the screen (as any joined
// table does, room.js). Your place and prize show in the bar and the lobby card.
//
// Money (entry fee, commission, prize pool, prizes) is dollars; every amount at a tournament
// table (stacks, bets, pots, blinds) is tournament chips: Tournaments.unit() is the unit of
// the table in focus, which app.js's money / parseDollars / centsInput use.
// Loaded after app.js, which calls Tournaments.handle / onEvent / onLeft / refresh / lobbyRow /
// render (hooks), and Tournaments.unit() in money / parseDollars / centsInput.
"use strict";

const Tournaments = (() => {
  const PHASES = {
    announced: "Announced", registering: "Registering", seating: "Seating",
    running: "Running", on_break: "On break", complete: "Complete", cancelled: "Cancelled",
  };
  const NOTICE_MS = 20000;
  let rows = [];       // the last `tournaments` reply: {id, name, game, phase, ..., conditions}
  const mine = {};     // tournament id -> {msg: the last `tournament` state, at: Date.now()}
  let notice = null;   // {text, table, until, logged}

  // -- chips -----------------------------------------------------------------------------------
  /** Tournament chips as people read them: a whole number, "1,500". */
  function chips(n) {
    if (n === null || n === undefined) return "\u2013";
    return Number(n).toLocaleString("en-US");
  }

  /** Chips typed by a person -> {cents: chips} or {error} (app.js's amount shape). */
  function parseChips(text) {
    const raw = String(text === undefined || text === null ? "" : text).trim();
    const bare = raw.replace(/,(?=\d{3}(\D|$))/g, "").replace(/\s*chips?$/i, "");
    if (!/^\d+$/.test(bare)) {
      return { error: raw ? `"${raw}" is not a number of chips: type a whole number, e.g. 400.`
        : "Enter a number of tournament chips, e.g. 400." };
    }
    return { cents: Number(bare) };
  }

  const CHIPS = { format: chips, parse: parseChips, input: (n) => String(n) };

  const isTourneyTable = (t) => !!(t && t.info && t.info.tournament);

  /** The unit of the table in focus: tournament chips, or null (money in cents). */
  function unit() {
    return isTourneyTable(state.table) ? CHIPS : null;
  }

  // -- which tournament ------------------------------------------------------------------------
  /** The tournament a table id belongs to (ids are `TOURNAMENT.N`, cut to 32 characters). */
  function ofTable(id) {
    for (const [tid, s] of Object.entries(mine)) if (s.msg.table === id) return tid;
    const stem = String(id).replace(/\.\d*$/, "");
    const hit = rows.find((r) => String(id).startsWith(r.id + ".") ||
      (String(id).length === 32 && (r.id + ".").startsWith(stem + ".")));
    return hit ? hit.id : null;
  }

  function row(id) {
    return rows.find((r) => r.id === id) || null;
  }

  const account = () => (state.welcome ? state.welcome.account : null);

  // -- server messages -------------------------------------------------------------------------
  function handle(msg) {
    if (msg.type === "tournaments") {
      rows = msg.tournaments || [];
      renderList();
      if (!$("lobby").hidden) renderLobby();  // tournament tables are marked there
      return true;
    }
    if (msg.type === "tournament") {
      onState(msg);
      return true;
    }
    return false;
  }

  function onState(msg) {
    const before = mine[msg.tournament] ? mine[msg.tournament].msg : null;
    mine[msg.tournament] = { msg, at: Date.now() };
    const r = row(msg.tournament);
    if (r) Object.assign(r, { phase: msg.phase, entries: msg.entries, pool: msg.pool,
      players_left: msg.players_left });
    const name = r ? r.name : msg.tournament;
    const me = account();
    const t = state.table && ofTable(state.table.id) === msg.tournament ? state.table : null;
    const note = (text, kind = "sys") => { if (t) addLog(t, text, kind); };
    for (const ev of msg.events || []) {
      if (ev.type === "tournament_seated" && ev.how === "moved" && ev.player === me) {
        notice = { text: `You were moved to table ${ev.table}, seat ${ev.seat}.`,
          table: msg.table, until: Date.now() + NOTICE_MS, logged: false };
        toast(`${name}: you were moved to table ${ev.table}, seat ${ev.seat}.`);
      } else if (ev.type === "tournament_break") {
        note(`Break: ${ev.minutes} minutes (no new hand until it is over).`, "warn");
      } else if (ev.type === "tournament_break_ended") {
        note("The break is over: play resumes.", "warn");
      } else if (ev.type === "tournament_eliminated" && !(ev.players || []).includes(me)) {
        note(`${(ev.players || []).length > 1 ? "Players are" : "A player is"} out: ` +
          `${msg.players_left} left.`);
      } else if (ev.type === "tournament_cancelled" && msg.registered) {
        toast(`${name} is cancelled: your entry fee and commission are refunded.`);
      }
    }
    if (before && msg.level && msg.level !== before.level) {
      note(`Level ${msg.level}: blinds ${msg.blinds.map(chips).join(" / ")}.`, "hand");
    }
    if (msg.place && (!before || before.place !== msg.place || before.prize !== msg.prize)) {
      toast(`${name}: you ${placeText(msg)}`);
    }
    renderList();
    if (state.table) renderTable();
  }

  /** A tournament table let you go: moved (the new table's snapshot follows), eliminated,
   *  or closed at the end. True when handled here (app.js does nothing more). */
  function onLeft(msg) {
    const front = state.table && state.table.id === msg.table ? state.table : null;
    const kept = window.Room ? Room.tables[msg.table] : null;
    const t = front || kept;
    if (!isTourneyTable(t)) return false;
    if (front) state.table = null;
    else delete Room.tables[msg.table];
    if (msg.reason === "moved") {
      if (front) $("status-line").textContent = "Moving to your new table\u2026";
      if (window.Room) Room.render();
      return true;
    }
    if (front) showLobby();
    else if (window.Room) Room.render();
    const tid = ofTable(msg.table);
    const s = tid && mine[tid] ? mine[tid].msg : null;
    toast(msg.reason === "eliminated" ? "You are out of the tournament" +
      (s && s.place ? `: place ${s.place}.` : "; your place follows.")
      : `${t.info.name || t.id}: the table closed (${String(msg.reason).replace(/_/g, " ")}).`);
    return true;
  }

  /** A tournament table's events with words of their own; true when handled here. */
  function onEvent(t, type, ev) {
    if (!isTourneyTable(t) || type !== "stake") return false;
    if (t.seats[ev.seat]) t.seats[ev.seat].stake = ev.stake;  // seated by the tournament
    addLog(t, `${seatName(t, ev.seat)} sits down with ${chips(ev.stake)} chips.`, "sys");
    return true;
  }

  function refresh() {
    if (state.online) send({ type: "tournaments" });
  }

  // -- the lobby -------------------------------------------------------------------------------
  /** "finished in place 3 and won $8.00." (the prize, in dollars, once it is paid). */
  function placeText(s) {
    const where = `finished in place ${s.place}`;
    return s.prize ? `${where} and won ${dollars(s.prize)}.` : `${where}.`;
  }

  const GAMES = {
    "holdem-act": "Hold'em (ACT)", "omaha-act": "Omaha (ACT)", "manila-act": "3 Card Manila (ACT)",
    "canberra-poker-2004": "Canberra Poker (2004)", "canberra-poker-2017": "Canberra Poker (2017)",
  };

  function ordinal(n) {
    const tail = n % 100 >= 11 && n % 100 <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
    return n + tail;
  }

  function clockText(ms) {
    const s = Math.max(0, Math.ceil(ms / 1000));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }

  /** The running clock of a state message: {label, ms} (ms null: stopped), or null. */
  function clockOf(s) {
    const m = s.msg;
    const gone = clockNow() - s.at;
    if (m.phase === "on_break") {
      return m.break_ms === null ? { label: "Paused", ms: null }
        : { label: "Break", ms: Math.max(0, m.break_ms - gone) };
    }
    if (m.phase !== "running" || m.level_ms === null) return null;
    return { label: "Level ends in", ms: Math.max(0, m.level_ms - gone) };
  }

  function ensureSection() {
    let sec = $("tourneys");
    if (!sec) {
      sec = document.createElement("section");
      sec.id = "tourneys";
      sec.className = "tourneys";
      sec.innerHTML = `<div class="lobby-head"><h1>Tournaments</h1></div>` +
        `<div id="tourney-list" class="tourney-list"></div>`;
      $("lobby").appendChild(sec);
    }
    return sec;
  }

  function startText(c) {
    if (c.sit_and_go) return `Sit & go: starts when ${c.sit_and_go} have entered`;
    if (c.starts_at) return `Starts ${new Date(c.starts_at).toLocaleString()}`;
    return "Starts when the director starts it";
  }

  /** The published conditions, every item (2017 r 17.3): money in dollars, chips as chips. */
  function conditionsEl(c) {
    const box = document.createElement("details");
    box.className = "tr-conditions";
    const lines = [];
    const add = (label, text) => { if (text) lines.push([label, text]); };
    add("Entry", c.entry);
    add("Start", startText(c));
    add("Players", `${c.min_players} to ${c.max_players}`);
    add("Entry fee", `${dollars(c.entry_fee)}, of which ${dollars(c.commission)} commission ` +
      `(${dollars(c.entry_fee - c.commission)} to the prize pool)`);
    add("Chips", `${chips(c.chips)} tournament chips per entry`);
    add("Sessions", (c.sessions || []).map((s) => `${s.name}: ` +
      (s.tables === "by_entries" ? "tables by entries" : `${s.tables} table${s.tables === 1 ? "" : "s"}`) +
      ` of ${s.players_per_table}` + (s.minutes ? `, ${s.minutes} min` : "") +
      (s.rounds ? `, ${s.rounds} rounds` : "") + (s.advance ? `, ${s.advance} advance` : "") +
      (s.limits ? `, limits ${chips(s.limits.minimum)}\u2013${chips(s.limits.maximum)} chips` : ""))
      .join("; "));
    add("Progression", c.progression);
    if (c.limits) add("Table limits", `${chips(c.limits.minimum)} to ${chips(c.limits.maximum)} chips`);
    if (c.structure) add("Betting", humanize(c.structure));
    const bb = c.buy_backs || {};
    add("Buy-backs", bb.per_player ? `${bb.per_player} per player, until session ${bb.last_session}` +
      (bb.last_level ? ` level ${bb.last_level}` : "") + ` (${dollars(c.entry_fee)} each)` : "none");
    add("Breaks", (c.breaks || []).map((b) => `${b.minutes} min after ` +
      (b.after_level ? `level ${b.after_level}` : `session ${b.after_session}`)).join("; "));
    add("Prizes", (c.prizes || []).map((p, i) => `${ordinal(i + 1)} ${p}%`).join(", ") + " of the pool");
    add("Ties", c.ties === "share" ? "places tied share their prizes equally" : "extra rounds decide");
    add("Out in the same hand", c.same_round === "share" ? "share the places" : "by chips at the hand's start");
    add("Jackpot wagers", c.jackpot_wagers === "allowed" ? "allowed" : "none during the tournament");
    if (c.player_groups && c.player_groups !== "none") add("Player groups", c.player_groups);
    add("Tables", c.balance_tables === false ? "no moves between tables"
      : "balanced and broken as players are eliminated" + (c.keep_position ? ", keeping position" : ""));
    box.innerHTML = `<summary>Conditions</summary><dl></dl>`;
    const dl = box.querySelector("dl");
    for (const [label, text] of lines) {
      const dt = document.createElement("dt");
      dt.textContent = label;
      const dd = document.createElement("dd");
      dd.textContent = text;
      dl.append(dt, dd);
    }
    if ((c.levels || []).length) {
      const dt = document.createElement("dt");
      dt.textContent = "Blind levels";
      const dd = document.createElement("dd");
      const ol = document.createElement("ol");
      ol.className = "tr-levels";
      for (const lv of c.levels) {
        const li = document.createElement("li");
        li.textContent = `${lv.blinds.map(chips).join("/")} \u00b7 ${lv.minutes} min`;
        ol.appendChild(li);
      }
      dd.appendChild(ol);
      dl.append(dt, dd);
    }
    return box;
  }

  /** Your line on a tournament's card: registered, playing where, your place. */
  function meText(s, r) {
    if (!s) return "";
    const m = s.msg;
    if (m.place) return `You ${placeText(m)}`;
    if (m.phase === "cancelled") return m.registered ? "Cancelled: your entry fee and commission were refunded." : "";
    if (!m.registered) return "";
    if (m.table) return `You play at table ${m.table.split(".").pop()}, seat ${m.seat}.`;
    if (m.phase === "registering") return `You are registered (${m.entries} entered).`;
    return `You are registered${r && r.phase === "seating" ? ": seats are being drawn" : ""}.`;
  }

  function renderList() {
    ensureSection();
    const list = $("tourney-list");
    const open = new Set([...list.querySelectorAll(".tourney details[open]")]
      .map((d) => d.closest(".tourney").dataset.tournament));
    list.textContent = "";
    if (!rows.length) {
      list.innerHTML = `<p class="muted">No tournaments on this server.</p>`;
      return;
    }
    for (const r of rows) {
      const c = r.conditions || {};
      const s = mine[r.id];
      const m = s ? s.msg : null;
      const el = document.createElement("article");
      el.className = "tourney";
      el.dataset.tournament = r.id;
      el.innerHTML = `<div class="tr-head"><span class="tr-name"></span>` +
        `<span class="tr-phase phase-${r.phase}"></span></div><div class="tr-facts"></div>` +
        `<div class="tr-clock"></div><div class="tr-me"></div><div class="tr-actions"></div>`;
      el.querySelector(".tr-name").textContent = r.name;
      el.querySelector(".tr-phase").textContent = PHASES[r.phase] || humanize(r.phase);
      const facts = [
        (GAMES[r.game] || r.game) + (c.structure ? `, ${c.structure}` : ""),
        `Entry ${dollars(c.entry_fee)}`, `${chips(c.chips)} chips`,
        r.phase === "registering" || r.phase === "announced" ? startText(c)
          : ["running", "on_break"].includes(r.phase) ? `${r.players_left} of ${r.entries} left` : "",
        `${r.entries} of ${c.max_players} entered`, `Prize pool ${dollars(r.pool)}`,
      ];
      el.querySelector(".tr-facts").textContent = facts.filter(Boolean).join(" \u00b7 ");
      el.querySelector(".tr-me").textContent = meText(s, r);
      const acts = el.querySelector(".tr-actions");
      const button = (cls, text, onclick, primary = false) => {
        const b = document.createElement("button");
        b.className = cls + (primary ? " primary" : "");
        b.textContent = text;
        b.onclick = onclick;
        acts.appendChild(b);
        return b;
      };
      const registered = !!(m && m.registered && !m.place);
      if (r.phase === "registering" && !registered) {
        button("tr-register", `Register \u00b7 ${dollars(c.entry_fee)}`,
          () => send({ type: "register", tournament: r.id }), true);
      } else if (r.phase === "registering" && registered) {
        button("tr-unregister", "Unregister (refund)",
          () => send({ type: "unregister", tournament: r.id }));
      } else if (r.phase === "announced") {
        button("tr-register", "Registration not open yet", null).disabled = true;
      }
      if (m && m.table && !m.place) button("tr-goto", "Go to your table", () => goTo(m.table), true);
      el.appendChild(conditionsEl(c));
      if (open.has(r.id)) el.querySelector("details").open = true;
      list.appendChild(el);
    }
    tick();
    applyOffline();
  }

  /** Back to your tournament table: its tile, or resume the seat it holds for you. */
  function goTo(table) {
    if (window.Room && Room.tables[table]) Room.focus(table);
    else send({ type: "join", table });
  }

  /** A tournament's table in the cash lobby: blinds in chips, no buy-in; watch only. */
  function lobbyRow(tr, tb) {
    const tid = ofTable(tb.id);
    if (!tid) return;
    tr.classList.add("tourney-table");
    tr.children[2].textContent = "blinds " + Object.values(tb.stakes || {}).map(chips).join(" / ") + " chips";
    const buy = tr.querySelector('[data-label="Buy-in"]');
    if (buy) buy.textContent = "tournament chips";
    const sit = tr.querySelector(".join-player");
    if (sit) sit.hidden = true;
    for (const extra of tr.querySelectorAll(".join-any, .entry-note")) extra.remove();
  }

  // -- the bar over a tournament table -----------------------------------------------------------
  function ensureBar() {
    let bar = $("tourney-bar");
    if (!bar) {
      bar = document.createElement("div");
      bar.id = "tourney-bar";
      bar.className = "tourney-bar";
      bar.setAttribute("role", "status");
      bar.innerHTML = `<span class="tb-name"></span><span class="tb-level"></span>` +
        `<span class="tb-clock"></span><span class="tb-left"></span><span class="tb-place"></span>` +
        `<span class="tb-notice"></span>`;
      $("felt").before(bar);
    }
    return bar;
  }

  /** Called by app.js at the end of renderTable: the bar, and the controls a tournament seat
   *  has (no buy-in; leaving is sitting out: the seat stays the tournament's, ACT 6.3). */
  function render() {
    const t = state.table;
    const bar = ensureBar();
    const here = isTourneyTable(t);
    bar.hidden = !here;
    $("leave-btn").hidden = here && t.role === "player";
    $("amount").setAttribute("aria-label", here ? "amount in tournament chips" : "amount in dollars");
    if (!here) return;
    $("buyin").hidden = true;
    if (t.role === "player" && $("turn-info").textContent.startsWith("Buy in")) {
      $("turn-info").textContent = "Seated by the tournament";
    }
    const tid = ofTable(t.id);
    const r = tid ? row(tid) : null;
    const s = tid ? mine[tid] : null;
    bar.querySelector(".tb-name").textContent = (r ? r.name : "Tournament") +
      ` \u00b7 table ${t.info.tournament.number} \u00b7 chips`;
    bar.title = "Amounts at this table are tournament chips, not money.";
    const m = s ? s.msg : null;
    const blinds = m ? m.blinds : Object.values(t.info.stakes || {});
    bar.querySelector(".tb-level").textContent = (m && m.level ? `Level ${m.level} \u00b7 ` : "") +
      `blinds ${blinds.map(chips).join("/")}`;
    bar.querySelector(".tb-left").textContent = m ? `${m.players_left} of ${m.entries} left` : "";
    bar.querySelector(".tb-place").textContent = m && m.place ? `You ${placeText(m)}` : "";
    const n = notice && Date.now() < notice.until ? notice : null;
    bar.querySelector(".tb-notice").textContent = n ? n.text : "";
    if (n && !n.logged && n.table === t.id) {
      n.logged = true;
      addLog(t, n.text, "warn");
      renderLog(t);
    }
    tick();
  }

  /** The clocks: the bar's and each lobby card's, every 250 ms. */
  function tick() {
    const t = state.table;
    const bar = $("tourney-bar");
    if (bar && !bar.hidden && isTourneyTable(t)) {
      const tid = ofTable(t.id);
      const c = tid && mine[tid] ? clockOf(mine[tid]) : null;
      const el = bar.querySelector(".tb-clock");
      el.textContent = c ? (c.ms === null ? c.label : `${c.label} ${clockText(c.ms)}`) : "";
      el.classList.toggle("low", !!(c && c.ms !== null && c.ms < 30000));
      if (notice && Date.now() >= notice.until) {
        notice = null;
        bar.querySelector(".tb-notice").textContent = "";
      }
    }
    for (const card of document.querySelectorAll("#tourney-list .tourney")) {
      const s = mine[card.dataset.tournament];
      const c = s ? clockOf(s) : null;
      const m = s ? s.msg : null;
      card.querySelector(".tr-clock").textContent = !m || !m.level || !c ? "" :
        `Level ${m.level} \u00b7 blinds ${m.blinds.map(chips).join("/")} \u00b7 ` +
        (c.ms === null ? c.label : `${c.label} ${clockText(c.ms)}`);
    }
  }

  // the lobby's Refresh asks for the tournaments too; the lobby's list stays current
  $("refresh-lobby").addEventListener("click", refresh);
  setInterval(tick, 250);
  setInterval(() => { if (!$("lobby").hidden) refresh(); }, 5000);

  return { handle, onEvent, onLeft, refresh, lobbyRow, render, unit, chips, parseChips };
})();
window.Tournaments = Tournaments;
