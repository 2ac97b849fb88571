"""Stadium mode of the load test: N terminals on one stadium table (QLD Sch 19).

Each terminal connects over a real WebSocket, says ``hello`` (a dev-mode guest), joins the
table, buys credits and, every betting window, places one or two random wagers of the
table minimum (``place``, without waiting for the ``bet_ack``: a thousand terminals touch
the layout at once). A reader timestamps every frame: the settlement latency of a terminal
is the wall-clock time from the server's "no more bets" (``no_more_bets.server_time``) to the
frame that carries its ``settlement``. The run ends after ``rounds`` settled rounds per
terminal; every terminal then cashes out and leaves, so the conservation check
(``/status``: issued == wallets + layout + house) sees every cent.

Used by ``croupier loadtest --stadium TABLE --terminals N`` and by
``benchmarks/stadium_bench.py``; ``python -m loadtest.stadium URL TABLE GAME N ROUNDS
[WARMUP]`` runs one process's share and prints its figures as JSON (the benchmark's client
processes).
"""

from __future__ import annotations

import json
import random
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack
import trio
from websockets.trio.client import connect

from clients.client import unbatch

#: positions a terminal picks from, per game (every one is on every layout of the game)
POSITIONS: dict[str, tuple[str, ...]] = {
    "roulette": ("red", "black", "odd", "even", "low", "high", "dozen_1", "straight_17"),
    "sic-bo": ("small", "big", "odd", "even", "total_10", "single_3"),
    "wheel-of-fortune": ("a", "b", "c", "d"),
    "craps": ("field", "any7", "eleven"),
    "baccarat": ("player", "banker", "tie"),
}


#: cents a terminal buys credits for (at most what its wallet holds)
CREDITS = 1_000_000
#: seconds a terminal waits for its cash-out and ``left`` at the end
LEAVE_TIME = 10.0


@dataclass
class TerminalStats:
    """What one process's terminals measured."""

    latencies_ms: list[float] = field(default_factory=list)  # per terminal per round
    round_max_ms: dict[int, float] = field(default_factory=dict)  # the last terminal's
    wagers: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    settled: int = 0
    unsettled: int = 0  # rounds a terminal wagered in with every wager refused
    interrupted: bool = False  # Ctrl-C ended the play early
    timed_out: bool = False  # the run's deadline ended the play
    frame_bytes: list[int] = field(default_factory=list)  # the frames with a settlement

    def to_json(self) -> dict[str, Any]:
        return {
            "latencies_ms": self.latencies_ms,
            "round_max_ms": {str(k): v for k, v in self.round_max_ms.items()},
            "wagers": self.wagers,
            "refused": self.refused,
            "settled": self.settled,
            "unsettled": self.unsettled,
            "frame_bytes": self.frame_bytes,
        }


async def terminal(
    url: str,
    table: str,
    game: str,
    rounds: int,
    stats: TerminalStats,
    rng: random.Random,
    ready: trio.Event | None = None,
    warmup: int = 0,
    on_round: Callable[[int, TerminalStats], None] | None = None,
    scopes: set[trio.CancelScope] | None = None,
) -> None:
    """One terminal (see the module docstring); ``on_round(round, stats)`` after each of
    its settlements; its play is cancelled through ``scopes`` (then it cashes out and
    leaves all the same)."""
    async with connect(url, compression=None, proxy=None, max_size=2**22, max_queue=None) as ws:

        async def send(msg: dict[str, Any]) -> None:
            await ws.send(msgpack.packb(msg, use_bin_type=True))

        async def frames() -> Any:
            while True:
                raw = await ws.recv()
                at = time.time() * 1000
                for m in unbatch(msgpack.unpackb(raw, raw=False, strict_map_key=False)):
                    yield at, len(raw), m

        await send({"type": "hello", "protocol": 1})
        balance = 0
        async for _at, _size, m in frames():
            if m.get("type") == "welcome":
                balance = int(m.get("balance") or 0)
                break
            if m.get("type") == "error":
                raise RuntimeError(f"hello refused: {m.get('code')}: {m.get('message')}")
        await send({"type": "join", "table": table})
        # credits the wallet holds (a production server starts a guest with $1,000: a
        # larger credit_in was refused, no wager was ever accepted, and the run waited for
        # settlements that never came; issue 27, point 7)
        await send({"type": "credit_in", "table": table, "amount": min(CREDITS, balance)})
        closed_at: dict[int, float] = {}
        opened: set[int] = set()  # the betting windows this terminal wagered in
        acked: set[int] = set()  # the rounds with a wager of this terminal accepted
        done = 0
        choices = POSITIONS.get(game, ("red",))
        minimum = 100
        with trio.CancelScope() as playing:  # cancelled by Ctrl-C (run_terminals)
            if scopes is not None:
                scopes.add(playing)
            if stats.interrupted or stats.timed_out:  # connected after the stop
                playing.cancel()
            async for at, size, m in frames():
                if m.get("type") == "snapshot":
                    minimum = m["view"]["game_config"]["limits"]["minimum"]
                    if ready is not None:
                        ready.set()
                    continue
                if m.get("type") == "error":
                    stats.refused[m["code"]] = stats.refused.get(m["code"], 0) + 1
                    continue
                if m.get("type") != "event":
                    continue
                ev = m["event"]
                kind = ev.get("type")
                if kind == "betting_open" and done < rounds:
                    opened.add(ev["round"])
                    for position in rng.sample(choices, rng.randint(1, 2)):
                        await send(
                            {
                                "type": "place",
                                "table": table,
                                "position": position,
                                "amount": minimum,
                            }
                        )
                        stats.wagers += 1
                elif kind == "bet_ack":
                    acked.add(ev["round"])
                elif kind == "no_more_bets":
                    closed_at[ev["round"]] = ev["server_time"]
                elif kind == "round_result" and ev["round"] in opened - acked:
                    stats.unsettled += 1  # every wager refused: the round counts, unsettled
                    done += 1
                elif kind == "settlement":
                    start = closed_at.get(ev["round"])
                    if start is not None and done >= warmup:
                        ms = at - start
                        stats.latencies_ms.append(ms)
                        r = ev["round"]
                        stats.round_max_ms[r] = max(stats.round_max_ms.get(r, 0.0), ms)
                        stats.frame_bytes.append(size)
                    stats.settled += 1
                    done += 1
                    if on_round is not None:
                        on_round(ev["round"], stats)
                if done >= rounds:
                    break
        if scopes is not None:
            scopes.discard(playing)
        with trio.move_on_after(LEAVE_TIME):
            await send({"type": "cash_out", "table": table})
            await send({"type": "leave", "table": table})
            async for _at, _size, m in frames():
                if m.get("type") == "left":
                    break


async def run_terminals(
    url: str,
    table: str,
    game: str,
    count: int,
    rounds: int,
    seed: int = 1,
    warmup: int = 0,
    on_round: Callable[[int, TerminalStats], None] | None = None,
    deadline: float | None = None,
) -> TerminalStats:
    """``count`` terminals on ``table`` until each has ``rounds`` settlements (or a round
    with every wager refused, counted as ``unsettled``); the latency of each terminal's
    first ``warmup`` settlements is left out (rounds while others connect). After
    ``deadline`` seconds the play ends as at a Ctrl-C (``timed_out``): the run is bounded
    even when the table stalls."""
    stats = TerminalStats()
    scopes: set[trio.CancelScope] = set()

    async def interrupted(nursery: trio.Nursery) -> None:
        """The first Ctrl-C ends the play: every terminal cashes out and leaves (its seat
        was held for the grace period when the run died at once; issue 27); a second one
        ends the run."""
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                if stats.interrupted:
                    nursery.cancel_scope.cancel()
                    return
                stats.interrupted = True
                print("stopping: the terminals cash out and leave (Ctrl-C again: end)")
                for scope in list(scopes):
                    scope.cancel()

    async def out_of_time(seconds: float) -> None:
        await trio.sleep(seconds)
        stats.timed_out = True
        for scope in list(scopes):
            scope.cancel()

    async with trio.open_nursery() as outer:
        if threading.current_thread() is threading.main_thread():  # signals: main only
            outer.start_soon(interrupted, outer)
        if deadline is not None:
            outer.start_soon(out_of_time, deadline)
        async with trio.open_nursery() as nursery:
            for i in range(count):
                rng = random.Random(seed + i)
                nursery.start_soon(
                    terminal, url, table, game, rounds, stats, rng, None, warmup, on_round, scopes
                )
                if i % 50 == 49:
                    await trio.sleep(0.05)  # connect in waves, not one SYN flood
        outer.cancel_scope.cancel()
    return stats


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def summary(stats: TerminalStats) -> dict[str, Any]:
    lat = stats.latencies_ms
    return {
        "settlements": stats.settled,
        "unsettled": stats.unsettled,
        "interrupted": stats.interrupted,
        "timed_out": stats.timed_out,
        "wagers": stats.wagers,
        "refused": stats.refused,
        "p50_ms": round(percentile(lat, 0.5), 1),
        "p99_ms": round(percentile(lat, 0.99), 1),
        "max_ms": round(max(lat, default=0.0), 1),
        "last_terminal_p50_ms": round(percentile(list(stats.round_max_ms.values()), 0.5), 1),
    }


def main() -> int:
    url, table, game, count, rounds = sys.argv[1:6]
    warmup = int(sys.argv[6]) if len(sys.argv) > 6 else 0
    stats = trio.run(run_terminals, url, table, game, int(count), int(rounds), 1, warmup)
    print(json.dumps(stats.to_json()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
