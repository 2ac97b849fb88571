"""Cards, decks and shuffles.

A card is a small ``int`` so that hand evaluation, dealing and copying stay cheap:

    card = rank * 4 + suit      rank 0..12 for 2..A, suit 0..3 for s, h, d, c

On the wire, in scenarios and in hand histories a card is two characters: rank
``23456789TJQKA`` and suit ``shdc`` (``"As"``, ``"Td"``, ``"7c"``).

Decks:

* the standard 52-card deck (ACT Hold-em/Omaha r 3.1; QLD Sch 11 s 13);
* the 32-card reduced deck A, K, Q, J, 10, 9, 8, 7 of every suit used by both Manila
  games (ACT 3 Card Manila r 3.1; QLD Sch 5 s 13).

Randomness is injected: engines receive a :class:`RandomSource`. Production uses
:class:`SystemRandomSource` (the OS CSPRNG through :class:`secrets.SystemRandom`), tests and
scenarios use :class:`SeededRandomSource`. Both shuffle with an unbiased Fisher-Yates shuffle
driven by ``randbelow`` (rejection sampling, so no modulo bias).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

RANKS = "23456789TJQKA"
SUITS = "shdc"

Card = int

RANK_NAMES = {
    0: "two",
    1: "three",
    2: "four",
    3: "five",
    4: "six",
    5: "seven",
    6: "eight",
    7: "nine",
    8: "ten",
    9: "jack",
    10: "queen",
    11: "king",
    12: "ace",
}
RANK_PLURALS = {
    0: "twos",
    1: "threes",
    2: "fours",
    3: "fives",
    4: "sixes",
    5: "sevens",
    6: "eights",
    7: "nines",
    8: "tens",
    9: "jacks",
    10: "queens",
    11: "kings",
    12: "aces",
}


class CardError(ValueError):
    """A card string that names no card."""


def card(text: str) -> Card:
    """Parse ``"As"`` into a card int. Accepts ``10`` for ten and either case."""
    if not isinstance(text, str):
        raise CardError(f"not a card: {text!r}")
    t = text.strip()
    if len(t) == 3 and t[:2] == "10":
        t = "T" + t[2]
    if len(t) != 2:
        raise CardError(f"not a card: {text!r}")
    r = RANKS.find(t[0].upper())
    s = SUITS.find(t[1].lower())
    if r < 0 or s < 0:
        raise CardError(f"not a card: {text!r}")
    return r * 4 + s


def cards(texts: Iterable[str]) -> list[Card]:
    return [card(t) for t in texts]


def card_str(c: Card) -> str:
    return RANKS[c >> 2] + SUITS[c & 3]


def cards_str(cs: Iterable[Card]) -> list[str]:
    return [card_str(c) for c in cs]


def rank_of(c: Card) -> int:
    return c >> 2


def suit_of(c: Card) -> int:
    return c & 3


#: The standard 52-card pack, in a fixed new-deck order.
STANDARD_DECK: tuple[Card, ...] = tuple(range(52))
#: The 32-card Manila pack: A, K, Q, J, 10, 9, 8, 7 of each suit (ranks 5..12).
MANILA_DECK: tuple[Card, ...] = tuple(c for c in range(52) if c >> 2 >= 5)

DECKS: dict[int, tuple[Card, ...]] = {52: STANDARD_DECK, 32: MANILA_DECK}


class RandomSource(Protocol):
    """What an engine may ask of randomness: a uniform integer in ``[0, n)``."""

    def randbelow(self, n: int) -> int: ...


class SystemRandomSource:
    """Production randomness: the operating system's CSPRNG (``secrets``)."""

    def randbelow(self, n: int) -> int:
        return secrets.randbelow(n)


class SeededRandomSource:
    """Deterministic randomness for tests, scenarios and replays. Never used in production."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def randbelow(self, n: int) -> int:
        return self._rng.randrange(n)


class FirstSource:
    """No randomness: every draw is the first. For a round whose result is given (a rules
    probe, a coup a dealer entered): the undrawn rest of the shoe is never seen, and a
    round secret is not spent on it."""

    def randbelow(self, n: int) -> int:
        return 0


FIRST: RandomSource = FirstSource()


def random_source(seed: int | None) -> RandomSource:
    """The system CSPRNG, or (tests only: a table config's ``seed``) a seeded source."""
    return SeededRandomSource(seed) if seed is not None else SystemRandomSource()


T = TypeVar("T")


def shuffle(items: Sequence[T], rng: RandomSource) -> list[T]:
    """Return a uniformly shuffled copy (Fisher-Yates / Durstenfeld, unbiased ``randbelow``);
    cards, or anything drawn by ballot (tournament seats, 2017 r 17.7). A source that keeps
    a deal's items (``shuffled``, :class:`server.fair.SecretSource`) is told the result."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rng.randbelow(i + 1)
        out[i], out[j] = out[j], out[i]
    record = getattr(rng, "shuffled", None)
    if record is not None:  # a committed deal's source keeps its items (server/fair.py)
        record(out)
    return out


class Shoe:
    """Cards dealt in order from a shuffled deck; a pure object, no I/O.

    ``Shoe(deck, rng)`` shuffles; ``Shoe.stacked(order)`` deals exactly the given order (used
    by scenarios and replays). ``deal()`` raises :class:`IndexError` when empty.
    """

    __slots__ = ("_cards", "_pos")

    def __init__(self, deck: Sequence[Card], rng: RandomSource) -> None:
        self._cards = shuffle(deck, rng)
        self._pos = 0

    @classmethod
    def stacked(cls, order: Sequence[Card]) -> Shoe:
        shoe = cls.__new__(cls)
        shoe._cards = list(order)
        shoe._pos = 0
        return shoe

    def deal(self) -> Card:
        c = self._cards[self._pos]
        self._pos += 1
        return c

    def deal_many(self, n: int) -> list[Card]:
        if self._pos + n > len(self._cards):
            raise IndexError("shoe exhausted")
        out = self._cards[self._pos : self._pos + n]
        self._pos += n
        return out

    def remaining(self) -> int:
        return len(self._cards) - self._pos
