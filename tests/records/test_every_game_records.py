"""The records commands over a journal with every game in it (issue 27, points 5 and 6).

One server, one SQLite journal: the load test's bots play every poker game, every banked
game and every blackjack game (``loadtest.runner.run``, its worker processes over real
sockets), stadium terminals play every stadium game (``loadtest.stadium``), and bots that
queue pre-actions play hold'em (a pre-action that folds a player included). Then
``croupier history export`` writes it in every format (the formats that cannot express a
game say which rounds they leave out, on one line) and ``croupier verify`` checks every
round of it: none fails, and a blackjack round whose shoe is still in play is "not yet
verifiable", never "FAILS".
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections import Counter
from pathlib import Path

import pytest
import trio

from loadtest import stadium
from loadtest.runner import RunSpec, run
from server.config import TableConfig
from server.games.registry import tabled
from server.records import history_cli, verify_cli
from server.records.verify import Shoes, verify_round
from server.store.journal import JournalRound
from tests.integration.test_all_banked_games import tables as banked_tables
from tests.records.test_journal import PreActingBot, rounds_in
from tests.server.helpers import GAMES, fast_config, play_hands, table
from tests.support import running_server

STADIUM = tabled("stadium")


def _tables() -> list[TableConfig]:
    poker = [
        dataclasses.replace(table(g, seats=4, seed=i + 1), id=f"lt-{g}")
        for i, g in enumerate(GAMES)
    ]
    banked = [dataclasses.replace(t, id=f"lt-{t.game}") for t in banked_tables()]
    blackjack = [
        TableConfig(
            id=f"lt-{g}",
            game=g,
            options={"minimum": 100, "maximum": 5_000},
            seed=40 + i,
            betting_seconds=0.4,
            decision_seconds=0.5,
        )
        for i, g in enumerate(tabled("blackjack"))
    ]
    terminals = [
        TableConfig(
            id=f"st-{g}",
            game=g,
            kind="stadium",
            seed=60 + i,
            options={"minimum": 100, "maximum": 10_000},
            betting_seconds=0.25,
        )
        for i, g in enumerate(STADIUM)
    ]
    pre = dataclasses.replace(table("holdem-act", seats=4, seed=13), id="pre-holdem")
    return [*poker, *banked, *blackjack, *terminals, pre]


async def _load_test(data: Path) -> dict[str, object]:
    cfg = fast_config(*_tables(), data=data, round_pause=0.05, turn_time=2.0)
    filled = len(GAMES) + len(tabled("banked")) + len(tabled("blackjack"))
    async with running_server(cfg) as server:
        spec = RunSpec(
            url=server.url,
            tables=filled,
            seats=2,
            games=4,
            duration=40.0,
            settle_time=20.0,
            table_prefix="lt-",
            seed=5,
        )
        report: dict[str, object] = {}

        async def load() -> None:
            report.update(await run(spec))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(load)
            for g in STADIUM:
                nursery.start_soon(stadium.run_terminals, server.url, f"st-{g}", g, 2, 2)
            bots = [PreActingBot(server.url, "pre-holdem", s, seed=s) for s in (1, 2, 3)]
            nursery.start_soon(functools.partial(play_hands, server, bots, 8, timeout=90))
    return report


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("every-game")
    report = trio.run(_load_test, data)
    conservation = report["conservation"]
    assert isinstance(conservation, dict) and conservation["server_after_ok"], conservation
    return data


def test_the_journal_has_every_game_and_pre_actions(journal: Path) -> None:
    rounds = rounds_in(journal)
    games = Counter(str(r.start.get("game")) for r in rounds if r.final_state == "settled")
    every = {*GAMES, *tabled("banked"), *tabled("blackjack"), *STADIUM}
    assert every <= set(games), every - set(games)
    pre = [c for r in rounds for c in r.of("command") if "pre" in c]
    assert pre and any(c["verb"] == "fold" for c in pre), Counter(c["verb"] for c in pre)


@pytest.mark.parametrize("fmt", ["ohh", "pokerstars", "phh", "journal"])
def test_history_export_writes_every_format(
    journal: Path, tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"export.{fmt}"
    assert (
        history_cli.main(["export", "--format", fmt, "--data", str(journal), "--out", str(out)])
        == 0
    )
    err = capsys.readouterr().err
    text = out.read_text()
    rounds = rounds_in(journal)
    if fmt == "ohh":
        docs = [json.loads(line)["ohh"] for line in text.splitlines()]
        assert len(docs) == len(rounds) and err == ""
        assert {d["game_type"] for d in docs} >= {"Holdem", "Omaha", "Manila", *STADIUM}
    elif fmt == "journal":
        assert len(json.loads(text)) == len(rounds) and err == ""
    else:  # hold'em and Omaha only: the rest said on one line, by game
        assert text.strip() and len(err.splitlines()) == 1, err
        assert f"rounds not in the {fmt} format" in err and "roulette" in err
        assert "blackjack" in err and "caribbean-stud" in err


def test_verify_passes_every_round_and_waits_for_a_shoe_in_play(
    journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "journal.json"
    history_cli.main(["export", "--format", "journal", "--data", str(journal), "--out", str(out)])
    capsys.readouterr()
    assert verify_cli.main([str(out)]) == 0
    text = capsys.readouterr().out
    assert "FAILS" not in text, [line for line in text.splitlines() if "FAILS" in line][:5]
    assert " 0 fail" in text.splitlines()[-1]
    assert "not yet verifiable: not yet verifiable" not in text  # said once
    # a blackjack round whose shoe is still in play (its retirement not on the record yet)
    rounds = [JournalRound.from_json(r) for r in json.loads(out.read_text())]
    dealt = [r for r in rounds if r.start.get("shoe") is not None]
    assert dealt
    shoes = Shoes.of([r for r in rounds if not r.of("shoe_retired")])
    shoes.retired.clear()
    verdict = verify_round(dealt[-1], shoes)
    assert not verdict.problems and verdict.pending and "in play" in verdict.pending
    # nor is a round whose shoe's record is not in the file (an export --since)
    retired = Shoes.of(rounds)
    retired.retired.add(str(dealt[-1].start["shoe"]["id"]))
    retired.records.clear()
    verdict = verify_round(dealt[-1], retired)
    assert not verdict.problems and verdict.pending and "not among the rounds" in verdict.pending
