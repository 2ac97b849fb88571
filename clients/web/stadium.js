"use strict";
// Stadium tables: an electronic player terminal (QLD Sch 19; protocol/README.md "Stadium
// tables"). The layout is drawn from the server's game_config (ETG-10): a roulette grid whose
// numbers, splits, corners, streets, dozens and columns are clicked; sic-bo totals and
// combinations; a wheel of fortune's symbols; a craps line with odds, numbers and
// propositions; baccarat's player, banker and tie. It shows the countdown and, whenever
// betting is closed, the words "no more bets" (s3(2)(c)-(d)); the credit meter (s3(2)(e));
// the previous round's bet, result and win (s3(2)(f)-(h)). Loaded after app.js, which calls
// Stadium.isView / newTable / onEvent / render / onRecall (small hooks).

const Stadium = (() => {
  const GUARD_MS = 300;  // lock the betting UI this long before closes_at (ETG §3)
  // the positions' names as players know them, declared once in labels.json (the terminal
  // reads the same file: clients/labels.py); the server's ids stay on data-position
  let NAMES = { positions: {}, prefixes: {} };
  fetch("labels.json").then((r) => r.json()).then((d) => {
    NAMES = d;
    if (typeof state !== "undefined" && state.table && state.table.stadium) renderTable();
  }).catch(() => {});
  const DIE = ["", "\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];

  /** A position's name in the player's words: "Pass line", "Any seven", "Hard 8", "Total 10"
   * (the rule of labels.json's "_about"). */
  function label(id) {
    const own = NAMES.positions[id];
    if (own) return own;
    for (const [prefix, name] of Object.entries(NAMES.prefixes)) {
      const rest = id.startsWith(prefix + "_") ? id.slice(prefix.length + 1) : "";
      if (/^[0-9_]+$/.test(rest)) return name + " " + rest.replace(/_/g, "-");
    }
    const text = id.replace(/_/g, " ");
    return text[0].toUpperCase() + text.slice(1);
  }

  function isView(view) {
    return !!(view && view.table && view.table.stadium);
  }

  function newTable(snapshot) {
    const v = snapshot.view || {};
    const t = {
      id: snapshot.table, role: snapshot.role, seat: snapshot.seat, seq: snapshot.seq,
      info: v.table || { id: snapshot.table }, stadium: true, banked: false, poker: false,
      config: v.game_config || {}, status: v.status, roundNo: v.round || 0, seats: {},
      wagers: Object.assign({}, v.wagers || {}), credits: v.credit_meter || 0,
      lastRound: v.last_round || null, history: v.history || [], puck: v.puck,
      notices: v.limit_notices || [], log: [], chip: null, lastResult: null,
      closesAt: null,
    };
    if (v.status === "betting_open" && v.closes_in_ms) {
      t.closesAt = Date.now() + v.closes_in_ms;
    }
    return t;
  }

  function limits(t) {
    return (t.config && t.config.limits) || { minimum: 100, maximum: 100000 };
  }

  function chips(t) {
    const { minimum, maximum } = limits(t);
    const all = [minimum, 100, 500, 600, 2500, 10000].filter((c) => c >= minimum && c <= maximum);
    return [...new Set(all)].sort((a, b) => a - b);
  }

  function bettingOpen(t) {
    return t.status === "betting_open" && t.closesAt !== null && t.closesAt - Date.now() > GUARD_MS;
  }

  function onEvent(t, ev) {
    switch (ev.type) {
      case "betting_open":
        t.status = "betting_open";
        t.roundNo = ev.round;
        // server clock offset: count down to closes_at on the server's clock
        t.closesAt = Date.now() + (ev.closes_at - ev.server_time);
        if (ev.round) addLog(t, `Round #${ev.round}: place your bets.`, "hand");
        break;
      case "no_more_bets":
        t.status = "no_more_bets";
        t.closesAt = null;
        addLog(t, "No more bets.", "sys");
        break;
      case "awaiting_result":
        addLog(t, "Waiting for the dealer's result.", "sys");
        break;
      case "no_spin":
        addLog(t, `No spin (${ev.reason}): your wagers stand for the re-spin.`, "sys");
        break;
      case "round_result":
        t.status = "settled";
        t.lastResult = ev;
        if (ev.puck !== undefined) t.puck = ev.puck;
        if (ev.outcome) t.history.unshift({ round: ev.round, outcome: ev.outcome, call: ev.call });
        t.history = t.history.slice(0, 20);
        addLog(t, `Result: ${ev.call}.`, "hand");
        break;
      case "settlement":
        t.credits = ev.credits;
        t.wagers = Object.assign({}, ev.riding || {});
        t.lastRound = ev;
        addLog(t, `You bet ${money(ev.bet_total)}, won ${money(ev.won_total)}` +
          (Object.keys(ev.riding || {}).length ? "; wagers left on the layout play on until collected." : "."), "hand");
        break;
      case "bet_ack":
        t.wagers = Object.assign({}, ev.wagers || {});
        t.credits = ev.credits;
        break;
      case "credit_meter":
        t.credits = ev.credits;
        break;
      case "cashed_out":
        t.credits = 0;
        addLog(t, `Cashed out ${money(ev.amount)} to your account.`, "sys");
        break;
      case "round_voided":
        addLog(t, `Round #${ev.round} void: ${ev.reason}.`, "sys");
        break;
      case "result_corrected":
        addLog(t, `Round #${ev.round} corrected to ${ev.call} by the ${ev.role}.`, "sys");
        break;
      case "round_adjusted":
        t.credits = ev.credits;
        addLog(t, `Round #${ev.round} re-settled: ${ev.amount >= 0 ? "+" : "-"}${money(Math.abs(ev.amount))}.`, "sys");
        break;
      case "limits_notice":
        t.notices.push(ev);
        addLog(t, `Limits change from round #${ev.from_round}: ${money(ev.minimum)} to ${money(ev.maximum)}.`, "sys");
        break;
      case "limits_changed":
        t.config.limits = { minimum: ev.minimum, maximum: ev.maximum };
        t.notices = [];
        addLog(t, `Limits now ${money(ev.minimum)} to ${money(ev.maximum)}.`, "sys");
        break;
      case "table_closing":
        addLog(t, "The table is closing.", "sys");
        break;
      default:
        break;
    }
  }

  function onRecall(t, msg) {
    const r = msg.last_round;
    if (!r) { toast("No previous round at this table yet."); return; }
    t.lastRound = r;
    addLog(t, `Last round #${r.round}: ${r.call}; bet ${money(r.bet_total)}, won ${money(r.won_total)}.`, "hand");
  }

  // ---- sending ------------------------------------------------------------------------------
  function place(t, position, amount) {
    if (!bettingOpen(t)) { toast("No more bets."); return; }
    send({ type: "place", table: t.id, position, amount });
  }

  function addChip(t, position) {
    const chip = t.chip || chips(t)[0] || limits(t).minimum;
    place(t, position, (t.wagers[position] || 0) + chip);
  }

  // ---- drawing ------------------------------------------------------------------------------
  function container() {
    let el = document.getElementById("stadium");
    if (!el) {
      el = document.createElement("div");
      el.id = "stadium";
      el.className = "stadium";
      const wrap = document.querySelector(".felt-wrap");
      wrap.insertBefore(el, wrap.firstChild);
    }
    return el;
  }

  function hide() {
    const el = document.getElementById("stadium");
    if (el) el.hidden = true;
    document.body.classList.remove("stadium-on");
    const felt = document.getElementById("felt");
    if (felt) felt.hidden = false;
  }

  function button(text, position, t, cls = "") {
    const b = document.createElement("button");
    b.className = "st-pos " + cls;
    b.dataset.position = position;
    const mine = t.wagers[position];
    b.innerHTML = `<span class="st-label"></span>` + (mine ? `<span class="st-chip">${money(mine)}</span>` : "");
    b.querySelector(".st-label").textContent = text;
    b.disabled = !bettingOpen(t) || t.role !== "player";
    b.onclick = () => addChip(t, position);
    return b;
  }

  function pays(p) {
    if (!p) return "";
    const [w, per] = p;
    return per === 1 ? ` \u00b7 ${w} to 1` : ` \u00b7 ${w} for ${per}`;
  }

  function roulette(t, cfg) {
    const red = new Set(cfg.red || []);
    const box = document.createElement("div");
    box.className = "st-roulette";
    const zeros = document.createElement("div");
    zeros.className = "st-zeros";
    for (const z of cfg.zeros || ["0"]) zeros.appendChild(button(z, `straight_${z}`, t, "green"));
    box.appendChild(zeros);
    const grid = document.createElement("div");
    grid.className = "st-grid";
    // column by column, top to bottom (3 2 1, 6 5 4, ...): the desktop grid flows in columns
    // (the layout across the screen), a phone's in rows right to left (1 2 3 across, 0 on top:
    // the layout down the screen, as a roulette table is seen from its end), stadium.css
    for (let col = 0; col < 12; col++) {
      for (let row = 0; row < 3; row++) {
        const n = 3 * col + (3 - row);
        const cell = button(String(n), `straight_${n}`, t, red.has(n) ? "red" : "black");
        cell.classList.add("st-num");
        // splits on the right and top edges, a corner at the top-right
        if (n <= 33) cell.appendChild(edge(t, `split_${n}_${n + 3}`, "st-edge-r"));
        if (n % 3 !== 0) cell.appendChild(edge(t, `split_${n}_${n + 1}`, "st-edge-t"));
        if (n % 3 !== 0 && n <= 32) cell.appendChild(edge(t, `corner_${n}_${n + 1}_${n + 3}_${n + 4}`, "st-edge-c"));
        grid.appendChild(cell);
      }
    }
    box.appendChild(grid);
    const cols = document.createElement("div");
    cols.className = "st-cols";
    for (const k of [3, 2, 1]) cols.appendChild(button("2:1", `column_${k}`, t, "outside"));
    box.appendChild(cols);
    const streets = document.createElement("div");
    streets.className = "st-row st-streets";
    for (let r = 1; r <= 12; r++) {
      streets.appendChild(button(`${3 * r - 2}-${3 * r}`, `street_${3 * r - 2}_${3 * r - 1}_${3 * r}`, t, "outside small"));
    }
    box.appendChild(streets);
    const outside = document.createElement("div");
    outside.className = "st-row";
    for (const k of [1, 2, 3]) outside.appendChild(button(`${12 * k - 11}-${12 * k}`, `dozen_${k}`, t, "outside"));
    for (const w of ["low", "even", "red", "black", "odd", "high"]) {
      outside.appendChild(button(label(w), w, t, "outside " + (w === "red" || w === "black" ? w : "")));
    }
    box.appendChild(outside);
    return box;
  }

  function edge(t, position, cls) {
    const e = document.createElement("span");
    e.className = "st-edge " + cls + (t.wagers[position] ? " on" : "");
    e.dataset.position = position;
    e.title = label(position);
    e.onclick = (ev) => { ev.stopPropagation(); addChip(t, position); };
    return e;
  }

  function list(t, items, cls = "") {
    const row = document.createElement("div");
    row.className = "st-row " + cls;
    for (const it of items) {
      const b = button(label(it.id) + pays(it.pays), it.id, t);
      if (it.off) b.disabled = true;
      if (it.off) b.title = it.off;
      row.appendChild(b);
    }
    return row;
  }

  function craps(t, cfg) {
    const box = document.createElement("div");
    box.className = "st-craps";
    const puck = document.createElement("div");
    puck.className = "st-puck " + (t.puck ? "on" : "off");
    puck.textContent = t.puck ? `Point: ${t.puck} (ON)` : "Puck OFF: come-out roll";
    box.appendChild(puck);
    // the line as the table offers it: pass and don't pass on the come-out roll only, come
    // and the odds once a point is on (CR s4, s5); the server refuses the others anyway
    const offNow = (id) => {
      if (t.wagers[id]) return null;  // a standing wager may still be withdrawn or added to
      if (t.puck && (id === "win" || id === "dont_win")) return "only on a come-out roll";
      const come = id === "come" || id === "dont_come";
      if (!t.puck && come && cfg.come_when_puck_off) return null;  // A1, the table's option
      if (!t.puck && id !== "win" && id !== "dont_win") return "once a point is on";
      return null;
    };
    box.appendChild(list(t, (cfg.line || []).map((x) => Object.assign({}, x, { pays: null, off: offNow(x.id) })), "st-line"));
    const nums = document.createElement("div");
    nums.className = "st-row st-numbers";
    for (const n of cfg.points || []) {
      const col = document.createElement("div");
      col.className = "st-point";
      for (const k of ["place", "buy", "lay"]) {
        const it = (cfg.numbers || []).find((x) => x.id === `${k}_${n}`);
        if (it) col.appendChild(button(`${label(k)} ${n}${pays(it.pays)}`, it.id, t, "small"));
      }
      nums.appendChild(col);
    }
    box.appendChild(nums);
    box.appendChild(list(t, cfg.props || [], "st-props"));
    return box;
  }

  // ---- the result as players see it: the ball's number, the dice, the wheel's segment, the
  // two baccarat hands; and a strip of the last results (s3(2)(f)-(g)) ---------------------
  function ball(t, h) {
    const o = (h && h.outcome) || {};
    const b = document.createElement("span");
    b.className = "st-ball";
    const red = new Set(((t.config && t.config.layout) || {}).red || []);
    if (o.number !== undefined) {
      b.textContent = String(o.number);
      b.classList.add(o.number === 0 || o.number === "0" || o.number === "00" ? "green"
        : red.has(Number(o.number)) ? "red" : "black");
    } else if (o.dice) {
      b.textContent = String(o.dice.reduce((a, x) => a + x, 0));
      b.title = o.dice.join(" ");
    } else if (o.segment !== undefined) {
      b.textContent = String(o.segment);
    } else if (o.winner) {
      b.textContent = o.winner[0].toUpperCase();
      b.classList.add("bac-" + o.winner);
      b.title = h.call;
    } else b.textContent = h.call || "?";
    return b;
  }

  function dice(values) {
    const box = document.createElement("span");
    box.className = "st-dice";
    for (const v of values) {
      const d = document.createElement("span");
      d.className = "st-die";
      d.dataset.face = v;
      d.textContent = DIE[v] || String(v);
      d.title = String(v);
      box.appendChild(d);
    }
    return box;
  }

  function resultBox(t) {
    const box = document.createElement("div");
    box.className = "st-result";
    const last = t.history[0];
    const o = (last && last.outcome) || {};
    const main = document.createElement("div");
    main.className = "st-outcome";
    if (!last) main.textContent = "No result yet";
    else if (o.dice) {
      main.appendChild(dice(o.dice));
      const sum = document.createElement("b");
      sum.textContent = ` ${o.dice.reduce((a, x) => a + x, 0)}`;
      main.appendChild(sum);
    } else if (o.hands) {
      for (const [name, cards] of Object.entries(o.hands)) {
        const hand = document.createElement("span");
        hand.className = "bac-hand";
        hand.dataset.hand = name;
        const lab = document.createElement("span");
        lab.className = "st-hand-label";
        lab.textContent = label(name);
        hand.appendChild(lab);
        const row = document.createElement("div");  // the hand's cards side by side
        row.className = "hole";
        for (const c of cards) row.appendChild(cardEl(c, { small: true }));
        hand.appendChild(row);
        main.appendChild(hand);
      }
    } else {
      const b = ball(t, last);
      b.classList.add("big");
      if (o.segment !== undefined) b.classList.add("segment");
      main.appendChild(b);
    }
    const call = document.createElement("span");
    call.className = "st-call";
    call.textContent = last ? `Round #${last.round}: ${last.call}` : "";
    main.appendChild(call);
    box.appendChild(main);
    const strip = document.createElement("div");
    strip.className = "st-history";
    strip.setAttribute("aria-label", "last results");
    for (const h of t.history.slice(0, 12)) strip.appendChild(ball(t, h));
    box.appendChild(strip);
    return box;
  }

  function layout(t) {
    const cfg = (t.config && t.config.layout) || {};
    if (cfg.kind === "roulette") return roulette(t, cfg);
    if (cfg.kind === "craps") return craps(t, cfg);
    const box = document.createElement("div");
    box.className = "st-" + (cfg.kind || "layout");
    box.appendChild(list(t, cfg.positions || []));
    return box;
  }

  /** The terminal's buttons: chips, buy credits, collect, cash out, recall (built once per
   *  table, so that an amount being typed survives the re-renders). */
  function bar(t) {
    if (!t.barEl) {
      const el = document.createElement("div");
      el.className = "st-bar";
      el.innerHTML = `<span class="st-chips"></span>
        <input id="st-credit-amount" type="number" step="0.01" inputmode="decimal" value="100">
        <button id="st-credit-btn" class="primary">Buy credits</button>
        <button id="st-collect-btn">Collect</button>
        <button id="st-cashout-btn">Cash out</button>
        <button id="st-recall-btn">Last round</button>`;
      el.querySelector("#st-credit-btn").onclick = () => {
        const cents = toCents(el.querySelector("#st-credit-amount").value);
        if (cents > 0) send({ type: "credit_in", table: t.id, amount: cents });
      };
      el.querySelector("#st-collect-btn").onclick = () => send({ type: "collect", table: t.id });
      el.querySelector("#st-cashout-btn").onclick = () => send({ type: "cash_out", table: t.id });
      el.querySelector("#st-recall-btn").onclick = () => send({ type: "recall", table: t.id });
      t.barEl = el;
    }
    const chipBox = t.barEl.querySelector(".st-chips");
    chipBox.textContent = "";
    const all = chips(t);
    if (!t.chip || !all.includes(t.chip)) t.chip = all[0];
    for (const c of all) {
      const b = document.createElement("button");
      b.className = "st-chip-btn" + (c === t.chip ? " on" : "");
      b.textContent = money(c);
      b.onclick = () => { t.chip = c; render(t); };
      chipBox.appendChild(b);
    }
    return t.barEl;
  }

  function render(t) {
    if (!t || !t.stadium) { hide(); return false; }
    for (const id of ["board", "pot", "seats"]) $(id).textContent = "";
    $("felt").hidden = true;
    $("buyin").hidden = true;
    $("banked").hidden = true;
    for (const v of ["fold", "check", "call", "bet", "raise", "allin"]) $("act-" + v).hidden = true;
    $("amount-box").hidden = true;
    $("sit-out-btn").hidden = true;
    $("sit-in-btn").hidden = true;
    $("result").hidden = true;
    $("turn-info").textContent = "";
    $("leave-btn").textContent = t.role === "player" ? "Cash out and leave" : "Stop watching";
    const el = container();
    el.hidden = false;
    document.body.classList.add("stadium-on");
    // everything but the terminal's bar is drawn afresh; the bar stays in the page, so an
    // amount being typed keeps its focus and its text through a re-render
    for (const child of [...el.children]) if (child !== t.barEl) child.remove();
    const keepBar = t.role === "player" ? bar(t) : null;
    if (!keepBar && t.barEl) t.barEl.remove();
    const head = document.createElement("div");
    head.className = "st-head";
    head.innerHTML = `<div class="st-title"></div><div id="st-clock" class="st-clock"></div>
      <div class="st-meter">Credits <b id="st-credits"></b></div>
      <div class="st-limits"></div>`;
    head.querySelector(".st-title").textContent = `${t.info.name || t.id} \u00b7 round #${t.roundNo}` +
      (t.seat ? ` \u00b7 terminal ${t.seat}` : "");
    head.querySelector("#st-credits").textContent = money(t.credits);
    const lim = limits(t);
    head.querySelector(".st-limits").textContent = `Limits ${money(lim.minimum)} \u2013 ${money(lim.maximum)}` +
      (t.notices.length ? ` (change notified from round #${t.notices[0].from_round})` : "");
    const before = keepBar && keepBar.parentNode === el ? keepBar : null;
    el.insertBefore(head, before);
    el.insertBefore(resultBox(t), before);
    if (keepBar && !before) el.appendChild(keepBar);
    const lay = document.createElement("div");
    lay.className = "st-layout-wrap";
    lay.appendChild(layout(t));
    el.appendChild(lay);
    const mine = document.createElement("div");
    mine.className = "st-mine";
    const entries = Object.entries(t.wagers);
    mine.innerHTML = `<b>Your wagers</b> `;
    if (!entries.length) mine.appendChild(document.createTextNode("none"));
    for (const [p, a] of entries) {
      const w = document.createElement("button");
      w.className = "st-wager";
      w.dataset.position = p;
      w.textContent = `${label(p)} ${money(a)} \u00d7`;
      w.title = "withdraw";
      w.onclick = () => place(t, p, 0);
      mine.appendChild(w);
    }
    el.appendChild(mine);
    const recall = document.createElement("div");
    recall.className = "st-recall";
    const r = t.lastRound;
    recall.innerHTML = `<div class="st-last"></div><div class="st-history"></div>`;
    recall.querySelector(".st-last").textContent = r
      ? `Previous round #${r.round}: result ${r.call}; credits bet ${money(r.bet_total)}; credits won ${money(r.won_total)}`
      : "Previous round: none yet";
    recall.querySelector(".st-history").hidden = true;  // the strip is drawn at the top
    el.appendChild(recall);
    renderLog(t);
    clock(t);
    return true;
  }

  function clock(t) {
    const el = document.getElementById("st-clock");
    if (!el || !t || !t.stadium) return;
    if (t.status === "betting_open" && t.closesAt !== null) {
      const left = t.closesAt - Date.now();
      if (left > GUARD_MS) {
        el.textContent = `Place your bets: ${Math.ceil(left / 1000)} s`;
        el.className = "st-clock open";
        return;
      }
    }
    el.textContent = "no more bets";  // s3(2)(d): every state but an open window
    el.className = "st-clock closed";
  }

  let wasOpen = null;
  setInterval(() => {
    const t = state.table;
    if (!t || !t.stadium) return;
    const open = bettingOpen(t);
    if (open !== wasOpen) { wasOpen = open; render(t); } else clock(t);
  }, 200);

  return { isView, newTable, onEvent, onRecall, render, hide, label };
})();
window.Stadium = Stadium;
