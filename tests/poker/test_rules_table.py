"""Table-level rules: blinds and who acts first, the buck/button, deal, void rounds,
visibility, timeouts, fees and QLD s23A posts (through the engine API)."""

from __future__ import annotations

import pytest

from server.cards import SeededRandomSource, card
from server.errors import IllegalAction
from server.games.poker import PokerRound, next_designated, rules_for
from server.games.poker.events import (
    EVERYONE,
    NOBODY,
    BlindPosted,
    BoardDealt,
    CardBurned,
    FeeCharged,
    HoleCardsDealt,
    RoundVoided,
)


def new_round(game: str, stacks: dict[int, int], designated: int, **options) -> PokerRound:
    rnd = PokerRound(rules_for(game, options), stacks, designated, SeededRandomSource(3))
    rnd.start()
    return rnd


def blinds(events) -> list[tuple[int, int]]:
    return [(e.seat, e.amount) for e in events if isinstance(e, BlindPosted)]


def test_act_6_4_heads_up_buck_posts_first_blind_and_acts_first_every_round() -> None:
    """ACT r 6.4, 7.1, 8.1: heads-up the buck posts m, the other 2m; the buck acts first
    pre-flop (after the last blind) and opens every later round."""
    rnd = PokerRound(rules_for("holdem-act", {}), {1: 10000, 2: 10000}, 1, SeededRandomSource(1))
    assert blinds(rnd.start()) == [(1, 100), (2, 200)]
    assert rnd.to_act == 1
    rnd.act(1, "call")
    assert rnd.to_act == 2
    rnd.act(2, "check")
    assert rnd.to_act == 1 and len(rnd.board) == 3


def test_act_6_4_three_blinds_and_first_actor_after_the_last_blind() -> None:
    """ACT r 5.3, 6.4, 7.1: blinds m, 2m, 4m from the buck; play starts after the third."""
    rnd = PokerRound(
        rules_for("omaha-act", {"blinds": [100, 200, 400]}),
        {2: 9000, 4: 9000, 6: 9000, 8: 9000},
        4,
        SeededRandomSource(1),
    )
    assert blinds(rnd.start()) == [(4, 100), (6, 200), (8, 400)]
    assert rnd.to_act == 2


def test_act_a13_three_blinds_with_two_players_posts_two() -> None:
    """ACT digest A-13: with fewer players than blinds, only as many blinds as players;
    the last blind posted is LB."""
    rnd = PokerRound(
        rules_for("holdem-act", {"blinds": [100, 200, 400]}),
        {1: 9000, 2: 9000},
        2,
        SeededRandomSource(1),
    )
    assert blinds(rnd.start()) == [(2, 100), (1, 200)]
    assert rnd.legal_actions().sizes == (400, 600)


def test_qld_s23_5_heads_up_button_posts_first_blind_acts_last_after_round_1() -> None:
    """QLD Sch 11 s23(5), s24(2), s25(2) (HE-QLD-07)."""
    rnd = new_round("holdem-qld", {1: 30000, 2: 30000}, 1)
    assert rnd.to_act == 1
    rnd.act(1, "call")
    rnd.act(2, "check")
    assert rnd.to_act == 2


def test_qld_s23_blinds_after_the_button_and_deal_ends_with_the_button() -> None:
    """QLD Sch 11 s2 "dealer button", s23(1)-(2), (7) (digest A-4): the blinds are the two
    players after the button; hole cards go one at a time from the player after the
    button, the button last."""
    rules = rules_for("holdem-qld", {})
    rnd = PokerRound(rules, {1: 9000, 2: 9000, 3: 9000, 4: 9000}, 2, SeededRandomSource(1))
    ev = rnd.start()
    assert blinds(ev) == [(3, 100), (4, 200)]
    assert [e.seat for e in ev if isinstance(e, HoleCardsDealt)] == [3, 4, 1, 2]
    assert rnd.to_act == 1


def test_qld_s17_5_dead_button() -> None:
    """QLD Sch 11 s17(5): seats 1, 2, 4, 5, 6; the button is dead on vacant seat 3, so S4
    posts the first blind and S5 the second; after round 1 S4 acts first, S2 last."""
    rnd = PokerRound(
        rules_for("holdem-qld", {}), dict.fromkeys((1, 2, 4, 5, 6), 9000), 3, SeededRandomSource(1)
    )
    assert blinds(rnd.start()) == [(4, 100), (5, 200)]
    assert rnd.to_act == 6
    for seat in (6, 1, 2, 4):
        rnd.act(seat, "call")
    rnd.act(5, "check")
    assert rnd.to_act == 4


def test_next_designated_moves_the_buck_clockwise() -> None:
    """ACT r 6.2-6.3, Sch 5 s17(2): the buck passes to the next player, skipping empty
    seats; QLD Sch 11 s17(4): an absent player is skipped; s17(5): a dead button."""
    act = rules_for("holdem-act", {})
    assert next_designated(act, 5, [1, 3, 5]) == 1
    assert next_designated(act, 3, [1, 3, 5]) == 5
    assert next_designated(rules_for("manila-qld", {}), 13, [2, 13]) == 2
    qld = rules_for("holdem-qld", {})
    assert next_designated(qld, 1, [1, 2, 3, 4], absent=[2]) == 3
    # previous round: button 2, blinds 3 and 4; seat 3 has left -> dead button on seat 3
    assert next_designated(qld, 2, [1, 2, 4, 5, 6], previous_blinds=[3, 4]) == 3
    assert next_designated(qld, 2, [1, 2, 3, 4, 5], previous_blinds=[3, 4]) == 3


def test_manila_deal_and_board() -> None:
    """ACT 3 Card Manila r 6.5-6.6: three hole cards, one communal card before round 1, no
    burn cards; QLD Sch 5 s20(3)-(4): two hole cards; only A-7 in the deck."""
    for game, n in (("manila-act", 3), ("manila-qld", 2)):
        rnd = PokerRound(rules_for(game, {}), {1: 5000, 2: 5000, 3: 5000}, 2, SeededRandomSource(9))
        ev = rnd.start()
        assert not [e for e in ev if isinstance(e, CardBurned)]
        assert all(len(h) == n for h in rnd.hole.values())
        assert len(rnd.board) == 1 and [e for e in ev if isinstance(e, BoardDealt)]
        assert all(c >> 2 >= 5 for h in rnd.hole.values() for c in h)
        assert rnd.to_act == 3


def test_short_blind_taps_out_and_the_call_stays_at_the_full_blind() -> None:
    """ACT digest A-14, QLD A-11, Sch 5 A-10: a player who cannot cover a blind posts the
    rest of the stake (tapped out); the others still call the full blind."""
    rnd = new_round("holdem-act", {1: 5000, 2: 150, 3: 5000}, 1)
    assert rnd.stacks[2] == 0 and 2 in rnd.allin
    assert rnd.to_act == 3 and rnd.legal_actions().call == 200


def test_void_round_returns_every_wager() -> None:
    """ACT r 18.3-18.4, QLD Sch 11 s33A, Sch 5 (Rec.): a void round returns every wager and
    any fee; nothing more can be done in it."""
    rnd = new_round(
        "holdem-qld", {1: 9000, 2: 9000, 3: 9000}, 3, participation_fee=100, commission="none"
    )
    rnd.act(3, "raise", 400)
    ev = rnd.void("system fault")
    assert isinstance(ev[0], RoundVoided)
    assert rnd.result.stacks == {1: 9000, 2: 9000, 3: 9000}
    with pytest.raises(IllegalAction) as e:
        rnd.act(1, "fold")
    assert e.value.code == "round_complete"


def test_participation_fee_instead_of_commission() -> None:
    """QLD Sch 11 s19, s30(5): a fee per player per round and no commission (OM-QLD-02)."""
    rnd = new_round(
        "omaha-qld", {1: 9000, 2: 9000, 3: 9000}, 3, participation_fee=200, commission="none"
    )
    assert rnd.fees == 600 and all(rnd.stacks[s] <= 8800 for s in (1, 2, 3))
    while not rnd.complete:
        rnd.timeout(rnd.to_act)
    assert rnd.result.commission == 0 and rnd.result.fees == 600
    assert sum(rnd.result.stacks.values()) == 27000 - 600


def test_s23a_returning_player_post_live_and_dead() -> None:
    """QLD Sch 11 s23A(2)-(4) (digest A-16): a returning player posts both blinds; the second
    blind's worth is live (and may check), the rest is dead money in the main pot."""
    rules = rules_for("holdem-qld", {})
    rnd = PokerRound(
        rules, dict.fromkeys((1, 2, 3, 4), 9000), 4, SeededRandomSource(1), posts={3: 300}
    )
    ev = rnd.start()
    assert [(e.seat, e.kind, e.amount) for e in ev if isinstance(e, BlindPosted)] == [
        (1, "blind1", 100),
        (2, "blind2", 200),
        (3, "live", 200),
        (3, "dead", 100),
    ]
    assert rnd.to_act == 3 and rnd.legal_actions().check
    rnd.act(3, "check")
    rnd.act(4, "call")
    rnd.act(1, "call")
    rnd.act(2, "check")
    assert rnd.pot == 900


def test_timeout_checks_when_free_else_folds() -> None:
    """A turn timer that runs out: check if that is free, else fold."""
    rnd = new_round("holdem-act", {1: 9000, 2: 9000, 3: 9000}, 1)
    rnd.timeout(3)
    assert 3 in rnd.folded
    rnd.act(1, "call")
    rnd.timeout(2)  # the last blind's option: a free check
    assert 2 not in rnd.folded and len(rnd.board) == 3


def test_events_say_who_may_see_them() -> None:
    """Hole cards only to their seat, burn cards to nobody, the rest to everyone; views hold
    only what the viewer may see."""
    rnd = PokerRound(
        rules_for("holdem-act", {}),
        {1: 9000, 2: 9000},
        1,
        SeededRandomSource(5),
        hole={1: [card("As"), card("Ad")]},
    )
    ev = rnd.start()
    for e in ev:
        if isinstance(e, HoleCardsDealt):
            assert e.visible_to == e.seat
        else:
            assert e.visible_to == EVERYONE
        assert e.to_wire()["type"]
    rnd.act(1, "call")
    ev = rnd.act(2, "check")
    assert [e.visible_to for e in ev if isinstance(e, CardBurned)] == [NOBODY]
    spectator = rnd.view(None)
    assert all("cards" not in s for s in spectator["seats"].values())
    assert "legal" not in spectator and len(spectator["board"]) == 3
    mine = rnd.view(1)
    assert mine["seats"]["1"]["cards"] == ["As", "Ad"] and "cards" not in mine["seats"]["2"]
    assert mine["legal"][0] == {"verb": "fold"}
    turn = ev[-1].to_wire()
    assert turn["type"] == "turn_to_act" and "As" not in str(turn)


def test_fee_events() -> None:
    rnd = new_round("holdem-qld", {1: 9000, 2: 9000}, 1, participation_fee=100, commission="none")
    assert rnd.fees == 200
    assert FeeCharged(1, 100).to_wire() == {
        "type": "fee_charged",
        "seat": 1,
        "amount": 100,
        "visible_to": "everyone",
    }


def test_view_shows_side_pots_as_they_form() -> None:
    """ACT r 12.1: amounts above a tap-out form a separate pot, shown as play goes on."""
    rnd = new_round("holdem-act", {1: 10000, 2: 10000, 3: 500}, 1, structure="no-limit")
    rnd.act(3, "allin")
    rnd.act(1, "raise", 2000)
    assert rnd.view(None)["pots"] == [
        {"amount": 1200, "eligible": [1, 2, 3]},
        {"amount": 1500, "eligible": [1, 2]},
    ]


def test_qld_s23_4_no_first_blind_after_the_second_blind_left() -> None:
    """QLD Sch 11 s23(4): when the preceding round's second-blind player has left there is no
    first blind; the next active player posts the second blind, which may check."""
    rnd = PokerRound(
        rules_for("holdem-qld", {}),
        {1: 9000, 3: 9000, 4: 9000},
        1,
        SeededRandomSource(1),
        first_blind=False,
    )
    assert blinds(rnd.start()) == [(3, 200)]
    assert rnd.to_act == 4
    rnd.act(4, "call")
    rnd.act(1, "call")
    assert rnd.legal_actions().seat == 3 and rnd.legal_actions().check


def test_a_bad_s23a_post_changes_nothing() -> None:
    """Bad input changes nothing: a post by a blind poster is refused before any chip moves."""
    rnd = PokerRound(
        rules_for("holdem-qld", {}),
        {1: 9000, 2: 9000, 3: 9000},
        3,
        SeededRandomSource(1),
        posts={1: 200},
    )
    with pytest.raises(ValueError):
        rnd.start()
    assert rnd.stacks == {1: 9000, 2: 9000, 3: 9000} and rnd.pot == 0
