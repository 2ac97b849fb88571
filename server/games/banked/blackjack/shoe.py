"""The blackjack shoe: several decks, a cutting card, reshuffles (BJ s4, s12-s19, s49, s52).

Theory of operation
-------------------
A :class:`BlackjackShoe` lives at a table across rounds (a scenario builds one for its single
round). It holds ``decks`` copies of the variant's deck (Spanish decks have no tens, SP s4)
in dealing order, a read position, the cards discarded in earlier rounds and the cards dealt
in the current round. The second cutting card sits ``cut_from_back`` cards from the back (s13(8):
about one deck or more from the back; a gaming manager may place it anywhere up to about
two-thirds of the way in).

* :meth:`begin_round`: Spanish blackjack reshuffles at once when the cutting card would be
  the first card of the round (SP s19(2)); the other schedules deal that round and reshuffle
  after it (s19).
* :meth:`deal`: the next card. When the shoe runs out in a round, the discards of earlier
  rounds are shuffled and the round is completed from them (BJ s52, SP s42, SW s33, CH s40).
* :meth:`discard_face_up`: a card found face up in the shoe is discarded, not used (BJ s49,
  SP s39, SW s30, CH s37).
* :meth:`end_round`: the round's cards go to the discards; when the cutting card was reached
  during the round the whole shoe is reshuffled (s12(3)(b), s19) -- unless a manager
  announced, before the cutting card appeared, the last rounds before the table closes
  (:meth:`announce_last_rounds`, SP s19(3),(4)).

Randomness comes only from the injected :class:`~server.cards.RandomSource`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from server.cards import Card, RandomSource, card, card_str, shuffle
from server.games.banked.base import InvalidRound


class BlackjackShoe:
    """A multi-deck shoe with a cutting card (see the module docstring)."""

    def __init__(
        self,
        deck: Sequence[Card],
        decks: int,
        rng: RandomSource,
        cut_from_back: int | None = None,
        forced: Sequence[Card] = (),
    ) -> None:
        self.deck = tuple(deck)
        self.decks = decks
        self.rng = rng
        self.size = len(self.deck) * decks
        self.cut_from_back = len(self.deck) if cut_from_back is None else cut_from_back
        if not 10 <= self.cut_from_back <= self.size - 10:
            raise InvalidRound("the cutting card must be at least 10 cards from either end (s13)")
        self.composition: list[Card] = [c for c in self.deck for _ in range(decks)]
        counts: Counter[Card] = Counter(forced)
        deck_set = set(self.deck)
        for c, n in counts.items():
            if c not in deck_set:
                raise InvalidRound(f"{card_str(c)} is not in this game's deck")
            if n > decks:
                raise InvalidRound(f"{card_str(c)} is used {n} times; the shoe holds {decks}")
        rest = list(self.composition)
        for c in forced:
            rest.remove(c)
        self.cards: list[Card] = [*forced, *shuffle(rest, rng)]
        self.pos = 0
        self.discards: list[Card] = []
        self.on_table: list[Card] = []
        self.reshuffles = 0
        #: the cutting card came out during this shoe (s19)
        self.cut_reached = False
        #: SP s19(3),(4): rounds still to play without a reshuffle before the table closes
        self.last_rounds: int | None = None
        #: when a table keeps it (a list): ``(stack, position)`` of every card taken from
        #: the shoe, the stack counted by :attr:`reshuffles` (server/tables/blackjack.py
        #: opens each card at its position); None: not kept (a simulation)
        self.drawn: list[tuple[int, int]] | None = None

    @property
    def cut_at(self) -> int:
        """Index of the first card behind the cutting card."""
        return len(self.cards) - self.cut_from_back

    def remaining(self) -> int:
        return len(self.cards) - self.pos

    def reshuffle(self) -> None:
        """Shuffle every card of the shoe (s12(3)): discards, undealt cards, none on the table."""
        out = Counter(self.on_table)
        pool = list(self.composition)
        for c, n in out.items():
            for _ in range(n):
                pool.remove(c)
        self.cards = shuffle(pool, self.rng)
        self.pos = 0
        self.discards = []
        self.cut_reached = False
        self.reshuffles += 1

    def begin_round(self, reshuffle_if_cut_first: bool) -> None:
        """SP s19(2): the cutting card would be the round's first card: reshuffle now."""
        if self.last_rounds is not None and self.last_rounds <= 0:
            raise ValueError("the announced last rounds have been played: the table closes")
        if reshuffle_if_cut_first and self.last_rounds is None and self.pos == self.cut_at:
            self.reshuffle()

    def deal(self) -> Card:
        if self.pos >= len(self.cards):
            self._refill_from_discards()
        c = self.cards[self.pos]
        if self.pos >= self.cut_at:
            self.cut_reached = True
        if self.drawn is not None:
            self.drawn.append((self.reshuffles, self.pos))
        self.pos += 1
        self.on_table.append(c)
        return c

    def discard_face_up(self) -> Card:
        """The next card is face up in the shoe: discard it unused (BJ s49)."""
        if self.pos >= len(self.cards):
            self._refill_from_discards()
        c = self.cards[self.pos]
        if self.drawn is not None:
            self.drawn.append((self.reshuffles, self.pos))
        self.pos += 1
        self.discards.append(c)
        return c

    def announce_last_rounds(self, rounds: int = 3) -> None:
        """SP s19(3),(4): before a round starts and before the cutting card has appeared, a
        manager announces that only ``rounds`` more rounds will be played; they are played
        without a reshuffle even if the cutting card appears."""
        if self.cut_reached or self.on_table:
            raise ValueError("announce the last rounds before a round and the cutting card")
        self.last_rounds = rounds

    def end_round(self) -> bool:
        """The round's cards go to the discards; reshuffle if the cutting card came out
        (s19). Returns whether the shoe was reshuffled."""
        self.discards.extend(self.on_table)
        self.on_table = []
        if self.last_rounds is not None:
            self.last_rounds -= 1
            return False
        if self.cut_reached:
            self.reshuffle()
            return True
        return False

    def state(self) -> dict[str, Any]:
        """Where the shoe stands between rounds, as JSON: the read position and what is
        public (the discards, every one of them seen); the order of the undealt cards is
        not in it (a table's record of a round, server/tables/blackjack.py)."""
        return {
            "position": self.pos,
            "discards": [card_str(c) for c in self.discards],
            "on_table": [card_str(c) for c in self.on_table],  # a voided round's
            "cut_reached": self.cut_reached,
            "last_rounds": self.last_rounds,
            "reshuffles": self.reshuffles,
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        """Back to :meth:`state` (a replay: this shoe was shuffled by the same secret)."""
        self.pos = int(state["position"])
        self.discards = [card(c) for c in state["discards"]]
        self.on_table = [card(c) for c in state["on_table"]]
        self.cut_reached = bool(state["cut_reached"])
        self.last_rounds = state["last_rounds"]
        self.reshuffles = int(state["reshuffles"])

    def _refill_from_discards(self) -> None:
        """Not enough cards (BJ s52): shuffle the discards and complete the round. The new
        stack has no cutting card in it, so the whole shoe is reshuffled after the round."""
        if not self.discards:
            raise InvalidRound("the shoe and the discards are exhausted")
        self.cards = shuffle(self.discards, self.rng)
        self.pos = 0
        self.discards = []
        self.cut_reached = True
        self.reshuffles += 1
