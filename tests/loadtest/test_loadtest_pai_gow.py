"""``croupier loadtest`` at ten pai gow tables (QLD Sch 6; issue 25 point 1): money conserved.

``--serve`` starts its own server with a generated lobby of ten pai gow tables; seven bots a
table take boxes 2 to 8 (box 1 is the house's bank, s18(13)), wager in every betting window
and set their tiles both ways: their own setting (s27) or the house way (s29(1)), now and then
the clock's house way. The tables allow player banking (s18): the first box's bot banks when
the rules let it (never the first round, at most 2 rounds running) and sets the bank's tiles
(s28(8)). The run is bounded (a few seconds), has no error, and the report's
conservation holds: wallets, the bots' own results and the server's books agree.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_ten_pai_gow_tables_set_both_ways_money_conserved(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "loadtest",
            "--serve",
            "--game",
            "pai-gow",
            "--tables",
            "10",
            "--seats",
            "7",
            "--duration",
            "8",
            "--round-pause",
            "0.1",
            "--quiet",
            "--seed",
            "5",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.exists(), proc.stdout + proc.stderr
    report = json.loads(out.read_text())
    assert report["errors"] == {} and report["unexpected"] == 0, report["problems"]
    assert report["conserved"] is True and report["conservation"]["client_ok"] is True
    row = report["by_game"]["pai-gow"]
    assert row["conserved"] is True, row
    assert row["bots"] == 70
    assert row["rounds"] >= 70, row  # every box played at least one round
    verbs = row["verbs"]
    assert verbs.get("set", 0) > 0 and verbs.get("house_way", 0) > 0, verbs
    assert row.get("banked_rounds", 0) > 0, row  # the first box's bot banks now and then
    assert proc.returncode == 0, proc.stdout + proc.stderr
