"""Four card poker (seed 003) for the PAR sheet: a table-driven best-four evaluator for the
strategy and the controls, and the runner.

The values are :func:`server.hands.four_card.evaluate4`'s own, tabled once: a four-card
hand's value depends on its ranks and on whether its four cards share a suit, so the table
holds ``evaluate4`` of one hand per multiset of four ranks (and a suited one where the four
ranks differ). :class:`FastFour` then values four cards by two lookups and the best four of
five or six by the best of its subsets. The engine settles with ``evaluate4`` itself; this
only serves the decisions and the controls, many times a round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import combinations, combinations_with_replacement
from math import comb
from typing import Any

from server.par.engine import FastRandom, round_class, unit_stake
from server.par.model import Tally
from server.par.players import book
from server.par.sim import Runner

_RANK_KEY = tuple(5 ** (c >> 2) for c in range(52))


class FastFour:
    """``value(cards)`` of four cards and ``best(cards)`` of five or six, as
    :func:`~server.hands.four_card.evaluate4` and
    :func:`~server.hands.four_card.best_four` value them."""

    def __init__(self) -> None:
        from server.hands.four_card import evaluate4

        self.plain: dict[int, int] = {}
        self.suited: dict[int, int] = {}
        for ranks in combinations_with_replacement(range(13), 4):
            if max(ranks.count(r) for r in ranks) > 4:
                continue
            key = sum(5**r for r in ranks)
            if len(set(ranks)) == 4:
                off = [r * 4 + (i == 0) for i, r in enumerate(ranks)]
                self.plain[key] = evaluate4(off)
                self.suited[key] = evaluate4([r * 4 for r in ranks])
            else:
                hand = [r * 4 + ranks[:i].count(r) for i, r in enumerate(ranks)]
                self.plain[key] = evaluate4(hand)
        self._subsets = {n: list(combinations(range(n), 4)) for n in (4, 5, 6)}
        self._triples = list(combinations(range(5), 3))

    def value(self, cards: Sequence[int]) -> int:
        a, b, c, d = cards
        key = _RANK_KEY[a] + _RANK_KEY[b] + _RANK_KEY[c] + _RANK_KEY[d]
        if a & 3 == b & 3 == c & 3 == d & 3:
            return self.suited[key]
        return self.plain[key]

    def plus(self, value: int, five: Sequence[int], card: int) -> int:
        """``best([*five, card])`` given ``value = best(five)``: the better of it and the
        fours that hold ``card``."""
        plain, suited = self.plain, self.suited
        k, s = _RANK_KEY[card], card & 3
        best = value
        for i, j, m in self._triples:
            a, b, c = five[i], five[j], five[m]
            key = k + _RANK_KEY[a] + _RANK_KEY[b] + _RANK_KEY[c]
            v = suited[key] if s == a & 3 == b & 3 == c & 3 else plain[key]
            if v > best:
                best = v
        return best

    def best(self, cards: Sequence[int]) -> int:
        plain, suited = self.plain, self.suited
        keys = [_RANK_KEY[c] for c in cards]
        suits = [c & 3 for c in cards]
        best = -1
        for i, j, k, m in self._subsets[len(cards)]:
            key = keys[i] + keys[j] + keys[k] + keys[m]
            s = suits[i]
            v = suited[key] if s == suits[j] == suits[k] == suits[m] else plain[key]
            if v > best:
                best = v
        return best


def five_card_best_four_classes(fast: FastFour) -> dict[int, Fraction]:
    """The exact distribution of a five-card hand's best-four class (``value >> 12``: the
    category and the first rank) over the 2,598,960 hands, from
    :func:`server.par.cards.aces_up_classes` (groups that share their best four)."""
    from server.par.cards import aces_up_classes

    counts: dict[int, int] = {}
    for hand, weight in aces_up_classes():
        k = fast.best(hand) >> 12
        counts[k] = counts.get(k, 0) + weight
    total = comb(52, 5)
    assert sum(counts.values()) == total
    return {k: Fraction(n, total) for k, n in sorted(counts.items())}


def six_card_best_four_classes(fast: FastFour) -> dict[int, Fraction]:
    """The exact distribution of the dealer's best-four class (six cards, r 9.5) over the
    20,358,520 six-card hands, by multisets of ranks: a hand holds a four-card flush only in
    one suit (four of six cards), so per multiset the suit assignments are counted by the
    set ``F`` of its ranks that one suit ``s`` holds (one card of each rank of ``F`` in
    ``s``, the other copies in the three other suits: ``prod C(3, k - 1)`` over ``F`` times
    ``prod C(3, k)`` over the rest) and valued at the better of the multiset's plain best
    four and ``F``'s best suited four; the rest of ``prod C(4, k)`` have no four-card flush."""
    counts: dict[int, int] = {}
    for ranks in combinations_with_replacement(range(13), 6):
        mult = {r: ranks.count(r) for r in set(ranks)}
        if max(mult.values()) > 4:
            continue
        cards = [r for r, k in sorted(mult.items()) for _ in range(k)]
        plain = fast.best([r * 4 + i % 4 for i, r in enumerate(cards)])  # no four of a suit
        total = 1
        for k in mult.values():
            total *= comb(4, k)
        distinct = sorted(mult)
        flushed = 0
        for size in range(4, len(distinct) + 1):
            for f in combinations(distinct, size):
                ways = 4  # the suit
                for r, k in mult.items():
                    ways *= comb(3, k - 1) if r in f else comb(3, k)
                if not ways:
                    continue
                suited = fast.best([r * 4 for r in f])
                k1 = max(plain, suited) >> 12
                counts[k1] = counts.get(k1, 0) + ways
                flushed += ways
        k0 = plain >> 12
        counts[k0] = counts.get(k0, 0) + total - flushed
    total = comb(52, 6)
    assert sum(counts.values()) == total
    return {k: Fraction(n, total) for k, n in sorted(counts.items())}


class FourCardPoker(Runner):
    """Four card poker (seed 003): ante and Aces Up on every box.

    Controls (:mod:`server.par.controls`): the best-four class of each box's five cards and
    of the dealer's first five (exact probabilities: the dealer's first five are five more
    cards of the shuffled deck); the dealer's sixth card's rank (each 1/13); and who beat
    whom, antisymmetric in the box and the dealer's first five with the sixth card given to
    the other side (``box's five against dealer's five + sixth`` less ``dealer's five against
    box's five + sixth``: given the sixth card, the box's five and the dealer's five have the
    same joint law in either order), unweighted and for each multiple played."""

    game = "four-card-poker"
    strategy = (
        "play 3x with a pair of tens or better, 1x with a pair of threes to nines, "
        "fold less (the game's published basic strategy)"
    )
    controls_doc = (
        "each box's best-four class and the dealer's first five's (exact probabilities), the "
        "dealer's sixth card, and who beat whom with the sixth card given to the other side "
        "(antisymmetric: mean zero)"
    )

    def __init__(self, options: Mapping[str, Any], boxes: int = 7) -> None:
        self.options = dict(options)
        self.boxes = boxes
        self._means: list[float] = []
        self._index: dict[tuple[str, int], int] = {}
        self.fast: FastFour | None = None

    def prepare(self) -> None:
        from server.par.controls import Index

        self.fast = FastFour()
        dist = five_card_best_four_classes(self.fast)
        common = max(dist, key=lambda k: dist[k])
        index = Index()
        for k, p in dist.items():
            if k != common:
                self._index[("box", k)] = index.add(f"box class {k}", self.boxes * p)
                self._index[("dealer", k)] = index.add(f"dealer's five class {k}", p)
        six = six_card_best_four_classes(self.fast)
        top = max(six, key=lambda k: six[k])
        for k, p in six.items():
            if k != top:
                self._index[("dealer6", k)] = index.add(f"dealer's class {k}", p)
        for r in range(12):
            self._index[("up", r)] = index.add(f"sixth card rank {r}", Fraction(1, 13))
        for k in (0, 1, 3):
            self._index[("versus", k)] = index.add(f"beats the dealer, multiple {k}", 0)
        self._index[("sixth", 0)] = index.add("the dealer's sixth card: its luck", 0)
        self._index[("virtual", 0)] = index.add("the dealer against the other boxes' fives", 0)
        self._means = index.means

    def control_means(self) -> list[float]:
        return self._means

    def multiple(self, value: int) -> int:
        """The basic strategy's multiple for a best-four value (0: fold)."""
        from server.hands.four_card import ONE_PAIR, category

        cat = category(value)
        if cat > ONE_PAIR:
            return 3
        if cat < ONE_PAIR:
            return 0
        pair = ((value >> 12) & 0xF) - 1  # the pair's rank (the value packs rank + 1)
        return 3 if pair >= 8 else 1 if pair >= 1 else 0

    def _controls(self, rnd: Any, values: Mapping[int, int]) -> list[tuple[int, float]]:
        fast = self.fast
        assert fast is not None
        at = self._index
        dealer = rnd.dealer
        five, sixth = dealer[:5], dealer[5]
        d5 = fast.best(five)
        d6 = fast.plus(d5, five, sixth)
        kd = self.multiple(d5)
        out: list[tuple[int, float]] = []
        played: list[tuple[int, int]] = []
        i = at.get(("dealer", d5 >> 12))
        if i is not None:
            out.append((i, 1.0))
        i = at.get(("dealer6", d6 >> 12))
        if i is not None:
            out.append((i, 1.0))
        i = at.get(("up", sixth >> 2))
        if i is not None:
            out.append((i, 1.0))
        for b in rnd.boxes:
            hand = rnd.hands[b]
            v = values[b]
            i = at.get(("box", v >> 12))
            if i is not None:
                out.append((i, 1.0))
            mine = 1.0 if v >= d6 else -1.0
            theirs = 1.0 if d5 >= fast.plus(v, hand, sixth) else -1.0
            out.append((at[("versus", 0)], mine - theirs))
            kb = self.multiple(v)
            if kb:
                played.append((v, 1 + kb))
            for k in (1, 3):
                x = (mine if kb == k else 0.0) - (theirs if kd == k else 0.0)
                if x:
                    out.append((at[("versus", k)], x))
        # the sixth card: any of the cards neither a box nor the dealer's first five hold
        seen: set[int] = set()
        for b in rnd.boxes:
            seen.update(rnd.hands[b])

        def win(d: int) -> int:
            return sum(m if v >= d else -m for v, m in played)

        # the dealer's six against the other boxes' fives, each with the sixth card: given
        # the sixth card, the eight fives of the deal are alike, so every term has one mean
        boxes = list(rnd.boxes)
        if len(boxes) > 1:
            others = {b: fast.plus(values[b], rnd.hands[b], sixth) for b in boxes}
            virtual = 0.0
            for b in boxes:
                k = self.multiple(values[b])
                if not k:
                    continue
                v, m = values[b], 1 + k
                field = sum(m if v >= w else -m for c, w in others.items() if c != b)
                virtual += (m if v >= d6 else -m) - field / (len(boxes) - 1)
            out.append((at[("virtual", 0)], virtual))
        rest = [c for c in range(52) if c not in seen and c not in five]
        mean = sum(win(fast.plus(d5, five, u)) for u in rest) / len(rest)
        out.append((at[("sixth", 0)], win(d6) - mean))
        return out

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        boxes = {b: {"ante": stake, "aces_up": stake} for b in range(1, self.boxes + 1)}
        if self.fast is None:
            self.fast = FastFour()
        fast = self.fast
        controlled = bool(self._means) and tally.controls is not None
        for _ in range(rounds):
            rnd: Any = cls(self.options, boxes, rng)
            rnd.start()
            values = {b: fast.best(rnd.hands[b]) for b in rnd.boxes}
            for d in rnd.pending():
                k = self.multiple(values[d.box])
                if k:
                    rnd.decide(d.box, "play", k * stake)
                else:
                    rnd.decide(d.box, "fold")
            book(
                rnd,
                tally,
                ("ante", "play"),
                "ante",
                self._controls(rnd, values) if controlled else None,
            )
