"""Tournament mode of the load test: N bots register to a tournament and play it to the end.

Each bot connects over a real WebSocket (a dev-mode guest), registers (``register``), and
plays wherever the tournament seats it. At a poker table it plays every betting structure
(limit, half-pot, full-pot, no-limit) from the legal actions the server sends
(:func:`tournament_action`): it bets and raises often, with the sizes the bounds allow (the
fixed sizes under limit, up to the pot under pot limit), calls most bets and goes all-in now
and then, so that a heads-up ends in a few hands rather than in folds. At a Canberra Poker
table it antes the table minimum when asked (``ante_turn``) and bets when it can. A bot whose
connection drops (a slow reader closed with 4002, say) comes back with its token and resumes
its seat: an absent player is dealt in and folds (ACT 6.3), which alone would keep a
heads-up going for as long as its chips last. The run ends when every bot knows its place
(the tournament completed) or was told it was cancelled, or after ``timeout`` seconds. Used
by ``croupier loadtest --tournament FILE --players N`` and by the tests
(tests/tournaments/).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import trio
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from clients.client import Client


@dataclass
class Outcome:
    """What the bots saw: their last ``tournament`` state, refusals, timing."""

    states: dict[str, dict[str, Any]] = field(default_factory=dict)  # account -> last state
    refused: dict[str, int] = field(default_factory=dict)  # error code -> count
    seconds: float = 0.0
    finished: bool = False
    reconnects: int = 0  #: connections the server dropped that a bot came back from

    def summary(self) -> dict[str, Any]:
        places = {a: s.get("place") for a, s in self.states.items()}
        prizes = {a: s.get("prize") or 0 for a, s in self.states.items()}
        winners = [a for a, p in places.items() if p == 1]
        phases = sorted({s["phase"] for s in self.states.values()})
        return {
            "players": len(self.states),
            "finished": self.finished,
            "phases": phases,
            "seconds": round(self.seconds, 2),
            "winners": winners,
            "placed": sum(1 for p in places.values() if p),
            "prizes": sum(prizes.values()),
            "refused": self.refused,
            "reconnects": self.reconnects,
        }


#: the Canberra Poker table events a bot keeps (and answers)
WATCHED = frozenset(
    {"betting_open", "starting_marker", "ante_turn", "ante_warning", "no_more_bets", "decision"}
)


class TournamentBot:
    """One registered player (see the module docstring); ``rogue``: at Canberra Poker it
    antes at once, out of order (the tests' r 17.15 case)."""

    def __init__(
        self,
        url: str,
        name: str,
        tournament: str,
        seed: int = 0,
        *,
        passive: bool = False,
        rogue: bool = False,
        buy_back: bool = False,
    ) -> None:
        self.url, self.name, self.tournament = url, name, tournament
        self.rng = random.Random(seed)
        self.passive = passive  # poker: check or call the blind, never raise
        self.rogue = rogue
        self.buy_back = buy_back  # buys back once when eliminated, if play goes on
        self.bought = False
        self.client: Client | None = None
        self.states: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []  # every table event (Canberra Poker)
        self.errors: list[dict[str, Any]] = []
        self.reconnects = 0  #: connections the server dropped that the bot came back from

    @property
    def done(self) -> bool:
        last = self.states[-1] if self.states else None
        return last is not None and (bool(last["place"]) or last["phase"] == "cancelled")

    async def run(self, register: bool = True) -> None:
        """Register (once) and play; a connection the server dropped before this bot knows
        its place comes back with the session token and rejoins its tables."""
        token: str | None = None
        failures = 0
        while True:
            try:
                async with Client.connect(self.url, token=token, name=self.name) as client:
                    self.client = client
                    failures = 0
                    first, token = token is None, client.token
                    if not first:
                        await self.resume(client)
                    elif register:
                        await client.register(self.tournament)
                    await self.play(client)
            except (OSError, ConnectionClosed, InvalidHandshake):
                failures += 1
                if failures >= 5:
                    return
            if self.done:
                return
            self.reconnects += 1
            await trio.sleep(0.2 * (failures + 1))

    async def resume(self, client: Client) -> None:
        """Back after a drop: join every table the welcome says this account still holds
        (the seat was kept), and act at once if the snapshot shows it is our turn."""
        for table in client.welcome.get("seated", []):
            view = await client.join(table)
            rnd = view.view.get("round") or {}
            if rnd.get("legal") and rnd.get("to_act") == view.seat:
                legal = {
                    e["verb"]: {k: v for k, v in e.items() if k != "verb"} for e in rnd["legal"]
                }
                await self.act(client, table, legal)

    async def play(self, client: Client) -> None:
        async for msg in client:
            kind = msg["type"]
            if kind == "tournament":
                self.states.append(msg)
                if self.buy_back and not self.bought and msg["place"]:
                    if msg["phase"] == "running" and msg["players_left"] >= 2:
                        self.bought = True
                        await client.send({"type": "buy_back", "tournament": msg["tournament"]})
            elif kind == "error":
                self.errors.append(msg)
            elif kind == "turn" and msg["legal"]:
                await self.act(client, msg["table"], msg["legal"])
            elif kind == "event":
                await self.on_event(client, msg["table"], msg["event"])

    async def act(self, client: Client, table: str, legal: dict[str, Any]) -> None:
        """Poker: the bot's turn (``passive``: check or call, never raise)."""
        if self.passive:
            verb = "check" if "check" in legal else "call" if "call" in legal else "fold"
            await client.act(table, verb)
            return
        verb, amount = tournament_action(legal, self.rng)
        await client.act(table, verb, amount)

    async def on_event(self, client: Client, table: str, ev: dict[str, Any]) -> None:
        """Canberra Poker: antes in turn (r 17.15-17.16) and the bet-or-fold decision."""
        etype = ev["type"]
        if etype not in WATCHED:
            return
        self.events.append(ev)
        view = client.tables.get(table)
        if view is None or view.seat is None:
            return
        box = view.seat
        limits = ((view.view.get("table") or {}).get("tournament") or {}).get("limits") or {}
        if (etype == "betting_open" and self.rogue) or (etype == "ante_turn" and ev["box"] == box):
            amount = int(limits.get("minimum", 0))
            message = {"type": "wager", "table": table, "box": box, "wager": "ante"}
            await client.send({**message, "amount": amount})
        elif etype == "decision" and ev["box"] == box:
            verbs = [c["verb"] for c in ev["legal"]]
            await client.decide(table, box, "bet" if "bet" in verbs else "fold")


def tournament_action(legal: dict[str, Any], rng: random.Random) -> tuple[str, int | None]:
    """A poker decision from the legal actions the server sent, in any betting structure.

    Aggressive enough that a heads-up ends: facing a wager it raises about a quarter of the
    time, goes all-in now and then (when tapping out is allowed: under pot limit only when the
    stack is within the pot) and calls most bets, folding mostly to a bet of more than a
    third of its stack; with a free check it bets or raises about four times in ten. A bet or
    raise is one of the fixed ``sizes`` under limit, else the minimum, the maximum (the pot
    under pot limit) or a total in between. The stack is the all-in amount when the server
    offers it, else at least the largest total it may bet or raise to."""
    r = rng.random()
    raise_verb = "raise" if "raise" in legal else "bet" if "bet" in legal else None
    bounds = legal.get(raise_verb, {}) if raise_verb else {}
    stack = int(legal.get("allin", {}).get("amount") or bounds.get("max") or 0)
    facing = "call" in legal and "check" not in legal
    if "allin" in legal and r < (0.03 if facing else 0.01):
        return "allin", None
    if raise_verb and r < (0.30 if facing else 0.42):
        return raise_verb, _size(bounds, rng)
    if not facing:
        return ("check", None) if "check" in legal else ("fold", None)
    call = int(legal["call"]["amount"])
    if call * 3 <= stack or rng.random() < 0.35:
        return "call", None
    return "fold", None


def _size(bounds: dict[str, Any], rng: random.Random) -> int:
    """A legal total: a fixed size, or the minimum, the maximum or one in between."""
    sizes = bounds.get("sizes")
    if sizes:
        return int(rng.choice(sizes))
    low, high = int(bounds["min"]), int(bounds["max"])
    pick = rng.random()
    if pick < 0.4 or high <= low:
        return low
    if pick < 0.7:
        return high
    return rng.randint(low, high)


async def run_players(
    url: str, tournament: str, players: int, seed: int = 1, timeout: float = 600.0
) -> Outcome:
    """Register ``players`` bots to ``tournament`` and play until every bot is placed (or
    the tournament is cancelled), at most ``timeout`` seconds."""
    bots = [TournamentBot(url, f"tb{i}", tournament, seed * 100_000 + i) for i in range(players)]
    outcome = Outcome()
    start = time.monotonic()
    with trio.move_on_after(timeout):
        async with trio.open_nursery() as nursery:
            for bot in bots:
                nursery.start_soon(bot.run)
            while not (bots and all(b.done for b in bots)):
                await trio.sleep(0.1)
            outcome.finished = True
            nursery.cancel_scope.cancel()
    outcome.seconds = time.monotonic() - start
    outcome.reconnects = sum(bot.reconnects for bot in bots)
    for bot in bots:
        if bot.client is not None and bot.client.account and bot.states:
            outcome.states[bot.client.account] = bot.states[-1]
        for err in bot.errors:
            code = str(err.get("code"))
            outcome.refused[code] = outcome.refused.get(code, 0) + 1
    return outcome
