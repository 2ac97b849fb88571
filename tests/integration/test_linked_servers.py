"""Two ``croupier serve`` processes, one Redis, linked Caribbean stud tables (QLD Sch 3 s9).

Bots play real rounds over WebSockets at a linked table on each server. Every jackpot wager a
bot placed and the table did not return is credited to the shared pool exactly once (the
pool's contributions, its audit stream and both servers' counts agree); a forced royal flush
at one server moves the other server's meter within 1 s (s9(2)(c), s9(3)); money is conserved
in each process and the pool passes its reconciliation (jackpots.md 5.9).
"""

from __future__ import annotations

import functools
import itertools
import os
import time
from pathlib import Path

import pytest
import trio

from clients.client import Client
from server.jackpots.service import open_jackpot_service
from tests.integration.helpers import (
    DEALER_NO_QUALIFY,
    ROYAL,
    BotStats,
    ServerProcess,
    banked_bot,
    conserved,
    csp_table,
    write_tables,
)

_ids = itertools.count()
ROUNDS = 5


async def watch_meter(
    url: str, table: str, seen: list[tuple[float, dict]], ready: trio.Event
) -> None:
    """A spectator at ``table``: every meter event with the time it arrived."""
    async with Client.connect(url, name="watcher") as client:
        await client.join(table, role="spectator")
        ready.set()
        async for message in client:
            if message.get("type") == "event" and message["event"]["type"] == "meter":
                seen.append((time.monotonic(), message["event"]))


@pytest.mark.slow
async def test_two_servers_one_pool_exactly_once_and_meter_within_1s_s9(
    redis_proc, tmp_path: Path
) -> None:
    """QLD Sch 3 s9 (linked tables), s14(2)-(3) coin-in; jackpots.md 5.5 exactly once, 5.9."""
    url = f"redis://{redis_proc.host}:{redis_proc.port}"
    pool = f"itest-{os.getpid()}-{next(_ids)}"
    tables_a = write_tables(tmp_path / "a.toml", [csp_table("csp-a", pool)])
    tables_b = write_tables(tmp_path / "b.toml", [csp_table("csp-b", pool)])
    volatile = "--allow-volatile-redis"  # pytest-redis runs without AOF
    server_a = ServerProcess(tables_a, url, volatile)
    server_b = ServerProcess(tables_b, url, volatile)
    try:
        await server_a.started()
        await server_b.started()
        stats = {k: BotStats() for k in ("a1", "a2", "b1", "b2")}
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for key, server, table in (
                    ("a1", server_a, "csp-a"),
                    ("a2", server_a, "csp-a"),
                    ("b1", server_b, "csp-b"),
                    ("b2", server_b, "csp-b"),
                ):
                    nursery.start_soon(
                        functools.partial(
                            banked_bot,
                            server.url,
                            table,
                            int(key[1]),
                            stats[key],
                            rounds=ROUNDS,
                            name=key,
                            seed=int(key[1]) + ord(key[0]),
                        )
                    )
        assert all(s.rounds == ROUNDS for s in stats.values())
        placed = sum(s.jackpot_accepted for s in stats.values())
        assert placed >= 4 * ROUNDS - 2  # the pool was up: nearly every jackpot wager taken

        # A forced royal flush at server A; server B's spectator sees the meter move.
        meter_b: list[tuple[float, dict]] = []
        forced = BotStats()
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                ready = trio.Event()
                nursery.start_soon(watch_meter, server_b.url, "csp-b", meter_b, ready)
                await ready.wait()
                await banked_bot(
                    server_a.url,
                    "csp-a",
                    3,
                    forced,
                    rounds=3,
                    name="lucky",
                    force={"boxes": {"3": ROYAL}, "dealer": DEALER_NO_QUALIFY},
                )
                paid_at, paid = forced.paid[0]
                while not any(e["op"] == "award" for _, e in meter_b):
                    await trio.sleep(0.02)
                nursery.cancel_scope.cancel()
        seen_at, update = next((t, e) for t, e in meter_b if e["op"] == "award")
        assert paid["hand"] == "royal flush" and paid["amount"] >= 1_000_000  # s24: >= 10,000
        assert seen_at - paid_at < 1.0
        assert update["meter"] == 1_000_000  # the pool paid out and was topped up to its seed

        # Every jackpot wager lands exactly once; both servers and the pool agree.
        accepted = placed + forced.jackpot_accepted
        health = [await server_a.health(), await server_b.health()]
        assert all(conserved(h) for h in health), health
        linked = [j for h in health for j in h["jackpots"]]
        assert sum(j["wagers"] for j in linked) == accepted
        async with open_jackpot_service(url) as service:
            snap = await service.snapshot(pool)
            audit = await service.audit(pool)
            report = await service.check(pool)
        assert snap is not None and report.ok, report.problems
        contributions = [e for e in audit if e["op"] == "contribute"]
        assert len(contributions) == accepted
        assert len({(e["round"], e["ref"]) for e in contributions}) == accepted
        assert snap.contributions == accepted * 30 == sum(j["contributed"] for j in linked)
        # every jackpot paid: the forced royal flush, and any fixed-odds award a bot's random
        # hand won while the tables played (a four of a kind pays from the pool too)
        every_award = [e["amount"] for s in [*stats.values(), forced] for _, e in s.paid]
        assert paid["amount"] in every_award
        assert snap.paid == sum(every_award) == sum(j["paid"] for j in linked)
    finally:
        server_a.stop()
        server_b.stop()
