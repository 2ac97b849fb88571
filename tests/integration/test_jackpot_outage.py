"""Jackpot equipment failure at a live table: Redis stops mid-run, then comes back.

QLD Sch 3 s13(2), s34 and ACT 2017 r 4.2: while the jackpot system is down no jackpot wager
is offered or accepted (a jackpot wager gets ``jackpot_unavailable``, the table view says so)
and the game goes on without it; once the system is back jackpot wagers reopen. No
contribution is lost or applied twice (jackpots.md 5.5, 5.8) and ``croupier jackpot check``
passes (5.9).
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import pytest
import trio

from clients.client import Client, ServerError
from server.jackpots.service import open_jackpot_service
from tests.integration.helpers import (
    DEALER_NO_QUALIFY,
    ROYAL,
    BotStats,
    RedisServer,
    ServerProcess,
    banked_bot,
    conserved,
    csp_table,
    write_tables,
)
from tests.integration.test_banked_round import expect
from tests.shared import REPO
from tests.support import until


async def test_redis_outage_closes_then_reopens_jackpot_wagers_exactly_once_s34(
    tmp_path: Path,
) -> None:
    """QLD Sch 3 s34, s13(2); ACT 2017 r 4.2; jackpots.md 5.8 and 5.9."""
    redis = RedisServer(tmp_path)
    redis.start()
    pool = f"outage-{os.getpid()}"
    tables = write_tables(tmp_path / "t.toml", [csp_table("csp-o", pool)])
    server = ServerProcess(tables, redis.url)
    try:
        await server.started()
        bots = {1: BotStats(), 2: BotStats()}
        async with trio.open_nursery() as nursery:
            for box, stats in bots.items():
                nursery.start_soon(
                    functools.partial(
                        banked_bot,
                        server.url,
                        "csp-o",
                        box,
                        stats,
                        rounds=10_000,
                        name=f"bot{box}",
                        seed=box,
                        deadline=80,
                    )
                )

            def rounds() -> int:
                return min(s.rounds for s in bots.values())

            await until(lambda: rounds() >= 2, 20)
            redis.kill()  # the jackpot system fails mid-run
            await until(lambda: all(s.jackpot_closed_seen for s in bots.values()), 5)
            async with Client.connect(server.url, name="look") as look:
                view = (await look.join("csp-o", role="spectator")).view
            assert view["jackpot"]["open"] is False and "unavailable" in view["jackpot"]["status"]
            start = rounds()
            await until(lambda: rounds() >= start + 3, 20)  # the game goes on without them
            assert all(s.refused["jackpot_unavailable"] >= 1 for s in bots.values())
            during = [r for s in bots.values() for r in s.results[-2:]]
            assert all("jackpot" not in r["wagers"] and "ante" in r["wagers"] for r in during)

            redis.start()  # back: jackpot wagers reopen
            await until(lambda: all(s.jackpot_reopened_seen for s in bots.values()), 10)
            start = rounds()
            await until(lambda: rounds() >= start + 2, 20)
            after = [r for s in bots.values() for r in s.results[-1:]]
            assert all("jackpot" in r["wagers"] for r in after)
            nursery.cancel_scope.cancel()

        # Let the round in play settle (the bots' boxes time out), then reconcile.
        with trio.fail_after(15):
            while True:
                health = await server.health()
                if health["money"]["stakes"] == 0 and health["jackpots"][0]["held"] == 0:
                    break
                await trio.sleep(0.2)
        assert conserved(health), health
        accepted = sum(s.jackpot_accepted for s in bots.values())
        assert health["jackpots"][0]["wagers"] == accepted
        async with open_jackpot_service(redis.url) as service:
            with trio.fail_after(10):
                while (snap := await service.snapshot(pool)) is None or (
                    snap.contributions != accepted * 30
                ):
                    await trio.sleep(0.1)  # an outbox retry may still be landing
            audit = await service.audit(pool)
        contributions = [e for e in audit if e["op"] == "contribute"]
        assert len(contributions) == len({(e["round"], e["ref"]) for e in contributions})
        assert len(contributions) == accepted
        check = await trio.run_process(
            [sys.executable, "-m", "server.cli", "jackpot", "--redis", redis.url, "check", pool],
            cwd=REPO,
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        server.stop()
        redis.kill()


async def test_jackpot_won_during_an_outage_is_held_then_paid_5_8(tmp_path: Path) -> None:
    """jackpots.md 5.8: the pool fails after coin-in and before settlement: ante and bet
    settle at once, the jackpot payment is held, and paid once the pool is back (QLD s23(3)
    order kept: ante and bet first)."""
    redis = RedisServer(tmp_path)
    redis.start()
    pool = f"held-{os.getpid()}"
    tables = write_tables(tmp_path / "t.toml", [csp_table("csp-h", pool, decision_seconds=5)])
    server = ServerProcess(tables, redis.url)
    try:
        await server.started()
        async with Client.connect(server.url, name="lucky") as lucky:
            await lucky.join("csp-h", seat=1)
            await lucky.dev_force("csp-h", boxes={"1": ROYAL}, dealer=DEALER_NO_QUALIFY)
            log: list[dict] = []
            await expect(lucky, "betting_open", log)
            await lucky.wager("csp-h", 1, "ante", 500)
            await lucky.wager("csp-h", 1, "jackpot", 100)
            await expect(lucky, "decision", log)  # the jackpot wager was coined in
            redis.kill()
            await expect(lucky, "jackpot_status", log, lambda e: not e["open"])
            await lucky.decide("csp-h", 1, "bet")
            result = await expect(lucky, "round_result", log)
            assert result["jackpot_pending"] == [1]
            assert result["boxes"]["1"]["wagers"]["ante"]["outcome"] == "win"
            assert not any(m.get("event", {}).get("type") == "jackpot_paid" for m in log)
            redis.start()
            paid = await expect(lucky, "jackpot_paid", log, timeout=15)
            assert (paid["hand"], paid["amount"]) == ("royal flush", 1_000_025)
            recall = await lucky.recall("csp-h")
            assert recall["boxes"]["1"]["wagers"]["jackpot"]["outcome"] == "win"
        health = await server.health()
        assert conserved(health) and health["jackpots"][0]["held"] == 0, health
        check = await trio.run_process(
            [sys.executable, "-m", "server.cli", "jackpot", "--redis", redis.url, "check", pool],
            cwd=REPO,
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        server.stop()
        redis.kill()


async def test_outage_during_the_betting_window_returns_the_jackpot_wager_s34(
    tmp_path: Path,
) -> None:
    """QLD Sch 3 s34: the jackpot system fails while betting is open: the jackpot wager on the
    layout goes back to the player, new ones are refused, the ante plays; when the system is
    back the next window takes jackpot wagers again."""
    redis = RedisServer(tmp_path)
    redis.start()
    pool = f"window-{os.getpid()}"
    tables = write_tables(tmp_path / "t.toml", [csp_table("csp-w", pool, betting_seconds=3)])
    server = ServerProcess(tables, redis.url)
    try:
        await server.started()
        async with Client.connect(server.url, name="gus") as gus:
            await gus.join("csp-w", seat=5)
            log: list[dict] = []
            opened = await expect(gus, "betting_open", log)
            await gus.wager("csp-w", 5, "ante", 500)
            await gus.wager("csp-w", 5, "jackpot", 100)
            balance = gus.balance
            redis.kill()
            returned = await expect(gus, "jackpot_wager_returned", log)
            assert (returned["box"], returned["amount"]) == (5, 100)
            with pytest.raises(ServerError) as info:
                await gus.wager("csp-w", 5, "jackpot", 100)
            assert info.value.code == "jackpot_unavailable"
            closed = await expect(gus, "no_more_bets", log)
            assert closed["round"] == opened["round"] and closed["boxes"] == {"5": {"ante": 500}}
            assert gus.balance == balance + 100
            redis.start()
            await expect(gus, "jackpot_status", log, lambda e: e["open"], timeout=10)
            await expect(gus, "betting_open", log)
            await gus.wager("csp-w", 5, "ante", 500)
            accepted = await gus.wager("csp-w", 5, "jackpot", 100)
            assert accepted["box_wagers"] == {"ante": 500, "jackpot": 100}
    finally:
        server.stop()
        redis.kill()
