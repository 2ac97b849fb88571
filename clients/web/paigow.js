// Pai gow tiles at the browser table (QLD Casino Gaming Rule 2010, Schedule 6;
// protocol/README.md "Pai gow tiles").
//
// app.js plays every banked table (betting window, wagers, decisions, results) and draws a
// tile wherever a card goes (cardEl: pips, low first, "1-3"); this file adds what pai gow
// needs, through the hooks app.js offers its game plug-ins: PaiGow.onEvent (every banked
// event, before app.js's own handling) and PaiGow.render (after a banked table is drawn).
// It keeps each box's four tiles and, at settlement, every high and low hand shown (s36),
// and draws the setting panel: the box's tiles as buttons, a click moves a tile into the
// low hand or back to the high hand (s2, s27); "Set tiles" sends the two hands once the low
// hand has two tiles, "House way" asks the dealer to set them (s29(1)). The server checks
// the setting (a high hand below the low is refused, s2) and the decision stays owed.
"use strict";

const PaiGow = (() => {
  const handles = (t) => !!(t && t.banked && String((t.info || {}).game || "") === "pai-gow");

  function state(t) {
    if (!t.pg) t.pg = { tiles: {}, low: {}, shown: {}, bank: [], bankTiles: [] };
    return t.pg;
  }

  /** One banked event; pai gow handles none alone (false: app.js goes on with it). */
  function onEvent(t, ev, quiet) {
    if (!handles(t)) return false;
    const pg = state(t);
    switch (ev.type) {
      case "betting_open":
        Object.assign(pg, { tiles: {}, low: {}, shown: {}, bank: [], bankTiles: [] });
        break;
      case "cards_dealt":  // the bank's tiles reach only a player/banker (s28(8))
        if (ev.to === "box") pg.tiles[ev.box] = (ev.cards || []).slice();
        else if (ev.to === "dealer") pg.bankTiles = (ev.cards || []).slice();
        break;
      case "hand_shown": {  // "high: ...", "low: ..."; the bank's "bank high: ..."
        const entry = { cards: (ev.cards || []).slice(), hand: ev.hand };
        if (ev.box === null || ev.box === undefined) pg.bank.push(entry);
        else (pg.shown[ev.box] = pg.shown[ev.box] || []).push(entry);
        break;
      }
      case "decision_made":
        delete pg.low[ev.box];
        break;
      default:
        break;
    }
    return false;
  }

  /** A hand as shown: its tiles with the hand's name under them. */
  function handGroup(entry) {
    const group = document.createElement("div");
    group.className = "pg-hand";
    const tiles = document.createElement("div");
    tiles.className = "pg-tiles";
    for (const c of entry.cards) tiles.appendChild(cardEl(c, { small: true }));
    const name = document.createElement("div");
    name.className = "pg-name";
    name.textContent = humanize(entry.hand);
    group.append(tiles, name);
    return group;
  }

  function renderShown(t, pg) {
    for (const el of document.querySelectorAll(".seat.box")) {
      const hands = pg.shown[el.dataset.box];
      if (!hands || !hands.length) continue;
      for (const cat of el.querySelectorAll(".category")) cat.remove();
      const hole = el.querySelector(".hole");
      hole.textContent = "";
      hole.classList.add("pg-hands");
      for (const h of hands) hole.appendChild(handGroup(h));
    }
    const dealer = document.querySelector(".dealer-spot");
    if (!dealer) return;
    // a player/banker's box (its "bank" wager, s18) sets the bank; else the dealer, the
    // house way (s29(3))
    const banker = Object.keys(t.boxes).find((b) => (t.boxes[b].wagers || {}).bank);
    dealer.querySelector(".dealer-label").textContent =
      banker ? `Bank (box ${banker})` : "Bank (the house way)";
    if (pg.bank.length) {
      for (const cat of dealer.querySelectorAll(".category")) cat.remove();
      const hole = dealer.querySelector(".hole");
      hole.textContent = "";
      hole.classList.add("pg-hands");
      for (const h of pg.bank) hole.appendChild(handGroup(h));
    }
  }

  /** The setting panel of one box: click tiles into the low hand, then Set or House way. */
  function settingRow(t, pg, d) {
    const box = String(d.box);
    const bank = d.street === "bank";  // a player/banker sets the bank's tiles (s28(8))
    const tiles = bank ? pg.bankTiles : (pg.tiles[box] || t.cards[box] || []);
    const low = pg.low[box] || (pg.low[box] = []);  // positions in ``tiles``
    const row = document.createElement("div");
    row.className = "decision pg-decision";
    row.dataset.box = box;
    row.dataset.street = d.street;
    const label = document.createElement("span");
    label.className = "decision-label";
    label.textContent = `Box ${box} \u00b7 set ${bank ? "the bank's" : "your"} tiles`;
    row.appendChild(label);
    const hands = document.createElement("div");
    hands.className = "pg-setting";
    for (const [side, title] of [["high", "High hand"], ["low", "Low hand"]]) {
      const zone = document.createElement("div");
      zone.className = `pg-zone pg-${side}`;
      zone.dataset.side = side;
      const head = document.createElement("span");
      head.className = "pg-zone-title";
      head.textContent = title;
      zone.appendChild(head);
      tiles.forEach((tile, i) => {
        if ((side === "low") !== low.includes(i)) return;
        const btn = document.createElement("button");
        btn.className = "pg-tile-btn";
        btn.dataset.index = String(i);
        btn.dataset.tile = tile;
        btn.title = side === "low" ? "back to the high hand" : "into the low hand";
        btn.appendChild(cardEl(tile));
        btn.onclick = () => {
          const at = low.indexOf(i);
          if (at >= 0) low.splice(at, 1);
          else if (low.length < 2) low.push(i);
          else { low.shift(); low.push(i); }  // a third tile replaces the first chosen
          renderTable();
        };
        zone.appendChild(btn);
      });
      hands.appendChild(zone);
    }
    row.appendChild(hands);
    const legal = {};
    for (const c of d.legal || []) legal[c.verb] = c;
    const decide = (verb, setting) => {
      const msg = { type: "decide", table: t.id, box: Number(box), verb };
      if (setting) msg.setting = setting;
      if (send(msg)) {
        t.sentDecisions = Object.assign(t.sentDecisions || {}, { [box]: d });
        delete t.pending[box];
        renderTable();
      }
    };
    const set = document.createElement("button");
    set.className = "act call";
    set.dataset.verb = "set";
    set.textContent = "Set tiles";
    set.disabled = !legal.set || low.length !== 2 || tiles.length !== 4;
    set.title = low.length === 2 ? "high hand and low hand as shown"
      : "click two tiles into the low hand";
    set.onclick = () => decide("set", {
      high: tiles.filter((_, i) => !low.includes(i)),
      low: low.map((i) => tiles[i]),
    });
    const house = document.createElement("button");
    house.className = "act check";
    house.dataset.verb = "house_way";
    house.textContent = "House way";
    house.title = "the dealer sets your tiles the house way (s29(1))";
    house.disabled = !legal.house_way;
    house.onclick = () => decide("house_way", null);
    row.append(set, house);
    return row;
  }

  function render(t) {
    if (!handles(t)) return;
    const pg = state(t);
    renderShown(t, pg);
    if (t.role !== "player") return;
    for (const row of document.querySelectorAll("#decisions .decision")) {
      const d = t.pending[row.dataset.box];
      if (d && (d.legal || []).some((c) => c.setting)) row.replaceWith(settingRow(t, pg, d));
    }
  }

  return { handles, onEvent, render };
})();
window.PaiGow = PaiGow;
