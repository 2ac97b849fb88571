"""Table-driven hand evaluation: the hot path of every showdown.

Each card has a precomputed *key*::

    key(card) = 5 ** rank << 12  |  1 << 3 * suit

Summing the keys of up to seven cards gives, in the high part, the rank multiset written in
base 5 (a rank appears at most four times, so no digit carries: the sum *is* the multiset)
and, in the low 12 bits, three bits per suit counting that suit's cards. So one pass of
additions answers both questions an evaluator asks:

* is there a flush? ``FLUSH_SUIT[key & 0xFFF]`` (a suit holding five or more cards);
* if not, the best five-card value of the rank multiset: one dict lookup.

With a flush among at most seven cards nothing but a straight flush can beat it (quads and
a full house would need more off-suit cards than are left), so the value is then a lookup of
the flush suit's 13-bit rank mask.

The tables hold exactly what :mod:`server.hands.reference` answers: 5-card entries are
computed by it, and a 6- or 7-card entry is the best of the entries one card smaller (the
best five of n cards lie inside some n-1 of them). They are built per :class:`Ranking` on
first use (about 0.1-0.2 s) and cached; :data:`STANDARD`'s are built at import.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement

from server.cards import Card
from server.hands import reference
from server.hands.ranking import STANDARD, Ranking

_SUIT_BITS = 12
_SUIT_MASK = (1 << _SUIT_BITS) - 1

#: The evaluation key of each card (see the module docstring).
KEY: tuple[int, ...] = tuple((5 ** (c >> 2)) << _SUIT_BITS | 1 << 3 * (c & 3) for c in range(52))
#: The rank bit of each card, for flush masks.
BIT: tuple[int, ...] = tuple(1 << (c >> 2) for c in range(52))


def _flush_suit_table() -> tuple[int, ...]:
    """``FLUSH_SUIT[suit field]`` = suit + 1 if that suit holds five or more cards, else 0."""
    table = [0] * (1 << _SUIT_BITS)
    for field in range(1 << _SUIT_BITS):
        for suit in range(4):
            if (field >> 3 * suit) & 7 >= 5:
                table[field] = suit + 1
    return tuple(table)


FLUSH_SUIT = _flush_suit_table()


#: 5 ** rank: a card's rank digit in a rank multiset key.
_POW5 = tuple(5**r for r in range(13))
#: an unsigned array type of at least 32 bits (values are below 2**28)
_VALUE_CODE = "I" if array("I").itemsize >= 4 else "L"


class Seven:
    """The best non-flush value of every 7-card rank multiset (49,205 of them) in two flat
    arrays, by a perfect hash of the rank key ("hash and displace"): the key's bucket
    ``key % buckets`` holds a displacement ``d`` chosen at build time so that
    ``(key ^ d) % size`` gives every key of every bucket its own slot of ``values``.

    The same values as ``plain`` (built from it), for the hold'em showdown's hot path: the
    ~5 MB ``plain`` dict costs about three cache misses a lookup (index, entry, key object)
    and one more to read the value; these arrays take about 440 KB and give a fresh int.
    Only rank keys of seven cards may be looked up (any other key gives some other value).
    """

    __slots__ = ("buckets", "disp", "size", "values")

    def __init__(self, sevens: dict[int, int]) -> None:
        n = len(sevens)
        self.buckets = buckets = n // 2 | 1
        self.size = size = 2 * n
        by_bucket: dict[int, list[int]] = {}
        for key in sevens:
            by_bucket.setdefault(key % buckets, []).append(key)
        disp = array("H", bytes(2 * buckets))
        values = array(_VALUE_CODE, bytes(array(_VALUE_CODE).itemsize * size))
        free = bytearray(b"\x01") * size
        for b, keys in sorted(by_bucket.items(), key=lambda item: -len(item[1])):
            d = 0  # the first displacement that puts every key in a free slot of its own
            while True:
                slots = {(key ^ d) % size for key in keys}
                if len(slots) == len(keys) and all(free[slot] for slot in slots):
                    break
                d += 1
            disp[b] = d
            for key in keys:
                slot = (key ^ d) % size
                free[slot] = 0
                values[slot] = sevens[key]
        self.disp = disp
        self.values = values

    def __getitem__(self, key: int) -> int:
        return self.values[(key ^ self.disp[key % self.buckets]) % self.size]


class Tables:
    """Lookup tables for one ranking.

    ``plain[rank multiset key]`` - best non-flush value of 5, 6 or 7 cards with those ranks;
    ``flush[rank mask]`` - best value of 5, 6 or 7 cards of one suit with those ranks;
    ``seven[rank multiset key]`` - ``plain``'s 7-card entries, compact (:class:`Seven`).
    """

    __slots__ = ("flush", "plain", "ranking", "seven")

    def __init__(self, ranking: Ranking) -> None:
        self.ranking = ranking
        self.plain, sevens = self._build_plain(ranking)
        self.flush = self._build_flush(ranking)
        self.seven = Seven(sevens)

    @staticmethod
    def _build_plain(ranking: Ranking) -> tuple[dict[int, int], dict[int, int]]:
        """Every 5-, 6- and 7-card entry, and the 7-card entries alone."""
        plain: dict[int, int] = {}
        for ranks in combinations_with_replacement(range(13), 5):
            if all(ranks.count(r) <= 4 for r in set(ranks)):
                key = sum(_POW5[r] for r in ranks)
                plain[key] = reference.value_of_ranks(ranks, False, ranking)
        smaller = plain
        for _ in (6, 7):
            bigger: dict[int, int] = {}
            for key, value in smaller.items():
                for p in _POW5:
                    if (key // p) % 5 == 4:
                        continue  # a fifth card of one rank does not exist
                    k = key + p
                    if bigger.get(k, -1) < value:
                        bigger[k] = value
            plain.update(bigger)
            smaller = bigger
        return plain, smaller

    @staticmethod
    def _build_flush(ranking: Ranking) -> list[int]:
        flush = [0] * (1 << 13)
        by_size: dict[int, list[int]] = {5: [], 6: [], 7: []}
        for ranks in combinations(range(13), 5):
            mask = sum(1 << r for r in ranks)
            flush[mask] = reference.value_of_ranks(ranks, True, ranking)
            by_size[5].append(mask)
        for n in (6, 7):
            seen = set()
            for mask in by_size[n - 1]:
                value = flush[mask]
                for r in range(13):
                    bit = 1 << r
                    if mask & bit:
                        continue
                    m = mask | bit
                    if flush[m] < value:
                        flush[m] = value
                    seen.add(m)
            by_size[n] = list(seen)
        return flush


_CACHE: dict[Ranking, Tables] = {}


def tables(ranking: Ranking) -> Tables:
    """The (cached) tables for ``ranking``."""
    t = _CACHE.get(ranking)
    if t is None:
        t = _CACHE[ranking] = Tables(ranking)
    return t


_STD = tables(STANDARD)


def _flush_mask(cards: Sequence[Card], suit: int) -> int:
    m = 0
    for c in cards:
        if c & 3 == suit:
            m |= BIT[c]
    return m


def evaluate5(cards: Sequence[Card], ranking: Ranking = STANDARD) -> int:
    """Value of exactly five (distinct) cards; higher is better within one ranking."""
    t = _STD if ranking is STANDARD else tables(ranking)
    try:
        a, b, c, d, e = cards
    except ValueError:
        raise ValueError(f"evaluate5 needs exactly five cards, got {len(cards)}") from None
    k = KEY[a] + KEY[b] + KEY[c] + KEY[d] + KEY[e]
    if FLUSH_SUIT[k & _SUIT_MASK]:
        return t.flush[BIT[a] | BIT[b] | BIT[c] | BIT[d] | BIT[e]]
    return t.plain[k >> _SUIT_BITS]


def best_of(cards: Sequence[Card], ranking: Ranking = STANDARD) -> int:
    """Best value of any five of 5, 6 or 7 distinct cards (Hold'em: ACT r 14.1, QLD s2)."""
    t = _STD if ranking is STANDARD else tables(ranking)
    if len(cards) == 7:
        a, b, c, d, e, f, g = cards
        k = KEY[a] + KEY[b] + KEY[c] + KEY[d] + KEY[e] + KEY[f] + KEY[g]
    elif 5 <= len(cards) <= 6:
        k = 0
        for c in cards:
            k += KEY[c]
    else:
        raise ValueError(f"best_of needs 5 to 7 cards, got {len(cards)}")
    s = FLUSH_SUIT[k & _SUIT_MASK]
    if s:
        return t.flush[_flush_mask(cards, s - 1)]
    return t.plain[k >> _SUIT_BITS]


def best_of_each(
    holes: Sequence[Sequence[Card]], board: Sequence[Card], ranking: Ranking = STANDARD
) -> list[int]:
    """``[best_of([*hole, *board], ranking) for hole in holes]``: a hold'em showdown, where
    every hand is the best five of its own hole cards and one shared board (ACT r 14.1, QLD
    s2 "hand").

    The board's keys are summed once; each hand then adds its two hole keys and, without a
    flush, looks its rank key up in :class:`Seven` (a 5-card board and 2-card hands, the
    hold'em showdown); other sizes are valued by :func:`best_of`.
    """
    t = _STD if ranking is STANDARD else tables(ranking)
    if len(board) != 5:
        return [best_of([*h, *board], ranking) for h in holes]
    kb = KEY[board[0]] + KEY[board[1]] + KEY[board[2]] + KEY[board[3]] + KEY[board[4]]
    flush, suits = t.flush, FLUSH_SUIT
    seven = t.seven  # 7-card rank keys: Seven's lookup, inline
    disp, values, buckets, size = seven.disp, seven.values, seven.buckets, seven.size
    out: list[int] = []
    for h in holes:
        if len(h) != 2:
            out.append(best_of([*h, *board], ranking))
            continue
        a, b = h
        k = kb + KEY[a] + KEY[b]
        s = suits[k & _SUIT_MASK]
        if s:
            out.append(flush[_flush_mask((a, b, *board), s - 1)])
        else:
            k >>= _SUIT_BITS
            out.append(values[(k ^ disp[k % buckets]) % size])
    return out


#: Rank part of each card's key (``KEY >> 12``): the base-5 rank digit alone.
RANK_KEY: tuple[int, ...] = tuple(5 ** (c >> 2) for c in range(52))


def _suit_counts(cards: Sequence[Card]) -> list[int]:
    counts = [0, 0, 0, 0]
    for c in cards:
        counts[c & 3] += 1
    return counts


def best_exact(
    hole: Sequence[Card],
    board: Sequence[Card],
    n_hole: int,
    n_board: int,
    ranking: Ranking = STANDARD,
) -> int:
    """Best value using exactly ``n_hole`` hole cards and ``n_board`` board cards.

    Omaha: 2 of 4 hole + 3 of the board (ACT r 14.1, QLD s2 "hand"); QLD Manila 2 of 2 + 3
    (s4); ACT 3 Card Manila 2 of 3 + 3 (r 14.1). A board of 3 to 5 cards is allowed.

    The key sums of the hole and board combinations are formed once and added pairwise
    (6 x 10 for Omaha). A flush needs ``n_hole`` hole cards and ``n_board`` board cards of
    one suit; unless some suit has that many, only the rank lookup is done.
    """
    if n_hole + n_board != 5 or n_hole < 0 or n_board < 0:
        raise ValueError(f"a hand is five cards, not {n_hole} + {n_board}")
    if len(hole) < n_hole or len(board) < n_board:
        raise ValueError(
            f"need {n_hole} of {len(hole)} hole cards and {n_board} of {len(board)} board cards"
        )
    t = _STD if ranking is STANDARD else tables(ranking)
    plain = t.plain
    hole_keys = [sum(RANK_KEY[c] for c in combo) for combo in combinations(hole, n_hole)]
    board_keys = [sum(RANK_KEY[c] for c in combo) for combo in combinations(board, n_board)]
    best = max([plain[h + b] for h in hole_keys for b in board_keys])
    hole_suits, board_suits = _suit_counts(hole), _suit_counts(board)
    flush = t.flush
    for suit in range(4):
        if hole_suits[suit] >= n_hole and board_suits[suit] >= n_board:
            hole_masks = [
                sum(BIT[c] for c in combo)
                for combo in combinations([c for c in hole if c & 3 == suit], n_hole)
            ]
            board_masks = [
                sum(BIT[c] for c in combo)
                for combo in combinations([c for c in board if c & 3 == suit], n_board)
            ]
            v = max([flush[h | b] for h in hole_masks for b in board_masks])
            if v > best:
                best = v
    return best
