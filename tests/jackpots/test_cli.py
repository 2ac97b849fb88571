"""``croupier jackpot`` against a real redis-server: seed, show, check, reset, exit codes."""

from __future__ import annotations

import json
import subprocess

import pytest
import trio

from server.cli import main
from server.jackpots.memory import MemoryJackpotService
from server.jackpots.model import PoolConfig
from tests.jackpots.conftest import fresh_pool


def croupier(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["jackpot", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def redis_cli(redis_proc, *args: str) -> str:
    result = subprocess.run(
        ["redis-cli", "-h", redis_proc.host, "-p", str(redis_proc.port), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=10,
    )
    return result.stdout


def test_seed_show_check_reset_round_trip(redis_proc, redis_url, capsys) -> None:
    """Seed a QLD pool with the JP-05 opening figures; show it; check it; reset it."""
    pool = fresh_pool("cli")
    code, out, _ = croupier(
        capsys,
        "--redis",
        redis_url,
        "seed",
        pool,
        "--regime",
        "qld",
        "--seed",
        "5000",
        "--meter",
        "5999.25",
        "--reserve",
        "3000",
    )
    assert code == 0 and "$5,999.25" in out
    code, out, _ = croupier(capsys, "--redis", redis_url, "show", pool, "--json")
    shown = json.loads(out)[0]
    assert code == 0
    assert (shown["meter"], shown["reserve"], shown["seed"]) == (599_925, 300_000, 899_925)
    assert shown["config"]["seed"] == 500_000
    code, out, _ = croupier(capsys, "--redis", redis_url, "check", pool)
    assert code == 0 and f"{pool}: ok" in out
    code, out, _ = croupier(capsys, "--redis", redis_url, "reset", pool, "--id", "n1")
    assert code == 0 and "meter                $5,000.00" in out
    code, out, _ = croupier(capsys, "--redis", redis_url, "check", "--json")
    assert code == 0 and {"pool": pool, "ok": True, "entries": 2, "problems": []} in json.loads(out)


def test_check_exits_nonzero_when_invariant_broken_5_9(redis_proc, redis_url, capsys) -> None:
    """Digest 5.9: a meter changed outside the service breaks the invariant and the audit
    replay; ``check`` says which pool and exits 1."""
    pool = fresh_pool("cli")
    assert croupier(capsys, "--redis", redis_url, "seed", pool, "--regime", "act2017")[0] == 0
    redis_cli(redis_proc, "HINCRBY", f"jp:{{{pool}}}:state", "meter", "1")
    code, out, _ = croupier(capsys, "--redis", redis_url, "check", pool)
    assert code == 1
    assert f"{pool}: BROKEN" in out and "audit replay gives meter 1000000, stored 1000001" in out


def test_check_catches_a_deleted_audit_entry_5_9(redis_proc, redis_url, capsys) -> None:
    """Totals that balance are not enough: the audit stream must account for them."""
    pool = fresh_pool("cli")
    croupier(capsys, "--redis", redis_url, "seed", pool, "--regime", "qld")
    redis_cli(redis_proc, "XTRIM", f"jp:{{{pool}}}:audit", "MAXLEN", "0")
    code, out, _ = croupier(capsys, "--redis", redis_url, "check", pool)
    assert code == 1 and "audit ends at version 0, stored 1" in out


def test_unreachable_store_and_bad_usage_exit_codes(capsys) -> None:
    assert croupier(capsys, "--redis", "redis://127.0.0.1:1", "show")[0] == 3
    assert croupier(capsys, "show", "no-such-pool")[0] == 2
    with pytest.raises(SystemExit) as bad:
        croupier(capsys, "seed", "p", "--regime", "qld", "--seed", "1.234")
    assert bad.value.code == 2


def test_memory_backend_check_detects_tampering_5_9() -> None:
    async def scenario() -> list[str]:
        service = MemoryJackpotService()
        await service.open_pool("p", PoolConfig.profile("qld"))
        await service.contribute("p", "r", "w", 100)
        service._pools["p"].reserve += 5
        return (await service.check("p")).problems

    problems = trio.run(scenario)
    assert any("break the invariant" in p for p in problems)
