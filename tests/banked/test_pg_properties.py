"""Property tests for pai gow tiles (QLD Sch 6) against an independent oracle written here
from the digest's tables (pai-gow.md sections 1-2), not from the engine's code.

* every pairing of two-tile hands (high and low, player against bank) compares as s36 says;
* every four-tile holding is set by the house way into a legal setting (s2: the high hand does
  not rank below the low hand) that uses exactly those tiles;
* 10,000 random rounds (100 examples x 100 rounds): house, player/banker and co-banker banks,
  own settings (some refused first for ranking the high hand below the low), house way
  requests and timeouts: every round completes, money is conserved, each box's figure equals
  its ledger movement, and each wager's figure and the bank's equal the oracle's.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, combinations_with_replacement, product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource
from server.errors import IllegalAction
from server.games.banked.pai_gow import TILE_SET, PaiGow, hand_wins, house_way

# ------------------------------------------------------------------ the oracle (digest s1)

#: pai-gow.md 1.1, rank order 1..16 (s7(4)): the tile names by pips.
NAMES = {
    "6-6": "teen",
    "1-1": "day",
    "4-4": "high 8",
    "1-3": "high 4",
    "5-5": "high 10",
    "3-3": "high 6",
    "2-2": "low 4",
    "5-6": "eleven",
    "4-6": "low 10",
    "1-6": "high 7",
    "1-5": "low 6",
    "4-5": "nine",
    "3-6": "nine",
    "3-5": "low 8",
    "2-6": "low 8",
    "3-4": "low 7",
    "2-5": "low 7",
    "1-4": "five",
    "2-3": "five",
    "1-2": "gee joon",
    "2-4": "gee joon",
}
SINGLE_ORDER = [
    "teen", "day", "high 8", "high 4", "high 10", "high 6", "low 4", "eleven", "low 10",
    "high 7", "low 6", "nine", "low 8", "low 7", "five", "gee joon",
]  # fmt: skip
#: pai-gow.md 1.2 (s7(1)): gee joon pair first, then in single order.
PAIR_ORDER = ["gee joon", *SINGLE_ORDER[:-1]]
SPECIALS = {"nine": "wong", "high 8": "gong", "low 8": "gong", "high 7": "high nine"}
SPECIALS["low 7"] = "high nine"
CATEGORY = {"pair": 5, "wong": 4, "gong": 3, "high nine": 2}


def pips(tile: str) -> int:
    return sum(int(x) for x in tile.split("-"))


def oracle_points(hand: tuple[str, str], wild: bool) -> int:
    options = [[3, 6] if wild and NAMES[t] == "gee joon" else [pips(t)] for t in hand]
    return max((a + b) % 10 for a, b in product(*options))


def grade(hand: tuple[str, str], wild: bool) -> tuple[int, int]:
    """(category, strength): category 5 pairs .. 2 high nines, 1 points; larger is better."""
    a, b = NAMES[hand[0]], NAMES[hand[1]]
    if a == b:
        return CATEGORY["pair"], -PAIR_ORDER.index(a)
    for lead, other in ((a, b), (b, a)):
        if lead in ("teen", "day") and other in SPECIALS:
            return CATEGORY[SPECIALS[other]], 1 if lead == "teen" else 0
    return 1, oracle_points(hand, wild)


def top_index(hand: tuple[str, str]) -> int:
    """Index of the best single tile (lower is better)."""
    return min(SINGLE_ORDER.index(NAMES[t]) for t in hand)


def oracle_beats(player: tuple[str, str], bank: tuple[str, str], low: bool, wild: bool) -> bool:
    """pai-gow.md 1.3: category/points, then the top tile; copies and low 0-0 to the bank."""
    p, b = grade(player, wild), grade(bank, wild)
    if p != b:
        return p > b
    if low and p == (1, 0):
        return False
    return top_index(player) < top_index(bank)


def legal(high: tuple[str, str], low: tuple[str, str], wild: bool) -> bool:
    """s2: the high hand ranks at least as high as the low one (then by the top tile)."""
    h, lo = grade(high, wild), grade(low, wild)
    return h > lo or (h == lo and top_index(high) <= top_index(low))


def oracle_commission(win: int, round_up: bool) -> int:
    """pai-gow.md 2: 5% (exact cents up), up to a multiple of 50c; capped at the win."""
    c = (win * 5 + 99) // 100
    if round_up and c % 50:
        c += 50 - c % 50
    return min(c, win)


def oracle_bank_commission(profit: int, round_down: bool) -> int:
    if profit <= 0:
        return 0
    c = profit * 5 // 100
    return c - c % 50 if round_down else c


KINDS = sorted(set(TILE_SET))
HAVE = Counter(TILE_SET)
HANDS = [h for h in combinations_with_replacement(KINDS, 2) if Counter(h)[h[0]] <= HAVE[h[0]]]


# ------------------------------------------------------------------ every pairing


@pytest.mark.parametrize("wild", [True, False])
def test_every_hand_pairing_against_the_oracle(wild: bool) -> None:
    """s36(1)-(7), s7, s8, PA1: every two-tile hand against every other, as high and low."""
    options = {"gee_joon_wild": wild, "zero_zero_high_bank_wins": False}
    assert len(HANDS) == 221
    for p in HANDS:
        for b in HANDS:
            for low in (False, True):
                assert hand_wins(p, b, low, options) == oracle_beats(p, b, low, wild), (p, b, low)


@pytest.mark.parametrize("wild", [True, False])
def test_house_way_is_always_legal(wild: bool) -> None:
    """s29(3), Part 11: over every four-tile holding of the set, the house way uses the
    tiles and its high hand outranks (or equals) its low hand (s2)."""
    holdings = [
        h
        for h in combinations_with_replacement(KINDS, 4)
        if all(n <= HAVE[t] for t, n in Counter(h).items())
    ]
    assert len(holdings) > 3000
    for h in holdings:
        s = house_way(h, wild)
        assert Counter([*s.high, *s.low]) == Counter(h)
        assert legal(s.high, s.low, wild), (h, s)


# ------------------------------------------------------------------ random rounds

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROUNDS_PER_EXAMPLE = 100


def splits(tiles: list[str]) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    out = []
    for i, j in combinations(range(4), 2):
        if i == 0:
            a = (tiles[i], tiles[j])
            rest = [tiles[k] for k in range(4) if k not in (i, j)]
            out.append((a, (rest[0], rest[1])))
    return out


def one_round(rng: random.Random) -> None:
    options = {
        "minimum": 100,
        "maximum": 100_000,
        "gee_joon_wild": rng.random() < 0.8,
        "player_commission_round_up_50c": rng.random() < 0.7,
        "banker_commission_round_down_50c": rng.random() < 0.7,
        "player_banking_enabled": True,
        "co_banking_enabled": True,
    }
    wild = options["gee_joon_wild"]
    mode = rng.choice(["house", "house", "bank", "co_bank"])
    boxes = rng.sample(range(1, 9), rng.randint(2, 8))
    bank_box = None if mode == "house" else boxes.pop()
    if mode == "house" and 1 in boxes:
        boxes.remove(1)  # s18(13)
    wagers: dict[int, dict[str, int]] = {
        b: {"bet": rng.choice([100, 2500, 5000, 9750, rng.randint(100, 100_000)])} for b in boxes
    }
    if bank_box is not None:
        wagers[bank_box] = {mode: sum(w["bet"] for w in wagers.values()) + rng.randint(0, 9999)}
    r = PaiGow(options, wagers, SeededRandomSource(rng.getrandbits(32)))
    r.start()
    own: dict[int, bool] = {}
    while not r.complete:
        box = rng.choice([d.box for d in r.pending()])
        tiles = r.bank_tiles if box == bank_box else r.tiles[box]
        how = rng.choice(["set", "set", "house_way", "timeout"])
        if how == "set":
            a, b = rng.choice(splits(tiles))
            high, low = (a, b) if rng.random() < 0.5 else (b, a)
            if not legal(high, low, wild):
                with pytest.raises(IllegalAction) as e:
                    r.decide(box, "set", {"high": list(high), "low": list(low)})
                assert e.value.code == "high_below_low"
                high, low = low, high
            r.decide(box, "set", {"high": list(high), "low": list(low)})
            got = r.bank_setting if box == bank_box else r.settings[box]
            assert got is not None and (got.high, got.low) == (high, low)
        else:
            r.decide(box, how)
        own[box] = how == "set"
    bank = r.bank_setting
    assert bank is not None and legal(bank.high, bank.low, wild)
    # ledger: conserved, and each box's figure is its ledger movement
    parties = {p for t in r.transfers for p in t[:2]}
    assert sum(r.party_net(p) for p in parties) == 0
    for b, nets in r.nets.items():
        assert sum(nets.values()) == r.party_net(f"box:{b}")
    bank_result = 0
    house_commission = 0
    for b in boxes:
        s = r.settings[b]
        assert Counter([*s.high, *s.low]) == Counter(r.tiles[b])
        if not own[b]:
            assert legal(s.high, s.low, wild)
        high = oracle_beats(s.high, bank.high, False, wild)
        low = oracle_beats(s.low, bank.low, True, wild)
        stake = wagers[b]["bet"]
        if high and low:
            c = oracle_commission(stake, options["player_commission_round_up_50c"])
            house_commission += c
            want = stake - c
            bank_result -= stake
        elif high or low:
            want = 0
        else:
            want = -stake
            bank_result += stake
        assert r.nets[b] == {"bet": want}, (b, s, bank)
    if bank_box is None:
        assert r.party_net("house") == bank_result + house_commission
    else:
        share = bank_result if mode == "bank" else int(bank_result / 2)
        c = oracle_bank_commission(share, options["banker_commission_round_down_50c"])
        assert r.nets[bank_box] == {mode: share - c}
        assert r.party_net("house") == house_commission + c + (bank_result - share)


@SETTINGS
@given(st.integers(0, 2**32))
def test_random_rounds_against_the_oracle(seed: int) -> None:
    """s13-s19, s27-s38: 100 random rounds per example (10,000 in all)."""
    rng = random.Random(seed)
    for _ in range(ROUNDS_PER_EXAMPLE):
        one_round(rng)
