"""The banked table's parts on their own: the jackpot desk's phases, typed settlement
results, typed table events (server/tables/banked/)."""

from __future__ import annotations

import pytest

from server.games.banked.scenario import round_class
from server.tables.banked import events as ev
from server.tables.banked.jackpot_desk import TRANSITIONS, DeskPhase, JackpotDesk
from server.tables.banked.settlement import (
    DealerResult,
    PlaceResult,
    Recall,
    WagerResult,
    to_wire,
    with_prize,
)
from server.tables.phases import PhaseError
from server.tables.window import BettingOpen


def desk(approval: bool) -> JackpotDesk:
    return JackpotDesk(None, reopen_needs_approval=approval)  # type: ignore[arg-type]


def test_desk_refuses_a_transition_not_in_its_table_naming_both_phases() -> None:
    d = desk(approval=False)
    with pytest.raises(PhaseError, match="UNLINKED to OPEN"):
        d.to(DeskPhase.OPEN)
    d.to(DeskPhase.CLOSED)
    d.to(DeskPhase.OPEN)
    assert d.open and not d.awaiting_approval
    with pytest.raises(PhaseError, match="OPEN to AWAITING_APPROVAL"):
        d.to(DeskPhase.AWAITING_APPROVAL)


def test_every_phase_has_its_transitions_and_only_an_outage_awaits_approval() -> None:
    assert set(TRANSITIONS) == set(DeskPhase)
    waits = [p for p, to in TRANSITIONS.items() if DeskPhase.AWAITING_APPROVAL in to]
    assert waits == [DeskPhase.OUTAGE]  # ACT 2017 r 14.5: after an outage only


def test_jackpot_facts_come_from_the_games_specs() -> None:
    assert round_class("caribbean-stud").spec.jackpot_regime == "qld"
    assert round_class("canberra-poker-2017").spec.jackpot_regime == "act2017"
    assert round_class("canberra-poker-2017").spec.jackpot_reopen == "approval"
    assert round_class("canberra-poker-2004").spec.jackpot_regime is None
    assert round_class("baccarat").spec.backer_places == ()


def test_a_prize_makes_a_new_recall_and_leaves_the_old_one() -> None:
    pending = WagerResult(100, None, "pending", hand="royal flush")
    place = PlaceResult(
        "ann", {"ante": WagerResult(500, 500, "win", ""), "jackpot": pending}, 600, 1000
    )
    old = Recall(600, 1000, {"1": place}, 3, "t.x.3", "settled", DealerResult(), 400)
    new = with_prize(old, 1, 50_000, 100)
    assert to_wire(old)["boxes"]["1"]["wagers"]["jackpot"] == {
        "stake": 100,
        "net": None,
        "outcome": "pending",
        "hand": "royal flush",
    }
    assert to_wire(new)["boxes"]["1"]["wagers"]["jackpot"]["net"] == 49_900
    assert (new.paid_total, new.net, new.boxes["1"].paid) == (51_000, 50_400, 51_000)
    assert to_wire(new)["dealer"] == {}


def test_an_optional_field_is_off_the_wire_when_absent() -> None:
    mine = ev.WagerPlaced(round=1, box=2, wager="ante", amount=5, name="a", box_wagers={})
    backer = ev.WagerPlaced(
        round=1, box=2, place="P2", wager="main", amount=5, name="b", box_wagers={"main": 5}
    )
    assert "place" not in mine.to_wire() and backer.to_wire()["place"] == "P2"
    assert mine.to_wire()["type"] == "wager_placed"
    opened = BettingOpen(round=1, round_id="t.1", closes_in_ms=1, server_time=2, closes_at=3)
    assert "jackpot_open" not in opened.to_wire()
