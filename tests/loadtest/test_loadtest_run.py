"""A bounded load test in CI: 20 full tables for 30 s with chaos, against a real server.

``croupier loadtest --serve`` starts ``croupier serve --port 0`` on 127.0.0.1 with a
generated lobby of 20 nine-seat tables, plays for 30 s at max pace with random disconnects,
reconnects and slow readers, makes every bot leave, stops the server, and exits 0 only when
no unexpected error happened and money was conserved (server side before and after, and
client side: the bots' net equals minus the commission taken).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REQUIRED = {"hands", "errors", "latency_ms", "conserved"}


@pytest.mark.slow
def test_twenty_tables_thirty_seconds_with_chaos(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    page = tmp_path / "report.html"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "loadtest",
            "--serve",
            "--tables",
            "20",
            "--seats",
            "9",
            "--duration",
            "30",
            "--pace",
            "max",
            "--chaos",
            "--quiet",
            "--seed",
            "5",
            "--json",
            str(out),
            "--html",
            str(page),
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert out.exists(), proc.stdout + proc.stderr
    report = json.loads(out.read_text())
    assert REQUIRED <= set(report)
    assert set(report["latency_ms"]) >= {"p50", "p95", "p99", "max"}
    assert report["conserved"] is True, report["conservation"]
    assert report["conservation"]["client_ok"] is True, report["conservation"]
    assert report["unexpected"] == 0, report["problems"]
    assert report["unexpected_errors"] == {}, report["problems"]
    assert report["hands"] > 20  # every table played
    assert report["latency_ms"]["count"] > 0  # action latency was measured
    assert report["disconnects"]["chaos"] > 0  # the chaos really happened ...
    assert report["disconnects"]["resumed_seats"] > 0  # ... and seats were resumed
    assert report["latency_ms"]["p50"] <= report["latency_ms"]["p99"] <= report["latency_ms"]["max"]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = page.read_text()
    assert "<svg" in text and "src=" not in text and "href=" not in text  # self-contained
