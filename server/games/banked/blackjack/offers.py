"""Offers: choices open to a player beside the hand in play, and a player who does not act.

Insurance and even money (BJ s22(4), s23; SP s24; SW s23), another player's double,
surrender, cover or follow after the controller acts (BJ s30(6),(7), SP s31, CH s30(6)),
the Spanish rescue after a double card (SP s25(7),(8)). An offer is optional: the next play
decision closes every open offer unanswered. :func:`absent` is a player who does not act or
cannot fund a wager: his offers are declined and the controller's hands are played out by
the schedule's automatic play (BJ s61, SP s51, SW s42, CH s49).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.errors import IllegalAction
from server.games.banked.base import (
    Choice,
    DecisionMade,
    Event,
)
from server.games.banked.blackjack import play
from server.games.banked.blackjack.boxes import Offer, OfferKind, Player, RangeChoice, Stake

if TYPE_CHECKING:
    from server.games.banked.blackjack.engine import BlackjackRound


#: the offer a verb answers
OFFER_OF: dict[str, OfferKind] = {
    "insurance": "insurance",
    "even_money": "insurance",
    "double": "double",
    "surrender": "surrender",
    "rescue": "rescue",
    "cover": "split",
    "follow": "split",
}


def find_offer(rnd: BlackjackRound, box: int, player: Player, verb: str) -> Offer | None:
    """The open offer of ``player`` on ``box`` that ``verb`` answers, if any."""
    kind = OFFER_OF.get(verb)
    return next(
        (o for o in rnd.offers if o.box == box and o.player == player and o.kind == kind),
        None,
    )


def offer_choices(rnd: BlackjackRound, o: Offer) -> tuple[Choice, ...]:
    """The choices of offer ``o``: insurance up to half the wager (BJ s23(4), digest A8; SW
    s23(3)) and even money (BJ s22(4)); double, cover or follow, surrender, rescue."""
    bp = rnd.box_play[o.box]
    if o.kind == "insurance":
        main = bp.wagers[o.player]["main"]
        out: list[Choice]
        if rnd.variant.insurance == "box":  # SW s23(3), digest A2: half of one area
            out = [RangeChoice("insurance", lo=1, hi=main // 2)]
        else:  # BJ s23(4), digest A8: half, or up to 25c more for a whole-dollar win
            out = [RangeChoice("insurance", lo=1, hi=(main + 50) // 2, check=str(main))]
        st = bp.hands[0].stakes.get(o.player)
        if (
            rnd.variant.even_money
            and bp.hands[0].status == "blackjack"
            and st is not None
            and st.net is None
        ):
            out.append(Choice("even_money"))
        return tuple(out)
    assert o.hand is not None
    st = o.hand.stakes[o.player]
    if o.kind == "double":
        return (RangeChoice("double", lo=1, hi=st.main),)
    if o.kind == "split":
        return (Choice("cover", (st.main,)), RangeChoice("follow", lo=1, hi=2))
    return (Choice(o.kind),)


def answer(rnd: BlackjackRound, o: Offer, verb: str, amount: int | None) -> list[Event]:
    """``verb`` answers offer ``o``; then the round advances."""
    rnd._figures_version += 1
    choices = {c.verb: c for c in offer_choices(rnd, o)}
    if verb not in choices:
        raise IllegalAction("illegal_verb", f"{verb!r} is not open to this player now")
    resolved = choices[verb].resolve(amount)
    bp = rnd.box_play[o.box]
    label = verb if o.player is None else f"{verb} {o.player}"
    out: list[Event] = [
        DecisionMade(box=o.box, street=o.kind, verb=label, amount=resolved, cause="player")
    ]
    rnd.offers.remove(o)
    if verb == "insurance":
        assert resolved is not None
        bp.insurance[o.player] = resolved
        if o.player is None:
            rnd._stake(o.box, "insurance", resolved)
    elif verb == "even_money":  # BJ s22(4): paid 1:1 at once in full settlement
        hand = bp.hands[0]
        st = hand.stakes[o.player]
        out.append(rnd._settle_stake(hand, st, st.main, "even money 1:1 (s22(4))"))
    elif verb == "double":
        assert o.hand is not None and resolved is not None
        out += play.double(rnd, o.hand, o.player, resolved)
    elif verb == "rescue":  # SP s25(7): the double withdrawn, the main wager forfeited
        assert o.hand is not None
        st = o.hand.stakes[o.player]
        st.rescued = True
        out.append(rnd._settle_stake(o.hand, st, -st.main, "rescue (s25(7))"))
    elif verb == "surrender":
        assert o.hand is not None
        o.hand.stakes[o.player].surrendered = True
    else:  # cover / follow after a split (BJ s30(7), SP s31(9), CH s30(6))
        assert o.hand is not None and o.new_hand is not None and resolved is not None
        st = o.hand.stakes[o.player]
        if verb == "cover":
            o.new_hand.stakes[o.player] = Stake(o.player, resolved)
        elif resolved == 2:
            del o.hand.stakes[o.player]
            o.new_hand.stakes[o.player] = st
    return out + rnd._advance()


def absent(rnd: BlackjackRound, box: int, player: Player, verb: str) -> list[Event]:
    """A player who does not act (``timeout``) or cannot fund a wager (``insufficient``):
    his open offers are declined; otherwise the controller's hands are played out by the
    schedule's automatic play (BJ s61, SP s51, SW s42: no switch, CH s49)."""
    mine = [o for o in rnd.offers if o.box == box and o.player == player]
    acting = player is None and rnd.acting is not None and rnd.acting.box == box
    if not mine and not acting:
        raise IllegalAction("not_awaiting_decision", f"box {box} owes no decision now")
    out: list[Event] = []
    if mine:
        out += rnd._decline(box, player)
    while rnd.acting is not None and rnd.acting.box == box:
        t, soft = rnd._total(rnd.acting)
        limit = rnd.variant.timeout_soft_limit if soft else 11
        out += play.play(rnd, box, "hit" if t <= limit else "stand", None, verb)
    return rnd._emit(out)
