"""Control variates for the blackjack family: martingale differences along the shoe.

Theory of operation
-------------------
Given everything dealt so far, the next card from a shuffled shoe is any of the cards the
shoe still holds, each as likely (after a reshuffle, or a refill from the discards, any of
the new stack's). So for any function ``V`` of what a round has dealt so far,

    C = V(state + the card dealt) - sum over the cards left of V(state + that card) / left

has mean zero, exactly, whatever ``V`` is. With ``V`` an estimate of the round's expected
net, the sum of these ``C`` over a round's cards follows the round's luck card by card, so
the net less that sum keeps only what ``V`` gets wrong: regressed on three such sums (the
initial deal, the players' draws, the dealer's cards; :mod:`server.par.controls`), the main
wager's variance falls by an order of magnitude. The engine still settles every round; the
controls only measure how lucky its cards were.

``V`` is the infinite-deck solver's (:mod:`server.par.blackjack`), nothing more exact:

* **the initial deal** (the boxes' first cards, the dealer's up card, the second cards, in
  the engine's order, BJ s17(1), SW s17(1)): the solver's value of each box's first two
  cards against the up card (switch: the better of switching or not, both areas), and before
  a card is known its average over the infinite deck (tables by card value);
* **a player's draw** (hit, double, a split hand's second card): the solver's value of the
  hand once the card has come (a bust, a 21 paid at once, a live double, or the best play
  from there);
* **the dealer's cards** (the second card, then the draws, BJ s27): the settlement of every
  hand still waiting for the dealer, weighted by the solver's distribution of the dealer's
  final total from the dealer's cards so far (a dealer blackjack on the second card).

Card values 1 (ace) to 10 are all ``V`` looks at, so the expectations are over the shoe's
remaining cards by value.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from server.cards import Card
from server.games.banked.blackjack import rules
from server.games.banked.blackjack.shoe import BlackjackShoe
from server.par.blackjack import BUST, Solver

VALUES = tuple(range(1, 11))
#: the dealer's final results a settlement vector is kept for
FINALS: tuple[int | str, ...] = ("BJ", BUST, 17, 18, 19, 20, 21, 22)
_AT = {d: i for i, d in enumerate(FINALS)}


class LoggedShoe(BlackjackShoe):
    """The engine's shoe, unchanged, keeping every card it deals with the stack it came from
    and its place there (so the cards left at any draw are known)."""

    log: list[tuple[Card, list[Card], int]]

    def deal(self) -> Card:
        c = super().deal()
        self.log.append((c, self.cards, self.pos - 1))
        return c


def logged_shoe(shoe: BlackjackShoe) -> LoggedShoe:
    """``shoe`` (freshly built by the engine's ``new_shoe``) as a :class:`LoggedShoe`."""
    shoe.__class__ = LoggedShoe
    assert isinstance(shoe, LoggedShoe)
    shoe.log = []
    return shoe


class Left:
    """The cards the shoe holds before each draw of a round, by value: counted afresh from
    the stack whenever the draw is not the one after the last (a new stack, a reshuffle,
    a card that left the shoe unlogged), else kept up card by card."""

    def __init__(self) -> None:
        self.stack: list[Card] | None = None
        self.pos = -1
        self.counts = [0] * 11
        self.n = 0

    def before(self, stack: list[Card], pos: int) -> None:
        if stack is not self.stack or pos != self.pos:
            self.stack = stack
            self.pos = pos
            counts = [0] * 11
            value = rules.value
            for c in stack[pos:]:
                counts[value(c)] += 1
            self.counts = counts
            self.n = len(stack) - pos

    def take(self, v: int) -> None:
        self.counts[v] -= 1
        self.n -= 1
        self.pos += 1

    def mean(self, f: Sequence[float]) -> float:
        """The expectation of ``f[value]`` for the next card."""
        counts = self.counts
        return sum(counts[v] * f[v] for v in VALUES) / self.n


class ShoeControls:
    """The three martingale sums of a blackjack round (see the module docstring)."""

    def __init__(self, solver: Solver) -> None:
        self.s = solver
        v = solver.v
        self.v = v
        p = solver.p
        self.p = [p.get(x, 0.0) for x in range(11)]
        self.first = self._first_tables() if v.areas == 1 else self._switch_tables()
        self.dealer_dist = lru_cache(maxsize=None)(self._dealer_dist)
        self.after = lru_cache(maxsize=None)(self._after)
        self.split_card = lru_cache(maxsize=None)(self._split_card)

    # ------------------------------------------------------------------ the initial deal
    def _avg(self, f: Any) -> list[float]:
        """[0, E f(1..10)] helper: the infinite-deck mean of f over the next card."""
        return [0.0] + [f(x) for x in VALUES]

    def _first_tables(self) -> dict[str, Any]:
        s, p = self.s, self.p
        ev = {
            (a, b, up): max(s.start(a, b, up).values())
            for a in VALUES
            for b in VALUES
            for up in VALUES
            if p[a] and p[b] and p[up]
        }
        two = {
            (a, up): sum(p[b] * ev.get((a, b, up), 0.0) for b in VALUES)
            for a in VALUES
            for up in VALUES
        }
        one = {a: sum(p[u] * two[(a, u)] for u in VALUES) for a in VALUES}
        return {"ev": ev, "two": two, "one": one}

    def _switch_tables(self) -> dict[str, Any]:
        s, p = self.s, self.p
        vals = [x for x in VALUES if p[x]]
        full: dict[tuple[int, ...], float] = {}
        for a1 in vals:
            for b1 in vals:
                for up in vals:
                    for a2 in vals:
                        for b2 in vals:
                            keep = s._first(a1, a2, up, True) + s._first(b1, b2, up, True)
                            swap = s._first(a1, b2, up, False) + s._first(b1, a2, up, False)
                            full[(a1, b1, up, a2, b2)] = max(keep, swap)
        w4 = {
            (a1, b1, up, a2): sum(p[b2] * full[(a1, b1, up, a2, b2)] for b2 in vals)
            for a1 in vals
            for b1 in vals
            for up in vals
            for a2 in vals
        }
        w3 = {
            (a1, b1, up): sum(p[a2] * w4[(a1, b1, up, a2)] for a2 in vals)
            for a1 in vals
            for b1 in vals
            for up in vals
        }
        w2 = {(a1, b1): sum(p[u] * w3[(a1, b1, u)] for u in vals) for a1 in vals for b1 in vals}
        w1 = {a1: sum(p[b1] * w2[(a1, b1)] for b1 in vals) for a1 in vals}
        return {"full": full, "w4": w4, "w3": w3, "w2": w2, "w1": w1}

    def initial(
        self,
        cards: Sequence[int],
        stakes: Sequence[int],
        left: Left,
        log: Sequence[tuple[Card, list[Card], int]],
    ) -> float:
        """The initial deal's sum: ``cards`` the values dealt (first cards of every hand,
        the up card, the second cards), ``stakes`` each hand's main stake (cents)."""
        t = self.first
        h = len(stakes)
        total = 0.0
        if self.v.areas == 1:
            one, two, ev = t["one"], t["two"], t["ev"]
            firsts = cards[:h]
            for i in range(h):
                left.before(log[i][1], log[i][2])
                a = cards[i]
                total += stakes[i] * (one[a] - left.mean([0.0] + [one[x] for x in VALUES]))
                left.take(a)
            left.before(log[h][1], log[h][2])
            up = cards[h]
            row = [0.0] + [
                sum(st * two[(a, x)] for a, st in zip(firsts, stakes, strict=True)) for x in VALUES
            ]
            total += row[up] - left.mean(row)
            left.take(up)
            for i in range(h):
                left.before(log[h + 1 + i][1], log[h + 1 + i][2])
                a, b = firsts[i], cards[h + 1 + i]
                f = [0.0] + [ev.get((a, x, up), 0.0) for x in VALUES]
                total += stakes[i] * (f[b] - left.mean(f))
                left.take(b)
            return total
        w1, w2, w3, w4, full = t["w1"], t["w2"], t["w3"], t["w4"], t["full"]
        boxes = h // 2
        st = [stakes[2 * k] for k in range(boxes)]
        for i in range(h):
            left.before(log[i][1], log[i][2])
            k, area = divmod(i, 2)
            x = cards[i]
            if area == 0:
                f = [0.0] + [w1.get(y, 0.0) for y in VALUES]
            else:
                a1 = cards[2 * k]
                f = [0.0] + [w2.get((a1, y), 0.0) for y in VALUES]
            total += st[k] * (f[x] - left.mean(f))
            left.take(x)
        left.before(log[h][1], log[h][2])
        up = cards[h]
        row = [0.0] + [
            sum(st[k] * w3.get((cards[2 * k], cards[2 * k + 1], y), 0.0) for k in range(boxes))
            for y in VALUES
        ]
        total += row[up] - left.mean(row)
        left.take(up)
        for i in range(h):
            j = h + 1 + i
            left.before(log[j][1], log[j][2])
            k, area = divmod(i, 2)
            a1, b1, x = cards[2 * k], cards[2 * k + 1], cards[j]
            if area == 0:
                f = [0.0] + [w4.get((a1, b1, up, y), 0.0) for y in VALUES]
            else:
                a2 = cards[h + 1 + 2 * k]
                f = [0.0] + [full.get((a1, b1, up, a2, y), 0.0) for y in VALUES]
            total += st[k] * (f[x] - left.mean(f))
            left.take(x)
        return total

    # ------------------------------------------------------------------ players' draws
    def _after(
        self,
        hard: int,
        ace: bool,
        n: int,
        combo: tuple[int, ...] | None,
        doubled: bool,
        split: bool,
        orig: int,
        up: int,
    ) -> tuple[float, ...]:
        """The solver's value of a hand once a card of each value has come to it (as the
        solver's ``_draw`` values one card)."""
        s = self.s
        held = ace and not (doubled and self.v.double_aces)
        out = [0.0]
        for x in VALUES:
            nc = None
            if combo is not None and n < 3 and x in (6, 7, 8):
                nc = tuple(sorted((*combo, x)))
                if len(nc) == 3 and nc not in ((6, 7, 8), (7, 7, 7)):
                    nc = None
                elif len(nc) == 2 and nc not in ((6, 7), (6, 8), (7, 8), (7, 7)):
                    nc = None
            if not self.p[x]:
                out.append(0.0)
                continue
            out.append(s._after(hard + x, held or x == 1, n + 1, nc, doubled, split, orig, up))
        return tuple(out)

    def _split_card(self, first: int, up: int, orig: int) -> tuple[float, ...]:
        """A split hand's value once its second card has come (as the solver's
        ``_split_hand`` values it)."""
        s, v = self.s, self.v
        out = [0.0]
        for c in VALUES:
            if not self.p[c]:
                out.append(0.0)
                continue
            hard, ace = first + c, first == 1 or c == 1
            t, _ = s._total(hard, ace)
            if first == 1 and c == 10 and v.blackjack_after_split:
                out.append(s.natural(up, orig))
            elif t == 21 and v.twenty_one_at_once:
                out.append(
                    s._spanish_21(2, None, True) if v.twenty_one_at_once == "spanish" else 1.0
                )
            elif first == 1 and v.split_aces_one_card:
                out.append(s._live(t, 1, orig, up))
            else:
                combo = s.combo_of([first, c]) if v.twenty_one_at_once == "spanish" else None
                out.append(max(s.options(hard, ace, 2, combo, True, orig, up).values()))
        return tuple(out)

    def draw(self, hand: Any, old: int, card: Card, up: int, left: Left) -> float:
        """The control of one card dealt to ``hand`` (which held ``old`` cards before it)."""
        x = rules.value(card)
        before = hand.cards[:old]
        orig = 1 if hand.formed == 0 else 0
        if old == 1 and hand.split:
            f = self.split_card(rules.value(before[0]), up, orig)
        else:
            values = [rules.value(c) for c in before]
            ace = any(rules.value(c) == 1 for c in before[hand.fixed_aces :])
            combo = self.s.combo_of(values) if self.v.twenty_one_at_once == "spanish" else None
            f = self.after(sum(values), ace, len(values), combo, hand.doubled, hand.split, orig, up)
        return hand.stakes[None].main * (f[x] - left.mean(f))

    # ------------------------------------------------------------------ the dealer
    def _dealer_dist(self, hard: int, ace: bool) -> tuple[float, ...]:
        """The solver's distribution of the dealer's final result from a (non-blackjack)
        dealer hand, over :data:`FINALS`."""
        out = [0.0] * len(FINALS)
        for d, q in self.s._dealer_from(hard, ace).items():
            out[_AT[d]] += q
        return tuple(out)

    def settlement(self, rnd: Any) -> list[float]:
        """Every stake still waiting for the dealer, settled against each final result
        (cents, summed over the table): the engine's rules as the variant states them."""
        v = self.v
        vec = [0.0] * len(FINALS)
        for bp in rnd.box_play.values():
            for area in range(v.areas):
                group = sorted((h for h in bp.hands if h.area == area), key=lambda h: h.formed)
                original = None
                for h in group:
                    st = h.stakes[None]
                    if not _settled_early(h, st):
                        original = h
                        break
                    won = h.status in ("paid", "blackjack") and "won" in v.original_passes
                    if not (won or (st.rescued and "rescued" in v.original_passes)):
                        break
                for h in group:
                    st = h.stakes[None]
                    if _settled_early(h, st):
                        continue
                    m, dbl = st.main, st.double
                    if st.surrendered:
                        vec[0] -= m
                        for i in range(1, len(FINALS)):
                            vec[i] -= m - m // 2
                        continue
                    if h.status == "blackjack":
                        w, per = v.blackjack_odds
                        win = m * w // per
                        if v.blackjack_v_blackjack == "paid":
                            vec[0] += win
                        elif v.blackjack_v_blackjack == "rank":
                            vec[0] += m * 4  # the middle of 3, 4 and 5 to 1 (CH s27(1))
                        for i in range(1, len(FINALS)):
                            vec[i] += win
                        continue
                    t, _ = rules.total(h.cards, h.fixed_aces)
                    if h is original:
                        vec[0] -= m
                    for i in range(1, len(FINALS)):
                        d = FINALS[i]
                        if d == BUST:
                            vec[i] += m + dbl
                        elif d == 22 and v.dealer_22_pushes:
                            continue
                        elif isinstance(d, int) and d > v.dealer_bust_above:
                            vec[i] += m + dbl
                        elif isinstance(d, int) and t > d:
                            vec[i] += m + dbl
                        elif t == d and not v.ties_lose:
                            continue
                        else:
                            vec[i] -= m + dbl
        return vec

    def _value(self, vec: Sequence[float], hard: int, ace: bool, n: int) -> float:
        if n == 2 and hard == 11 and ace:
            return vec[0]  # a dealer blackjack
        dist = self.dealer_dist(hard, ace)
        return sum(q * x for q, x in zip(dist, vec, strict=True) if q)

    def dealer(
        self, rnd: Any, start: int, log: Sequence[tuple[Card, list[Card], int]], left: Left
    ) -> float:
        """The dealer's cards' sum: ``log[start:]`` are the dealer's second card and draws."""
        vec = self.settlement(rnd)
        if not any(vec):
            return 0.0
        up = rules.value(rnd.dealer[0])
        hard, ace, n = up, up == 1, 1
        total = 0.0
        for card, stack, pos in log[start:]:
            left.before(stack, pos)
            f = [0.0] + [self._value(vec, hard + x, ace or x == 1, n + 1) for x in VALUES]
            x = rules.value(card)
            total += f[x] - left.mean(f)
            left.take(x)
            hard, ace, n = hard + x, ace or x == 1, n + 1
        return total


def _settled_early(h: Any, st: Any) -> bool:
    """A stake settled before the dealer plays: a bust, a 21 or five card trick paid at
    once, a blackjack paid at once, a rescued double."""
    return bool(h.status in ("bust", "paid") or st.rescued or (h.status == "blackjack" and h.early))
