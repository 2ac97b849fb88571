/*
 * croupier staff console (issue 28, point 1): served by the server at /staff/.
 *
 * Theory of operation. The page signs in with a staff session token (pasted, `?token=` in
 * the address, or this tab's sessionStorage), opens the same WebSocket as the player page
 * (/ws, one MessagePack map a binary frame, the vendored @msgpack/msgpack build) and sends
 * `hello`. It then asks `staff {query: "controls"}`: the server answers with what this
 * session's role may use (its `operator` controls, its `staff` queries, whether it enters
 * stadium results); a token that is not staff's gets `not_authorized` and the page shows no
 * console. Every control is shown only when the server said the role may use it (elements
 * with `data-control` / `data-needs`), so the role table lives in one place, the server
 * (server/room/operator.py, server/net/staff.py). The floor is watched (`staff floor watch`): the
 * server pushes it on every change, so the views stay live without polling. A table's
 * detail joins the table as a spectator and shows its events as they come. Every control
 * is an `operator` message with the reason typed by the staff member; the server writes it
 * to the audit log under their own name and replies with what was done (and its figures,
 * `effect`, e.g. what a void returned), or an `error`. Amounts are integer cents on the wire,
 * dollars on the screen. Speaks only the documented protocol (protocol/README.md, "The
 * staff console").
 */
"use strict";

const PROTOCOL = 1;
const $ = (id) => document.getElementById(id);
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000];
const TOURNAMENTS_EVERY_MS = 2000;
/** The events that begin a round (poker; banked and stadium windows) and that end one. */
const ROUND_STARTS = new Set(["round_starting", "betting_open"]);
const ROUND_ENDS = new Set(["round_ended", "round_result", "round_voided", "settlement"]);
const TOURNAMENT_CONTROLS = [
  ["start_tournament", "Start"],
  ["pause_tournament", "Pause"],
  ["break_tournament", "Break"],
  ["resume_tournament", "Resume"],
  ["move_player", "Move player"],
  ["disqualify", "Disqualify"],
  ["award_places", "Award places"],
  ["cancel_tournament", "Cancel"],
];
/** How a stadium game's outcome is typed (the scenario shapes of `result`). */
const OUTCOME_KEY = {
  "roulette": "number",
  "sic-bo": "dice",
  "craps": "dice",
  "wheel-of-fortune": "segment",
  "baccarat": "cards",
};

const S = {
  ws: null,
  token: null,
  caps: null,       // {role, controls, queries, enter_result} from the server
  welcome: null,
  floor: [],
  view: "floor",
  table: null,      // the table in detail (its id), joined as a spectator
  round: null,      // that table's round as its last snapshot showed it
  roundLines: [],   // the events of its current (or last) round, as they came
  roundLive: false,
  tournaments: [],
  account: null,
  attempts: 0,
  review: null,     // a correction awaiting confirmation
};

// ---- money and time --------------------------------------------------------------------------
function dollars(cents) {
  if (cents === null || cents === undefined) return "\u2013";
  const neg = cents < 0;
  const c = Math.abs(cents);
  return (neg ? "-$" : "$") + Math.floor(c / 100).toLocaleString("en-US") + "." +
    String(c % 100).padStart(2, "0");
}

/** Dollars typed by a person -> cents, or null ("6", "6.5", "$1,234.05"). */
function toCents(text) {
  const t = String(text).trim().replace(/[$,\s]/g, "");
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(t);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] || "0").padEnd(2, "0"));
}

function when(seconds) {
  if (!seconds) return "\u2013";
  return new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19);
}

function text(s) {
  return s === null || s === undefined ? "" : String(s);
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("data-")) node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(text(c)));
  return node;
}

function brief(obj) {
  if (obj === null || obj === undefined) return "";
  if (typeof obj !== "object") return String(obj);
  return Object.entries(obj)
    .map(([k, v]) => `${k} ${typeof v === "object" && v !== null ? JSON.stringify(v) : v}`)
    .join(", ");
}

// ---- the connection --------------------------------------------------------------------------
function wsUrl() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws`;
}

function connect() {
  const ws = new WebSocket(wsUrl());
  ws.binaryType = "arraybuffer";
  S.ws = ws;
  setStatus("connecting", "connecting\u2026");
  ws.onopen = () => send({ type: "hello", protocol: PROTOCOL, token: S.token });
  ws.onmessage = (ev) => {
    if (S.ws !== ws) return;
    const msg = decodeFrame(ev.data);  // frames.js
    if (msg) handle(msg);
  };
  ws.onclose = () => {
    if (S.ws !== ws) return;
    S.ws = null;
    setStatus("off", "offline");
    if (!S.token || !S.caps) return;  // refused at sign-in: no retry
    const delay = BACKOFF_MS[Math.min(S.attempts, BACKOFF_MS.length - 1)];
    S.attempts += 1;
    setTimeout(() => { if (S.token && !S.ws) connect(); }, delay);
  };
}

function send(msg) {
  if (!S.ws || S.ws.readyState !== WebSocket.OPEN) {
    notice("not connected: try again in a moment", true);
    return false;
  }
  S.ws.send(MessagePack.encode(msg));
  return true;
}

function setStatus(cls, label) {
  const s = $("conn-status");
  s.className = "status " + cls;
  s.textContent = label;
}

function notice(message, error = false) {
  const n = $("notice");
  n.textContent = message;
  n.classList.toggle("error", error);
  n.hidden = false;
}

// ---- messages --------------------------------------------------------------------------------
function handle(msg) {
  switch (msg.type) {
    case "welcome":
      S.welcome = msg;
      S.attempts = 0;
      setStatus("on", "online");
      send({ type: "staff", query: "controls" });
      return;
    case "staff": return onStaff(msg);
    case "operator": return onDone(msg);
    case "cashier": return onCashier(msg);
    case "error": return onError(msg);
    case "snapshot":
      if (msg.table === S.table) { S.round = msg.view.round; renderRound(); }
      return;
    case "events":
      if (msg.table === S.table) for (const ev of msg.events) onEvent(ev);
      return;
    case "tournaments":
      S.tournaments = msg.tournaments || [];
      renderTournaments();
      return;
    default:
      return;  // balance, pong, left, tournament...: not shown here
  }
}

function onStaff(msg) {
  const data = msg.data;
  switch (msg.query) {
    case "controls":
      S.caps = data;
      signedIn();
      return;
    case "floor":
      S.floor = data;
      renderFloor();
      renderJackpots();
      if (S.table) renderTableFacts();
      return;
    case "audit": return renderAudit(data);
    case "account": return renderAccount(data);
    case "ledger_check": return renderLedger(data);
    case "resettlement":
      if (S.review && S.table === data.table && S.review.round === data.round) showReview(data);
      return;
    default: return;
  }
}

function onError(msg) {
  if (!S.caps) {  // refused at sign-in: a bad token, or a token that is not staff's
    if (msg.ref === "staff" && msg.code === "not_authorized") return denied(msg.message);
    S.token = null;
    sessionStorage.removeItem("croupier-staff-token");
    show("login");
    $("login-error").textContent = msg.message || msg.code;
    $("login-error").hidden = false;
    return;
  }
  if (msg.ref === "staff" && S.review && msg.code === "not_supported") return showReview(null);
  if (msg.ref === "staff" && S.review) S.review = null;  // the correction cannot be made
  const where = msg.table ? ` (${msg.table})` : "";
  const line = `refused${where}: ${msg.message} [${msg.code}]`;
  notice(line, true);
  if (S.table && ["operator", "result", "staff"].includes(msg.ref) && !$("view-table").hidden) {
    outcome(line, true);
  }
}

/** A control was applied: what was done, and its figures (a void's refund...). */
function onDone(msg) {
  const target = msg.table || msg.account || "";
  let line = `${humanize(msg.action)}${target ? " " + target : ""}: ${msg.detail}`;
  const returned = msg.effect && msg.effect.returned;
  if (returned && Object.keys(returned).length) {
    const total = Object.values(returned).reduce((a, b) => a + b, 0);
    const parts = Object.entries(returned).map(([k, v]) => `${humanize(k)} ${dollars(v)}`);
    line += ` \u2014 returned ${dollars(total)} (${parts.join(", ")})`;
  } else if (msg.effect && msg.effect.refunded !== undefined) {
    line += ` \u2014 refunded ${dollars(msg.effect.refunded)} to ${msg.effect.refunds} entries`;
  }
  notice(line);
  if (S.table && msg.table === S.table) outcome(line);
  if (msg.account && S.account === msg.account) askAccount(msg.account);
  if (TOURNAMENT_CONTROLS.some(([a]) => a === msg.action)) send({ type: "tournaments" });
  if (S.view === "audit") askAudit();  // the new entry, at once
}

function humanize(s) {
  return String(s).replace(/_/g, " ");
}

// ---- signing in ------------------------------------------------------------------------------
function show(section) {
  for (const id of ["login", "denied"]) $(id).hidden = id !== section;
  if (section) for (const v of document.querySelectorAll(".view")) v.hidden = true;
  $("nav").hidden = section !== null;
}

function signIn(token) {
  S.token = token.trim();
  if (!S.token) return;
  sessionStorage.setItem("croupier-staff-token", S.token);
  $("login-error").hidden = true;
  if (S.ws) { const ws = S.ws; S.ws = null; ws.close(); }
  connect();
}

function denied(message) {
  const ws = S.ws;
  S.ws = null;
  S.token = null;
  sessionStorage.removeItem("croupier-staff-token");
  if (ws) ws.close();
  setStatus("off", "offline");
  $("denied-text").textContent = `The staff console is for staff sessions only (${message}).`;
  show("denied");
}

function may(control) {
  if (!S.caps) return false;
  if (control === "cashier") return !!S.caps.cashier;  // the cashier call, not an operator control
  return S.caps.controls.includes(control);
}

function reads(query) {
  if (!S.caps) return false;
  if (query === "tournaments") return TOURNAMENT_CONTROLS.some(([a]) => may(a));
  return S.caps.queries.includes(query);
}

function signedIn() {
  const role = S.caps.role;
  $("who").textContent = `${S.welcome.name} (${humanize(role)})`;
  $("sign-out").hidden = false;
  show(null);
  for (const node of document.querySelectorAll("[data-control]")) {
    node.hidden = !may(node.getAttribute("data-control"));
  }
  for (const node of document.querySelectorAll("[data-needs]")) {
    node.hidden = !reads(node.getAttribute("data-needs"));
  }
  const known = [...S.caps.controls, "deposit", "withdraw", "balance", "result", "close_betting"];
  $("f-actions").replaceChildren(...known.map((a) => el("option", { value: a })));
  send({ type: "staff", query: "floor", watch: true });
  if (reads("tournaments")) send({ type: "tournaments" });
  if (S.table) {
    send({ type: "join", table: S.table, role: "spectator" });
    openView("table");
  } else {
    openView(S.view === "table" ? "floor" : S.view);
  }
}

function openView(view) {
  S.view = view;
  for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== `view-${view}`;
  for (const b of document.querySelectorAll("#nav button")) {
    b.classList.toggle("active", b.getAttribute("data-view") === view);
  }
  if (view !== "table" && S.table) {
    send({ type: "leave", table: S.table });
    S.table = null;
  }
}

// ---- the floor -------------------------------------------------------------------------------
function lastText(last) {
  if (!last) return "\u2013";
  const parts = [last.state];
  if (last.outcome) parts.push(brief(last.outcome));
  if (last.dealer) parts.push(`dealer ${[].concat(last.dealer).join(" ")}`);
  if (last.bet !== undefined) parts.push(`bet ${dollars(last.bet)}, paid ${dollars(last.paid)}`);
  if (last.net) {
    const moved = Object.entries(last.net).filter(([, v]) => v);
    if (moved.length) parts.push(moved.map(([s, v]) => `seat ${s} ${dollars(v)}`).join(", "));
  }
  return parts.join("; ");
}

function limitsText(limits) {
  return Object.entries(limits || {}).map(([k, v]) => `${humanize(k)} ${dollars(v)}`).join(", ");
}

function renderFloor() {
  const body = $("floor-rows");
  body.replaceChildren();
  for (const t of S.floor) {
    let open;
    if (t.url) {  // a deployment: another server runs it; its own console has the rest
      const page = t.url.replace(/^ws(s?):/, "http$1:").replace(/\/ws$/, "/staff/");
      open = el("a", { class: "elsewhere", href: page, target: "_blank", rel: "noopener" },
        "Its server's console");
    } else {
      open = el("button", { class: "open-table" }, "Open");
      open.onclick = () => openTable(t.id);
    }
    const jp = t.jackpot ? `${dollars(t.jackpot.meter)}${t.jackpot.awaiting_approval ? " (awaits approval)" : ""}` : "\u2013";
    body.append(
      el("tr", { "data-table": t.id },
        el("td", {}, el("strong", {}, t.name), el("div", { class: "muted small" }, t.id)),
        el("td", {}, `${t.game} (${t.kind})`),
        el("td", { class: `phase phase-${t.phase}` }, t.phase),
        el("td", {}, t.seated.length ? t.seated.join(", ") : "\u2013"),
        el("td", { class: "small" }, t.round || "\u2013"),
        el("td", { class: "small" }, lastText(t.last)),
        el("td", { class: "small" }, limitsText(t.limits)),
        el("td", {}, jp),
        el("td", {}, open),
      ),
    );
  }
}

// ---- one table -------------------------------------------------------------------------------
function openTable(id) {
  if (S.table && S.table !== id) send({ type: "leave", table: S.table });
  openView("table");
  S.table = id;
  S.round = null;
  S.roundLines = [];
  S.roundLive = false;
  S.review = null;
  $("t-log").replaceChildren();
  $("t-outcome").hidden = true;
  $("r-confirm").hidden = true;
  send({ type: "join", table: id, role: "spectator" });
  renderTableFacts();
  renderLimitsForm();
  renderRound();
}

function floorRow(id) {
  return S.floor.find((t) => t.id === id) || null;
}

function renderTableFacts() {
  const t = floorRow(S.table);
  if (!t) return;
  $("t-title").textContent = `${t.name} \u2014 ${t.game}`;
  const facts = [
    ["Phase", t.phase],
    ["Seated", t.seated.join(", ") || "\u2013"],
    ["Round in play", t.round || "\u2013"],
    ["Last result", lastText(t.last)],
    ["Limits", limitsText(t.limits)],
  ];
  if (t.jackpot) {
    facts.push(["Jackpot meter", `${dollars(t.jackpot.meter)} (${t.jackpot.open ? "open" : "closed"}${t.jackpot.awaiting_approval ? ", awaits approval" : ""})`]);
  }
  if (t.kind === "stadium") facts.push(["Results by", t.result_source]);
  $("t-facts").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", { "data-fact": k }, v)]));
  $("t-facts").setAttribute("data-phase", t.phase);
  $("c-approve-t").hidden = !(may("approve_jackpot") && t.jackpot);
  $("c-close").hidden = !may("close_table") || t.phase === "closed";
  $("c-open").hidden = !may("open_table") || t.phase !== "closed";
  const stadium = t.kind === "stadium";
  $("result-box").hidden = !stadium || !(S.caps.enter_result || may("correct_result"));
  for (const node of document.querySelectorAll("[data-enter]")) node.hidden = !S.caps.enter_result;
  if (stadium) renderKept(t);
}

function renderLimitsForm() {
  const t = floorRow(S.table);
  const box = $("limits-fields");
  box.replaceChildren();
  if (!t) return;
  for (const [k, v] of Object.entries(t.limits || {})) {
    const input = el("input", { value: (v / 100).toFixed(2), inputMode: "decimal" });
    input.setAttribute("data-limit", k);
    box.append(el("label", {}, humanize(k), input));
  }
}

function renderKept(t) {
  const select = $("r-round");
  const chosen = select.value;
  select.replaceChildren(
    ...(t.kept || []).map((r) => el("option", { value: String(r.round) },
      `round ${r.round}: ${brief(r.outcome)}${r.corrections ? ` (corrected ${r.corrections}\u00d7)` : ""}`)),
  );
  if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
  const key = OUTCOME_KEY[t.game];
  $("r-hint").textContent = key
    ? `${t.game}: type the ${key === "dice" ? "dice, e.g. 2,4" : key === "number" ? "number, e.g. 17" : key === "segment" ? "segment" : "cards, e.g. As,Kd"}; or "invalid: reason"`
    : 'type the outcome as JSON, e.g. {"number": 17}';
}

/** The round as staff follow it: the snapshot's view of the round when the table was opened,
 *  then every event of the round as it comes (each card or outcome a spectator may see). */
function renderRound() {
  const t = floorRow(S.table);
  const box = $("t-round");
  if (S.roundLines.length) {
    const head = S.roundLive ? "in play" : "the last round (ended)";
    box.textContent = [head, ...S.roundLines].join("\n");
    return;
  }
  const r = S.round;
  if (r && typeof r === "object") box.textContent = JSON.stringify(r, null, 1);
  else if (t && t.round) box.textContent = `round ${t.round} in play`;
  else box.textContent = r ? `round ${r}` : "no round in play";
}

function describe(ev) {
  const rest = Object.entries(ev).filter(([k]) => !["type", "visible_to", "open"].includes(k));
  const body = rest.map(([k, v]) => {
    if (typeof v === "number" && /amount|stake|wager|paid|returned|balance|total/.test(k)) return `${k} ${dollars(v)}`;
    return `${k} ${typeof v === "object" && v !== null ? JSON.stringify(v) : v}`;
  }).join(", ");
  return `${humanize(ev.type)}${body ? ": " + body : ""}`.slice(0, 300);
}

function onEvent(ev) {
  const log = $("t-log");
  log.append(el("li", { "data-event": ev.type }, describe(ev)));
  while (log.children.length > 200) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
  if (ROUND_STARTS.has(ev.type)) {
    S.roundLines = [];
    S.roundLive = true;
  }
  if (S.roundLive || ROUND_ENDS.has(ev.type)) S.roundLines.push(describe(ev));
  if (ROUND_ENDS.has(ev.type)) S.roundLive = false;
  renderRound();
}

function outcome(line, error = false) {
  const o = $("t-outcome");
  o.textContent = line;
  o.classList.toggle("error", error);
  o.hidden = false;
}

function reasonOf(inputId) {
  const reason = $(inputId).value.trim();
  if (!reason) {
    notice("a reason is required: it goes into the audit log", true);
    $(inputId).focus();
    return null;
  }
  return reason;
}

function tableControl(action, extra = {}) {
  const reason = reasonOf("t-reason");
  if (reason === null) return;
  send(Object.assign({ type: "operator", action, table: S.table, reason }, extra));
}

function changeLimits() {
  const limits = {};
  for (const input of document.querySelectorAll("#limits-fields input")) {
    const cents = toCents(input.value);
    if (cents === null) {
      notice(`${humanize(input.getAttribute("data-limit"))}: not an amount in dollars`, true);
      return;
    }
    const t = floorRow(S.table);
    const key = input.getAttribute("data-limit");
    if (!t || t.limits[key] !== cents) limits[key] = cents;
  }
  if (!Object.keys(limits).length) {
    notice("no limit was changed", true);
    return;
  }
  tableControl("set_limits", { limits });
}

/** The outcome typed for a stadium game, as the `result` shape, or null. */
function parseOutcome(game, raw) {
  const s = raw.trim();
  if (!s) return null;
  if (s.startsWith("{")) {
    try { return JSON.parse(s); } catch (e) { return null; }
  }
  const invalid = /^invalid:?\s*(.*)$/i.exec(s);
  if (invalid) return { invalid: invalid[1] || "no spin" };
  const parts = s.split(/[\s,]+/).filter(Boolean);
  const key = OUTCOME_KEY[game];
  if (key === "number") return /^\d+$/.test(s) ? { number: Number(s) } : null;
  if (key === "dice") return parts.every((p) => /^[1-6]$/.test(p)) ? { dice: parts.map(Number) } : null;
  if (key === "segment") return { segment: s };
  if (key === "cards") return { cards: parts };
  return null;
}

function typedOutcome() {
  const t = floorRow(S.table);
  const o = t ? parseOutcome(t.game, $("r-outcome").value) : null;
  if (!o) notice("type the outcome as the hint shows", true);
  return o;
}

function enterResult() {
  const o = typedOutcome();
  if (o) send({ type: "result", table: S.table, outcome: o });
}

/** A correction is reviewed before it is confirmed: the server computes the re-settlement
 *  (`staff resettlement`, not applied) and the page shows it with the confirm button. */
function reviewCorrection() {
  const t = floorRow(S.table);
  const o = typedOutcome();
  if (!o || !t) return;
  if (!$("r-round").value) { notice("no kept round to correct", true); return; }
  const reason = reasonOf("t-reason");
  if (reason === null) return;
  const round = Number($("r-round").value);
  S.review = { round, outcome: o, reason };
  $("r-confirm").hidden = true;
  send({ type: "staff", query: "resettlement", table: S.table,
    result: Object.assign({ round }, o) });
}

/** The re-settlement to confirm (`data` null: a game without a preview, in words only). */
function showReview(data) {
  const r = S.review;
  const t = floorRow(S.table);
  if (!r || !t) return;
  const kept = (t.kept || []).find((k) => k.round === r.round);
  const box = $("r-confirm-text");
  const lines = [el("p", {},
    `Round ${r.round} was recorded as ${brief(data ? data.old : kept && kept.outcome)}. ` +
    `On confirmation it is re-settled on ${brief(data ? data.new : r.outcome)}` +
    `${data && data.call ? ` (${data.call})` : ""}; each terminal's meter gets the ` +
    `difference, and what a meter cannot cover is recorded as owed (QLD Sch 19 s10).`)];
  if (data) {
    const rows = data.terminals.map((x) => el("tr", { "data-terminal": String(x.terminal) },
      el("td", {}, `terminal ${x.terminal}`), el("td", {}, x.account),
      el("td", {}, dollars(x.was)), el("td", {}, dollars(x.now)),
      el("td", { class: x.difference < 0 ? "error" : "ok" }, dollars(x.difference))));
    lines.push(el("table", { class: "grid small", id: "r-terminals" },
      el("thead", {}, el("tr", {}, el("th", {}, "Terminal"), el("th", {}, "Account"),
        el("th", {}, "Paid net"), el("th", {}, "Corrected net"), el("th", {}, "To its meter"))),
      el("tbody", {}, ...rows)));
    if (!rows.length) lines.push(el("p", { class: "muted" }, "no terminal had a wager on it"));
  } else {
    lines.push(el("p", { class: "muted" }, "the figures show once it is applied"));
  }
  box.replaceChildren(...lines);
  $("r-confirm").hidden = false;
}

function confirmCorrection() {
  const r = S.review;
  if (!r) return;
  send({ type: "operator", action: "correct_result", table: S.table, reason: r.reason,
    result: Object.assign({ round: r.round }, r.outcome) });
  S.review = null;
  $("r-confirm").hidden = true;
}

// ---- jackpots --------------------------------------------------------------------------------
function renderJackpots() {
  const body = $("jackpot-rows");
  body.replaceChildren();
  const linked = S.floor.filter((t) => t.jackpot);
  $("jackpot-none").hidden = linked.length > 0;
  for (const t of linked) {
    const j = t.jackpot;
    const cell = el("td", {});
    if (j.awaiting_approval) {
      cell.append(el("span", { class: "pending" }, "awaits approval "));
      if (may("approve_jackpot")) {
        const b = el("button", { class: "primary approve" }, "Approve");
        b.onclick = () => {
          const reason = reasonOf("j-reason");
          if (reason !== null) send({ type: "operator", action: "approve_jackpot", table: t.id, reason });
        };
        cell.append(b);
      }
    }
    body.append(el("tr", { "data-table": t.id },
      el("td", {}, t.name),
      el("td", {}, j.pool),
      el("td", {}, dollars(j.meter)),
      el("td", { class: "jp-open" }, j.open ? "open" : "closed"),
      el("td", {}, dollars(j.contributed)),
      el("td", {}, dollars(j.paid)),
      el("td", {}, String(j.held)),
      cell,
    ));
  }
}

// ---- accounts --------------------------------------------------------------------------------
function askAccount(account) {
  send({ type: "staff", query: "account", account });
}

function renderAccount(data) {
  const found = $("a-found");
  found.replaceChildren(...data.found.map((a) => {
    const b = el("button", { class: "link" }, `${a.account}${a.name ? ` (${a.name})` : ""} \u2014 ${dollars(a.balance)}`);
    b.onclick = () => askAccount(a.account);
    return el("li", { "data-account": a.account }, b);
  }));
  if (!data.found.length) found.append(el("li", { class: "muted" }, "no account matches"));
  const a = data.account;
  $("a-detail").hidden = !a;
  if (!a) return;
  S.account = a.account;
  $("a-title").textContent = `${a.account}${a.name ? ` (${a.name})` : ""}`;
  const facts = [
    ["Balance", dollars(a.balance)],
    ["Suspended", a.suspended ? "yes" : "no"],
    ["Online", a.online ? "yes" : "no"],
    ["Seated at", a.seated.join(", ") || "\u2013"],
  ];
  $("a-facts").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", { "data-fact": k }, v)]));
  $("a-suspend").hidden = !may("suspend") || a.suspended;
  $("a-lift").hidden = !may("unsuspend") || !a.suspended;
  $("a-till").hidden = !may("cashier");
  $("a-rounds").replaceChildren(...a.rounds.map((r) => el("tr", {},
    el("td", { class: "small" }, when(r.at)), el("td", {}, r.table), el("td", {}, r.game), el("td", {}, r.state))));
  if (!a.rounds.length) $("a-rounds").append(el("tr", {}, el("td", { class: "muted" }, "no rounds")));
  $("a-cashier").replaceChildren(...a.cashier.map((m) => el("tr", {},
    el("td", { class: "small" }, when(m.at)), el("td", {}, m.op), el("td", {}, dollars(m.amount)),
    el("td", {}, m.by), el("td", {}, m.outcome))));
  if (!a.cashier.length) $("a-cashier").append(el("tr", {}, el("td", { class: "muted" }, "no movements")));
}

/** A cashier's deposit or withdrawal: typed in dollars, sent in cents with a request id of
 * its own (the server applies an id once: a repeated click moves nothing twice). */
function cashierCall(op) {
  const cents = toCents($("a-amount").value);
  if (cents === null || cents <= 0 || !S.account) {
    notice("type an amount in dollars, e.g. 25 or 25.50", true);
    $("a-amount").focus();
    return;
  }
  const request = `console-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  send({ type: "cashier", op, account: S.account, amount: cents, request });
}

function onCashier(msg) {
  const did = msg.op === "withdraw" ? "withdrew" : "deposited";
  notice(`${did} ${dollars(msg.amount)} ${msg.op === "withdraw" ? "from" : "to"} ${msg.account}: ` +
    `balance ${dollars(msg.balance)}${msg.repeated ? " (a repeated request: nothing moved)" : ""}`);
  $("a-amount").value = "";
  if (S.account === msg.account) askAccount(msg.account);
}

function accountControl(action) {
  const reason = reasonOf("a-reason");
  if (reason !== null && S.account) send({ type: "operator", action, account: S.account, reason });
}

// ---- the audit log and the books -------------------------------------------------------------
function askAudit() {
  const q = { type: "staff", query: "audit", limit: 200 };
  for (const [id, key] of [["f-who", "who"], ["f-action", "action"], ["f-table", "table"]]) {
    const v = $(id).value.trim();
    if (v) q[key] = v;
  }
  if ($("f-outcome").value) q.outcome = $("f-outcome").value;
  for (const [id, key] of [["f-since", "since"], ["f-until", "until"]]) {
    const v = $(id).value;
    if (v) q[key] = Date.parse(`${v}Z`) / 1000;  // typed in UTC, as the log shows times
  }
  send(q);
}

function renderAudit(data) {
  $("audit-count").textContent = `${data.matched} entries match; the newest ${data.entries.length} shown`;
  const body = $("audit-rows");
  body.replaceChildren(...data.entries.map((e) => {
    const target = ["table", "account", "tournament", "round", "terminal"]
      .filter((k) => e[k] !== null && e[k] !== undefined).map((k) => `${k} ${e[k]}`).join(", ");
    const result = e.outcome === "done" ? `done: ${e.detail}` : `refused (${e.code}): ${e.detail}`;
    return el("tr", { "data-action": e.action, "data-outcome": e.outcome },
      el("td", { class: "small" }, when(e.at)),
      el("td", {}, `${e.name} (${humanize(e.role)})`),
      el("td", {}, humanize(e.action)),
      el("td", { class: "small" }, target),
      el("td", {}, e.reason || ""),
      el("td", { class: e.outcome === "done" ? "ok" : "error" }, result));
  }));
}

function renderLedger(r) {
  const box = $("ledger-result");
  box.replaceChildren(
    el("p", { class: r.balanced ? "ok" : "error", id: "ledger-state" },
      r.balanced ? "The books balance." : "The books do NOT balance."),
    el("p", { class: "small" },
      `issued ${dollars(r.issued)}; ${r.accounts} accounts; ${r.rounds_settled} rounds settled, ` +
      `${r.rounds_voided} voided, ${r.open_rounds} open`),
    ...r.problems.map((p) => el("p", { class: "error small" }, p)),
  );
}

// ---- tournaments -----------------------------------------------------------------------------
function renderTournaments() {
  const body = $("tournament-rows");
  body.replaceChildren(...S.tournaments.map((t) => {
    const controls = el("td", { class: "buttons" });
    for (const [action, label] of TOURNAMENT_CONTROLS) {
      if (!may(action)) continue;
      const b = el("button", { "data-action": action }, label);
      b.onclick = () => directorControl(t.id, action);
      controls.append(b);
    }
    return el("tr", { "data-tournament": t.id },
      el("td", {}, t.name), el("td", {}, t.game), el("td", {}, t.phase),
      el("td", {}, String(t.entries)), el("td", {}, String(t.players_left)),
      el("td", {}, dollars(t.pool)), controls);
  }));
}

function directorControl(tournament, action) {
  const reason = reasonOf("d-reason");
  if (reason === null) return;
  const msg = { type: "operator", action, tournament, reason };
  const account = $("d-account").value.trim();
  if (action === "move_player" || action === "disqualify") {
    if (!account) { notice("name the player (its account)", true); return; }
    msg.account = account;
  }
  if (action === "move_player") {
    const table = Number($("d-table").value), seat = Number($("d-seat").value);
    if (!Number.isInteger(table) || !Number.isInteger(seat) || !$("d-table").value || $("d-seat").value === "") {
      notice("give the table number and the seat to move to", true);
      return;
    }
    msg.limits = { table, seat };
  }
  if (action === "break_tournament") msg.limits = { minutes: Math.max(1, Number($("d-minutes").value) || 1) };
  send(msg);
}

// ---- wiring ----------------------------------------------------------------------------------
function wire() {
  $("login-btn").onclick = () => signIn($("login-token").value);
  $("login-token").onkeydown = (e) => { if (e.key === "Enter") signIn($("login-token").value); };
  $("denied-back").onclick = () => show("login");
  $("sign-out").onclick = () => {
    sessionStorage.removeItem("croupier-staff-token");
    S.token = null;
    S.caps = null;
    const ws = S.ws;
    S.ws = null;
    if (ws) ws.close();
    setStatus("off", "offline");
    $("who").textContent = "";
    $("sign-out").hidden = true;
    show("login");
  };
  for (const b of document.querySelectorAll("#nav button")) {
    b.onclick = () => {
      const view = b.getAttribute("data-view");
      openView(view);
      if (view === "tournaments") send({ type: "tournaments" });
      if (view === "audit") askAudit();
    };
  }
  $("t-back").onclick = () => openView("floor");
  $("c-void").onclick = () => tableControl("void_round");
  $("c-close").onclick = () => tableControl("close_table");
  $("c-open").onclick = () => tableControl("open_table");
  $("c-approve-t").onclick = () => tableControl("approve_jackpot");
  $("c-limits").onclick = changeLimits;
  $("c-enter").onclick = enterResult;
  $("c-no-more").onclick = () => send({ type: "close_betting", table: S.table });
  $("c-review").onclick = reviewCorrection;
  $("c-confirm").onclick = confirmCorrection;
  $("c-cancel").onclick = () => { S.review = null; $("r-confirm").hidden = true; };
  $("a-find-btn").onclick = () => askAccount($("a-find").value.trim());
  $("a-find").onkeydown = (e) => { if (e.key === "Enter") askAccount($("a-find").value.trim()); };
  $("a-suspend").onclick = () => accountControl("suspend");
  $("a-lift").onclick = () => accountControl("unsuspend");
  $("a-deposit").onclick = () => cashierCall("deposit");
  $("a-withdraw").onclick = () => cashierCall("withdraw");
  $("f-go").onclick = askAudit;
  $("ledger-btn").onclick = () => send({ type: "staff", query: "ledger_check" });

  // the tournaments have no push of their own: while their view is open, asked again
  // every few seconds (a pause or a break begins once every table is between hands)
  setInterval(() => {
    if (S.view === "tournaments" && S.caps && S.ws && S.ws.readyState === WebSocket.OPEN) {
      send({ type: "tournaments" });
    }
  }, TOURNAMENTS_EVERY_MS);

  const params = new URLSearchParams(location.search);
  const fromUrl = params.get("token");
  if (fromUrl) history.replaceState(null, "", location.pathname);  // not left in the address
  const token = fromUrl || sessionStorage.getItem("croupier-staff-token");
  if (token) signIn(token);
}

document.addEventListener("DOMContentLoaded", wire);
