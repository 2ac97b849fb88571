"""The banked framework (server/games/banked/base.py) on a toy game: high card against the
dealer, one street (``play`` 1x ante or ``fold``). Checks the contract every game relies on:
option and wager validation, streets, illegal decisions leave the state unchanged, timeouts,
voids, visibility of events, the ledger agreeing with the nets."""

from __future__ import annotations

import pytest

from server.cards import SeededRandomSource, card_str, rank_of
from server.errors import IllegalAction
from server.games.banked.base import (
    NOBODY,
    BankedRound,
    CardsDealt,
    Choice,
    Forced,
    GameSpec,
    InvalidRound,
    OptionSpec,
    WagerSpec,
    deal,
    pay,
)

SPEC = GameSpec(
    id="toy-high-card",
    title="Toy",
    rules="test only",
    wagers=(
        WagerSpec("ante", required=True),
        WagerSpec("side", needs="ante"),
        WagerSpec("play", initial=False, limits="decision"),
    ),
    verbs=("play", "fold"),
    options=(OptionSpec("num_boxes", 3, minimum=1),),
    pay_tables={"standard": {"side": {"ace": (5, 1)}}},
    box_cards=1,
    dealer_cards=1,
)


class Toy(BankedRound):
    spec = SPEC

    def _deal(self):
        layout = [("box", b, 1) for b in self.boxes] + [("dealer", None, 1)]
        self.cards = deal(self.spec.deck, layout, self.forced, self.rng)
        out = [
            CardsDealt(to="box", box=b, cards=(card_str(self.cards[("box", b)][0]),), visible_to=b)
            for b in self.boxes
        ]
        out.append(
            CardsDealt(
                to="dealer",
                box=None,
                cards=(card_str(self.cards[("dealer", None)][0]),),
                visible_to=NOBODY,
            )
        )
        self.folded: set[int] = set()
        return out + self._open_street("play", self.boxes)

    def _choices(self, box):
        return (Choice("play", (self.wagers[box]["ante"],)), Choice("fold"))

    def _apply(self, box, verb, amount):
        if verb == "fold":
            self.folded.add(box)
        else:
            self._stake(box, "play", amount)
        return []

    def _street_closed(self):
        return self._finish()

    def _settle(self):
        out = []
        d = rank_of(self.cards[("dealer", None)][0])
        for b in self.boxes:
            if "side" in self.stakes[b]:
                if rank_of(self.cards[("box", b)][0]) == 12:
                    out.append(self._win(b, "side", pay(self.stakes[b]["side"], (5, 1))))
                else:
                    out.append(self._lose(b, "side"))
            if b in self.folded:
                out.append(self._lose(b, "ante"))
                continue
            p = rank_of(self.cards[("box", b)][0])
            for w in ("ante", "play"):
                if p > d:
                    out.append(self._win(b, w, self.stakes[b][w]))
                elif p < d:
                    out.append(self._lose(b, w))
                else:
                    out.append(self._push(b, w))
        return out


def toy(wagers, boxes=None, dealer=("Ks",), seed=1):
    forced = Forced.from_strings(boxes or {}, dealer)
    r = Toy({}, wagers, SeededRandomSource(seed), forced=forced)
    r.start()
    return r


def test_unknown_option_and_bad_values_are_invalid():
    with pytest.raises(InvalidRound):
        SPEC.validate_options({"nonsense": 1})
    with pytest.raises(InvalidRound):
        SPEC.validate_options({"minimum": True})
    with pytest.raises(InvalidRound):
        SPEC.validate_options({"pay_table": "generous"})
    assert SPEC.validate_options({})["pay_table"] == "standard"


def test_wager_validation_codes():
    with pytest.raises(InvalidRound):
        Toy({}, {"9": {"ante": 1000}}, SeededRandomSource(1))  # box out of range
    with pytest.raises(InvalidRound):
        Toy({}, {"1": {"ante": 10.5}}, SeededRandomSource(1))
    with pytest.raises(InvalidRound):
        Toy({}, {"1": {"ante": 1000, "nope": 5}}, SeededRandomSource(1))
    with pytest.raises(IllegalAction) as e:
        Toy({}, {"1": {"side": 1000}}, SeededRandomSource(1))
    assert e.value.code == "needs_ante"
    with pytest.raises(IllegalAction) as e:
        Toy({"minimum": 500}, {"1": {"ante": 100}}, SeededRandomSource(1))
    assert e.value.code == "below_minimum"


def test_forced_cards_validated():
    with pytest.raises(InvalidRound):
        toy({"1": {"ante": 1000}}, {1: ["Ks"]}, dealer=("Ks",))  # card twice
    with pytest.raises(InvalidRound):
        toy({"1": {"ante": 1000}}, {2: ["Qs"]})  # box without a wager


def test_street_settles_and_ledger_matches_nets():
    r = toy(
        {"1": {"ante": 1000, "side": 500}, "2": {"ante": 1000}, "3": {"ante": 2000}},
        {1: ["Ah"], 2: ["2c"], 3: ["Kd"]},
    )
    assert [d.box for d in r.pending()] == [1, 2, 3]
    r.decide(2, "fold")
    r.decide(1, "play")
    assert not r.complete
    r.decide(3, "play", 2000)
    assert r.complete
    res = r.result
    assert res.boxes == {
        1: {"side": 2500, "ante": 1000, "play": 1000},
        2: {"ante": -1000},
        3: {"ante": 0, "play": 0},
    }
    for b, total in res.box_totals().items():
        assert r.party_net(f"box:{b}") == total
    assert sum(res.box_totals().values()) + res.house == 0


def test_illegal_decisions_change_nothing():
    r = toy({"1": {"ante": 1000}, "2": {"ante": 1000}}, {1: ["Ah"], 2: ["2c"]})
    before = (list(r.events), r.pending(), dict(r.stakes[1]))
    for args, code in [
        ((1, "raise"), "illegal_verb"),
        ((1, "play", 999), "bad_amount"),
        ((1, "fold", 5), "unexpected_amount"),
        ((3, "play"), "no_such_box"),
    ]:
        with pytest.raises(IllegalAction) as e:
            r.decide(*args)
        assert e.value.code == code
    assert (list(r.events), r.pending(), dict(r.stakes[1])) == before
    r.decide(1, "play")
    with pytest.raises(IllegalAction) as e:
        r.decide(1, "fold")
    assert e.value.code == "not_awaiting_decision"


def test_timeout_folds_and_void_returns_everything():
    r = toy({"1": {"ante": 1000}, "2": {"ante": 1000}}, {1: ["Ah"], 2: ["2c"]})
    r.decide(1, "timeout")
    assert r.events[-1].verb == "fold" and r.events[-1].cause == "timeout"
    r.void("deal failure")
    assert r.result.state == "void"
    assert r.result.boxes == {1: {"ante": 0}, 2: {"ante": 0}}
    assert r.result.house == 0
    with pytest.raises(IllegalAction):
        r.decide(2, "play")


def test_views_hide_other_boxes_and_the_dealer():
    r = toy({"1": {"ante": 1000}, "2": {"ante": 1000}}, {1: ["Ah"], 2: ["2c"]})
    seen = [e for e in r.view(1)["events"] if e["type"] == "cards_dealt"]
    assert [e["cards"] for e in seen] == [["Ah"]]
    assert not [e for e in r.view(None)["events"] if e["type"] == "cards_dealt"]


def test_qualifiers_are_rejected_by_games_that_take_none():
    """SCENARIOS.md: a fourth decision element is a map of qualifiers; a game without them
    rejects the decision with a stable code and changes nothing."""
    r = toy({"1": {"ante": 1000}}, {1: ["Ah"]})
    with pytest.raises(IllegalAction) as e:
        r.decide(1, "play", None, {"player": "P2"})
    assert e.value.code == "unexpected_qualifiers"
    assert [d.box for d in r.pending()] == [1]


def test_a_deck_game_refuses_a_shoe_or_an_outcome():
    with pytest.raises(InvalidRound):
        Toy({}, {1: {"ante": 1000}}, SeededRandomSource(1), forced=Forced(shoe=[0, 1, 2])).start()
    with pytest.raises(InvalidRound):
        Toy(
            {}, {1: {"ante": 1000}}, SeededRandomSource(1), forced=Forced(outcome={"number": 17})
        ).start()
