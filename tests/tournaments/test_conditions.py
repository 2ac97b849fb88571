"""Tournament conditions (2017 r 17.3, 2004 r 17.4, ACT r 19): the example files for each
seed are good, and every rule the check enforces refuses a file that breaks it, both through
:func:`problems` and through the real ``croupier tournament validate`` (a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import msgspec
import pytest

from server.tournaments.conditions import (
    Conditions,
    ConditionsError,
    decode,
    load,
    percent,
    problems,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs" / "tournaments").glob("*.toml"))
ENV = dict(os.environ, PYTHONPATH=str(ROOT))
ENV.pop("CROUPIER_DEBUG", None)


def example(name: str) -> dict[str, Any]:
    return tomllib.loads((ROOT / "docs" / "tournaments" / name).read_text())


def problems_of(data: dict[str, Any]) -> list[str]:
    return problems(msgspec.convert(data, Conditions))


def croupier(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=ENV,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )


def test_an_example_for_each_seed() -> None:
    games = {load(path).game for path in EXAMPLES}
    assert {"holdem-act", "canberra-poker-2004", "canberra-poker-2017"} <= games


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_are_good(path: Path) -> None:
    c = load(path)
    assert problems(c) == []
    assert sum(c.shares) == 10_000


def test_percent_is_exact() -> None:
    assert percent(50) == 5000
    assert percent("33.34") == 3334
    assert percent("12.5%") == 1250
    with pytest.raises(ConditionsError):
        percent("33.333")


def edited(name: str, **changes: Any) -> dict[str, Any]:
    data = example(name)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


BAD = [
    # ACT r 19.4: the operator keeps at most 10% of the entry fees
    ("act-holdem-90.toml", {"commission": 1101}, "over 10% of the entry fee"),
    # 2017 r 17.22: the commission is part of the fee
    ("canberra-2017-sng.toml", {"commission": 2001}, "more than the entry fee"),
    # 2017 r 17.21 / 2004 r 17.22: 100% of the pool is returned
    ("act-holdem-90.toml", {"prizes": ["50", "30", "10"]}, "sum to 90.00%, not 100%"),
    ("canberra-2017-sng.toml", {"prizes": ["60", "30", "10.01"]}, "sum to 100.01%"),
    ("canberra-2017-sng.toml", {"prizes": ["60", "0", "40"]}, "positive share"),
    # r 17.3(a)(i): a start time or a sit-and-go, not both
    ("canberra-2017-sng.toml", {"starts_at": "2026-12-05T19:00:00+11:00"}, "exactly one of"),
    ("act-holdem-90.toml", {"starts_at": None}, "exactly one of starts_at"),
    # 2004 r 17.18: no jackpot wagers during a tournament
    ("canberra-2004-heats.toml", {"jackpot_wagers": "allowed"}, "2004 r 17.18"),
    # 2004 r 17.23: equal chips at the end of a session play extra rounds
    ("canberra-2004-heats.toml", {"ties": "share"}, "2004 r 17.23"),
    # 2004 r 17.24: players out in the same round share the places
    ("canberra-2004-heats.toml", {"same_round": "by_chips"}, "2004 r 17.24"),
    # 2004 r 17.6: one entry only
    ("canberra-2004-heats.toml", {"buy_backs": {"per_player": 1}}, "2004 r 17.6"),
    # r 17.3(a)(v)
    ("canberra-2017-sng.toml", {"min_players": 1}, "at least 2"),
    ("act-holdem-90.toml", {"max_players": 100}, "fewer than the 100 players"),
    # r 17.3(a)(viii): Canberra Poker has table limits; poker has blind levels
    ("canberra-2017-sng.toml", {"limits": None}, "no table limits"),
    ("act-holdem-90.toml", {"limits": {"minimum": 1, "maximum": 2}}, "not table limits"),
    ("act-holdem-90.toml", {"levels": []}, "give the blind levels"),
    ("act-manila-sng.toml", {"levels": [{"blinds": [10, 20], "minutes": 5}]}, "1 blind(s)"),
    # r 17.14: chips below the table minimum would be eliminated at once
    ("canberra-2017-sng.toml", {"chips": 10}, "below the table minimum"),
    ("act-holdem-90.toml", {"game": "baccarat"}, "no tournament rules"),
    ("act-manila-sng.toml", {"sit_and_go": 10}, "outside min_players..max_players"),
    # r 17.18: a break lasts some time, after a session or a level
    ("act-holdem-90.toml", {"breaks": [{"minutes": 0, "after_level": 2}]}, "minutes"),
    ("act-holdem-90.toml", {"breaks": [{"minutes": 5, "after_level": 8}]}, "after_level"),
    ("canberra-2004-heats.toml", {"breaks": [{"minutes": 5}]}, "exactly one of after"),
    # r 17.3(a)(ii)(C): progression between sessions
    (
        "canberra-2004-heats.toml",
        {"sessions": [{"name": "h", "tables": 6, "players_per_table": 7, "advance": 7}]},
        "no advance",
    ),
]


@pytest.mark.parametrize(("name", "changes", "expected"), BAD, ids=lambda x: str(x)[:40])
def test_bad_conditions_are_refused(name: str, changes: dict[str, Any], expected: str) -> None:
    try:
        found = problems_of(edited(name, **changes))
    except (msgspec.ValidationError, ConditionsError) as exc:
        found = [str(exc)]
    assert any(expected in p for p in found), found


def test_unknown_keys_and_wrong_types_are_one_line() -> None:
    with pytest.raises(ConditionsError, match="unknown field"):
        decode((ROOT / "docs/tournaments/act-manila-sng.toml").read_text() + "\nprize = 1\n")
    with pytest.raises(ConditionsError, match="entry_fee"):
        decode('id="x"\nentry_fee="ten"\n')


def test_validate_good_files_through_the_cli() -> None:
    run = croupier("tournament", "validate", *map(str, EXAMPLES))
    assert run.returncode == 0, run.stderr
    assert run.stdout.count(": ok: ") == len(EXAMPLES)
    assert run.stderr == ""


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"commission": 1200}, "ACT r 19.4: at most $11.00"),
        ({"prizes": ["50", "30"]}, "prizes sum to 80.00%, not 100% of the pool"),
    ],
)
def test_validate_refuses_through_the_cli(
    tmp_path: Path, changes: dict[str, Any], expected: str
) -> None:
    text = (ROOT / "docs/tournaments/act-holdem-90.toml").read_text()
    for key, value in changes.items():
        line = next(x for x in text.splitlines() if x.startswith(f"{key} ="))
        text = text.replace(line, f"{key} = {msgspec.json.encode(value).decode()}")
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    run = croupier("tournament", "validate", str(bad))
    assert run.returncode == 1
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and expected in lines[0] and "Traceback" not in run.stderr


def test_validate_usage_and_missing_file() -> None:
    run = croupier("tournament", "validate", "/nonexistent/t.toml")
    assert run.returncode == 1
    assert run.stderr.strip() == "/nonexistent/t.toml: cannot read it: No such file or directory"
    run = croupier("tournament")
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1


def test_canberra_poker_keeps_the_balloted_seat_r_17_7() -> None:
    found = problems_of(edited("canberra-2004-heats.toml", balance_tables=True))
    assert any("r 17.7" in p for p in found)
    assert problems_of(edited("canberra-2017-sng.toml", balance_tables=True)) == []
    assert load(ROOT / "docs/tournaments/act-holdem-90.toml").balances
    assert not load(ROOT / "docs/tournaments/canberra-2004-heats.toml").balances
