"""A load-test bot for a banked table (players against the house): one box, over a real
WebSocket (protocol/README.md, "Banked tables").

The bot's life is :class:`loadtest.bot.Bot`'s (hello, join, chaos, reconnect with its token,
leave at the stop and settle its wallet); only the game differs. In each betting window it
places the table's required wagers at a small multiple of the table minimum (the game's
first wager when none is required), and answers every ``decision`` the server prompts it
with a random legal choice within the bounds sent -- hit, stand, double, split, insurance,
surrender, switch at blackjack; bet, fold, play, war... elsewhere -- preferring doubles and
splits so that they happen often; at pai gow it sets its tiles itself (one of the three
ways, high hand high) or asks for the house way, about as often. Now and then it lets the
clock decide (the engine's timeout). The latency is the time from sending ``decide`` until
the table's ``decision_made`` for its box (or the ``error``) arrives, and from sending its
first wager of a round until the table's ``wager_placed`` for its box.

Per game it counts rounds and decisions, keeps the net of its ``round_result`` rows (paid
less bet) and, once it has left, its wallet's change: the two agree when no cent was lost
(the report's per-game conservation).
"""

from __future__ import annotations

import random
from typing import Any

import trio

from loadtest.bot import BOT_NAME, Bot, RunContext, TablePlan
from server.games.banked.pai_gow import BANK_STREET, settings_of

#: Relative weights of the verbs a banked bot picks from the legal ones (others: 1).
BANKED_WEIGHTS = {"double": 6.0, "split": 20.0, "switch": 2.0, "fold": 0.5, "surrender": 0.5}


def choose_decision(legal: list[dict[str, Any]], rng: random.Random) -> tuple[str, int | None]:
    """A random legal choice and an amount the bounds allow (insurance: the smallest, which
    every schedule accepts; a double: mostly the full double)."""
    weights = [BANKED_WEIGHTS.get(c["verb"], 1.0) for c in legal]
    choice = rng.choices(legal, weights=weights)[0]
    verb = str(choice["verb"])
    if choice.get("amounts"):
        return verb, int(rng.choice(choice["amounts"]))
    if "min" in choice:
        low, high = int(choice["min"]), int(choice["max"])
        if verb == "insurance":
            return verb, low
        return verb, high if rng.random() < 0.8 else rng.randint(low, high)
    return verb, None


def own_setting(tiles: list[str], rng: random.Random) -> dict[str, list[str]]:
    """A pai gow bot's own setting (QLD Sch 6 s27): one of the three ways to pair its four
    tiles, each with its higher hand as the high hand (s2)."""
    return rng.choice(settings_of(tiles)).wire()


def opening_wagers(wagers: list[dict[str, Any]]) -> list[str]:
    """The wagers a bot places before the deal: every required one, or the first offered."""
    initial = [w for w in wagers if w.get("initial") and w.get("limits") == "table"]
    required = [w["name"] for w in initial if w.get("required")]
    if required:
        return required
    return [initial[0]["name"]] if initial else []


class BankedBot(Bot):
    """A box's worth of client at a banked table (see the module docstring)."""

    def __init__(self, ctx: RunContext, index: int, table: TablePlan, seat: int) -> None:
        super().__init__(ctx, index, table, seat)
        self.wagers: list[dict[str, Any]] = []
        self.minimum = 100
        self.maximum = 100
        self.pending_box: int | None = None
        self.wager_sent: float | None = None
        #: the cards (pai gow: tiles) dealt to each of its boxes this round
        self.cards: dict[int, list[str]] = {}
        #: a banked game's player bank (pai gow, Sch 6 s18): the bank's tiles when it banks,
        #: whether it played the last round on its box, how many rounds running it banked
        self.bank_cards: list[str] = []
        self.played_last = False
        self.bank_run = 0

    def _count(self, what: str, n: int = 1) -> None:
        self.ctx.stats.count(f"game:{self.plan.game}:{what}", n)

    def _snapshot(self, msg: dict[str, Any], nursery: trio.Nursery) -> None:
        view = msg.get("view") or {}
        table = view.get("table") or {}
        self.seat = self.want_seat
        if self.plan.any_seat:  # a person holds boxes: this bot's is the n-th of the rest
            held = {
                b["box"]
                for b in view.get("boxes") or []
                if b.get("player") and not BOT_NAME.fullmatch(str(b["player"]))
            }
            free = [
                n
                for n in range(1, int(table.get("boxes") or 0) + 1)
                if n not in held and n != self.plan.bank_box
            ]
            self.seat = free[self.want_seat - 1] if self.want_seat <= len(free) else None
        self.wagers = list(table.get("wagers") or [])
        self.minimum = int((table.get("stakes") or {}).get("minimum", self.minimum))
        self.maximum = int((table.get("stakes") or {}).get("maximum", self.minimum))
        for ev in view.get("round_events") or []:  # a resumed seat: the cards it was dealt
            if ev.get("type") == "cards_dealt" and ev.get("to") == "box":
                self.cards[int(ev["box"])] = list(ev.get("cards") or [])
        for d in view.get("pending") or []:  # a resumed seat with a decision open
            self._decide(d, nursery)

    def _top_up(self, nursery: trio.Nursery) -> None:
        return None  # no table stake: wagers come straight from the wallet

    def _settle(self, balance: int | None) -> None:
        if not self.settled and balance is not None and self.start_balance is not None:
            self._count("wallet_net", balance - self.start_balance)
            self._count("bots")
        super()._settle(balance)

    def _event(self, ev: dict[str, Any], nursery: trio.Nursery) -> None:
        etype = ev.get("type")
        if etype == "betting_open":
            self.cards, self.bank_cards = {}, []
            if not self.leaving:
                nursery.start_soon(self._bet)
        elif etype == "cards_dealt" and ev.get("to") == "box" and ev.get("box") is not None:
            self.cards[int(ev["box"])] = list(ev.get("cards") or [])
        elif etype == "cards_dealt" and ev.get("to") == "dealer":  # to the player/banker only
            self.bank_cards = list(ev.get("cards") or [])
        elif etype == "decision":
            self._decide(ev, nursery)
        elif etype == "decision_made" and ev.get("box") == self.pending_box:
            self._answered()
        elif etype == "wager_placed" and ev.get("box") == self.seat and self.wager_sent:
            ms = (trio.current_time() - self.wager_sent) * 1000.0
            self.ctx.stats.latency_sample(self.ctx.second(), ms, self.plan.game)
            self.wager_sent = None
        elif etype == "timed_out" and ev.get("box") == self.seat:
            self.ctx.stats.count("timed_out")
            self.pending_act = None
        elif etype == "round_result":
            row = (ev.get("boxes") or {}).get(str(self.seat))
            if row is not None:
                self._count("results_net", int(row["paid"]) - int(row["bet"]))
            banked = row is not None and any(
                w.get("limits") == "bank" and w["name"] in row["wagers"] for w in self.wagers
            )
            self.played_last = row is not None and ev.get("state") != "void"
            self.bank_run = self.bank_run + 1 if banked and self.played_last else 0
            if banked and self.played_last:
                self._count("banked_rounds")
            if ev.get("state") == "void":
                self.ctx.round_voided(self.plan.id, int(ev.get("round", 0)))
            else:
                self.ctx.round_ended(self.plan.id, int(ev.get("round", 0)))
                if row is not None:
                    self._count("rounds")

    def _answered(self) -> None:
        if self.pending_act is not None:
            ms = (trio.current_time() - self.pending_act) * 1000.0
            self.ctx.stats.latency_sample(self.ctx.second(), ms, self.plan.game)
            self.pending_act = None
        self.pending_box = None

    def _error(self, msg: dict[str, Any]) -> None:
        if msg.get("ref") == "decide":
            self.pending_box = None
        super()._error(msg)

    async def _bet(self) -> None:
        if self.seat is None:
            return  # no box left for this bot (a person took more since the lobby)
        if self.ctx.pace == "human":
            await trio.sleep(self.rng.uniform(0.1, 0.5))
        # now and then half the table maximum: a big wager (pai gow: a priority box, s14(4))
        big = self.rng.random() < 0.05
        bank = self._bank_wager()
        if bank is not None:  # the bank covers every wager the others could make (s18(4))
            self.wager_sent = trio.current_time()
            await self._send_quiet(
                {
                    "type": "wager",
                    "table": self.plan.id,
                    "box": self.want_seat,
                    "wager": bank,
                    "amount": self.maximum * (self.plan.seats + 1),
                }
            )
            return
        for name in opening_wagers(self.wagers):
            amount = self.minimum * self.rng.randint(1, 3)
            if big:
                amount = max(self.minimum, self.maximum // 2)
            self.wager_sent = trio.current_time()
            await self._send_quiet(
                {
                    "type": "wager",
                    "table": self.plan.id,
                    "box": self.seat,
                    "wager": name,
                    "amount": amount,
                }
            )

    def _bank_wager(self) -> str | None:
        """The player bank to take this round, if the table offers one and the rules let this
        bot (s18): only the first box's bot tries (no two bots contest it), having played the
        last round there (s18(2); not after a break, s18(8)) and not 2 rounds running
        (s18(10)); then half the time."""
        name = next((w["name"] for w in self.wagers if w.get("limits") == "bank"), None)
        if name is None or self.want_seat != self.plan.boxes()[0]:
            return None
        if not self.played_last or self.bank_run >= 2 or self.rng.random() < 0.5:
            return None
        return str(name)

    def _decide(self, ev: dict[str, Any], nursery: trio.Nursery) -> None:
        legal = ev.get("legal") or []
        if not legal or self.leaving:
            return
        self.turn_id += 1
        if self.rng.random() < 0.03:
            return  # the clock decides: the engine's timeout
        nursery.start_soon(
            self._send_decision, int(ev["box"]), str(ev.get("street")), legal, self.turn_id
        )

    async def _send_decision(
        self, box: int, street: str, legal: list[dict[str, Any]], turn_id: int
    ) -> None:
        if self.ctx.pace == "human":
            await trio.sleep(self.rng.uniform(1.0, 3.0))
        if turn_id != self.turn_id or self.leaving:
            return
        tiles = self.bank_cards if street == BANK_STREET else self.cards.get(box, [])
        if not tiles:  # no cards known to set: only verbs without a setting
            legal = [c for c in legal if not c.get("setting")] or legal
        verb, amount = choose_decision(legal, self.rng)
        msg: dict[str, Any] = {"type": "decide", "table": self.plan.id, "box": box, "verb": verb}
        if amount is not None:
            msg["amount"] = amount
        if any(c["verb"] == verb and c.get("setting") for c in legal):
            msg["setting"] = own_setting(tiles, self.rng)
        self.pending_act = trio.current_time()
        self.pending_box = box
        self.ctx.stats.count("actions")
        self._count("decisions")
        self._count(f"verb:{verb}")
        await self._send_quiet(msg)
