"""``croupier loadtest`` at banked tables: blackjack and baccarat bots over real sockets.

``--serve`` starts its own server with a generated lobby of one blackjack and one baccarat
table (seven boxes each); the bots wager in every betting window, decide (hits, stands,
doubles, splits, insurance) and leave at the stop. The run is bounded (a few seconds), has
no error, and the report's per-game figures show latency and conserved money.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_blackjack_and_baccarat_tables_zero_errors_money_conserved(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "loadtest",
            "--serve",
            "--game",
            "blackjack",
            "--game",
            "baccarat",
            "--tables",
            "2",
            "--seats",
            "7",
            "--duration",
            "6",
            "--round-pause",
            "0.1",
            "--quiet",
            "--seed",
            "3",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.exists(), proc.stdout + proc.stderr
    report = json.loads(out.read_text())
    assert report["errors"] == {} and report["unexpected"] == 0, report["problems"]
    assert report["conserved"] is True and report["conservation"]["client_ok"] is True
    games = report["by_game"]
    assert set(games) == {"blackjack", "baccarat"}
    for game, row in games.items():
        assert row["conserved"] is True, (game, row)
        assert row["rounds"] >= 7, (game, row)  # every box played at least one round
        assert row["latency_ms"]["count"] > 0, (game, row)
        assert row["bots"] == 7
    verbs = games["blackjack"]["verbs"]
    assert {"hit", "stand", "double", "split"} <= set(verbs), verbs
    assert proc.returncode == 0, proc.stdout + proc.stderr
