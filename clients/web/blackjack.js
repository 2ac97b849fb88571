// The blackjack family at the browser table (protocol/README.md "Blackjack tables").
//
// app.js plays every banked table (betting window, wagers, decisions, results); this file
// adds what blackjack needs on top, through two hooks in app.js: Blackjack.onEvent (every
// banked event, before app.js's own handling) and Blackjack.render (after a banked table is
// drawn). It keeps each box's hands (split hands, switch areas) with their totals, and draws
// the decision panel as a fixed row of the game's verbs -- hit, stand, double, split,
// insurance, even money, surrender, rescue, switch, cover, follow -- with the legal ones
// enabled and the others greyed out; a verb taking an amount (double for less, insurance,
// follow) has an amount field prefilled with a legal value.
"use strict";

const Blackjack = (() => {
  const GAMES = /^(spanish-)?blackjack(-switch|-challenge)?$/;
  const VERBS = ["hit", "stand", "double", "split", "insurance", "even_money", "surrender",
    "rescue", "switch", "cover", "follow"];

  const handles = (t) => !!(t && t.banked && GAMES.test(String((t.info || {}).game || "")));

  /** s5: 2-10 face value, J/Q/K 10, an ace 1 or 11 (one ace 11 while that stays <= 21). */
  function total(cards) {
    let hard = 0;
    let aces = 0;
    for (const c of cards) {
      const r = String(c)[0];
      if (r === "A") { hard += 1; aces += 1; }
      else if ("TJQK".includes(r)) hard += 10;
      else hard += Number(r);
    }
    const soft = aces > 0 && hard + 10 <= 21;
    return { value: soft ? hard + 10 : hard, soft };
  }

  function state(t) {
    if (!t.bj) t.bj = { hands: {}, pending: {} };
    return t.bj;
  }

  function hand(bj, box, label) {
    const n = Number(String(label || "hand 1").replace(/\D+/g, "")) || 1;
    const hands = bj.hands[box] || (bj.hands[box] = []);
    while (hands.length < n) hands.push({ cards: [], doubled: false });
    return hands[n - 1];
  }

  /** The decision a ``decision_made`` answered: offers of other players are "verb P2". */
  function decidedKey(ev) {
    const place = String(ev.verb || "").split(" ")[1];
    return `${ev.box}|${place ? `${ev.street} ${place}` : ev.street}`;
  }

  /** One banked event; true when it is blackjack's alone (a backer's wager). */
  function onEvent(t, ev, quiet) {
    if (!handles(t)) return false;
    const bj = state(t);
    switch (ev.type) {
      case "wager_placed":
        if (!ev.place) break;
        if (!quiet) addLog(t, `${ev.name} behind box ${ev.box}: ${humanize(ev.wager)} ${money(ev.amount)}.`);
        return true;
      case "backer_returned":
        if (!quiet) addLog(t, `Box ${ev.box} has no wager: ${money(ev.amount)} back to its backer.`, "warn");
        return true;
      case "betting_open":
        bj.hands = {};
        bj.pending = {};
        break;
      case "cards_dealt":
        if (ev.to === "box") hand(bj, ev.box, ev.street).cards.push(...(ev.cards || []));
        break;
      case "decision":
        bj.pending[`${ev.box}|${ev.street}`] = ev;
        break;
      case "decision_made": {
        delete bj.pending[decidedKey(ev)];
        if (String(ev.street).startsWith("hand ")) {
          const hands = bj.hands[ev.box] || [];
          const i = (Number(String(ev.street).replace(/\D+/g, "")) || 1) - 1;
          if (ev.verb === "split" && hands[i]) {  // s25: the second card starts a new hand
            const second = hands[i].cards.pop();
            hands.splice(i + 1, 0, { cards: [second], doubled: false });
          } else if (ev.verb === "double" && hands[i]) {
            hands[i].doubled = true;
          }
        }
        break;
      }
      case "hand_shown":  // blackjack switch: the areas' cards after a switch (SW s17)
        if (ev.box !== null && ev.box !== undefined && /^area /.test(ev.hand)) {
          hand(bj, ev.box, ev.hand).cards = (ev.cards || []).slice();
        }
        break;
      case "round_result":
      case "round_voided":
        bj.pending = {};
        break;
      default:
        break;
    }
    return false;
  }

  /** A hand's total as players say it; a two-card 21 on a box's only hand is a blackjack (BJ
   *  s6; a split hand's 21, or a switch area's, is only 21: s25, SW s17). */
  function handText(cards, only = false) {
    const { value, soft } = total(cards);
    if (cards.length === 2 && value === 21) return only ? "Blackjack" : "21";
    if (value > 21) return `bust ${value}`;
    return (soft ? "soft " : "") + value;
  }

  function renderHands(t, bj) {
    for (const el of document.querySelectorAll(".seat.box")) {
      const b = el.dataset.box;
      const hands = bj.hands[b];
      for (const cat of el.querySelectorAll(".category")) cat.remove();
      if (!hands || !hands.length) continue;
      const hole = el.querySelector(".hole");
      hole.textContent = "";
      hole.classList.add("bj-hands");
      hands.forEach((h, i) => {
        const group = document.createElement("div");
        group.className = "bj-hand";
        group.dataset.hand = String(i + 1);
        for (const c of h.cards) group.appendChild(cardEl(c, { small: true }));
        const label = document.createElement("div");
        label.className = "bj-total";
        // blackjack challenge counts a blackjack after a split too (BC s1 definitions)
        const natural = hands.length === 1 || t.info.game === "blackjack-challenge";
        label.textContent = handText(h.cards, natural) + (h.doubled ? " \u00b7 doubled" : "");
        group.appendChild(label);
        hole.appendChild(group);
      });
    }
  }

  /** A legal amount to prefill: the full double; insurance in whole dollars' worth. */
  function defaultAmount(choice) {
    if (choice.verb === "insurance") return Math.max(choice.min, Math.floor(choice.max / 50) * 50);
    if (choice.verb === "follow") return choice.min;
    return choice.max;
  }

  function decisionRow(t, key, d) {
    const row = document.createElement("div");
    row.className = "decision bj-decision";
    row.dataset.box = d.box;
    row.dataset.street = d.street;
    const label = document.createElement("span");
    label.className = "decision-label";
    label.textContent = `Box ${d.box} \u00b7 ${humanize(d.street)}`;
    row.appendChild(label);
    const legal = {};
    for (const c of d.legal || []) legal[c.verb] = c;
    const verbs = VERBS.filter((v) => (t.info.verbs || VERBS).includes(v));
    for (const verb of verbs) {
      const choice = legal[verb];
      let input = null;
      if (choice && choice.min !== undefined && !(choice.amounts && choice.amounts.length === 1)) {
        input = document.createElement("input");
        input.type = "number";
        input.className = "bj-amount";
        input.dataset.verb = verb;
        input.step = verb === "follow" ? "1" : "0.01";
        input.value = verb === "follow" ? String(defaultAmount(choice)) : centsInput(defaultAmount(choice));
        input.title = verb === "follow" ? "hand 1 or 2"
          : `${money(choice.min)} to ${money(choice.max)}`;
        row.appendChild(input);
      }
      const btn = document.createElement("button");
      btn.className = "act bj-verb " + (verb === "surrender" || verb === "rescue" ? "fold" : "call");
      btn.dataset.verb = verb;
      btn.textContent = humanize(verb) +
        (choice && choice.amounts && choice.amounts.length === 1 ? ` ${money(choice.amounts[0])}` : "");
      btn.disabled = !choice;
      btn.onclick = () => {
        const msg = { type: "decide", table: t.id, box: Number(d.box), verb };
        if (input) {
          const amount = verb === "follow" ? Number(input.value) : toCents(input.value);
          if (amount === null || !(amount >= choice.min && amount <= choice.max)) {
            toast(`${humanize(verb)}: ${input.title}`);
            return;
          }
          msg.amount = amount;
        }
        if (send(msg)) {
          delete state(t).pending[key];
          delete t.pending[d.box];
          renderTable();
        }
      };
      row.appendChild(btn);
    }
    return row;
  }

  /** Back a box another player holds (BJ s29): the wager row's wager and amount, behind. */
  function renderBacking(t) {
    let row = $("bj-back");
    if (!row) {
      row = document.createElement("div");
      row.id = "bj-back";
      row.className = "wager-row";
      row.innerHTML = `<label>Back box <select id="bj-back-box"></select></label>
        <button id="bj-back-btn" title="wager behind another player's box (BJ s29)">Back box</button>`;
      $("wager-row").after(row);
      $("bj-back-btn").onclick = () => {
        const amount = toCents($("wager-amount").value);
        const box = Number($("bj-back-box").value);
        if (!box || amount === null) { toast("Choose a box and an amount."); return; }
        send({ type: "wager", table: t.id, box, wager: $("wager-name").value, amount, behind: true });
      };
    }
    const others = Object.keys(t.boxes).map(Number)
      .filter((b) => t.boxes[b] && t.boxes[b].player && !t.myBoxes.has(b));
    const sel = $("bj-back-box");
    const key = others.join(",");
    if (sel.dataset.key !== key) {
      sel.dataset.key = key;
      sel.textContent = "";
      for (const b of others) {
        const o = document.createElement("option");
        o.value = b; o.textContent = `${b} (${t.boxes[b].player})`;
        sel.appendChild(o);
      }
    }
    $("bj-back-btn").disabled = t.status !== "betting" || !others.length;
    if (!others.length) row.hidden = true;  // no other player's box to back: nothing to show
  }

  function render(t) {
    const back = $("bj-back");
    if (back) back.hidden = !handles(t) || t.role !== "player";
    if (!handles(t)) return;
    const bj = state(t);
    renderHands(t, bj);
    if (t.role !== "player") return;
    renderBacking(t);
    const dec = $("decisions");
    dec.textContent = "";
    for (const [key, d] of Object.entries(bj.pending)) dec.appendChild(decisionRow(t, key, d));
    for (const el of document.querySelectorAll(".seat.box")) {
      const owed = Object.values(bj.pending).some((d) => String(d.box) === el.dataset.box);
      el.classList.toggle("acting", owed);
    }
  }

  return { handles, onEvent, render, total, VERBS };
})();
window.Blackjack = Blackjack;
