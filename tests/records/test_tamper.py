"""Twelve tamperings, each caught by ``croupier verify`` with its reason (issue 23, point 5).

Hold'em hands are played by bots over real sockets (each seat sends its own seed for every
deal); one settled hand that went to a showdown is then tampered with in twelve ways, in
the operator's record (the journal export: ``verify_round``, and the CLI) and in the record
of the player at seat 1 (its ``history``: ``verify_seen``). The first build's verify missed
three of them: raised settlement stacks, a changed published commitment, a commitment moved
after the cards.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from server.records.verify import verify_round, verify_seen
from server.records.verify_cli import main as verify_main
from server.store.journal import JournalQuery, JournalRound, players_of, recall
from server.store.sqlite import SqliteStore
from tests.server.helpers import Bot, fast_config, play_hands, table
from tests.support import running_server

GAME = "holdem-act"
Record = dict[str, Any]


class SeedingBot(Bot):
    """A bot that sends a seed of its own for every deal (as the page and terminal do)."""

    async def on_message(self, client: Any, msg: dict[str, Any]) -> None:
        event = msg.get("event") if msg["type"] == "event" else None
        if event is not None and event["type"] == "secret_committed":
            seed = f"seat{self.seat}-{self.rng.randrange(10**9)}"
            await client.send({"type": "seed", "table": self.table, "seed": seed})
        await super().on_message(client, msg)


async def _play(data: Path) -> None:
    cfg = fast_config(table(GAME, seats=4, seed=21), data=data)
    async with running_server(cfg) as server:
        bots = [SeedingBot(server.url, f"{GAME}-t", s, seed=40 + s) for s in (1, 2, 3)]
        await play_hands(server, bots, 30)


def _showdown(rnd: JournalRound, seat: int) -> bool:
    events = rnd.of("event")
    shown = {e["seat"] for e in events if e["type"] == "hand_shown"}
    commands = rnd.of("command")
    return (
        rnd.final_state == "settled"
        and len(shown) >= 2
        and seat in shown
        and any(e["type"] == "board_dealt" for e in events)
        and any(c.get("verb") in ("bet", "raise") for c in commands)
        and any(s.startswith(f"seat{seat}-") for s in rnd.of("commit")[0]["seeds"])
    )  # the seat's own seed in the deal (it may reach the table after the deal: a busy machine)


@pytest.fixture(scope="module")
def hand(tmp_path_factory: pytest.TempPathFactory) -> tuple[Record, Record, str]:
    """The operator's record of a showdown, the seat-1 player's record of it, its seed."""
    data = tmp_path_factory.mktemp("tamper")
    for _ in range(4):  # 30 hands more on the same store until seat 1 shows down (a busy
        # machine's bots may run out their clocks and fold: the hands are not the same)
        trio.run(_play, data)
        store = SqliteStore(data, lock=False, readonly=True)
        try:
            rounds = store.journal_rounds(JournalQuery())
        finally:
            store.close()
        rnd = next((r for r in rounds if _showdown(r, 1)), None)
        if rnd is not None:
            break
    assert rnd is not None, "no showdown with seat 1 in 120 hands"
    account = next(a for a in players_of(rnd.start) if rnd.start["seats"]["1"]["account"] == a)
    seen = json.loads(json.dumps(recall(rnd, account)))
    seed = next(s for s in rnd.of("commit")[0]["seeds"] if s.startswith("seat1-"))
    return rnd.to_json(), seen, seed


# -- the twelve tamperings of the operator's record --------------------------------------------
def _entries(data: Record, kind: str, **match: Any) -> list[Record]:
    return [
        e
        for e in data["entries"]
        if e["kind"] == kind and all(e["body"].get(k) == v for k, v in match.items())
    ]


def _renumber(data: Record) -> None:
    for i, e in enumerate(data["entries"]):
        e["seq"] = i + 1


def _other_card(cards: list[str], avoid: list[str]) -> str:
    return next(c for c in ("2c", "3d", "4h", "5s", "6c", "7d") if c not in cards + avoid)


def op_dealt_card(d: Record) -> None:
    ev = _entries(d, "event", type="hole_cards_dealt")[0]["body"]
    ev["cards"][0] = _other_card(ev["cards"], [])


def op_opening(d: Record) -> None:
    ev = _entries(d, "event", type="board_dealt")[0]["body"]
    ev["open"][0]["salt"] = "00" * 32


def op_action_amount(d: Record) -> None:
    c = next(e for e in _entries(d, "command") if e["body"].get("verb") in ("bet", "raise"))
    c["body"]["amount"] += 100


def op_removed_action(d: Record) -> None:
    c = _entries(d, "command", op="act")[1]
    d["entries"].remove(c)
    _renumber(d)  # not a gap: the action itself is missing


def op_winner(d: Record) -> None:
    ev = _entries(d, "event", type="pot_awarded")[0]["body"]
    seats = [int(s) for s in d["entries"][0]["body"]["seats"]]
    ev["winners"] = [next(s for s in seats if s not in ev["winners"])]


def op_raised_stacks(d: Record) -> None:
    body = _entries(d, "settlement")[0]["body"]
    body["after"]["1"] += 1000


def op_commitment(d: Record) -> None:
    _entries(d, "commit")[0]["body"]["root"] = "ab" * 32


def op_commitment_after_cards(d: Record) -> None:
    commit = _entries(d, "commit")[0]
    d["entries"].remove(commit)
    last = max(i for i, e in enumerate(d["entries"]) if e["body"].get("cards"))
    d["entries"].insert(last + 1, commit)
    _renumber(d)


def op_shown_hand(d: Record) -> None:
    ev = _entries(d, "event", type="hand_shown")[0]["body"]
    ev["cards"][1] = _other_card(ev["cards"], [])


def op_reordered(d: Record) -> None:
    i = next(k for k, e in enumerate(d["entries"]) if e["kind"] == "command")
    d["entries"][i], d["entries"][i + 1] = d["entries"][i + 1], d["entries"][i]


def op_deleted(d: Record) -> None:
    d["entries"].remove(_entries(d, "event", type="board_dealt")[-1])


def op_seed(d: Record) -> None:
    _entries(d, "commit")[0]["body"]["seeds"][0] += "x"


OPERATOR: dict[str, tuple[Callable[[Record], None], tuple[str, ...]]] = {
    "a changed dealt card": (op_dealt_card, ("which it does not show", "the round recorded")),
    "a changed opening or salt": (op_opening, ("does not lead to the root",)),
    "a changed action amount": (op_action_amount, ("the round recorded", "cannot be replayed")),
    "a removed action": (op_removed_action, ("the round recorded", "cannot be replayed")),
    "a changed winner": (op_winner, ("the round recorded",)),
    "raised settlement stacks": (op_raised_stacks, ("settlement: after",)),
    "a changed published commitment": (op_commitment, ("is not the root of the deal",)),
    "a commitment moved after the cards": (
        op_commitment_after_cards,
        ("before the commitment it opens against",),
    ),
    "a changed shown hand": (op_shown_hand, ("which it does not show", "the round recorded")),
    "reordered records": (op_reordered, ("reordered",)),
    "a deleted record": (op_deleted, ("deleted",)),
    "a changed seed": (op_seed, ("not the seeds of the commitment", "is not the root of the deal")),
}


def test_the_untouched_records_verify(hand: tuple[Record, Record, str]) -> None:
    data, seen, seed = hand
    verdict = verify_round(JournalRound.from_json(data))
    assert verdict.ok and verdict.pending is None, verdict
    assert verify_seen(seen, root=data["entries"][1]["body"]["root"], seed=seed).problems == []


@pytest.mark.parametrize("name", list(OPERATOR))
def test_the_operators_record_tampered(
    name: str, hand: tuple[Record, Record, str], tmp_path: Path, capsys: Any
) -> None:
    tamper, reasons = OPERATOR[name]
    data = copy.deepcopy(hand[0])
    tamper(data)
    problems = verify_round(JournalRound.from_json(data)).problems
    assert problems, name
    assert any(r in p for p in problems for r in reasons), (name, problems)
    path = tmp_path / "round.json"
    path.write_text(json.dumps(data))
    assert verify_main([str(path)]) == 1  # croupier verify ROUND.json
    assert "FAILS" in capsys.readouterr().out


# -- the same twelve in the player's own record ------------------------------------------------
def _seen(s: Record, kind: str, **match: Any) -> list[Record]:
    return [
        e for e in s["events"] if e["type"] == kind and all(e.get(k) == v for k, v in match.items())
    ]


def pl_dealt_card(s: Record) -> None:
    ev = _seen(s, "hole_cards_dealt")[0]
    ev["cards"][0] = _other_card(ev["cards"], [])


def pl_opening(s: Record) -> None:
    _seen(s, "board_dealt")[0]["open"][0]["salt"] = "00" * 32


def pl_action_amount(s: Record) -> None:
    ev = next(e for e in _seen(s, "action_taken") if e["verb"] in ("bet", "raise"))
    ev["total"] += 100
    ev["amount"] += 100


def pl_removed_action(s: Record) -> None:
    s["events"].remove(_seen(s, "action_taken")[1])


def pl_winner(s: Record) -> None:
    ev = _seen(s, "pot_awarded")[0]
    seats = [int(n) for n in s["terms"]["seats"]]
    ev["winners"] = [next(n for n in seats if n not in ev["winners"])]


def pl_raised_stacks(s: Record) -> None:
    s["stake_after"] += 1000


def pl_commitment(s: Record) -> None:
    _seen(s, "commitment")[0]["root"] = "ab" * 32


def pl_commitment_after_cards(s: Record) -> None:
    ev = _seen(s, "commitment")[0]
    s["events"].remove(ev)
    s["events"].append(ev)


def pl_shown_hand(s: Record) -> None:
    ev = next(e for e in _seen(s, "hand_shown") if e["seat"] != 1)
    ev["cards"][1] = _other_card(ev["cards"], [])


def pl_reordered(s: Record) -> None:
    acts = _seen(s, "action_taken")
    i, j = s["events"].index(acts[0]), s["events"].index(acts[1])
    s["events"][i], s["events"][j] = s["events"][j], s["events"][i]


def pl_deleted(s: Record) -> None:
    s["events"].remove(_seen(s, "board_dealt")[-1])


def pl_seed(s: Record) -> None:
    ev = _seen(s, "commitment")[0]
    ev["seeds"] = [x + "x" for x in ev["seeds"]]


PLAYER: dict[str, tuple[Callable[[Record], None], tuple[str, ...]]] = {
    "a changed dealt card": (pl_dealt_card, ("without an opening",)),
    "a changed opening or salt": (pl_opening, ("does not lead to the root",)),
    "a changed action amount": (pl_action_amount, ("the round recorded", "cannot be replayed")),
    "a removed action": (pl_removed_action, ("the round recorded", "cannot be replayed")),
    "a changed winner": (pl_winner, ("the round recorded",)),
    "raised settlement stacks": (pl_raised_stacks, ("your stack after the round",)),
    "a changed published commitment": (pl_commitment, ("not the one you were shown",)),
    "a commitment moved after the cards": (pl_commitment_after_cards, ("before any commitment",)),
    "a changed shown hand": (pl_shown_hand, ("without an opening",)),
    "reordered records": (pl_reordered, ("the round recorded", "cannot be replayed")),
    "a deleted record": (pl_deleted, ("the round recorded",)),
    "a changed seed": (pl_seed, ("is not among the seeds",)),
}


def test_the_lists_are_the_twelve() -> None:
    assert list(OPERATOR) == list(PLAYER) and len(OPERATOR) == 12


@pytest.mark.parametrize("name", list(PLAYER))
def test_the_players_record_tampered(
    name: str, hand: tuple[Record, Record, str], tmp_path: Path, capsys: Any
) -> None:
    tamper, reasons = PLAYER[name]
    data, seen, seed = copy.deepcopy(hand)
    root = data["entries"][1]["body"]["root"]  # the commitment the player was shown
    tamper(seen)
    problems = verify_seen(seen, root=root, seed=seed).problems
    assert problems, name
    assert any(r in p for p in problems for r in reasons), (name, problems)
    path = tmp_path / "history.json"
    path.write_text(json.dumps({"type": "history", "rounds": [seen]}))
    assert verify_main(["--player", str(path), "--commitment", root, "--seed", seed]) == 1
    assert "FAILS" in capsys.readouterr().out
