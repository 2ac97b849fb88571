"""Tournament mode of the load test: N bots register to a tournament and play it to the end.

Each bot connects over a real WebSocket (a dev-mode guest), registers (``register``), and
plays wherever the tournament seats it: at a poker table it goes all-in now and then,
min-raises sometimes, else checks, calls a small bet or folds; at a Canberra Poker table it
antes the table minimum when asked (``ante_turn``) and bets when it can. The run ends when
every bot knows its place (the tournament completed) or was told it was cancelled, or after
``timeout`` seconds. Used by ``croupier loadtest --tournament FILE --players N`` and by the
tests (tests/tournaments/).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import trio

from clients.client import Client


@dataclass
class Outcome:
    """What the bots saw: their last ``tournament`` state, refusals, timing."""

    states: dict[str, dict[str, Any]] = field(default_factory=dict)  # account -> last state
    refused: dict[str, int] = field(default_factory=dict)  # error code -> count
    seconds: float = 0.0
    finished: bool = False

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

    @property
    def done(self) -> bool:
        last = self.states[-1] if self.states else None
        return last is not None and (bool(last["place"]) or last["phase"] == "cancelled")

    async def run(self, register: bool = True) -> None:
        async with Client.connect(self.url, name=self.name) as client:
            self.client = client
            if register:
                await client.register(self.tournament)
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
        """Poker: the bot's turn."""
        r = self.rng.random()
        raise_verb = "raise" if "raise" in legal else "bet" if "bet" in legal else None
        stack = legal.get("allin", {}).get("amount", 0)
        if self.passive:
            verb = "check" if "check" in legal else "call" if "call" in legal else "fold"
            await client.act(table, verb)
        elif "allin" in legal and r < 0.04:
            await client.act(table, "allin")
        elif raise_verb and r < 0.15:
            await client.act(table, raise_verb, legal[raise_verb]["min"])
        elif "check" in legal:
            await client.act(table, "check")
        elif "call" in legal and (legal["call"]["amount"] * 4 <= stack or r < 0.35):
            await client.act(table, "call")
        else:
            await client.act(table, "fold")

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
    for bot in bots:
        if bot.client is not None and bot.client.account and bot.states:
            outcome.states[bot.client.account] = bot.states[-1]
        for err in bot.errors:
            code = str(err.get("code"))
            outcome.refused[code] = outcome.refused.get(code, 0) + 1
    return outcome
