"""The hand in play: its choices and the controller's play decisions.

One hand decides at a time, boxes in order (s17(2)): :func:`needs_decision` says whether the
hand still has a decision, :func:`choices_for` which (hit, stand, double: BJ s24, SP s25,
CH s23; split: BJ s25, CH s24; surrender: SP s23; switch: SW s17(3)-(7)), and :func:`play`
applies one, opening the offers it gives others on the box (BJ s30(6),(7), SP s31) and
settling nothing itself: busts, 21s paid at once (SP s22, CH s25(5)) and five card tricks
(CH s25(6)) are marked on the hand (:func:`after_card`) and settled by
:func:`~.settlement.settle_ready`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.cards import card_str, rank_of
from server.errors import IllegalAction
from server.games.banked.base import (
    Choice,
    DecisionMade,
    Event,
    HandShown,
)
from server.games.banked.blackjack import rules
from server.games.banked.blackjack.boxes import BoxPlay, Hand, Offer, Player, RangeChoice, Stake

if TYPE_CHECKING:
    from server.games.banked.blackjack.engine import BlackjackRound


def needs_decision(rnd: BlackjackRound, hand: Hand) -> bool:
    """Whether ``hand`` still has a play decision (not bust, stood, doubled, surrendered, at
    21, a split ace given its one card: BJ s25(4)(b), or a five card trick: CH s25(6))."""
    v = rnd.variant
    if hand.status != "play" or hand.stood or hand.doubled or len(hand.cards) < 2:
        return False
    if any(st.surrendered for st in hand.stakes.values()):
        return False
    if hand.split_aces and v.split_aces_one_card:
        return False  # BJ s25(4)(b): one card to each split ace
    if v.five_card_trick and len(hand.cards) >= 5:
        return False
    return rnd._total(hand)[0] < 21


def choices_for(rnd: BlackjackRound, hand: Hand) -> tuple[Choice, ...]:
    """The play decisions open to ``hand`` now (module docstring)."""
    v = rnd.variant
    bp = rnd.box_play[hand.box]
    own = hand.stakes[None].main
    out: list[Choice] = [Choice("hit"), Choice("stand")]
    if may_double(rnd, hand):
        out.append(RangeChoice("double", lo=1, hi=own))
    if may_split(rnd, hand):
        out.append(Choice("split", (own,)))
    if v.surrender and may_surrender(rnd, hand):
        out.append(Choice("surrender"))
    if v.switch and not bp.acted:
        out.append(Choice("switch"))
    return tuple(out)


def may_double(rnd: BlackjackRound, hand: Hand) -> bool:
    """BJ s24(1),(4) and SW s24 (digest A1/A10): the first 2 cards total 9-11 with aces
    as 1, never a 21; SP s25(1): 2 or more cards, not 21; CH s23(1): 2 or 3 cards."""
    v = rnd.variant
    n = len(hand.cards)
    if hand.doubled or rnd._total(hand)[0] >= 21:
        return False
    if v.double_window == "9-11":
        return n == 2 and 9 <= sum(rules.value(c) for c in hand.cards) <= 11
    if v.double_window == "any":
        return n >= 2
    return n in (2, 3)


def may_split(rnd: BlackjackRound, hand: Hand) -> bool:
    """BJ s25(1),(4)(a): identical value, no resplit; CH s24(5): up to 3 hands a box,
    a resplit only of the original split value."""
    v = rnd.variant
    bp = rnd.box_play[hand.box]
    if len(hand.cards) != 2 or hand.doubled:
        return False
    a, b = hand.cards
    if rules.value(a) != rules.value(b):
        return False
    if v.max_hands == 2:
        return not hand.split
    group = [h for h in bp.hands if h.area == hand.area]
    if len(group) >= v.max_hands:
        return False
    origin = min(group, key=lambda h: h.formed)
    return not hand.split or rules.value(a) == rules.value(origin.cards[0])


def may_surrender(rnd: BlackjackRound, hand: Hand) -> bool:
    """SP s23(1), digest A3: dealer J/Q/K/A; the first decision on the 2-card hand."""
    up = rnd.dealer[0]
    return (
        (rules.is_ten(up) or rank_of(up) == rules.ACE)
        and not hand.split
        and not hand.acted
        and len(hand.cards) == 2
        and rnd._total(hand)[0] < 21
    )


def play(rnd: BlackjackRound, box: int, verb: str, amount: int | None, cause: str) -> list[Event]:
    """The controller's play decision ``verb`` on the hand in play on ``box``; the next
    play decision closes every open offer; then the round advances."""
    hand = rnd.acting
    if hand is None or hand.box != box:
        raise IllegalAction("not_awaiting_decision", f"box {box} owes no decision now")
    choices = {c.verb: c for c in choices_for(rnd, hand)}
    if verb not in choices:
        raise IllegalAction("illegal_verb", f"box {box} may {', '.join(choices)} now, not {verb!r}")
    resolved = choices[verb].resolve(amount)
    rnd.offers = []  # the next play decision declines every open offer
    out: list[Event] = [
        DecisionMade(box=box, street=rnd._label(hand), verb=verb, amount=resolved, cause=cause)
    ]
    bp = rnd.box_play[box]
    if rnd.variant.switch and verb != "switch" and not rnd._dealer_may_blackjack():
        for h in bp.hands:  # SW s22(2): an unswitched blackjack is paid at the box's turn
            h.early = h.early or h.status == "blackjack"
    bp.acted = True
    if verb != "switch":
        hand.acted = True
    if verb == "hit":
        out += rnd._give(hand)
        after_card(rnd, hand)
    elif verb == "stand":
        hand.stood = True
    elif verb == "double":
        assert resolved is not None
        out += double(rnd, hand, None, resolved)
        for p, st in hand.stakes.items():
            if p is not None and st.net is None:
                rnd.offers.append(Offer(box, p, "double", hand))
    elif verb == "split":
        out += split(rnd, hand)
    elif verb == "surrender":
        for p, st in hand.stakes.items():  # SP s31(5): others only if the controller does
            if p is None:
                st.surrendered = True
            else:
                rnd.offers.append(Offer(box, p, "surrender", hand))
    elif verb == "switch":
        out += switch(rnd, bp)
    return out + rnd._advance()


def after_card(rnd: BlackjackRound, hand: Hand) -> None:
    """A card reached the hand: a bust loses (s6(2)(f)); a 21 (SP s22, CH s25(5)) or a
    five card trick (CH s25(6)) is paid at once. Money moves in :meth:`_settle_ready`."""
    v = rnd.variant
    t, _ = rnd._total(hand)
    if t > 21:
        hand.status = "bust"
    elif t == 21 and v.twenty_one_at_once:
        hand.status = "paid"
    elif v.five_card_trick and len(hand.cards) >= 5:
        hand.status = "paid"


def double(rnd: BlackjackRound, hand: Hand, player: Player, amount: int) -> list[Event]:
    """``player`` doubles ``hand`` by ``amount`` (BJ s24, SP s25, SW s24, CH s23; another
    player on the box: BJ s30(6)); one card to the controller's double."""
    v = rnd.variant
    st = hand.stakes[player]
    st.double = amount
    out: list[Event] = []
    if player is None:
        rnd._stake(hand.box, "main", amount)
        hand.doubled = True
        if v.double_aces == "first 2":
            hand.fixed_aces = 2  # BJ s24(4)
        elif v.double_aces == "all held":
            hand.fixed_aces = len(hand.cards)  # SP s25(4)
        out += rnd._give(hand)
        after_card(rnd, hand)
    if v.rescue and hand.status == "play":
        rnd.offers.append(Offer(hand.box, player, "rescue", hand))  # SP s25(7),(8)
    return out


def split(rnd: BlackjackRound, hand: Hand) -> list[Event]:
    """Split ``hand`` into two (BJ s25, SP s26, SW s25, CH s24): the new hand is played next
    (CH digest A6), others on the box may cover or follow (BJ s30(7))."""
    rnd._figures_version += 1
    bp = rnd.box_play[hand.box]
    group = [h for h in bp.hands if h.area == hand.area]
    first, second = hand.cards
    new = Hand(
        hand.box,
        hand.area,
        [second],
        max(h.formed for h in group) + 1,
        {None: Stake(None, hand.stakes[None].main)},
        split=True,
    )
    rnd._stake(hand.box, "main", hand.stakes[None].main)
    suited_sevens = rank_of(first) == rank_of(second) == 5 and first & 3 == second & 3
    hand.cards = [first]
    hand.split = True
    hand.split_aces = new.split_aces = rank_of(first) == rules.ACE
    hand.suited_sevens_split = new.suited_sevens_split = suited_sevens
    bp.hands.insert(bp.hands.index(hand) + 1, new)  # CH digest A6: played next
    for p in hand.stakes:
        if p is not None:  # BJ s30(7): cover each split hand or choose one
            rnd.offers.append(Offer(hand.box, p, "split", hand, new))
    out = rnd._give(hand)  # s25(3): the first split hand is completed first
    after_split_card(rnd, hand)
    return out


def after_split_card(rnd: BlackjackRound, hand: Hand) -> None:
    """A split hand got its second card: a blackjack after a split (CH s24(4)(a)), else
    :func:`after_card`."""
    v = rnd.variant
    if v.blackjack_after_split and rules.natural(hand.cards):
        hand.status = "blackjack"  # CH s24(4)(a)
        hand.early = not rnd._dealer_may_blackjack()
    else:
        after_card(rnd, hand)


def switch(rnd: BlackjackRound, bp: BoxPlay) -> list[Event]:
    """SW s17(3)-(7): swap the second cards; an A + ten-value after a switch is a switched
    blackjack, a 21 (s22(5))."""
    h1, h2 = bp.hands
    h1.cards[1], h2.cards[1] = h2.cards[1], h1.cards[1]
    for h in (h1, h2):
        h.switched = True
        h.status = "play"
        h.early = False
    return [
        HandShown(box=bp.box, cards=tuple(map(card_str, h.cards)), hand=f"area {h.area + 1}")
        for h in (h1, h2)
    ]
