"""Exact sheets of baccarat (QLD Sch 1) and lucky draw baccarat (Sch 16), by card
composition.

Theory of operation (baccarat)
------------------------------
Cards are dealt P1, B1, P2, B2, then the tableau's third cards (s19-s23), from a shoe of
six or eight decks without replacement. Every wager except the pairs is settled on baccarat
values alone (s5: ten-value cards count 0, the ace 1), so the deal is enumerated by value
(ten classes: 0 has sixteen ranks a deck, 1-9 four) with exact composition-dependent
weights, and grouped into *classes*: the player's and banker's two-card counts and the
values of the third cards. For each class one engine round is played on a forced shoe that
realises it (``cards.shoe``): the engine alone says whether each hand draws (a round is
first played with placeholder third cards and the cards it took are counted) and what every
wager nets. The pair wagers (s27-s30, s35-s38) depend only on the first two cards of a hand:
every ordered pair of cards is played (the same pair dealt to both hands in one round).

Lucky draw baccarat: the box draws or stands on two cards (s17(3)); the sheet plays the
optimal strategy for the box's two-card total and the dealer's first card, computed here by
the same exact enumeration (the EV of drawing and of standing), with the 3-3-3 hands kept
apart (the suit classes of the 3s are enumerated: 3-3-3 suited pays 30:1, s11(2)(f)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from server.cards import FIRST, Card, card
from server.games.banked.base import Forced
from server.par.engine import labels_of, options_for, round_class, unit_stake
from server.par.model import Distribution, Sheet, from_distribution, merge

#: a representative card of each baccarat value (spades), and the ranks of each value
_REP = {0: "Ts", 1: "As", **{v: f"{v}s" for v in range(2, 10)}}
RANKS_OF_VALUE = {0: 4, **dict.fromkeys(range(1, 10), 1)}

MAIN = ("player", "banker", "tie", "dragon_bonus_player", "dragon_bonus_banker", "super_6")
PAIRS = ("player_pair", "banker_pair", "perfect_pairs_player", "perfect_pairs_banker")


def _suits(values: Sequence[int]) -> list[Card]:
    """Representative cards for ``values``, cycling suits so no card repeats too often."""
    out = []
    for i, v in enumerate(values):
        c = card(_REP[v])
        out.append((c & ~3) | (i % 4))
    return out


class _Oracle:
    """Engine rounds on forced shoes, memoised by the cards given."""

    def __init__(self, options: Mapping[str, Any], wagers: Sequence[str], stake: int) -> None:
        self.cls = round_class("baccarat")
        self.options = dict(options)
        self.boxes = {1: dict.fromkeys(wagers, stake)}
        self.stake = stake
        self.memo: dict[tuple[int, ...], Any] = {}

    def play(self, shoe: Sequence[Card]) -> Any:
        key = tuple(shoe)
        rnd = self.memo.get(key)
        if rnd is None:
            rnd = self.cls(self.options, self.boxes, FIRST, forced=Forced(shoe=list(shoe)))
            rnd.start()
            self.memo[key] = rnd
        return rnd

    def deal(self, p: int, b: int, third: int | None, fourth: int | None) -> Any:
        """A round whose two-card counts are ``p`` and ``b``, the player's third card of
        value ``third`` and the banker's ``fourth`` (``None``: not drawn)."""
        rest = [fourth or 0] if third is None else [third, fourth or 0]
        return self.play(_suits([p, b, 0, 0, *rest]))


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


def main_distributions(
    options: Mapping[str, Any], stake: int
) -> tuple[dict[str, Distribution], int]:
    """The value-settled wagers' distributions; and the engine rounds played."""
    decks = options["decks"]
    counts = [16 * decks if v == 0 else 4 * decks for v in range(10)]
    n = 52 * decks
    wagers = [w for w in MAIN if w in ("player", "banker", "tie") or w in options["side_wagers"]]
    oracle = _Oracle(options, wagers, stake)
    plans: dict[tuple[int, int], tuple[bool, bool]] = {}

    def draws(p: int, b: int) -> tuple[bool, bool]:
        """(player draws, banker draws when the player stands) from the engine."""
        if (p, b) not in plans:
            rnd = oracle.deal(p, b, None, None)
            plans[(p, b)] = (len(rnd.player) == 3, len(rnd.banker) == 3)
        return plans[(p, b)]

    # integer weights per class, one table per number of cards dealt
    weights: list[dict[tuple[int, int, int | None, int | None], int]] = [{}, {}, {}]
    c = counts
    for v1 in range(10):
        w1 = c[v1]
        c[v1] -= 1
        for v2 in range(10):
            w2 = w1 * c[v2]
            c[v2] -= 1
            for v3 in range(10):
                w3 = w2 * c[v3]
                c[v3] -= 1
                for v4 in range(10):
                    w4 = w3 * c[v4]
                    if not w4:
                        continue
                    c[v4] -= 1
                    p, b = (v1 + v3) % 10, (v2 + v4) % 10
                    k: tuple[int, int, int | None, int | None]
                    player_draws, banker_draws = draws(p, b)
                    if not player_draws:
                        if not banker_draws:
                            key4 = (p, b, None, None)
                            weights[0][key4] = weights[0].get(key4, 0) + w4
                        else:
                            for v6 in range(10):
                                if c[v6]:
                                    k = (p, b, None, v6)
                                    weights[1][k] = weights[1].get(k, 0) + w4 * c[v6]
                    else:
                        for v5 in range(10):
                            w5 = w4 * c[v5]
                            if not w5:
                                continue
                            rnd = oracle.deal(p, b, v5, None)
                            if len(rnd.banker) == 2:
                                k = (p, b, v5, None)
                                weights[1][k] = weights[1].get(k, 0) + w5
                                continue
                            c[v5] -= 1
                            for v6 in range(10):
                                if c[v6]:
                                    k = (p, b, v5, v6)
                                    weights[2][k] = weights[2].get(k, 0) + w5 * c[v6]
                            c[v5] += 1
                    c[v4] += 1
                c[v3] += 1
            c[v2] += 1
        c[v1] += 1
    out: dict[str, Distribution] = {w: {} for w in wagers}
    for depth, table in enumerate(weights):
        denom = _falling(n, 4 + depth)
        for (p, b, t5, t6), w in table.items():
            rnd = oracle.deal(p, b, t5, t6)
            used = len(rnd.player) + len(rnd.banker)
            assert used == 4 + depth, (p, b, t5, t6, used)
            labels = labels_of(rnd)
            prob = Fraction(w, denom)
            for wager, net in rnd.nets[1].items():
                merge(out[wager], labels[(1, wager)], Fraction(net, stake), prob)
    return out, len(oracle.memo)


def pair_distributions(options: Mapping[str, Any], stake: int) -> dict[str, Distribution]:
    """The pair wagers: every ordered pair of first two cards of a hand (P1 P2, B1 B2)."""
    wagers = [w for w in PAIRS if w in options["side_wagers"]]
    out: dict[str, Distribution] = {w: {} for w in wagers}
    if not wagers:
        return out
    decks = options["decks"]
    oracle = _Oracle(options, wagers, stake)
    n = 52 * decks
    denom = n * (n - 1)
    for a in range(52):
        for b in range(52):
            prob = Fraction(decks * (decks - (a == b)), denom)
            rnd = oracle.play([a, a, b, b])  # P1 B1 P2 B2: both hands hold a, b
            labels = labels_of(rnd)
            for wager, net in rnd.nets[1].items():
                merge(out[wager], labels[(1, wager)], Fraction(net, stake), prob)
    return out


def baccarat(raw: Mapping[str, Any] | None) -> Sheet:
    options = options_for("baccarat", raw)
    stake = unit_stake(options)
    mains, played = main_distributions(options, stake)
    dists = {**mains, **pair_distributions(options, stake)}
    order = [w for w in (*MAIN[:3], *PAIRS, *MAIN[3:]) if w in dists]
    notes = [
        f"{options['decks']} decks, cards dealt without replacement from a full shoe; "
        f"{played} classes of deal played through the engine; every wager {stake}c",
        "banker and player: a tie returns the wager (s11(1)(c), (2)(c)); the RTP counts "
        "ties as decisions (per hand, the usual published basis)",
    ]
    return Sheet(
        game="baccarat",
        options=options,
        method="exact",
        rounds=None,
        strategy=None,
        wagers={w: from_distribution(dists[w]) for w in order},
        notes=notes,
    )


# --------------------------------------------------------------------------- lucky draw

#: card classes of lucky draw: baccarat values 0-9 with the 3s split by suit (the 3-3-3
#: hands pay by suit, s2, s11(2)(e)-(f)): (representative card, copies in a deck)
LD_CLASSES: tuple[tuple[str, int], ...] = (
    ("Ts", 16),
    ("As", 4),
    ("2s", 4),
    ("3s", 1),
    ("3h", 1),
    ("3d", 1),
    ("3c", 1),
    ("4s", 4),
    ("5s", 4),
    ("6s", 4),
    ("7s", 4),
    ("8s", 4),
    ("9s", 4),
)
_THREES = (3, 4, 5, 6)
_LD_VALUE = (0, 1, 2, 3, 3, 3, 3, 4, 5, 6, 7, 8, 9)

#: a leaf of the deal: the player's hand class and the dealer's (two-card count[, third])
PlayerKey = tuple[str, int]
DealerKey = tuple[int, ...]


class _LuckyDraw:
    """Exact enumeration of one box against the dealer (see the module docstring)."""

    def __init__(self, options: Mapping[str, Any], stake: int) -> None:
        self.options = dict(options)
        self.stake = stake
        self.cls = round_class("lucky-draw-baccarat")
        self.decks = options["decks"]
        self.reps = [card(r) for r, _ in LD_CLASSES]
        self.leaves: dict[
            tuple[PlayerKey, DealerKey, str], tuple[int, dict[str, int], dict[str, str]]
        ] = {}
        self.draws_memo: dict[int, bool] = {}
        self.dealer_memo: dict[tuple[tuple[int, ...], int], list[tuple[DealerKey, int]]] = {}

    def _round(self, shoe: Sequence[Card], verb: str) -> Any:
        rnd = self.cls(
            self.options, {1: {"enter": self.stake}}, FIRST, forced=Forced(shoe=list(shoe))
        )
        rnd.start()
        rnd.decide(1, verb)
        return rnd

    def dealer_draws(self, pts2: int) -> bool:
        """Whether the engine gives the dealer a third card on a two-card count (s17(6))."""
        if pts2 not in self.draws_memo:
            t, r = card("Ts"), card(_REP[pts2])
            rnd = self._round([t, r, t, t, t, t], "stand")
            self.draws_memo[pts2] = len(rnd.dealer) == 3
        return self.draws_memo[pts2]

    @staticmethod
    def player_key(hand: Sequence[int]) -> PlayerKey:
        if len(hand) == 3 and all(c in _THREES for c in hand):
            return ("3-3-3", int(len(set(hand)) == 1))
        return (str(len(hand)), sum(_LD_VALUE[c] for c in hand) % 10)

    def leaf(
        self, pk: PlayerKey, dk: DealerKey, verb: str
    ) -> tuple[int, dict[str, int], dict[str, str]]:
        """The engine's settlement of a leaf: (enter + draw net, nets, labels)."""
        key = (pk, dk, verb)
        got = self.leaves.get(key)
        if got is None:
            t = card("Ts")
            if pk[0] == "3-3-3":
                s3, h3 = card("3s"), card("3h")
                player = [s3, s3, s3] if pk[1] else [s3, h3, s3]
            else:
                player = [card(_REP[pk[1]]), t] + ([t] if pk[0] == "3" else [])
            dealer = [card(_REP[dk[0]]), t] + ([card(_REP[dk[1]])] if len(dk) == 2 else [])
            shoe = [player[0], dealer[0], player[1], *player[2:], *dealer[1:]]
            rnd = self._round(shoe, verb)
            assert len(rnd.hands[1]) == len(player) and len(rnd.dealer) == len(dealer), key
            labels = labels_of(rnd)
            nets = dict(rnd.nets[1])
            got = (sum(nets.values()), nets, {w: labels[(1, w)] for w in nets})
            self.leaves[key] = got
        return got

    def dealer(self, cv: tuple[int, ...], d1: int) -> list[tuple[DealerKey, int]]:
        """The dealer's final hands from value counts ``cv`` after the dealer's first card
        of value ``d1``: (dealer key, integer weight over L(L-1), L = sum(cv))."""
        key = (cv, d1)
        got = self.dealer_memo.get(key)
        if got is None:
            acc: dict[DealerKey, int] = {}
            c = list(cv)
            rest = sum(c) - 1
            for d2 in range(10):
                w = c[d2]
                if not w:
                    continue
                pts2 = (d1 + d2) % 10
                if not self.dealer_draws(pts2):
                    acc[(pts2,)] = acc.get((pts2,), 0) + w * rest
                    continue
                c[d2] -= 1
                for d3 in range(10):
                    if c[d3]:
                        k = (pts2, d3)
                        acc[k] = acc.get(k, 0) + w * c[d3]
                c[d2] += 1
            got = self.dealer_memo[key] = list(acc.items())
        return got

    def solve(self) -> tuple[dict[str, Distribution], dict[str, str]]:
        """Pass 1: each strategy key's EV of standing and of drawing; pass 2: the chosen
        play's leaves. Every start (P1, D1, P2) shares one denominator per depth, so the
        weights stay integers until the end."""
        n = len(LD_CLASSES)
        counts = [k * self.decks for _, k in LD_CLASSES]
        total = sum(counts)

        def values(c: list[int]) -> tuple[int, ...]:
            v = [0] * 10
            for i, k in enumerate(c):
                v[_LD_VALUE[i]] += k
            return tuple(v)

        def key_of(p1: int, d1: int, p2: int) -> str:
            if p1 in _THREES and p2 in _THREES:
                return f"3-3 {'suited' if p1 == p2 else 'off suit'} v {_LD_VALUE[d1]}"
            return f"{(_LD_VALUE[p1] + _LD_VALUE[p2]) % 10} v {_LD_VALUE[d1]}"

        def branches(
            c: list[int], p1: int, d1: int, p2: int, verb: str
        ) -> list[tuple[PlayerKey, int, list[tuple[DealerKey, int]]]]:
            """(player key, weight of the player's cards, dealer rows) after the start;
            stand weights over L(L-1), draw weights over L(L-1)(L-2)."""
            if verb == "stand":
                return [(self.player_key([p1, p2]), 1, self.dealer(values(c), _LD_VALUE[d1]))]
            out = []
            thirds: list[tuple[int, int]]
            if p1 in _THREES and p2 in _THREES:
                thirds = [(k, c[k]) for k in range(n)]
            else:  # the 3s' suits cannot matter: one class for value 3
                thirds = [(k, c[k]) for k in range(n) if k not in _THREES]
                thirds.append((3, sum(c[k] for k in _THREES)))
            for k, w in thirds:
                if not w:
                    continue
                take = k if not (k == 3 and p1 not in _THREES) else next(t for t in _THREES if c[t])
                c[take] -= 1
                out.append((self.player_key([p1, p2, k]), w, self.dealer(values(c), _LD_VALUE[d1])))
                c[take] += 1
            return out

        starts: list[tuple[int, int, int, int]] = []
        for p1 in range(n):
            w1 = counts[p1]
            counts[p1] -= 1
            for d1 in range(n):
                w2 = w1 * counts[d1]
                counts[d1] -= 1
                for p2 in range(n):
                    if w2 * counts[p2]:
                        starts.append((p1, d1, p2, w2 * counts[p2]))
                counts[d1] += 1
            counts[p1] += 1
        left = total - 3
        # common denominators: stand (N)_3 * L(L-1); draw (N)_3 * L(L-1)(L-2)
        scale = {"stand": left - 2, "draw": 1}
        ev: dict[str, dict[str, int]] = {}
        plays: dict[
            tuple[int, int, int],
            dict[str, list[tuple[PlayerKey, int, list[tuple[DealerKey, int]]]]],
        ] = {}
        for p1, d1, p2, w in starts:
            for k in (p1, d1, p2):
                counts[k] -= 1
            bucket = ev.setdefault(key_of(p1, d1, p2), {"stand": 0, "draw": 0})
            per = {}
            for verb in ("stand", "draw"):
                rows = branches(counts, p1, d1, p2, verb)
                per[verb] = rows
                s = 0
                for pk, wp, drows in rows:
                    t = 0
                    for dk, wd in drows:
                        t += wd * self.leaf(pk, dk, verb)[0]
                    s += wp * t
                bucket[verb] += w * s * scale[verb]
            plays[(p1, d1, p2)] = per
            for k in (p1, d1, p2):
                counts[k] += 1
        strategy = {k: ("draw" if v["draw"] > v["stand"] else "stand") for k, v in ev.items()}
        leaves: dict[tuple[PlayerKey, DealerKey, str], int] = {}
        drawn = 0
        for p1, d1, p2, w in starts:
            verb = strategy[key_of(p1, d1, p2)]
            if verb == "draw":
                drawn += w
            for pk, wp, drows in plays[(p1, d1, p2)][verb]:
                for dk, wd in drows:
                    lk = (pk, dk, verb)
                    leaves[lk] = leaves.get(lk, 0) + w * wp * wd * scale[verb]
        denom = _falling(total, 6)
        enter: Distribution = {}
        draw: Distribution = {}
        whole: Distribution = {}
        for (pk, dk, verb), wt in leaves.items():
            prob = Fraction(wt, denom)
            total_net, nets, labels = self.leaf(pk, dk, verb)
            merge(enter, _plain(labels["enter"]), Fraction(nets["enter"], self.stake), prob)
            if "draw" in nets:
                merge(draw, _plain(labels["draw"]), Fraction(nets["draw"], self.stake), prob)
            how = "drew" if verb == "draw" else "stood"
            merge(
                whole,
                f"{how}: enter {_plain(labels['enter'])}"
                + (f", draw {_plain(labels['draw'])}" if "draw" in nets else ""),
                Fraction(total_net, self.stake),
                prob,
            )
        p_draw = Fraction(drawn, _falling(total, 3))
        if p_draw:
            draw = {k: p / p_draw for k, p in draw.items()}
        return {"enter": enter, "draw": draw, "round": whole}, strategy


def _plain(label: str) -> str:
    """An engine label without the hand's scores (``lose: 3 v dealer 7`` -> ``lose``)."""
    return "lose: lower than the dealer" if " v dealer " in label else label


def lucky_draw(raw: Mapping[str, Any] | None) -> Sheet:
    options = options_for("lucky-draw-baccarat", raw)
    stake = unit_stake(options)
    solver = _LuckyDraw(options, stake)
    dists, strategy = solver.solve()
    rows: dict[str, dict[str, str]] = {}
    for key, verb in strategy.items():
        hand, dealer = key.rsplit(" v ", 1)
        rows.setdefault(hand, {})[dealer] = "D" if verb == "draw" else "S"
    order = sorted(rows, key=lambda h: (h.startswith("3-3"), h))
    per_round = from_distribution(dists["round"])
    per_round.basis = "enter (the round's enter and draw wagers, per unit of enter)"
    return Sheet(
        game="lucky-draw-baccarat",
        options=options,
        method="exact",
        rounds=None,
        strategy="optimal draw/stand on the box's two-card total (3-3 apart) against the "
        "dealer's first card, from this exact enumeration",
        wagers={
            "enter": from_distribution(dists["enter"]),
            "draw": from_distribution(dists["draw"]),
        },
        per_round=per_round,
        strategy_table={
            "columns": "dealer's first card (baccarat value)",
            "legend": {"D": "draw", "S": "stand"},
            "rows": {h: dict(sorted(rows[h].items())) for h in order},
        },
        notes=[
            f"{options['decks']} decks, one box, cards without replacement; "
            f"{len(solver.leaves)} leaf classes played through the engine; enter {stake}c",
            "draw: per unit of the draw wager, over the hands the strategy draws on",
        ],
    )
