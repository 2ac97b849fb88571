"""Hand histories out of the journal (issue 10 item 3) and ``croupier verify`` (item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.cli import COMMANDS
from server.records import history_cli

OHH_REQUIRED = (
    "spec_version",
    "site_name",
    "network_name",
    "internal_version",
    "tournament",
    "game_number",
    "start_date_utc",
    "table_name",
    "game_type",
    "bet_limit",
    "table_size",
    "currency",
    "dealer_seat",
    "small_blind_amount",
    "big_blind_amount",
    "ante_amount",
    "players",
    "rounds",
    "pots",
)


def export(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> str:
    assert history_cli.main(["export", "--data", str(data), *args]) == 0
    return capsys.readouterr().out


def test_commands_are_registered() -> None:
    assert COMMANDS["history"][0] == "server.records.history_cli"
    assert COMMANDS["verify"][0] == "server.records.verify_cli"


def test_ohh_has_the_specs_required_fields(recorded: Path, capsys) -> None:
    lines = export(capsys, recorded, "--format", "ohh").splitlines()
    docs = [json.loads(line)["ohh"] for line in lines]
    assert len(docs) >= 400
    games = {d["game_type"] for d in docs}
    assert {"Holdem", "Omaha", "Manila"} <= games
    for d in docs:
        for name in OHH_REQUIRED:
            assert name in d, name
        assert d["bet_limit"]["bet_type"] in ("NL", "PL", "FL")
        ids = {p["id"] for p in d["players"]}
        for p in d["players"]:
            assert {"id", "seat", "name", "starting_stack"} <= set(p)
        for r in d["rounds"]:
            assert {"id", "street", "actions"} <= set(r)
            for a in r["actions"]:
                assert a["player_id"] in ids and a["action_number"] >= 1
        won = sum(w["win_amount"] for pot in d["pots"] for w in pot["player_wins"])
        raked = sum(pot["rake"] for pot in d["pots"])
        assert round(sum(pot["amount"] for pot in d["pots"]) - raked - won, 2) == 0
    assert any(pot["rake"] > 0 for d in docs for pot in d["pots"])
    one = export(capsys, recorded, "--format", "ohh", "--table", "omaha-act-t").splitlines()
    assert {json.loads(x)["ohh"]["table_name"] for x in one} == {"omaha-act-t"}
    assert export(capsys, recorded, "--format", "ohh", "--since", "2999-01-01") == ""


def test_verify_passes_every_round_and_fails_a_tampered_one(
    recorded: Path, capsys, tmp_path: Path
) -> None:
    rounds = json.loads(export(capsys, recorded, "--format", "journal", "--table", "holdem-qld-t"))
    path = tmp_path / "rounds.json"
    path.write_text(json.dumps(rounds))
    assert history_cli.verify_main([str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{len(rounds)} of {len(rounds)} rounds verified" in out

    def has_board(r: dict) -> bool:
        return any(
            e["kind"] == "event" and e["body"]["type"] == "board_dealt" for e in r["entries"]
        )

    one = next(r for r in rounds if r["state"] == "settled" and has_board(r))
    for entry in one["entries"]:
        if entry["kind"] == "event" and entry["body"]["type"] == "board_dealt":
            cards = entry["body"]["cards"]
            cards[0] = "As" if cards[0] != "As" else "Ks"
            break
    path.write_text(json.dumps(one))
    assert history_cli.verify_main([str(path)]) == 1
    assert "FAILS" in capsys.readouterr().out
    one = next(r for r in rounds if r["state"] == "settled" and r is not one)
    for entry in one["entries"]:
        if entry["kind"] == "commit":  # issue 23: the commitment is the deal's Merkle root
            entry["body"]["root"] = "0" * 64
    path.write_text(json.dumps(one))
    assert history_cli.verify_main([str(path)]) == 1
    assert "is not the root of the deal" in capsys.readouterr().out
