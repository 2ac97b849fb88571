"""Pai gow, the tile game (Queensland Casino Gaming Rule 2010, Schedule 6; seed 004).

Game id ``pai-gow``. Digest: ``../shared/rules/pai-gow.md``. Not pai gow poker.

Theory of operation
-------------------
One round at one table, a :class:`~server.games.banked.base.BankedRound`:

1. Wagers (s13): each box holds a ``bet`` against the bank. While the house banks, the bank's
   tiles go to box 1 and nobody may wager on box 1 (s18(13)). Where the operator allows it
   (options ``player_banking_enabled`` / ``co_banking_enabled``, s18), one box instead holds
   ``bank`` (the player/banker's chips, which must cover every other wager, s18(4), s14(1))
   or ``co_bank`` (a co-banker in equal partnership with the house, s2, s14(2)); that box
   wagers on no other hand (s18(7)(b)). Who may take the bank given the rounds before
   (s18(2),(3),(8),(10)-(12)) is checked by the table's betting window on every wager
   (:meth:`PaiGow.check_layout`, :func:`check_rotation`), and so is one player on two boxes
   (s16: only alone against the house, one box at least twice the other).
   **Backers** (s15(1): up to 3 players a box): other players on a player's box go under
   ``others`` (``{"P2": {"bet": 500}}``, the places of ``SPEC.backer_places``), with the
   engine API of the blackjack engine's places (:meth:`PaiGow.check_other_wagers`,
   :meth:`PaiGow.stakes_of`, :meth:`PaiGow.nets_of`, :attr:`PaiGow.persons`); their money
   is on ``box:N:P2``. The bank's box has none (s18(6) pooled banks are not modelled). The
   box's first player sets the tiles for all of them (s15(2)(a)).
2. Deal (s21, s11, s25): the 32 tiles (:data:`TILE_SET`) are shuffled by the injected random
   source (unbiased Fisher-Yates) into 8 stacks of 4; 3 dice are thrown, and counting
   anticlockwise (rising box numbers) from the chung's box as 1, 9, 17 the total picks the
   box that takes the first stack; the rest go round in order. A scenario fixes tiles per box
   and for the bank (``tiles``); the others come from the shuffled remainder.
3. Setting (s27, s28): every player box owes ``set`` (its own split into a high and a low
   hand, validated: the high hand must not rank below the low hand, s2) or ``house_way``
   (s29(1)); ``timeout`` sets the house way (server choice, digest section 4). A box whose
   wagers total at least half the table maximum is a priority box (s14(4),(5)): its street
   (``priority``) comes first and the other boxes' tiles are only sent once it is set.
   A player alone on two boxes sets the box with the higher wager first on the
   ``higher_box`` street, before the other box's tiles are sent (s16(2)(c),(d)).
   A player/banker then sets the bank's tiles on the ``bank`` street (s28(8)); when the house
   banks or co-banks, the dealer sets them the house way (s29(3), :func:`house_way`).
4. Settlement (s36, s38, s19): high against high, low against low; a copy (equal value and
   equal top tile) goes to the bank, and so does a low 0 v 0 (s36(7)). Win both: even money
   less 5% commission, rounded up to 50c (option); one each: stand off; lose both: lost.
   Each backer's wager is settled on the box's hands the same way, its commission worked
   and rounded on that wager alone (s19(1),(2): "a winning wager").
   A player/banker or co-banker pays 5% of the round's profit, rounded down to 50c (option).

Result figures: ``bet`` (after commission), ``bank`` / ``co_bank`` (the banking player's net
after commission); a backer's ``bet`` under the box's ``others``. Every reading of the text
is in ``docs/rulings.md`` ("Pai gow tiles").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

from server.cards import RandomSource, shuffle
from server.errors import IllegalAction
from server.games.banked.base import (
    NOBODY,
    BankedRound,
    CardsDealt,
    Choice,
    Event,
    Forced,
    GameSpec,
    HandShown,
    InvalidRound,
    JackpotState,
    OptionSpec,
    PastRound,
    WagerSettled,
    WagerSpec,
    others_on_box,
    split_others,
    validate_wagers,
)
from server.money import dollars

# ------------------------------------------------------------------------------ the tiles


@dataclass(frozen=True)
class Kind:
    """A tile face: pips low first, its s7 name, its s7(4) rank (1 = highest), its pip count."""

    pips: str
    name: str
    rank: int

    @property
    def total(self) -> int:
        low, high = self.pips.split("-")
        return int(low) + int(high)


#: s7(4) and digest section 1.1 (PA2: the standard Chinese set; diagram 6.2 is missing).
KINDS: tuple[Kind, ...] = (
    Kind("6-6", "12", 1),
    Kind("1-1", "2", 2),
    Kind("4-4", "high 8", 3),
    Kind("1-3", "high 4", 4),
    Kind("5-5", "high 10", 5),
    Kind("3-3", "high 6", 6),
    Kind("2-2", "low 4", 7),
    Kind("5-6", "11", 8),
    Kind("4-6", "low 10", 9),
    Kind("1-6", "high 7", 10),
    Kind("1-5", "low 6", 11),
    Kind("4-5", "9", 12),
    Kind("3-6", "9", 12),
    Kind("3-5", "low 8", 13),
    Kind("2-6", "low 8", 13),
    Kind("3-4", "low 7", 14),
    Kind("2-5", "low 7", 14),
    Kind("1-4", "5", 15),
    Kind("2-3", "5", 15),
    Kind("1-2", "3/6", 16),
    Kind("2-4", "3/6", 16),
)
KIND: dict[str, Kind] = {k.pips: k for k in KINDS}
#: s6: 32 tiles: the ranks with one kind come twice (11 pairs), the others once each.
TILE_SET: tuple[str, ...] = tuple(
    k.pips for k in KINDS for _ in range(2 if sum(j.rank == k.rank for j in KINDS) == 1 else 1)
)
GEE_JOON = 16
TEEN, DAY = 1, 2
NINE_RANKS = frozenset({12})  # 9 tiles (s7(2) wongs)
EIGHT_RANKS = frozenset({3, 13})  # high 8, low 8 (gongs)
SEVEN_RANKS = frozenset({10, 14})  # high 7, low 7 (high 9s)

#: Hand tiers, highest last (digest PA7: pairs > wongs > gongs > high 9s > point hands).
POINTS, HIGH_NINE, GONG, WONG, PAIR = range(5)
TIER_NAMES = {HIGH_NINE: "high 9", GONG: "gong", WONG: "wong"}

Hand = tuple[str, str]
#: A hand's value for comparison: (tier, sub), sub = points for a point hand, else the
#: ranking within the tier. Equal values are a "same ranking or point count" (s2, s36(4)).
Value = tuple[int, int]


def rank(tile: str) -> int:
    return KIND[tile].rank


def tile_points(tile: str, wild: bool) -> tuple[int, ...]:
    """The counts a tile may take (s8): its pips, and a 3/6 tile either 3 or 6 (PA1)."""
    k = KIND[tile]
    if k.rank == GEE_JOON and wild:
        return (3, 6)
    return (k.total,)


def points(hand: Sequence[str], wild: bool = True) -> int:
    """s8: the right digit of the total; a 3/6 tile counts whichever of 3, 6 is best (PA1)."""
    return max(sum(c) % 10 for c in product(*(tile_points(t, wild) for t in hand)))


def value(hand: Sequence[str], wild: bool = True) -> Value:
    """s7(1)-(2), s8: a pair, wong, gong or high 9 by its ranking, else the point count."""
    a, b = sorted(rank(t) for t in hand)
    if a == b:
        return PAIR, 17 if a == GEE_JOON else 17 - a  # s7(1): gee joon pair highest
    if a in (TEEN, DAY):
        sub = 2 if a == TEEN else 1
        if b in NINE_RANKS:
            return WONG, sub
        if b in EIGHT_RANKS:
            return GONG, sub
        if b in SEVEN_RANKS:
            return HIGH_NINE, sub
    return POINTS, points(hand, wild)


def top(hand: Sequence[str]) -> int:
    """The strength of the hand's highest-ranked tile (higher is better)."""
    return 17 - min(rank(t) for t in hand)


def key(hand: Sequence[str], wild: bool = True) -> tuple[int, int, int]:
    """s2: order of a player's own two hands (value, then the highest-ranked tile)."""
    return (*value(hand, wild), top(hand))


def describe(hand: Sequence[str], wild: bool = True) -> str:
    tier, sub = value(hand, wild)
    if tier == PAIR:
        return f"pair of {KIND[min(hand, key=rank)].name}"
    if tier != POINTS:
        return f"{'teen' if sub == 2 else 'day'} {TIER_NAMES[tier]}"
    return f"{sub} points"


def chong_3_or_better(hand: Sequence[str], wild: bool = True) -> bool:
    """s3, s4 (PA8): a ranked hand, 4+ points, or 3 points with a high 6 or better on top."""
    tier, sub = value(hand, wild)
    return tier > POINTS or sub >= 4 or (sub == 3 and min(rank(t) for t in hand) <= 6)


@dataclass(frozen=True)
class Setting:
    """Four tiles set as a high hand and a low hand (s2, s27)."""

    high: Hand
    low: Hand

    def wire(self) -> dict[str, list[str]]:
        return {"high": list(self.high), "low": list(self.low)}


def orient(a: Hand, b: Hand, wild: bool = True) -> Setting:
    """s2: the hand with the higher ranking or count is the high hand; if equal, the one
    holding the highest-ranked tile."""
    return Setting(a, b) if key(a, wild) >= key(b, wild) else Setting(b, a)


def settings_of(tiles: Sequence[str], wild: bool = True) -> list[Setting]:
    """The three ways to split four tiles into two hands (each oriented by s2)."""
    t = list(tiles)
    out = []
    for i in (1, 2, 3):
        a, b = (t[j] for j in range(1, 4) if j != i)
        out.append(orient((t[0], t[i]), (a, b), wild))
    return out


def hand_wins(player: Hand, bank: Hand, low: bool, options: Mapping[str, Any]) -> bool:
    """s36(4)-(7): whether the player's hand beats the bank's (no hand comparison ties).

    A different value decides; the same value goes to the higher-ranked top tile, and a copy
    (equal top tiles) to the bank (s36(5),(6)). Two low hands of 0 go to the bank (s36(7));
    two high hands of 0 too only with ``zero_zero_high_bank_wins`` (PA4, literal default off).
    """
    wild = options["gee_joon_wild"]
    pv, bv = value(player, wild), value(bank, wild)
    if pv != bv:
        return pv > bv
    if pv == (POINTS, 0) and (low or options["zero_zero_high_bank_wins"]):
        return False
    return top(player) > top(bank)


# ------------------------------------------------------------------------------ house way


def _at_least(hand: Hand, pts: int, wild: bool) -> bool:
    """A hand of ``pts`` points "or better": a ranked hand or a point count >= pts."""
    return value(hand, wild) >= (POINTS, pts)


def _split_allowed(pair_rank: int, s: Setting, others: Sequence[str], wild: bool) -> bool:
    """s31(3): the split conditions for teens/days, 9s, 8s and 7s."""
    hi, lo = s.high, s.low
    if pair_rank in (TEEN, DAY):  # (a)
        other_ranks = sorted(rank(t) for t in others)
        return (_at_least(lo, 6, wild) and _at_least(hi, 8, wild)) or other_ranks == [8, 12]
    if pair_rank in NINE_RANKS:  # (b)
        return _at_least(lo, 9, wild) and _at_least(hi, 9, wild)
    if pair_rank in EIGHT_RANKS:  # (c)
        return (_at_least(lo, 8, wild) and _at_least(hi, 8, wild)) or (
            _at_least(lo, 7, wild) and _at_least(hi, 9, wild)
        )
    if pair_rank in SEVEN_RANKS:  # (d): "7 and day 9 or better"
        return _at_least(lo, 7, wild) and value(hi, wild) >= (HIGH_NINE, 1)
    return False  # s31(1): no other pair is split


def _s34(cands: list[Setting], wild: bool) -> Setting:
    """s34 between settings of equal counts: (2) first, where there is a choice, keep the 2
    highest-ranked tiles apart; then (1) the higher-ranked tile goes low when the high hand
    counts 7 or less, high when 8 or more. Still equal: the first in enumeration order."""
    tiles = sorted((*cands[0].high, *cands[0].low), key=rank)
    a, b = rank(tiles[0]), rank(tiles[1])
    apart = [
        s
        for s in cands
        if not ({a, b} <= {rank(t) for t in s.high} or {a, b} <= {rank(t) for t in s.low}) or a == b
    ]
    cands = apart or cands
    high_side = points(cands[0].high, wild) >= 8
    return max(cands, key=lambda s: top(s.high) if high_side else top(s.low))


def _best(cands: list[Setting], first: str, wild: bool) -> Setting:
    """Maximise the ``first`` hand's point count (s33), then the other's (PROPOSED), then
    s34. Counts, not rankings: a wong counts 1, a gong 0, a high 9 9 (PA6, PG-02)."""
    second = "low" if first == "high" else "high"

    def v(s: Setting, which: str) -> int:
        return points(getattr(s, which), wild)

    best = max(v(s, first) for s in cands)
    cands = [s for s in cands if v(s, first) == best]
    best2 = max(v(s, second) for s in cands)
    return _s34([s for s in cands if v(s, second) == best2], wild)


def _exception(tiles: Sequence[str], wild: bool) -> Setting | None:
    """s35: the exceptions, which override every other house way rule (s30(2))."""
    ranks = Counter(rank(t) for t in tiles)

    def pick(*wanted: frozenset[int]) -> list[str] | None:
        left = list(tiles)
        out = []
        for ranks_ok in wanted:
            t = next((x for x in left if rank(x) in ranks_ok), None)
            if t is None:
                return None
            left.remove(t)
            out.append(t)
        return out

    # (2) a 7, high 8, high 10 and 11: 7 + high 10 and high 8 + 11 (7 and 9)
    got = pick(SEVEN_RANKS, frozenset({3}), frozenset({5}), frozenset({8}))
    if got:
        return orient((got[1], got[3]), (got[0], got[2]), wild)
    # (3) a 3/6, 5, 6 and a 2 or 12: 3/6 + 6 and 5 + 2/12 (9 and 7, not 8 and 8)
    got = pick(frozenset({GEE_JOON}), frozenset({15}), frozenset({6, 11}), frozenset({1, 2}))
    if got:
        return orient((got[0], got[2]), (got[1], got[3]), wild)
    # (4) a 3/6, a 4, a 5 and a tile making no pair: play the 9 (4 + 5)
    if max(ranks.values()) == 1:
        cands = []
        for s in settings_of(tiles, wild):
            for h, o in ((s.high, s.low), (s.low, s.high)):
                hr = sorted(rank(t) for t in h)
                if hr in ([4, 15], [7, 15]) and GEE_JOON in {rank(t) for t in o}:
                    cands.append(s)
        if cands:
            return _best(cands, "high", wild)
    return None


def house_way(tiles: Sequence[str], wild: bool = True) -> Setting:
    """Set four tiles the house way (Part 11, ss30-35; digest section 5, PA6).

    s35 exceptions first; then s31 pairs (kept unless a splittable pair meets its s31(3)
    condition and the split is higher play, i.e. a better low hand than keeping, s31(2));
    then s32 wongs, gongs and high 9s by the high hand's category (a high 9, gong, wong if a
    low of chong 3 or better comes with it; else wong, gong, high 9); then s33; s34 breaks
    ties between settings of equal counts.
    """
    if len(tiles) != 4:
        raise ValueError("the house way sets four tiles")
    found = _exception(tiles, wild)
    if found is not None:
        return found
    all_settings = settings_of(tiles, wild)
    by_rank: dict[int, list[str]] = {}
    for t in tiles:
        by_rank.setdefault(rank(t), []).append(t)
    pairs = [r for r, ts in by_rank.items() if len(ts) >= 2]
    if pairs:  # s31
        kept = [s for s in all_settings if value(s.high, wild)[0] == PAIR]
        if len(pairs) == 2:  # two pairs: both kept (no split can be higher play)
            both = [s for s in kept if value(s.low, wild)[0] == PAIR]
            return both[0]
        r = pairs[0]
        keep = _best(kept, "high", wild)
        others = [t for t in tiles if rank(t) != r]
        splits = [
            s
            for s in all_settings
            if rank(s.high[0]) != rank(s.high[1]) and rank(s.low[0]) != rank(s.low[1])
        ]
        split = max(splits, key=lambda s: (key(s.low, wild), key(s.high, wild)))
        if _split_allowed(r, split, others, wild) and key(split.low, wild) > key(keep.low, wild):
            return split
        return keep
    ranked = [s for s in all_settings if value(s.high, wild)[0] in (WONG, GONG, HIGH_NINE)]
    if ranked:  # s32
        chong = [s for s in ranked if chong_3_or_better(s.low, wild)]
        order = (HIGH_NINE, GONG, WONG) if chong else (WONG, GONG, HIGH_NINE)
        pool = chong or ranked
        for tier in order:
            cands = [s for s in pool if value(s.high, wild)[0] == tier]
            if cands:
                return _best(cands, "high", wild)
    chong = [s for s in all_settings if chong_3_or_better(s.low, wild)]
    if chong:  # s33(a)
        return _best(chong, "low", wild)
    if any(_at_least(s.high, 7, wild) for s in all_settings):  # s33(b)
        return _best(all_settings, "high", wild)
    return _best(all_settings, "low", wild)  # s33(c)


# ------------------------------------------------------------------------------ money


def player_commission(win: int, options: Mapping[str, Any]) -> int:
    """s19(1),(2): 5% of the even-money win, up to the cent, and with
    ``player_commission_round_up_50c`` up to a multiple of 50c; never more than the win."""
    c = -(-win * 5 // 100)
    if options["player_commission_round_up_50c"]:
        c = -(-c // 50) * 50
    return min(c, win)


def banker_commission(profit: int, options: Mapping[str, Any]) -> int:
    """s19(3),(4): 5% of a banking player's profit, down to the cent, and with
    ``banker_commission_round_down_50c`` down to a multiple of 50c (the s19(4) example:
    $97.50 of profit pays $4.50). Nothing on a loss."""
    if profit <= 0:
        return 0
    c = profit * 5 // 100
    if options["banker_commission_round_down_50c"]:
        c -= c % 50
    return c


# ------------------------------------------------------------------------------ the spec

SPEC = GameSpec(
    id="pai-gow",
    title="Pai gow (tiles)",
    rules="Queensland Casino Gaming Rule 2010, Schedule 6",
    wagers=(
        WagerSpec("bet", doc="s13, s19(1), s36: a wager on a box against the bank"),
        WagerSpec(
            "bank",
            limits="bank",
            doc="s18: the player/banker's chips, covering every other wager (s18(4))",
            offered_by="player_banking_enabled",
        ),
        WagerSpec(
            "co_bank",
            limits="bank",
            doc="s2, s14(2), s18(5): a co-banker's chips, in equal partnership with the house",
            offered_by="co_banking_enabled",
        ),
    ),
    verbs=("set", "house_way"),
    options=(
        OptionSpec("num_boxes", 8, minimum=1, choices=tuple(range(1, 9)), doc="s5: 8 boxes"),
        OptionSpec(
            "player_commission_round_up_50c",
            True,
            bool,
            doc="s19(2): round a winning player's 5% commission up to a multiple of 50c",
        ),
        OptionSpec(
            "banker_commission_round_down_50c",
            True,
            bool,
            doc="s19(4): round a banking player's 5% commission down to a multiple of 50c",
        ),
        OptionSpec("gee_joon_wild", True, bool, doc="PA1: a 3/6 tile counts 3 or 6"),
        OptionSpec(
            "zero_zero_high_bank_wins",
            False,
            bool,
            doc="PA4: two high hands of 0 go to the bank (default: by top tile, literal)",
        ),
        OptionSpec("player_banking_enabled", False, bool, doc="s18: a player may be player/banker"),
        OptionSpec("co_banking_enabled", False, bool, doc="s18(5): a player may co-bank"),
        OptionSpec(
            "house_max_liability",
            None,
            nullable=True,
            minimum=0,
            doc="s14(2): the house's displayed maximum liability when it co-banks, cents",
        ),
    ),
    pay_tables={"s19": {"bet": {"win": (1, 1)}}},
    box_cards=4,
    dealer_cards=4,
    bank_box=1,
    backer_places=("P2", "P3"),  # s15(1): not more than 3 players on each box
)

BANK_WAGERS = ("bank", "co_bank")
#: s16(2)(c): the street on which a player alone on two boxes sets the higher wager's box
HIGHER_BOX_STREET = "higher_box"
Place = str  # "P2", "P3": another player on a box (s15(1))
#: a backer's wagers by box and place, as the round takes them (``others``)
Others = Mapping[int, Mapping[Place, Mapping[str, int]]]
#: the street on which a player/banker sets the bank's tiles, last (s28(8))
BANK_STREET = "bank"


def parse_tile(text: Any, where: str) -> str:
    """A tile as pips, low first (SCENARIOS.md): ``"6-6"``, ``"1-2"``."""
    if not isinstance(text, str) or text not in KIND:
        raise InvalidRound(f"{where}: {text!r} is not a pai gow tile (pips low first, '1-2')")
    return text


def forced_tiles(forced: Forced | None) -> tuple[dict[int, list[str]], list[str]]:
    """The scenario's ``tiles`` (``{"boxes": {box: [...]}, "dealer": [...]}``), which the
    adapter passes as ``Forced.outcome["tiles"]``; every tile at most as often as the set
    holds it (s6)."""
    if forced is None:
        return {}, []
    if forced.boxes or forced.dealer or forced.board or forced.shoe:
        raise InvalidRound("pai gow is dealt from tiles: give tiles.boxes and tiles.dealer")
    outcome = forced.outcome or {}
    if set(outcome) - {"tiles"}:
        raise InvalidRound("pai gow takes tiles, not an outcome")
    raw = outcome.get("tiles", {})
    if not isinstance(raw, Mapping) or set(raw) - {"boxes", "dealer"}:
        raise InvalidRound('tiles must be {"boxes": {box: [tiles]}, "dealer": [tiles]}')
    raw_boxes = raw.get("boxes", {})
    if not isinstance(raw_boxes, Mapping):
        raise InvalidRound("tiles.boxes must be an object")
    boxes: dict[int, list[str]] = {}
    for k, ts in raw_boxes.items():
        try:
            box = int(k)
        except (TypeError, ValueError):
            raise InvalidRound(f"not a box number: {k!r}") from None
        if not isinstance(ts, list) or len(ts) > 4:
            raise InvalidRound(f"tiles.boxes.{k}: a list of at most 4 tiles")
        boxes[box] = [parse_tile(t, f"tiles.boxes.{k}") for t in ts]
    dealer = raw.get("dealer", [])
    if not isinstance(dealer, list) or len(dealer) > 4:
        raise InvalidRound("tiles.dealer: a list of at most 4 tiles")
    bank = [parse_tile(t, "tiles.dealer") for t in dealer]
    counts = Counter([*bank, *(t for ts in boxes.values() for t in ts)])
    have = Counter(TILE_SET)
    for t, n in counts.items():
        if n > have[t]:
            raise InvalidRound(f"tile {t} is used {n} times; the set holds {have[t]}")
    return boxes, bank


def parse_setting(raw: Any, tiles: Sequence[str], wild: bool) -> Setting:
    """A player's own setting ``{"high": [t, t], "low": [t, t]}`` of exactly their 4 tiles;
    a high hand ranking below the low hand is refused (s2)."""
    if not isinstance(raw, Mapping) or set(raw) != {"high", "low"}:
        raise IllegalAction("bad_setting", 'a setting is {"high": [2 tiles], "low": [2 tiles]}')
    hands = []
    for side in ("high", "low"):
        h = raw[side]
        if not isinstance(h, list | tuple) or len(h) != 2 or not all(t in KIND for t in h):
            raise IllegalAction("bad_setting", f"the {side} hand must be 2 tiles ('1-2')")
        hands.append((h[0], h[1]))
    if Counter([*hands[0], *hands[1]]) != Counter(tiles):
        raise IllegalAction(
            "not_your_tiles", f"a setting must use exactly the box's tiles {list(tiles)}"
        )
    s = Setting(hands[0], hands[1])
    if key(s.high, wild) < key(s.low, wild):
        raise IllegalAction(
            "high_below_low",
            f"the high hand ({describe(s.high, wild)}) ranks below the low hand "
            f"({describe(s.low, wild)}) (s2)",
        )
    return s


def check_bank(
    options: Mapping[str, Any],
    wagers: Mapping[int, Mapping[str, int]],
    dealing: bool,
    others: Others | None = None,
) -> tuple[int | None, str]:
    """The round's bank (s18): ``(None, "house")`` while the house banks (nobody wagers on
    box 1 then, s18(13)), else the banking box and its wager (``bank`` / ``co_bank``), which
    must be allowed, alone, wager on no hand, and cover the wagers, the backers' (``others``)
    included (s18(4): "all other players' wagers", s14(1),(2)); the bank's box has no
    backers. ``dealing``: the layout is final, so a bank needs a player's wager against it."""
    others = others or {}
    banks = [(b, w) for b, ws in wagers.items() for w in ws if w in BANK_WAGERS]
    bets = {b: ws.get("bet", 0) + backed(others, b) for b, ws in wagers.items()}
    if not banks:
        if SPEC.bank_box in wagers:
            raise IllegalAction(
                "box_1_is_bank", "the house banks: nobody may wager on box 1 (s18(13))"
            )
        return None, "house"
    if len(banks) > 1:
        raise IllegalAction("one_bank", "only one box may bank in a round (s18)")
    box, kind = banks[0]
    if others.get(box):
        raise IllegalAction(
            "bank_has_no_backers", f"box {box} banks: nobody backs the bank's box (s18(6),(7))"
        )
    if kind == "bank" and not options["player_banking_enabled"]:
        raise IllegalAction("player_banking_disabled", "the house banks at this table (s18)")
    if kind == "co_bank" and not options["co_banking_enabled"]:
        raise IllegalAction("co_banking_disabled", "nobody co-banks at this table (s18(5))")
    if wagers[box].get("bet"):
        raise IllegalAction(
            "banker_may_not_bet", f"box {box} banks and may wager on no hand (s18(7)(b))"
        )
    if dealing and len(wagers) < 2:
        raise IllegalAction("no_players", "a bank needs at least one player's wager")
    cover = wagers[box][kind]
    liability = sum(bets.values())
    share = liability if kind == "bank" else -(-liability // 2)
    if share > cover:
        raise IllegalAction(
            "bank_cannot_cover",
            f"box {box} must cover {dollars(share)} of wagers with {dollars(cover)} "
            f"(s18(4), s14(1),(2))",
        )
    cap = options["house_max_liability"]
    if kind == "co_bank" and cap is not None and liability - liability // 2 > cap:
        raise IllegalAction(
            "house_liability",
            f"the house's share {dollars(liability - liability // 2)} is above its "
            f"displayed maximum liability {dollars(cap)} (s14(2))",
        )
    return box, kind


def backed(others: Others, box: int) -> int:
    """The backers' wagers on ``box`` (s14(4): "the total of all wagers on a box")."""
    return sum(a for ws in others.get(box, {}).values() for a in ws.values())


def check_two_boxes(
    layout: Mapping[int, Mapping[str, int]], owners: Mapping[int, str], others: Others
) -> None:
    """s16: a player sets the tiles for only 1 box (s16(1)), unless he wagers on 2 boxes as
    the only player wagering in the round, against the house, one box's total at least
    twice the other's (s16(2)(a),(b)). Backers (``others``) are players wagering."""
    boxes: dict[str, list[int]] = {}
    for box in layout:
        if box in owners:
            boxes.setdefault(owners[box], []).append(box)
    for held in boxes.values():
        if len(held) < 2:
            continue
        if len(held) > 2:
            raise IllegalAction(
                "one_box_per_player", "a player sets the tiles for only 1 box a round (s16(1))"
            )
        alone = len(boxes) == 1 and not any(others.get(b) for b in layout)
        house = not any(w in BANK_WAGERS for ws in layout.values() for w in ws)
        if not (alone and house):
            raise IllegalAction(
                "two_boxes_not_alone",
                "a player may wager on 2 boxes only as the only player in the round, against "
                "the house (s16(1), s16(2)(a))",
            )
        small, big = sorted(sum(layout[b].values()) for b in held)
        if big < 2 * small:
            raise IllegalAction(
                "two_boxes_not_twice",
                f"on 2 boxes, one box's wager must be at least twice the other's: "
                f"{dollars(big)} is less than twice {dollars(small)} (s16(2)(b))",
            )


def banker_of(past: PastRound) -> str | None:
    """Who banked ``past`` (the account on the box holding ``bank`` / ``co_bank``), or None
    when the house banked alone (or there was no round)."""
    for box, ws in past.layout.items():
        if any(w in BANK_WAGERS for w in ws):
            return past.owners.get(box)
    return None


def check_rotation(box: int, player: str, past: Sequence[PastRound]) -> None:
    """s18: may ``player`` take the bank (or co-bank) on ``box`` this round?

    * s18(8): the house banks the first round after play starts or restarts (no round
      before, or the round before was a break in play: nobody wagered, or it was voided);
    * s18(2), (3): the player played the round before on ``box``; after a house-banked
      round, on box 1 too (having played the round before at the table);
    * s18(10)-(12): not more than 2 consecutive rounds; then someone else, or the house for
      at least a round. The offer round the table (s18(9), (11)) is the betting window:
      whoever qualifies and wagers the bank first takes it (docs/rulings.md).
    """
    if not past or not past[-1].layout:
        raise IllegalAction(
            "house_banks_first",
            "the house banks the first round after play starts or restarts (s18(8))",
        )
    before = past[-1]
    played = box in before.layout and before.owners.get(box) == player
    if not played and box == 1 and banker_of(before) is None:
        played = player in before.owners.values()  # s18(3): box 1 after a house bank
    if not played:
        raise IllegalAction(
            "not_played_box",
            f"to take the bank on box {box} you must have played the previous round on it "
            "(s18(2),(3))",
        )
    run = 0
    for rnd in reversed(past):
        if banker_of(rnd) != player:
            break
        run += 1
    if run >= 2:
        raise IllegalAction(
            "banked_two_rounds",
            "a player may bank for not more than 2 consecutive rounds; the bank goes on "
            "(s18(10)-(12))",
        )


# ------------------------------------------------------------------------------ the round


class PaiGow(BankedRound):
    """One round of pai gow (see the module docstring)."""

    spec = SPEC

    def __init__(
        self,
        options: Mapping[str, Any] | None,
        wagers: Mapping[Any, Mapping[str, Any]],
        rng: RandomSource,
        forced: Forced | None = None,
        jackpot: JackpotState | None = None,
    ) -> None:
        own, others_raw = split_others(wagers)
        super().__init__(options, own, rng, forced, jackpot)
        key_of = {int(k): k for k in own}  # validate_wagers has checked the box numbers
        #: the backers' wagers, box -> place -> wager -> cents (s15(1))
        self.others: dict[int, dict[Place, dict[str, int]]] = {}
        for box in self.wagers:
            raw = others_raw.get(key_of[box])
            if raw is not None:
                self.others[box] = self._others(box, raw)
        #: a backer's net per wager, (box, place) -> wager -> cents, filled at settlement
        self.other_nets: dict[tuple[int, Place], dict[str, int]] = {}
        #: who plays each place, across the boxes: (box, place) -> a person's id (None: the
        #: box's first player); set by a table from its accounts, as
        #: :attr:`BlackjackRound.persons`. Unset: every box's player is a person of his own.
        self.persons: dict[tuple[int, Place | None], str] = {}
        self.wild: bool = self.options["gee_joon_wild"]
        self.bank_box, self.bank_kind = self._check_bank()
        self.players = [b for b in self.boxes if b != self.bank_box]
        self._forced_boxes, self._forced_bank = forced_tiles(forced)
        for box in self._forced_boxes:
            if box == self.bank_box:
                raise InvalidRound(f"box {box} is the bank: give its tiles as tiles.dealer")
            if box not in self.wagers:
                raise InvalidRound(f"tiles given for box {box}, which has no wager")
        self.tiles: dict[int, list[str]] = {}
        self.bank_tiles: list[str] = []
        self.settings: dict[int, Setting] = {}
        self.bank_setting: Setting | None = None
        self.house_way_boxes: set[int] = set()
        self.dice: tuple[int, int, int] = (0, 0, 0)
        self.first_box = 0
        self._held: list[int] = []
        self._chosen: Setting | None = None

    # ------------------------------------------------------------------ backers (s15)
    def _others(self, box: int, raw: Any) -> dict[Place, dict[str, int]]:
        """SCENARIOS.md ``others``: other players on a box, at most 2 (s15(1))."""
        return others_on_box(
            box,
            raw,
            len(self.spec.backer_places),
            "s15(1)",
            lambda pid, ws: self.check_other_wagers(self.options, box, pid, ws),
        )

    @classmethod
    def check_other_wagers(
        cls, options: Mapping[str, Any], box: int, pid: str, ws: Any
    ) -> dict[str, int]:
        """One backer's wagers on a box (s13, s15(1)): a ``bet`` within the table limits,
        nothing else (a backer takes no bank); ``options`` validated. A table checks a
        backer's wagers with it while betting is open."""
        if isinstance(ws, Mapping) and set(ws) - {"bet"}:
            raise IllegalAction("backer_bets_only", f"box {box}: {pid} may only bet on the box")
        checked: dict[str, int] = validate_wagers(cls.spec, options, {box: ws})[box]
        return checked

    @classmethod
    def check_side_wagers(
        cls, options: Mapping[str, Any], box: int, player: Place | None, ws: Mapping[str, int]
    ) -> None:
        """Pai gow has no side wagers (s13): nothing beyond :meth:`check_other_wagers`."""
        return None

    def stakes_of(self, box: int, player: Place | None = None) -> dict[str, int]:
        """What ``player`` (``None``: the box's first player) has on ``box``, by wager."""
        if player is None:
            return dict(self.stakes[box])
        return dict(self.others.get(box, {}).get(player, {}))

    def nets_of(self, box: int, player: Place | None = None) -> dict[str, int]:
        """``player``'s net per wager on ``box`` (settled: after commission; void: 0)."""
        if player is None:
            return dict(self.nets[box])
        if self.voided:
            return {w: 0 for w in self.stakes_of(box, player)}
        return dict(self.other_nets.get((box, player), {}))

    def box_total(self, box: int) -> int:
        """s14(4): the total of all wagers on a box, its backers' included."""
        return sum(self.wagers[box].values()) + backed(self.others, box)

    # ------------------------------------------------------------------ the bank (s18)
    @classmethod
    def check_layout(
        cls,
        options: Mapping[str, Any],
        layout: Mapping[int, Mapping[str, Any]],
        owners: Mapping[int, str],
        past: Sequence[PastRound] = (),
    ) -> None:
        """The table's betting window: the bank's rules (s18(13), s18(4), s14) on every wager
        (a bank still waiting for players' wagers is allowed until the deal), one player on
        two boxes (s16, :func:`check_two_boxes`), and who may take the bank given the rounds
        before (s18(2),(3),(8),(10)-(12): :func:`check_rotation`). A box's backers may come
        as its ``others``, as the round takes them."""
        own, raw = split_others(layout)
        others = {b: {p: dict(ws) for p, ws in o.items()} for b, o in raw.items()}
        boxes = {b: {w: int(a) for w, a in ws.items()} for b, ws in own.items()}
        box, _kind = check_bank(options, boxes, dealing=False, others=others)
        if box is not None:
            banker = owners[box]
            if any(owners.get(b) == banker for b in boxes if b != box):
                raise IllegalAction(
                    "banker_may_not_bet", "the player/banker wagers on no other hand (s18(7)(b))"
                )
        check_two_boxes(boxes, owners, others)
        if box is not None:
            check_rotation(box, owners[box], past)

    def _check_bank(self) -> tuple[int | None, str]:
        return check_bank(self.options, self.wagers, dealing=True, others=self.others)

    # ------------------------------------------------------------------ the deal (s11, s21, s25)
    def _deal(self) -> list[Event]:
        used = Counter([*self._forced_bank, *(t for ts in self._forced_boxes.values() for t in ts)])
        rest = list(TILE_SET)
        for t, n in used.items():
            for _ in range(n):
                rest.remove(t)
        stack = shuffle(rest, self.rng)  # s21: shuffle and stack
        self.dice = (
            self.rng.randbelow(6) + 1,
            self.rng.randbelow(6) + 1,
            self.rng.randbelow(6) + 1,
        )
        chung = self.bank_box or 1  # s17: the chung marks the bank's box
        total = sum(self.dice)
        self.first_box = (chung - 1 + total - 1) % 8 + 1  # s11(3): 1, 9, 17 at the chung
        draw = iter(stack)
        for step in range(8):  # s25: every position takes a stack of 4, in order
            pos = (self.first_box - 1 + step) % 8 + 1
            given = self._forced_bank if pos == chung else self._forced_boxes.get(pos, [])
            dealt = [*given, *(next(draw) for _ in range(4 - len(given)))]
            if pos == chung:
                self.bank_tiles = dealt
            elif pos in self.wagers:
                self.tiles[pos] = dealt
        self.detail["scenario_extra"] = {"dice": list(self.dice), "first_box": self.first_box}
        out: list[Event] = [
            CardsDealt(
                to="dealer",
                box=None,
                cards=tuple(self.bank_tiles),
                visible_to=self.bank_box if self.bank_box is not None else NOBODY,
            )
        ]
        higher = self._higher_box()
        if higher is not None:  # s16(2)(c): the higher wager's box first, the other unseen
            self._held = [b for b in self.players if b != higher]
            out += self._show_tiles([higher])
            return out + self._open_street(HIGHER_BOX_STREET, [higher])
        total_max = self.options["maximum"]
        priority = [b for b in self.players if 2 * self.box_total(b) >= total_max]
        if len(self.players) > 1 and priority and len(priority) < len(self.players):
            self._held = [b for b in self.players if b not in priority]  # s14(4)(b)
            out += self._show_tiles(priority)
            return out + self._open_street("priority", priority)
        out += self._show_tiles(self.players)
        return out + self._open_street("set", self.players)

    def _higher_box(self) -> int | None:
        """s16(2): the box with the higher wager when one person (:attr:`persons`) plays
        two boxes (the betting window has checked s16(2)(a),(b): :func:`check_two_boxes`)."""
        held: dict[str, list[int]] = {}
        for b in self.players:
            person = self.persons.get((b, None))
            if person is not None:
                held.setdefault(person, []).append(b)
        two = next((bs for bs in held.values() if len(bs) == 2), None)
        if two is None:
            return None
        return max(two, key=lambda b: (self.box_total(b), -b))

    def _show_tiles(self, boxes: Iterable[int]) -> list[Event]:
        return [
            CardsDealt(to="box", box=b, cards=tuple(self.tiles[b]), visible_to=b) for b in boxes
        ]

    # ------------------------------------------------------------------ setting (s27-s29)
    def decide(
        self,
        box: int,
        verb: str,
        amount: Any = None,
        qualifiers: Mapping[str, Any] | None = None,
    ) -> list[Event]:
        """``set`` carries the setting (``{"high": [..], "low": [..]}``) as its argument."""
        if verb != "set" or qualifiers:
            return super().decide(box, verb, amount, qualifiers)
        self._check_awaiting(box)
        tiles = self.bank_tiles if box == self.bank_box else self.tiles[box]
        setting = parse_setting(amount, tiles, self.wild)
        self._chosen = setting
        return self._decide(box, "set", None, "player")

    def insufficient(self, box: int) -> list[Event]:
        """Setting tiles needs no further wager (s13): nothing to fund."""
        self._check_awaiting(box)
        raise IllegalAction("nothing_to_fund", "setting tiles needs no wager in pai gow")

    def _choices(self, box: int) -> tuple[Choice, ...]:
        return (Choice("set", setting=True), Choice("house_way"))

    def _timeout_decision(self, box: int) -> tuple[str, int | None]:
        """A player who does not set in time gets the house way (digest section 4, a server
        choice: the text has no timeout rule)."""
        return "house_way", None

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        tiles = self.bank_tiles if box == self.bank_box else self.tiles[box]
        if verb == "set":
            assert self._chosen is not None
            setting, self._chosen = self._chosen, None
        else:  # s29(1): the dealer sets the player's tiles the house way
            setting = house_way(tiles, self.wild)
            self.house_way_boxes.add(box)
        if box == self.bank_box:
            self.bank_setting = setting
        else:
            self.settings[box] = setting
        return []

    def _street_closed(self) -> list[Event]:
        if self._held:
            held, self._held = self._held, []  # s14(4)(b): now the other boxes see theirs
            return self._show_tiles(held) + self._open_street("set", held)
        if self.bank_kind == "bank" and self.bank_setting is None:
            assert self.bank_box is not None
            return self._open_street(BANK_STREET, [self.bank_box])  # s28(8): banker sets last
        if self.bank_setting is None:  # s29(3): the house (co-)banks: the house way
            self.bank_setting = house_way(self.bank_tiles, self.wild)
        return self._finish()

    # ------------------------------------------------------------------ settlement (s36, s38, s19)
    def _verdict(self, box: int) -> tuple[bool, bool]:
        """(high won, low won) for the player on ``box`` against the bank (s36)."""
        assert self.bank_setting is not None
        s, b = self.settings[box], self.bank_setting
        return (
            hand_wins(s.high, b.high, False, self.options),
            hand_wins(s.low, b.low, True, self.options),
        )

    def _settle(self) -> list[Event]:
        assert self.bank_setting is not None
        bank = self.bank_setting
        out: list[Event] = [
            HandShown(box=None, cards=bank.high, hand=f"bank high: {describe(bank.high)}"),
            HandShown(box=None, cards=bank.low, hand=f"bank low: {describe(bank.low)}"),
        ]
        party = f"box:{self.bank_box}" if self.bank_kind == "bank" else "house"
        bank_result = 0  # the bank's net on the players' wagers, before its commission
        commission = 0
        losers: list[Event] = []
        others: list[Event] = []
        hands: dict[str, Any] = {}
        for box in sorted(self.players, reverse=True):
            s = self.settings[box]
            out.append(HandShown(box=box, cards=s.high, hand=f"high: {describe(s.high)}"))
            out.append(HandShown(box=box, cards=s.low, hand=f"low: {describe(s.low)}"))
            high, low = self._verdict(box)
            verdict = "win" if high and low else "lose" if not (high or low) else "stand off"
            hands[str(box)] = {
                **s.wire(),
                "house_way": box in self.house_way_boxes,
                "result": verdict,
            }
            places: list[Place | None] = [None, *self.others.get(box, {})]
            for place in places:  # s15: every player on the box, on the box's hands
                stake = self.stakes_of(box, place)["bet"]
                event, net, c = self._settle_bet(box, place, stake, verdict, party)
                bank_result -= net + c
                commission += c
                (losers if verdict == "lose" else others).append(event)  # s38: losers first
        out += losers + others
        bank_events, bank_commission = self._settle_bank(bank_result)
        out += bank_events
        hands["bank"] = {**bank.wire(), "house_way": self.bank_kind != "bank"}
        self.dealer_status = f"high {describe(bank.high)}, low {describe(bank.low)}"
        extra = self.detail["scenario_extra"]
        extra["hands"] = hands
        extra["commission"] = commission + bank_commission
        if self.others:  # SCENARIOS.md: the backers' figures under their box's ``others``
            self.detail["others"] = {
                box: {p: self.nets_of(box, p) for p in ps} for box, ps in self.others.items()
            }
        return out

    def _settle_bet(
        self, box: int, place: Place | None, stake: int, verdict: str, bank: str
    ) -> tuple[WagerSettled, int, int]:
        """One player's ``bet`` on ``box`` against the bank's party ``bank`` (s36, s19(1),
        (2): the commission on this winning wager alone): the event, the player's net
        after commission, and the commission."""
        who = f"box:{box}" if place is None else f"box:{box}:{place}"
        label = "bet" if place is None else f"{place} bet"
        c = 0
        if verdict == "lose":
            net, outcome, detail = -stake, "lose", "s36(2)"
        elif verdict == "win":
            c = player_commission(stake, self.options)
            net, outcome = stake - c, "win"
            detail = f"s36(1), even money less {dollars(c)} commission (s19(1),(2))"
        else:
            net, outcome, detail = 0, "stand off", "stand off (s36(3))"
        self._transfer(bank, who, net + c)
        self._transfer(who, "house", c)
        if place is None:
            self._record(box, "bet", net)
        else:
            self.other_nets[(box, place)] = {"bet": net}
        return WagerSettled(box=box, wager=label, net=net, outcome=outcome, detail=detail), net, c

    def _settle_bank(self, result: int) -> tuple[list[Event], int]:
        """The banking player's figure (s18, s19(3),(4)): the player/banker takes the whole
        bank result; a co-banker half of it (the odd cent stays with the house); either pays
        5% commission on a profit."""
        if self.bank_box is None:
            return [], 0
        box, kind = self.bank_box, self.bank_kind
        share = result if kind == "bank" else (result // 2 if result >= 0 else -(-result // 2))
        if kind == "co_bank":
            self._transfer("house", f"box:{box}", share)
        c = banker_commission(share, self.options)
        self._transfer(f"box:{box}", "house", c)
        net = share - c
        self._record(box, kind, net)
        outcome = "win" if net > 0 else "lose" if net < 0 else "push"
        detail = f"bank result {dollars(share)} less {dollars(c)} commission (s19(3),(4))"
        return [WagerSettled(box=box, wager=kind, net=net, outcome=outcome, detail=detail)], c


ROUNDS: dict[str, type[BankedRound]] = {SPEC.id: PaiGow}
