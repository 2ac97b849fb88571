"""The blackjack family as data: one :class:`Variant` per schedule, hand values, pay tables.

Seed 004 (Queensland Casino Gaming Rule 2010): Schedule 2 blackjack (``BJ``), Schedule 9
Spanish blackjack (``SP``), Schedule 15 blackjack switch (``SW``), Schedule 17 blackjack
challenge (``CH``). The comparison table is ``../shared/rules/blackjack-family.md``; every
field below names the section it comes from. The engine (:mod:`.engine`) reads only these
fields, so a variant differs from another in data, never in code paths of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from server.cards import STANDARD_DECK, Card, rank_of, suit_of
from server.games.banked.base import Odds

ACE = 12
TEN_RANKS = (8, 9, 10, 11)  # T, J, Q, K
#: CH s5(2): for blackjack against blackjack the ten-value cards rank K > Q > J > 10.
SPANISH_DECK: tuple[Card, ...] = tuple(c for c in STANDARD_DECK if rank_of(c) != 8)  # SP s4


def _value(c: Card) -> int:
    r = rank_of(c)
    if r == ACE:
        return 1
    return min(r + 2, 10)


#: card -> its value (the rule below, tabled once: totals are counted on every decision)
_VALUE: tuple[int, ...] = tuple(_value(c) for c in STANDARD_DECK)
_ACE_CARD: tuple[bool, ...] = tuple(rank_of(c) == ACE for c in STANDARD_DECK)


def value(c: Card) -> int:
    """BJ s5 (and SP/SW/CH s5): 2-10 face value, J/Q/K 10, an ace 1 here (11 in totals)."""
    return _VALUE[c]


def is_ten(c: Card) -> bool:
    return rank_of(c) in TEN_RANKS


def total(cards: Sequence[Card], fixed: int = 0) -> tuple[int, bool]:
    """``(total, soft)``: every ace counts 1, and one ace counts 11 when that keeps the hand
    at 21 or under (s5). Aces among the first ``fixed`` cards are held at 1: the aces of a
    double down (BJ s24(4), SW s24(4): the first 2 cards; SP s25(4): every card held
    before the double)."""
    hard = sum(map(_VALUE.__getitem__, cards))
    free_ace = any(map(_ACE_CARD.__getitem__, cards[fixed:]))
    if free_ace and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def natural(cards: Sequence[Card]) -> bool:
    """An ace and a ten-value card as a hand's first 2 cards (BJ s2)."""
    if len(cards) != 2:
        return False
    a, b = cards
    return (rank_of(a) == ACE and is_ten(b)) or (rank_of(b) == ACE and is_ten(a))


# ------------------------------------------------------------------------ side wagers

#: BJ s46 / SP s36: perfect pairs by approved schedule number.
PERFECT_PAIRS: dict[str, dict[int, dict[str, Odds]]] = {
    "blackjack": {
        1: {"mixed pair": (5, 1), "coloured pair": (10, 1), "perfect pair": (30, 1)},
        2: {"mixed pair": (6, 1), "coloured pair": (12, 1), "perfect pair": (25, 1)},
    },
    "spanish-blackjack": {
        1: {"mixed pair": (5, 1), "coloured pair": (10, 1), "perfect pair": (25, 1)},
        2: {"mixed pair": (6, 1), "coloured pair": (12, 1), "perfect pair": (20, 1)},
    },
}
#: BJ s34: super sevens.
SUPER_SEVENS: dict[str, Odds] = {
    "one seven": (3, 1),
    "two sevens": (50, 1),
    "two sevens suited": (100, 1),
    "three sevens": (500, 1),
    "three sevens suited": (5000, 1),
}
#: BJ s40: bonus blackjack, fixed amounts in cents on the $1 wager (digest A5: the win).
BONUS_BLACKJACK: dict[str, int] = {
    "5-5-5-6 suited": 2_500_000,
    "5-5-5-6": 150_000,
    "7-7-7 suited": 500_000,
    "7-7-7": 50_000,
    "6-7-8 suited, 8 decks": 75_000,
    "6-7-8 suited, 6 decks": 80_000,
    "6-7-8": 5_000,
    "nominated blackjack": 17_500,
}
BONUS_BLACKJACK_STAKE = 100  # BJ s39: exactly $1
#: SW s8(3): super match on the box's first 4 cards.
SUPER_MATCH: dict[str, Odds] = {
    "pair": (1, 1),
    "two pairs": (8, 1),
    "three of a kind": (5, 1),
    "four of a kind": (40, 1),
}
ANY_PAIR: Odds = (11, 1)  # CH s35
INSURANCE: Odds = (2, 1)  # BJ s23(5), SP s24(5), SW s8(2)
#: SP s8(1): bonus odds on a winning (undoubled) 21.
SPANISH_BONUS: dict[str, Odds] = {
    "blackjack": (3, 2),
    "5-card 21": (3, 2),
    "6-card 21": (2, 1),
    "7-card 21": (3, 1),
    "6-7-8": (3, 2),
    "6-7-8 suited": (2, 1),
    "6-7-8 spades": (3, 1),
    "7-7-7": (3, 2),
    "7-7-7 suited": (2, 1),
    "7-7-7 spades": (3, 1),
}
#: SP s8(3): the super bonus, cents; and the amount to every other player.
SUPER_BONUS_SMALL = 100_000  # main wager not more than $24
SUPER_BONUS_LARGE = 500_000  # main wager $25 or more
SUPER_BONUS_BAND = 2_500  # digest A2(vi): under $25 is the small band
SUPER_BONUS_OTHERS = 5_000
#: CH s27(1): blackjack against a dealer blackjack by the ten-value cards' rank.
CHALLENGE_BJ_V_BJ: dict[str, Odds] = {"higher": (5, 1), "same": (4, 1), "lower": (3, 1)}


def pair_kind(a: Card, b: Card) -> str | None:
    """BJ s43 / SP s33: same face value (rank); perfect = same suit, coloured = same colour."""
    if rank_of(a) != rank_of(b):
        return None
    if suit_of(a) == suit_of(b):
        return "perfect pair"
    red = (1, 2)  # hearts, diamonds
    return "coloured pair" if (suit_of(a) in red) == (suit_of(b) in red) else "mixed pair"


def super_sevens(cards: Sequence[Card]) -> str | None:
    """BJ s34: the first (up to) three cards dealt to the player; ``None``: no seven first."""
    sevens = 0
    for c in cards[:3]:
        if rank_of(c) != 5:
            break
        sevens += 1
    if sevens == 0:
        return None
    if sevens == 1:
        return "one seven"
    suited = len({suit_of(c) for c in cards[:sevens]}) == 1
    name = "two sevens" if sevens == 2 else "three sevens"
    return name + " suited" if suited else name


def three_card(cards: Sequence[Card], ranks: tuple[int, ...]) -> bool:
    return len(cards) == len(ranks) and sorted(rank_of(c) for c in cards) == sorted(ranks)


SIX_SEVEN_EIGHT = (4, 5, 6)
SEVEN_SEVEN_SEVEN = (5, 5, 5)
FIVE_FIVE_FIVE_SIX = (3, 3, 3, 4)


def bonus_blackjack(cards: Sequence[Card], decks: int, nominated: tuple[Card, Card]) -> str | None:
    """BJ s40, digest A6: the whole hand must be the combination."""
    suited = len({suit_of(c) for c in cards}) == 1
    if three_card(cards, FIVE_FIVE_FIVE_SIX):
        return "5-5-5-6 suited" if suited else "5-5-5-6"
    if three_card(cards, SEVEN_SEVEN_SEVEN):
        return "7-7-7 suited" if suited else "7-7-7"
    if three_card(cards, SIX_SEVEN_EIGHT):
        return f"6-7-8 suited, {decks} decks" if suited else "6-7-8"
    if len(cards) == 2 and sorted(cards) == sorted(nominated):
        return "nominated blackjack"
    return None


def spanish_bonus(cards: Sequence[Card], split: bool) -> str | None:
    """SP s8(1): the bonus a 21 earns (digest A6: split hands qualify; A7: 6-7-8 and 7-7-7
    are hands of exactly those cards). ``None``: a plain 21 (1:1)."""
    if natural(cards) and not split:
        return "blackjack"
    for ranks, name in ((SIX_SEVEN_EIGHT, "6-7-8"), (SEVEN_SEVEN_SEVEN, "7-7-7")):
        if three_card(cards, ranks):
            suits = {suit_of(c) for c in cards}
            if suits == {0}:
                return name + " spades"
            return name + " suited" if len(suits) == 1 else name
    n = len(cards)
    if n >= 5 and total(cards)[0] == 21:
        return f"{min(n, 7)}-card 21"
    return None


def super_match(cards: Sequence[Card]) -> str | None:
    """SW s8(3), digest A8: ranking as written (two pairs 8:1 above three of a kind 5:1)."""
    counts = sorted(Counter(rank_of(c) for c in cards).values(), reverse=True)
    if counts[0] == 4:
        return "four of a kind"
    if counts[0] == 3:
        return "three of a kind"
    if counts[:2] == [2, 2]:
        return "two pairs"
    if counts[0] == 2:
        return "pair"
    return None


def any_pair(a: Card, b: Card) -> bool:
    """CH s35: the same number, or the same picture (10-J and K-Q are no pair)."""
    return rank_of(a) == rank_of(b)


# ------------------------------------------------------------------------ the variants


#: a blackjack against a dealer blackjack: "push" (BJ s6(2)(e), SW s6(3)(j)), "paid" (SP:
#: already paid, s6(2)(c)), "rank" (CH s27)
BlackjackVBlackjack = Literal["push", "paid", "rank"]
#: a 21 paid at once: "spanish" (SP s6(2)(d), s22, s8), "even" (CH s25(5)), "" (never)
TwentyOneAtOnce = Literal["spanish", "even", ""]
#: when a hand may double: "9-11" (BJ s24(1), SW s24(1): first 2 cards, aces 1), "any" (SP
#: s25(1)), "2-3" (CH s23(1): first 2 or 3 cards)
DoubleWindow = Literal["9-11", "any", "2-3"]
#: aces held at 1 after a double: "first 2" (BJ/SW s24(4)), "all held" (SP s25(4)), "" (none)
DoubleAces = Literal["first 2", "all held", ""]
#: who may insure: "player" (BJ s23, SP s24), "box" (SW s23), "" (CH: no insurance)
Insurance = Literal["player", "box", ""]


@dataclass(frozen=True)
class Variant:
    """Everything that separates the four schedules (blackjack-family.md section 3)."""

    id: str
    title: str
    schedule: str
    deck: tuple[Card, ...]
    decks: tuple[int, ...]
    default_decks: int
    #: hands per box: 1, or 2 equal compulsory areas (SW s6(1),(2))
    areas: int
    #: dealer hits soft 17 (SP s28(1), SW s27(1)) or stands (BJ s27(1), CH s26(1))
    hits_soft_17: bool
    #: SW s6(3)(i): a dealer 22 pushes every standing hand that is not a blackjack
    dealer_22_pushes: bool
    blackjack_odds: Odds
    blackjack_v_blackjack: BlackjackVBlackjack
    #: a blackjack is paid at once whatever the dealer shows (SP s22); otherwise at once
    #: only against a dealer 2-9 (BJ s22(1), CH s22(1)) -- SW pays at the box's turn (s22(2))
    blackjack_paid_at_once_always: bool
    blackjack_after_split: bool  # CH s24(4)(a)
    #: a 21 is paid at once and always wins (or "": a normal hand)
    twenty_one_at_once: TwentyOneAtOnce
    five_card_trick: bool  # CH s25(6)
    ties_lose: bool  # CH s6(2)(h), s27(4)
    double_window: DoubleWindow
    double_aces: DoubleAces
    rescue: bool  # SP s25(7),(8)
    surrender: bool  # SP s23
    switch: bool  # SW s2, s17(3)-(5)
    max_hands: int  # 2: no resplit (BJ s25(4)(a)); CH s24(5): 3
    split_aces_one_card: bool  # BJ s25(4)(b), SP s26(4)(b), SW s25(4)(b)
    #: (BJ s23, SP s24: each player, with a 25c allowance)
    insurance: Insurance
    even_money: bool  # BJ s22(4)
    #: dealer blackjack after a split: the original wager passes from a first hand already
    #: won (SP s26(7)(b), CH digest A5) or rescued (SP s26(7)(c))
    original_passes: frozenset[str]
    side_wagers: tuple[str, ...]
    backers: bool  # others on a box (BJ s29, SP s30, CH s29; SW s28: super match only)
    #: timeout auto-play: draw while hard <= 11 or soft <= this (BJ s61, SP s51, SW s42, CH s49)
    timeout_soft_limit: int
    #: SP s19(2): a cutting card that would be the first card of a round: reshuffle at once
    reshuffle_before_round: bool
    #: SW s27(1): the dealer stands on hard 17 to 22 (a dealer 23+ busts)
    dealer_bust_above: int = 21

    @property
    def deck_size(self) -> int:
        return len(self.deck)


BLACKJACK = Variant(
    id="blackjack",
    title="Blackjack",
    schedule="Queensland Casino Gaming Rule 2010, Schedule 2",
    deck=STANDARD_DECK,
    decks=(5, 6, 7, 8),
    default_decks=6,
    areas=1,
    hits_soft_17=False,
    dealer_22_pushes=False,
    blackjack_odds=(3, 2),
    blackjack_v_blackjack="push",
    blackjack_paid_at_once_always=False,
    blackjack_after_split=False,
    twenty_one_at_once="",
    five_card_trick=False,
    ties_lose=False,
    double_window="9-11",
    double_aces="first 2",
    rescue=False,
    surrender=False,
    switch=False,
    max_hands=2,
    split_aces_one_card=True,
    insurance="player",
    even_money=True,
    original_passes=frozenset(),
    side_wagers=("super_sevens", "bonus_blackjack", "perfect_pairs"),
    backers=True,
    timeout_soft_limit=16,
    reshuffle_before_round=False,
)

SPANISH = Variant(
    id="spanish-blackjack",
    title="Spanish blackjack",
    schedule="Queensland Casino Gaming Rule 2010, Schedule 9",
    deck=SPANISH_DECK,
    decks=(5, 6, 7, 8),
    default_decks=6,
    areas=1,
    hits_soft_17=True,
    dealer_22_pushes=False,
    blackjack_odds=(3, 2),
    blackjack_v_blackjack="paid",
    blackjack_paid_at_once_always=True,
    blackjack_after_split=False,
    twenty_one_at_once="spanish",
    five_card_trick=False,
    ties_lose=False,
    double_window="any",
    double_aces="all held",
    rescue=True,
    surrender=True,
    switch=False,
    max_hands=2,
    split_aces_one_card=True,
    insurance="player",
    even_money=False,
    original_passes=frozenset({"won", "rescued"}),
    side_wagers=("perfect_pairs",),
    backers=True,
    timeout_soft_limit=16,
    reshuffle_before_round=True,
)

SWITCH = Variant(
    id="blackjack-switch",
    title="Blackjack switch",
    schedule="Queensland Casino Gaming Rule 2010, Schedule 15",
    deck=STANDARD_DECK,
    decks=(6, 7, 8),
    default_decks=6,
    areas=2,
    hits_soft_17=True,
    dealer_22_pushes=True,
    blackjack_odds=(1, 1),
    blackjack_v_blackjack="push",
    blackjack_paid_at_once_always=False,
    blackjack_after_split=False,
    twenty_one_at_once="",
    five_card_trick=False,
    ties_lose=False,
    double_window="9-11",
    double_aces="first 2",
    rescue=False,
    surrender=False,
    switch=True,
    max_hands=2,
    split_aces_one_card=True,
    insurance="box",
    even_money=False,
    original_passes=frozenset(),
    side_wagers=("super_match",),
    backers=False,
    timeout_soft_limit=17,
    reshuffle_before_round=False,
    dealer_bust_above=22,
)

CHALLENGE = Variant(
    id="blackjack-challenge",
    title="Blackjack challenge",
    schedule="Queensland Casino Gaming Rule 2010, Schedule 17",
    deck=STANDARD_DECK,
    decks=(5, 6, 7, 8),
    default_decks=6,
    areas=1,
    hits_soft_17=False,
    dealer_22_pushes=False,
    blackjack_odds=(2, 1),
    blackjack_v_blackjack="rank",
    blackjack_paid_at_once_always=False,
    blackjack_after_split=True,
    twenty_one_at_once="even",
    five_card_trick=True,
    ties_lose=True,
    double_window="2-3",
    double_aces="",
    rescue=False,
    surrender=False,
    switch=False,
    max_hands=3,
    split_aces_one_card=False,
    insurance="",
    even_money=False,
    original_passes=frozenset({"won"}),
    side_wagers=("any_pair",),
    backers=True,
    timeout_soft_limit=16,
    reshuffle_before_round=False,
)

VARIANTS: dict[str, Variant] = {v.id: v for v in (BLACKJACK, SPANISH, SWITCH, CHALLENGE)}


def dealer_draws(cards: Sequence[Card], variant: Variant) -> bool:
    """BJ s27(1), CH s26(1): draw to 16, stand on every 17; SP s28(1), SW s27(1): also draw
    on a soft 17 (SW: stand on hard 17-22)."""
    t, soft = total(cards)
    return t < 17 or (t == 17 and soft and variant.hits_soft_17)


def ten_rank(cards: Sequence[Card]) -> int:
    """The rank of the ten-value card of a two-card blackjack (CH s5(2), s27(1))."""
    return max(rank_of(c) for c in cards if is_ten(c))
