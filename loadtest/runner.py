"""Run a load test: pick tables from the lobby, start worker processes, merge, report.

The parent process never plays: it reads ``/health`` (money before), asks the lobby for
tables with enough free seats, spreads the tables over ``procs`` worker processes
(``python -m loadtest.worker``, each its own trio loop), shows their progress as it arrives,
then reads ``/health`` again and builds the report (``loadtest/report.py``).

Conservation is checked twice. Server side, from ``/health``: every cent the wallet ever
issued is in a wallet, a table stake or a house-side account (commission, and any pool a
later table kind reports), before and after the run. Client side: once every bot has left
its seat, the bots' wallets changed by exactly minus what the house took during the run.
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack
import trio
from websockets.trio.client import connect

from loadtest import deployment
from loadtest.bot import BENIGN_ERRORS
from loadtest.server_proc import health
from loadtest.stats import Histogram, Stats
from server.games.registry import GAMES
from server.money import dollars

#: Registry entries of the games played against the house (a banked load-test bot each).
BANKED_ENTRIES = [g for g in GAMES.values() if g.kind in ("banked", "blackjack")]

#: Called with the workers' merged figures so far and the seconds since the start.
Progress = Callable[[Stats, float], None]

#: /health money fields that belong to players; every other field but ``issued`` is the
#: house's side (commission, pools, house bank).
PLAYER_FIELDS = ("wallets", "stakes", "in_play")

#: seconds after the last bot's first ``welcome`` still counted as the connection storm (its
#: join and buy-in) and left out of ``latency_ms_steady``
STORM_TAIL = 2.0


@dataclass
class RunSpec:
    url: str
    tables: int = 10
    seats: int = 9
    games: int | None = None
    duration: float = 30.0
    pace: str = "max"
    procs: int = 1
    chaos: bool = False
    seed: int | None = None
    settle_time: float = 30.0
    table_prefix: str = ""
    #: seconds left out of ``latency_ms_steady`` (at least; never before the connection
    #: storm is over: ``storm_s`` + :data:`STORM_TAIL`)
    warmup: float = 0.0
    only_games: list[str] | None = None  # fill only tables of these games (``--game``)
    extra: dict[str, Any] = field(default_factory=dict)
    #: a deployment's Redis (loadtest/deployment.py): its directory and its ledger check
    redis: str | None = None


class LoadTestError(Exception):
    """The run cannot start (no server, not enough tables)."""


async def lobby(url: str) -> list[dict[str, Any]]:
    """The server's table list, asked as a guest."""
    async with connect(url, compression=None, proxy=None, open_timeout=30) as ws:
        await ws.send(msgpack.packb({"type": "hello", "protocol": 1, "name": "loadtest"}))
        await ws.send(msgpack.packb({"type": "lobby"}))
        while True:
            msg = msgpack.unpackb(await ws.recv(), strict_map_key=False)
            if msg.get("type") == "lobby":
                return list(msg["tables"])
            if msg.get("type") == "error":
                raise LoadTestError(f"lobby refused: {msg.get('code')}: {msg.get('message')}")


def pick_tables(tables: list[dict[str, Any]], spec: RunSpec) -> list[dict[str, Any]]:
    """The first ``spec.tables`` tables with at least ``spec.seats`` free seats (a banked
    table: its free boxes, up to ``spec.seats`` of them), of ``spec.only_games`` if given.
    A table people play at gets bots in its free seats (issue 27: a person plays against
    bots): at poker whichever seats the server gives, at a banked table the boxes nobody
    else holds."""
    chosen = [
        {
            "id": t["id"],
            "seats": min(spec.seats, free) if banked else spec.seats,
            "any_seat": bool(t.get("taken", 0)),
            "min_buy_in": t["min_buy_in"],
            "max_buy_in": t.get("max_buy_in"),
            "game": t.get("game", ""),
            "banked": banked,
            "url": t.get("url"),  # a deployment: the process that serves it
            "bank_box": t.get("bank_box"),  # nobody's box (pai gow's bank, Sch 6 s18(13))
        }
        for t in tables
        for banked in [GAMES.get(t.get("game", "")) in BANKED_ENTRIES]
        for free in [t.get("seats", 0) - t.get("taken", 0)]
        if free >= (1 if banked else spec.seats)
        and str(t["id"]).startswith(spec.table_prefix)
        and (not spec.only_games or t.get("game") in spec.only_games)
    ][: spec.tables]
    if len(chosen) < spec.tables:
        raise LoadTestError(
            f"the lobby has {len(chosen)} tables with {spec.seats}+ free seats, "
            f"{spec.tables} wanted: start the server with a bigger lobby "
            "(croupier loadtest --write-config FILE, then croupier serve --tables FILE), "
            "or let the load test start one (--serve)"
        )
    return chosen


async def run_workers(
    spec: RunSpec, chosen: list[dict[str, Any]], on_progress: Progress | None = None
) -> tuple[Stats, float]:
    """Start the worker processes, relay their progress, and merge their final figures."""
    procs = max(1, min(spec.procs, len(chosen)))
    shares: list[list[dict[str, Any]]] = [chosen[i::procs] for i in range(procs)]
    latest: list[Stats] = [Stats() for _ in range(procs)]
    finals: list[Stats | None] = [None] * procs
    played = [0.0] * procs
    started = time.monotonic()
    offsets = [0]
    for share in shares[:-1]:
        offsets.append(offsets[-1] + sum(t["seats"] for t in share))

    running: list[trio.Process] = []

    async def one(i: int) -> None:
        worker_spec = {
            "url": spec.url,
            "tables": shares[i],
            "pace": spec.pace,
            "chaos": spec.chaos,
            "duration": spec.duration,
            "games": spec.games,
            "settle_time": spec.settle_time,
            "seed": None if spec.seed is None else spec.seed * 1000 + i,
            "bot_offset": offsets[i],
        }
        proc = await trio.lowlevel.open_process(
            [sys.executable, "-m", "loadtest.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        running.append(proc)
        try:
            assert proc.stdin is not None and proc.stdout is not None
            await proc.stdin.send_all(json.dumps(worker_spec).encode())
            await proc.stdin.aclose()
            buf = b""
            async for chunk in proc.stdout:
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    msg = json.loads(line)
                    if "progress" in msg:
                        latest[i] = Stats.from_dict(msg["progress"])
                        if on_progress is not None:
                            on_progress(merged(latest), time.monotonic() - started)
                    elif "final" in msg:
                        finals[i] = Stats.from_dict(msg["final"])
                        played[i] = float(msg.get("played_s", 0.0))
            await proc.wait()
        finally:
            if proc.returncode is None:
                proc.kill()
                with trio.CancelScope(shield=True):
                    await proc.wait()
        if finals[i] is None:
            raise LoadTestError(f"worker {i} ended (exit {proc.returncode}) without a result")

    async def interrupted(scope: trio.CancelScope) -> None:
        """The first Ctrl-C asks every worker to stop (its bots leave their seats, within
        the settle time); a second one kills them."""
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                if stopping:
                    scope.cancel()  # ``one``'s finally kills the workers
                    return
                stopping.append(True)
                print("stopping: the bots leave their seats (Ctrl-C again: kill)", file=sys.stderr)
                for proc in running:
                    if proc.returncode is None:
                        proc.send_signal(signal.SIGINT)

    stopping: list[bool] = []
    cpu0 = _children_cpu()
    async with trio.open_nursery() as nursery:
        if threading.current_thread() is threading.main_thread():  # signals: main only
            nursery.start_soon(interrupted, nursery.cancel_scope)
        async with trio.open_nursery() as workers:
            for i in range(procs):
                workers.start_soon(one, i)
        nursery.cancel_scope.cancel()
    if stopping and any(f is None for f in finals):
        raise LoadTestError("interrupted twice: the workers were killed")
    total = merged([f for f in finals if f is not None])
    wall = time.monotonic() - started
    total.counters["client_cpu_ms"] = round((_children_cpu() - cpu0) * 1000)
    total.counters["client_wall_ms"] = round(wall * 1000)
    return total, max(played) or wall


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (the worker processes)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def merged(parts: list[Stats]) -> Stats:
    out = Stats()
    for p in parts:
        out.merge(p)
    return out


#: /health's money fields paid out of what another field holds (a jackpot's pool is what
#: was contributed less what was paid)
PAID_OUT = ("jackpot_paid",)


def money_held(money: dict[str, Any]) -> int:
    """Every cent /health's ``money`` says is held somewhere: wallets, stakes, in play,
    commission, the house's net, tournaments, and the jackpot pools (contributed less
    paid). The one sum every mode of the load test checks against ``issued``."""
    held = sum(int(v) for k, v in money.items() if k != "issued" and k not in PAID_OUT)
    return held - sum(int(money.get(k, 0)) for k in PAID_OUT)


def money_conserved(money: dict[str, Any]) -> bool:
    """Whether the books balance: every cent issued is held (:func:`money_held`)."""
    return money_held(money) == int(money["issued"])


def house_side(money: dict[str, Any]) -> int:
    """What the house side holds: :func:`money_held` less the players' fields."""
    return money_held(money) - sum(int(money.get(k, 0)) for k in PLAYER_FIELDS)


def conservation(
    before: dict[str, Any] | None, after: dict[str, Any] | None, stats: Stats
) -> dict[str, Any]:
    """Server-side (issued == held, before and after) and client-side (bots' net == -house)."""
    out: dict[str, Any] = {"before": before, "after": after}
    checks: list[bool] = []
    for name, money in (("before", before), ("after", after)):
        if money is not None and "issued" in money:
            ok = money_conserved(money)
            out[f"server_{name}_ok"] = ok
            checks.append(ok)
    bots = stats.counters.get("bots", 0)
    if before is not None and after is not None and stats.bots_settled == bots and bots:
        bots_net = stats.balances_end - stats.balances_start
        house_delta = house_side(after) - house_side(before)
        # what players other than the bots won or lost (a person at a bot table): the
        # players' money moved by more than the bots' net and the money issued meanwhile
        issued = int(after.get("issued", 0)) - int(before.get("issued", 0))
        players = sum(int(after.get(k, 0)) - int(before.get(k, 0)) for k in PLAYER_FIELDS)
        others = players - issued - bots_net
        out["bots_net"] = bots_net
        out["house_delta"] = house_delta
        out["stakes_after"] = int(after.get("stakes", 0))
        if others and stats.counters.get("others_seen"):
            out["others_net"] = others
            out["client_ok"] = None
            out["client_note"] = (
                f"other players at the tables (net {'+' if others >= 0 else ''}"
                f"{dollars(others)}): the bots' net alone is not the house's; the "
                "server-side checks stand"
            )
        else:
            ok = bots_net + house_delta == 0
            out["client_ok"] = ok
            checks.append(ok)
    else:
        out["client_ok"] = None
        out["client_note"] = (
            f"{stats.bots_settled} of {bots} bots settled: client-side check skipped"
        )
    out["conserved"] = bool(checks) and all(checks)
    return out


def by_game(stats: Stats) -> dict[str, dict[str, Any]]:
    """Per game: the action latency, and at banked tables rounds, decisions (by verb) and
    money: the bots' wallets changed by exactly the net of their round results."""
    out: dict[str, dict[str, Any]] = {}
    for game, hist in sorted(stats.by_game.items()):
        out[game] = {"latency_ms": hist.summary()}
    for key, n in stats.counters.items():
        if not key.startswith("game:"):
            continue
        game, _, what = key[5:].partition(":")
        row = out.setdefault(game, {"latency_ms": Histogram().summary()})
        if what.startswith("verb:"):
            row.setdefault("verbs", {})[what[5:]] = n
        else:
            row[what] = n
    for row in out.values():
        if "results_net" in row or "wallet_net" in row:
            row.setdefault("results_net", 0)
            row.setdefault("wallet_net", 0)
            row["conserved"] = row["results_net"] == row["wallet_net"]
    return out


def build_report(
    spec: RunSpec,
    stats: Stats,
    played_s: float,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
) -> dict[str, Any]:
    secs = max(played_s, 1e-9)
    c = stats.counters
    cons = conservation(before, after, stats)
    per_game = by_game(stats)
    unexpected_errors = {k: v for k, v in stats.errors.items() if k not in BENIGN_ERRORS}
    unexpected = (
        sum(unexpected_errors.values())
        + c.get("unexpected_closes", 0)
        + c.get("gap_frames", 0)
        + c.get("unsettled", 0)
    )
    # steady play: after the warm-up and after the connection storm (the last bot's first
    # welcome, and STORM_TAIL s for its join and buy-in), before the stop (the leaving storm)
    steady_from = max(spec.warmup, stats.storm_s + STORM_TAIL if stats.storm_s else 0.0)
    steady = Histogram()
    for sec, hist in stats.timeline.items():
        if steady_from <= sec and sec + 1 <= played_s:
            steady.merge(hist)
    timeline = []
    for sec in sorted(stats.timeline):
        h = stats.timeline[sec]
        timeline.append(
            {
                "t": sec,
                "count": h.n,
                "p50": round(h.percentile(50), 2),
                "p99": round(h.percentile(99), 2),
                "max": round(h.max, 2),
            }
        )
    return {
        "config": {
            "url": spec.url,
            "tables": spec.tables,
            "seats": spec.seats,
            "games": spec.games,
            "duration": spec.duration,
            "pace": spec.pace,
            "procs": spec.procs,
            "chaos": spec.chaos,
            "seed": spec.seed,
            "warmup": spec.warmup,
            **spec.extra,
        },
        "played_s": round(played_s, 2),
        "bots": c.get("bots", 0),
        "hands": c.get("hands", 0),
        "hands_per_s": round(c.get("hands", 0) / secs, 1),
        "actions": c.get("actions", 0),
        "actions_per_s": round(c.get("actions", 0) / secs, 1),
        "frames_to_server": c.get("frames_out", 0),
        "frames_from_server": c.get("frames_in", 0),
        "frames_to_server_per_s": round(c.get("frames_out", 0) / secs, 1),
        "frames_from_server_per_s": round(c.get("frames_in", 0) / secs, 1),
        "messages_from_server": c.get("messages_in", 0),  # events counted one by one
        "messages_from_server_per_s": round(c.get("messages_in", 0) / secs, 1),
        "bytes_from_server": c.get("bytes_in", 0),
        "frames_from_server_by_type": dict(stats.kinds.most_common()),
        "latency_ms": stats.latency.summary(),
        "latency_ms_steady": {**steady.summary(), "after_s": steady_from},
        "storm_s": stats.storm_s,
        "errors": dict(stats.errors),
        "unexpected_errors": unexpected_errors,
        "unexpected": unexpected,
        "disconnects": {
            "chaos": c.get("chaos_disconnects", 0),
            "slow_reads": c.get("chaos_slow_reads", 0),
            "server_closes": dict(stats.closes),
            "unexpected_closes": c.get("unexpected_closes", 0),
            "reconnects": c.get("reconnects", 0),
            "resumed_seats": c.get("resumed", 0),
        },
        "voided": c.get("voided", 0),
        "timed_out": c.get("timed_out", 0),
        "buy_ins": c.get("buy_ins", 0),
        "vacated": dict(stats.vacated_reasons),
        "seq_gaps": c.get("gap_frames", 0),
        "unsettled_bots": c.get("unsettled", 0),
        "client_gc_worst_ms": c.get("client_gc_worst_ms", 0),
        "client_cpu_share": round(
            c.get("client_cpu_ms", 0) / max(c.get("client_wall_ms", 0), 1), 2
        ),
        "conservation": cons,
        "conserved": cons["conserved"],
        "by_game": per_game,
        "ok": cons["conserved"]
        and unexpected == 0
        and all(g.get("conserved") is not False for g in per_game.values()),
        "problems": stats.problems,
        "timeline": timeline,
    }


async def run(spec: RunSpec, on_progress: Progress | None = None) -> dict[str, Any]:
    """The whole run against ``spec.url``; returns the report dict."""
    rows = await deployment.directory_rows(spec.redis) if spec.redis else None
    if rows is None or not deployment.is_deployment(rows):
        try:
            before = (await health(spec.url)).get("money")
        except OSError as exc:
            raise LoadTestError(f"no server answers at {spec.url}: {exc}") from None
        rows = await lobby(spec.url)
        if deployment.is_deployment(rows):  # any process's lobby of a deployment
            before = None
    else:
        before = None
    chosen = pick_tables(rows, spec)
    stats, played = await run_workers(spec, chosen, on_progress)
    if not deployment.is_deployment(rows):
        after = (await health(spec.url)).get("money")
        return build_report(spec, stats, played, before, after)
    # a deployment: bots went to each table's owner; money is checked on its ledger
    report = build_report(spec, stats, played, None, None)
    urls = deployment.owners(rows)
    report["config"]["owners"] = urls
    if spec.redis:
        report["conservation"] = deployment.conservation(
            await deployment.ledger_check(spec.redis), urls
        )
    else:
        report["conservation"] = {"deployment": urls, "conserved": None}
    report["conserved"] = report["conservation"]["conserved"]
    report["ok"] = (
        report["conserved"] is not False
        and report["unexpected"] == 0
        and all(g.get("conserved") is not False for g in report["by_game"].values())
    )
    return report
