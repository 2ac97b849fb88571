"""Running it on a floor (issue 28): Prometheus metrics that move as play goes on, JSON log
lines that name each round, and a ``/ready`` that fails at a SIGTERM before anything stops.

A real ``croupier serve`` process, a bot playing Caribbean stud over a real WebSocket, the
metrics read with Prometheus's own text parser (``prometheus_client.parser``)."""

from __future__ import annotations

import json
import signal
import urllib.error
import urllib.request
from pathlib import Path

import trio
from prometheus_client.parser import text_string_to_metric_families

from clients.client import Client
from tests.integration.helpers import BotStats, ServerProcess, banked_bot, write_tables

GAME = "caribbean-stud"


def _get(url: str) -> tuple[int, bytes]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=5) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition, by name and labels (the library's own parser)."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


async def _metrics(server: ServerProcess) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    status, body = await trio.to_thread.run_sync(_get, server.http + "metrics")
    assert status == 200, body  # a dev-mode server answers its own machine without a token
    return _samples(body.decode())


async def test_metrics_move_logs_name_rounds_and_ready_fails_first(tmp_path: Path) -> None:
    tables = write_tables(
        tmp_path / "t.toml",
        [
            {
                "id": "cs1",
                "game": GAME,
                "betting_seconds": 0.3,
                "decision_seconds": 2.0,
                "options": {"minimum": 100, "maximum": 10000},
            }
        ],
    )
    server = ServerProcess(
        tables, None, "--log-format", "json", "--log-level", "info", "--drain-grace", "30"
    )
    try:
        await server.started()
        status, body = await trio.to_thread.run_sync(_get, server.http + "ready")
        assert (status, json.loads(body)) == (200, {"status": "ready"})
        before = await _metrics(server)
        rounds = ("croupier_rounds_total", (("game", GAME), ("state", "settled")))
        assert before.get(rounds, 0) == 0
        assert before[("croupier_tables", (("game", GAME), ("kind", "banked"), ("state", "idle")))]

        stats = BotStats()
        async with Client.connect(server.url, name="watcher") as watcher:  # a session open
            during = await _metrics(server)
            assert during[("croupier_connections", (("role", "player"),))] == 1
            assert watcher.token
        await banked_bot(server.url, "cs1", 1, stats, rounds=3, name="bot", deadline=60)
        after = await _metrics(server)
        assert after[rounds] >= 3
        started = ("croupier_rounds_total", (("game", GAME), ("state", "started")))
        assert after[started] >= after[rounds]
        actions = ("croupier_actions_total", (("kind", "banked"),))
        assert after[actions] >= 3 * 2  # an ante and a decision a round, at least
        assert after[("croupier_action_seconds_count", ())] >= after[actions]
        assert after[("croupier_ledger_commit_seconds_count", ())] > before.get(
            ("croupier_ledger_commit_seconds_count", ()), 0
        )
        assert after[("croupier_connections_opened_total", ())] >= 1
        # the bot has gone: no session left open, none counted twice
        assert after[("croupier_connections", (("role", "anonymous"),))] == 0
        assert after.get(("croupier_connections", (("role", "player"),)), 0) == 0
        assert after[("croupier_store_up", ())] == 1
        assert ("croupier_process_cpu_seconds_total", ()) in after  # the process's own

        # SIGTERM: /ready fails at once, while the server still serves (the drain grace)
        server.proc.send_signal(signal.SIGTERM)
        with trio.fail_after(20):
            while True:
                status, body = await trio.to_thread.run_sync(_get, server.http + "ready")
                if status == 503:
                    break
                await trio.sleep(0.05)
        assert json.loads(body) == {"status": "draining"}
        status, body = await trio.to_thread.run_sync(_get, server.http + "health")
        assert status == 200  # alive and still accepting: the stop has not begun
        server.proc.send_signal(signal.SIGTERM)  # a second signal: stop now
        await trio.to_thread.run_sync(server.proc.wait, 30)
        assert server.proc.returncode == 0
    finally:
        server.stop()
    assert server.proc.stderr is not None
    lines = [json.loads(line) for line in server.proc.stderr.read().splitlines() if line]
    assert lines, "no log line at --log-level info"
    for line in lines:
        assert {"time", "level", "logger", "event"} <= line.keys(), line
    ours = [line for line in lines if line["event"].startswith("round ")]
    opened = {line["round"] for line in ours if line["event"] == "round started"}
    settled = {line["round"] for line in ours if line["event"] == "round settled"}
    assert len(settled) >= 3 and settled <= opened
    assert all(line["table"] == "cs1" and line["round"] for line in ours)
    sessions = [line for line in lines if line["event"].startswith("session opened")]
    assert sessions and all(line.get("account") for line in sessions)
