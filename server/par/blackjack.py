"""The blackjack family (QLD Sch 2, 9, 15, 17): basic strategy for each variant's rules, its
house edge by an infinite-deck solver, and the player that plays it through the engine.

Theory of operation (the solver)
--------------------------------
Every rule the solver uses is read from the variant's :class:`~server.games.banked.
blackjack.rules.Variant` (what may be doubled, split, surrendered or rescued; how the dealer
draws; what a blackjack, a 21 or a five card trick pays and when) and from the module's
functions and pay tables (``dealer_draws``, ``SPANISH_BONUS``, ``CHALLENGE_BJ_V_BJ``):
nothing is restated here. The deck is infinite: each card's value has the probability it
has in the variant's deck (the Spanish deck has no tens), independent of the cards seen.

1. **Dealer.** There is no hole card: the dealer's second card comes after every player
   (BJ s17(5)). For each up card the solver works out P(dealer blackjack) and the dealer's
   final total given no blackjack (draw by ``dealer_draws``; switch: 22 pushes, 23+ busts).
2. **Player.** A hand's state is its hard total, whether an ace may count 11, its number of
   cards, whether it was doubled or split, and (Spanish) whether its cards so far can still
   make 6-7-8 or 7-7-7. A card may make the hand *final at once* (a bust; a Spanish or
   challenge 21 paid at once; a five card trick), untouched by a later dealer blackjack;
   otherwise it stands *live* and settles on the dealer's cards: with a dealer blackjack the
   original wager loses and every other stake is void (BJ s6(3); so a doubled live hand
   loses one unit), else against the dealer's total. Stand, hit, double (by the variant's
   window; Spanish aces held at 1 after a double, BJ s24(4): the first two), split (no
   resplit), surrender and the Spanish rescue are valued exactly and the best is played.
3. **Strategy table.** The best play of every two-card hand against every up card.

The sheet's house edge is the simulation's (engine, 6-8 decks); the solver's infinite-deck
figure is printed beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from server.games.banked.blackjack import rules
from server.games.banked.blackjack.rules import Variant
from server.par.engine import FastRandom, round_class, unit_stake
from server.par.model import Entry, Tally, WagerSheet
from server.par.sim import Runner

#: dealer results: a total, or BUST
BUST = 0


class Solver:
    """Basic strategy and EV for one variant (see the module docstring)."""

    def __init__(self, variant: Variant) -> None:
        self.v = variant
        counts: dict[int, int] = {}
        tens: dict[int, int] = {}
        for c in variant.deck:
            val = rules.value(c)
            counts[val] = counts.get(val, 0) + 1
            if rules.is_ten(c):
                tens[c >> 2] = tens.get(c >> 2, 0) + 1
        total = sum(counts.values())
        self.p = {val: n / total for val, n in sorted(counts.items())}
        nt = sum(tens.values())
        self.ten_ranks = {r: n / nt for r, n in tens.items()}
        self._dealer: dict[int, tuple[float, dict[int, float]]] = {}
        self._memo: dict[tuple[Any, ...], dict[str, float]] = {}

    # ------------------------------------------------------------------ the dealer
    def _total(self, hard: int, ace: bool) -> tuple[int, bool]:
        if ace and hard + 10 <= 21:
            return hard + 10, True
        return hard, False

    def _draws(self, hard: int, ace: bool) -> bool:
        """``rules.dealer_draws`` on a hand of that hard total (an ace held: soft)."""
        t, soft = self._total(hard, ace)
        return t < 17 or (t == 17 and soft and self.v.hits_soft_17)

    def _dealer_from(self, hard: int, ace: bool) -> dict[int, float]:
        if not self._draws(hard, ace):
            t, _ = self._total(hard, ace)
            return {BUST if t > self.v.dealer_bust_above else t: 1.0}
        out: dict[int, float] = {}
        for val, p in self.p.items():
            for res, q in self._dealer_from(hard + val, ace or val == 1).items():
                out[res] = out.get(res, 0.0) + p * q
        return out

    def dealer(self, up: int) -> tuple[float, dict[int, float]]:
        """(P(dealer blackjack), final totals given no blackjack) for up card value ``up``."""
        got = self._dealer.get(up)
        if got is None:
            bj_card = 10 if up == 1 else 1 if up == 10 else None
            p_bj = self.p[bj_card] if bj_card is not None else 0.0
            out: dict[int, float] = {}
            for val, p in self.p.items():
                if val == bj_card:
                    continue
                for res, q in self._dealer_from(up + val, up == 1 or val == 1).items():
                    out[res] = out.get(res, 0.0) + p * q / (1 - p_bj)
            got = self._dealer[up] = (p_bj, out)
        return got

    def _versus(self, t: int, up: int) -> float:
        """A live standing total ``t`` against the dealer (no blackjack), per unit."""
        _, dist = self.dealer(up)
        ev = 0.0
        for d, p in dist.items():
            if d == BUST:
                ev += p
            elif d == 22 and self.v.dealer_22_pushes:
                continue
            elif t > d:
                ev += p
            elif t < d or self.v.ties_lose:
                ev -= p
        return ev

    # ------------------------------------------------------------------ the player
    def _spanish_21(self, n: int, combo: tuple[int, ...] | None, split: bool) -> float:
        """What an undoubled Spanish 21 of ``n`` cards pays per unit (SP s8(1)), suits
        averaged over an infinite deck (all of one suit 1/16, spades 1/64)."""
        odds = rules.SPANISH_BONUS

        def r(name: str) -> float:
            w, per = odds[name]
            return w / per

        if n == 3 and combo in ((6, 7, 8), (7, 7, 7)):
            name = "6-7-8" if combo == (6, 7, 8) else "7-7-7"
            return (60 * r(name) + 3 * r(name + " suited") + r(name + " spades")) / 64
        if n >= 5:
            return r(f"{min(n, 7)}-card 21")
        return 1.0

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
    ) -> float:
        """The EV once a card has reached the hand (BJ s6(2)(f); SP s22; CH s25(5),(6))."""
        v = self.v
        t, _ = self._total(hard, ace)
        stake = 2 if doubled else 1
        if t > 21:
            return -float(stake)
        if t == 21 and v.twenty_one_at_once:
            if v.twenty_one_at_once == "spanish" and not doubled:
                return self._spanish_21(n, combo, split)
            return float(stake)
        if v.five_card_trick and n >= 5:
            return float(stake)
        if doubled:
            live = self._live(t, 2, orig, up)
            if v.rescue:
                return max(live, -1.0)  # SP s25(7): the main wager forfeited
            return live
        return max(self.options(hard, ace, n, combo, split, orig, up).values())

    def _live(self, t: int, stake: int, orig: int, up: int) -> float:
        p_bj, _ = self.dealer(up)
        return -orig * p_bj + (1 - p_bj) * stake * self._versus(t, up)

    def options(
        self,
        hard: int,
        ace: bool,
        n: int,
        combo: tuple[int, ...] | None,
        split: bool,
        orig: int,
        up: int,
        first: bool = False,
    ) -> dict[str, float]:
        """EV of every play open to a live hand (``first``: its first decision)."""
        key = (hard, ace, min(n, 8), combo, split, orig, up, first)
        got = self._memo.get(key)
        if got is not None:
            return got
        v = self.v
        t, _ = self._total(hard, ace)
        out: dict[str, float] = {"stand": self._live(t, 1, orig, up)}
        if t < 21:
            out["hit"] = self._draw(hard, ace, n, combo, False, split, orig, up)
            window = v.double_window
            may_double = (
                (window == "9-11" and n == 2 and 9 <= hard <= 11)
                or (window == "any" and n >= 2)
                or (window == "2-3" and n in (2, 3))
            )
            if may_double:
                out["double"] = self._draw(hard, ace, n, combo, True, split, orig, up)
            if v.surrender and first and not split and n == 2 and up in (1, 10):
                p_bj, _ = self.dealer(up)
                out["surrender"] = -p_bj + (1 - p_bj) * -0.5
        self._memo[key] = out
        return out

    def _draw(
        self,
        hard: int,
        ace: bool,
        n: int,
        combo: tuple[int, ...] | None,
        doubled: bool,
        split: bool,
        orig: int,
        up: int,
    ) -> float:
        ev = 0.0
        held = ace
        if doubled and self.v.double_aces:  # aces held at 1 after the double
            held = False
        for val, p in self.p.items():
            nc = None
            if combo is not None and n < 3 and val in (6, 7, 8):
                nc = tuple(sorted((*combo, val)))
                if nc not in ((6, 7, 8), (7, 7, 7)) and len(nc) == 3:
                    nc = None
                elif len(nc) == 2 and nc not in ((6, 7), (6, 8), (7, 8), (7, 7)):
                    nc = None
            ev += p * self._after(hard + val, held or val == 1, n + 1, nc, doubled, split, orig, up)
        return ev

    @staticmethod
    def combo_of(values: Sequence[int]) -> tuple[int, ...] | None:
        """The cards so far as a start of 6-7-8 or 7-7-7 (Spanish bonuses), else None."""
        c = tuple(sorted(values))
        starts = {(6,), (7,), (8,), (6, 7), (6, 8), (7, 8), (7, 7), (6, 7, 8), (7, 7, 7)}
        return c if c in starts else None

    @cache  # noqa: B019 - one solver per variant, kept for the process
    def _split_hand(self, val: int, up: int, orig: int) -> float:
        """One hand of a split pair of value ``val`` (no resplit): split aces take one card
        when the variant says so (BJ s25(4)(b)); the first hand formed carries the original
        wager against a dealer blackjack, the second is void then (BJ s6(3))."""
        v = self.v
        ev = 0.0
        for c, p in self.p.items():
            hard, ace = val + c, val == 1 or c == 1
            t, _ = self._total(hard, ace)
            if val == 1 and c == 10 and v.blackjack_after_split:
                ev += p * self.natural(up, orig)
            elif t == 21 and v.twenty_one_at_once:
                ev += p * (
                    self._spanish_21(2, None, True) if v.twenty_one_at_once == "spanish" else 1.0
                )
            elif val == 1 and v.split_aces_one_card:
                ev += p * self._live(t, 1, orig, up)
            else:
                combo = self.combo_of([val, c]) if v.twenty_one_at_once == "spanish" else None
                ev += p * max(self.options(hard, ace, 2, combo, True, orig, up).values())
        return ev

    def natural(self, up: int, orig: int = 1) -> float:
        """A blackjack's EV (BJ s8(2), s6(2)(e); SP s6(2)(c), s22; SW s8(1); CH s27(1))."""
        v = self.v
        w, per = v.blackjack_odds
        odds = w / per
        p_bj, _ = self.dealer(up)
        if not p_bj:
            return odds
        if v.blackjack_v_blackjack == "push":
            against = 0.0
        elif v.blackjack_v_blackjack == "paid":
            against = odds
        else:  # CH s27(1): by the ten-value cards' rank
            table = rules.CHALLENGE_BJ_V_BJ
            against = 0.0
            for mine, pm in self.ten_ranks.items():
                for theirs, pt in self.ten_ranks.items():
                    key = "higher" if mine > theirs else "same" if mine == theirs else "lower"
                    a, b = table[key]
                    against += pm * pt * a / b
        return p_bj * against + (1 - p_bj) * odds

    def start(self, c1: int, c2: int, up: int) -> dict[str, float]:
        """Every first play of a two-card hand of values ``c1``, ``c2`` against ``up``:
        ``{"blackjack": ev}`` for a natural."""
        if {c1, c2} == {1, 10}:
            return {"blackjack": self.natural(up)}
        hard, ace = c1 + c2, 1 in (c1, c2)
        combo = self.combo_of([c1, c2]) if self.v.twenty_one_at_once == "spanish" else None
        out = dict(self.options(hard, ace, 2, combo, False, 1, up, first=True))
        if c1 == c2:
            out["split"] = self._split_hand(c1, up, 1) + self._split_hand(c1, up, 0)
        return out

    def house_edge(self) -> float:
        """Minus the EV of a round per unit of the main wager, best play everywhere
        (switch: the better of switching or not, on both areas)."""
        ev = 0.0
        for up, pu in self.p.items():
            if self.v.switch:
                for a1, p1 in self.p.items():
                    for a2, p2 in self.p.items():
                        for b1, q1 in self.p.items():
                            for b2, q2 in self.p.items():
                                keep = self._first(a1, a2, up, True) + self._first(b1, b2, up, True)
                                swap = self._first(a1, b2, up, False) + self._first(
                                    b1, a2, up, False
                                )
                                ev += pu * p1 * p2 * q1 * q2 * max(keep, swap) / 2
                continue
            for c1, p1 in self.p.items():
                for c2, p2 in self.p.items():
                    ev += pu * p1 * p2 * max(self.start(c1, c2, up).values())
        return -ev

    @cache  # noqa: B019
    def _first(self, c1: int, c2: int, up: int, dealt: bool) -> float:
        """Best EV of a switch area's two cards; after a switch A + ten is a 21, not a
        blackjack (SW s22(5))."""
        if not dealt and {c1, c2} == {1, 10}:
            return self._live(21, 1, 1, up)
        return max(self.start(c1, c2, up).values())

    def table(self) -> dict[str, Any]:
        """The best first play of every two-card hand by up card (H hit, S stand, D double,
        P split, R surrender; Bj a natural)."""
        code = {
            "hit": "H",
            "stand": "S",
            "double": "D",
            "split": "P",
            "surrender": "R",
            "blackjack": "Bj",
        }
        ups = [2, 3, 4, 5, 6, 7, 8, 9, 10, 1]
        names = {1: "A", 10: "10"}

        def row(c1: int, c2: int) -> dict[str, str]:
            out = {}
            for up in ups:
                opts = self.start(c1, c2, up)
                out[names.get(up, str(up))] = code[max(opts, key=lambda k: opts[k])]
            return out

        hard: dict[str, dict[str, str]] = {}
        for total in range(5, 21):
            pair = next(
                (
                    (a, total - a)
                    for a in range(2, 11)
                    if 2 <= total - a <= 10
                    and a != total - a
                    and self.combo_of([a, total - a]) is None
                    and (a in self.p and total - a in self.p)
                ),
                None,
            )
            if pair is not None:
                hard[f"hard {total}"] = row(*pair)
        soft = {f"soft {11 + k} (A-{k})": row(1, k) for k in range(2, 10) if k in self.p}
        pairs = {
            f"{names.get(k, str(k))}-{names.get(k, str(k))}": row(k, k)
            for k in (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
            if k in self.p
        }
        return {
            "columns": "dealer's up card",
            "legend": {"H": "hit", "S": "stand", "D": "double", "P": "split", "R": "surrender"},
            "rows": {**hard, **soft, **pairs},
        }


def solver(game: str) -> Solver:
    return Solver(rules.VARIANTS[game])


class Blackjack(Runner):
    """A blackjack-family table: the main wager on every box (7; switch 5), one shoe kept
    across rounds (cut card one deck from the back, the default), every decision by
    :class:`Solver` among the plays the engine offers; insurance and even money declined."""

    def __init__(
        self, game: str, options: Mapping[str, Any], sides: tuple[str, ...] | None = None
    ) -> None:
        self.game = game
        self.options = dict(options)
        self.boxes = self.options["num_boxes"]
        #: the side wagers every box places (default: every one the layout offers)
        self.sides = tuple(options["side_wagers"]) if sides is None else sides
        self.solver = Solver(rules.VARIANTS[game])
        self.strategy = (
            "basic strategy of this variant's rules (the infinite-deck solver's "
            "best play for the hand's total, softness, cards and bonus "
            "combination); no insurance, no resplit"
        )

    def prepare(self) -> None:
        self.solver.house_edge()

    def _wagers(self, stake: int) -> dict[str, int]:
        out = {"main": stake}
        for w in self.sides:
            if w == "bonus_blackjack":
                if self.options["decks"] in (6, 8):
                    out[w] = rules.BONUS_BLACKJACK_STAKE
            else:
                out[w] = stake
        return out

    def _choose(self, rnd: Any, verbs: set[str]) -> tuple[str, int | None]:
        hand = rnd.acting
        s = self.solver
        up = rules.value(rnd.dealer[0])
        values = [rules.value(c) for c in hand.cards]
        hard = sum(values)
        fixed = hand.fixed_aces
        ace = any(rules.value(c) == 1 for c in hand.cards[fixed:])
        n = len(values)
        orig = 1 if hand.formed == 0 else 0
        if "switch" in verbs:
            bp = rnd.box_play[hand.box]
            h1, h2 = bp.hands
            a = [rules.value(c) for c in h1.cards]
            b = [rules.value(c) for c in h2.cards]
            keep = s._first(a[0], a[1], up, True) + s._first(b[0], b[1], up, True)
            swap = s._first(a[0], b[1], up, False) + s._first(b[0], a[1], up, False)
            if swap > keep:
                return "switch", None
        combo = s.combo_of(values) if s.v.twenty_one_at_once == "spanish" else None
        if n == 2 and not hand.split:
            opts = s.start(values[0], values[1], up)
        else:
            opts = s.options(hard, ace, n, combo, hand.split, orig, up, first=not hand.acted)
        best = max((k for k in opts if k in verbs), key=lambda k: opts[k])
        if best == "double":
            return "double", hand.stakes[None].main
        return best, None

    def control_means(self) -> list[float]:
        return [0.0, 0.0, 0.0]

    controls_doc = (
        "martingale differences along the shoe (the initial deal, the players' draws, "
        "the dealer's cards): the solver's value after each card less its mean over the "
        "cards the shoe still holds (mean zero)"
    )

    def _decide(self, rnd: Any, call: Any, marks: Any) -> None:
        """One call into the engine; with ``marks`` (the controls' state), the cards it dealt
        to the players' hands are valued card by card."""
        if marks is None:
            call()
            return
        hands = [h for bp in rnd.box_play.values() for h in bp.hands]
        old = {id(h): len(h.cards) for h in hands}
        acting = rnd.acting
        split = call.verb == "split" if hasattr(call, "verb") else False
        call()
        if split:
            old[id(acting)] = 1
        order = [h for bp in rnd.box_play.values() for h in bp.hands]
        if acting is not None and acting in order:
            order.remove(acting)
            order.insert(0, acting)
        ctl, log, left, up, state = marks
        for h in order:
            before = old.get(id(h), 1)
            for k in range(before, len(h.cards)):
                c, stack, pos = log[state[0]]
                left.before(stack, pos)
                state[1] += ctl.draw(h, k, c, up, left)
                left.take(rules.value(c))
                state[0] += 1

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        from server.par.blackjack_controls import Left, ShoeControls, logged_shoe

        cls: Any = round_class(self.game)
        stake = unit_stake(self.options)
        boxes = {b: self._wagers(stake) for b in range(1, self.boxes + 1)}
        shoe = cls.new_shoe(self.options, rng)
        s = self.solver
        controlled = tally.controls is not None
        ctl = ShoeControls(s) if controlled else None
        if controlled:
            shoe = logged_shoe(shoe)
        for _ in range(rounds):
            rnd = cls(self.options, boxes, rng, shoe=shoe)
            marks: Any = None
            if controlled:
                assert ctl is not None
                shoe.log = []
                rnd.start()
                log = shoe.log
                hands = [h for bp in rnd.box_play.values() for h in bp.hands]
                first = 2 * len(hands) + 1
                left = Left()
                values = [rules.value(c) for c, _, _ in log[:first]]
                c_init = ctl.initial(values, [h.stakes[None].main for h in hands], left, log)
                marks = (ctl, log, left, rules.value(rnd.dealer[0]), [first, 0.0])
            else:
                rnd.start()
            while not rnd.complete:
                if rnd.offers:
                    rescue = next((o for o in rnd.offers if o.kind == "rescue"), None)
                    if rescue is not None and rescue.hand is not None:
                        h = rescue.hand
                        t, _ = rules.total(h.cards, h.fixed_aces)
                        live = s._live(t, 2, 1 if h.formed == 0 else 0, rules.value(rnd.dealer[0]))
                        if -1.0 > live:
                            self._decide(rnd, _Call(rnd.decide, rescue.box, "rescue"), marks)
                            continue
                    if rnd.acting is None:
                        self._decide(rnd, _Call(rnd.close_offers), marks)
                        continue
                hand = rnd.acting
                if hand is None:
                    self._decide(rnd, _Call(rnd.close_offers), marks)
                    continue
                verbs = {c.verb for c in rnd._choices_for(hand)}
                verb, amount = self._choose(rnd, verbs)
                self._decide(rnd, _Call(rnd.decide, hand.box, verb, amount), marks)
            entries: list[Entry] = []
            for box, bp in rnd.box_play.items():
                figures = bp.figures.get(None, {})
                main = boxes[box]["main"] * s.v.areas
                whole = 0
                for w, net in figures.items():
                    if w in ("main", "super_bonus"):
                        whole += net
                    if w == "main":
                        entries.append(("main", main, net))
                    elif w in boxes[box]:
                        entries.append((w, boxes[box][w], net))
                entries.append(("round", main, whole))
            controls = None
            if marks is not None:
                assert ctl is not None
                _, log, left, _, state = marks
                assert len(log) - state[0] == len(rnd.dealer) - 1, "a card not accounted for"
                c_deal = ctl.dealer(rnd, state[0], log, left)
                controls = [(0, c_init), (1, state[1]), (2, c_deal)]
            tally.add_round(entries, controls)


class _Call:
    """An engine call, with its verb (the controls treat a split's cards apart)."""

    def __init__(self, fn: Any, *args: Any) -> None:
        self.fn, self.args = fn, args
        self.verb = args[1] if len(args) > 1 else None

    def __call__(self) -> None:
        self.fn(*self.args)


def insurance(game: str, options: Mapping[str, Any]) -> WagerSheet | None:
    """The insurance wager when taken (BJ s23, SP s24, SW s23: half the main wager against a
    dealer ace, paid 2 to 1 on a dealer blackjack), exact: the box's cards grouped by how
    many are ten-valued (all the wager depends on), the dealer's second card ten-valued or
    not, each group played once through the engine with its hypergeometric probability."""
    from fractions import Fraction
    from math import comb

    from server.cards import FIRST, card
    from server.games.banked.base import Forced
    from server.par.model import from_distribution, merge

    v = rules.VARIANTS[game]
    if not v.insurance:
        return None
    cls: Any = round_class(game)
    decks = options["decks"]
    deck = list(v.deck) * decks
    ace = card("As")
    deck.remove(ace)
    n = len(deck)
    tens = sum(1 for c in deck if rules.is_ten(c))
    others = n - tens
    k = 2 * v.areas  # the box's cards
    stake = unit_stake(options)
    stake -= stake % 4
    ten, low = card("Kd"), card("2c")
    dist: dict[tuple[str, Fraction], Fraction] = {}
    for t in range(k + 1):
        p_hand = Fraction(comb(tens, t) * comb(others, k - t), comb(n, k))
        if not p_hand:
            continue
        left_tens, left = tens - t, n - k
        for second_ten in (True, False):
            p2 = Fraction(left_tens if second_ten else left - left_tens, left)
            box = [ten] * t + [low] * (k - t)
            if v.areas == 1:
                shoe = [box[0], ace, box[1]]
            else:
                shoe = [box[0], box[1], ace, box[2], box[3]]
            shoe.append(ten if second_ten else low)
            rnd = cls(options, {1: {"main": stake}}, FIRST, forced=Forced(shoe=shoe))
            rnd.start()
            offer = next(o for o in rnd.offers if o.kind == "insurance")
            rnd.decide(offer.box, "insurance", stake // 2)
            while not rnd.complete:
                if rnd.acting is None:
                    rnd.close_offers()
                else:
                    rnd.decide(rnd.acting.box, "stand")
            net = rnd.nets[1]["insurance"]
            words = "dealer blackjack: 2 to 1" if net > 0 else "no dealer blackjack"
            merge(dist, words, Fraction(net, stake // 2), p_hand * p2)
    line = from_distribution(dist)
    line.note = (
        "when taken (basic strategy never takes it): half the main wager against a "
        f"dealer ace, {decks} decks less the ace and the box's cards"
    )
    return line


def _play_out(rnd: Any, choose: Any = None) -> None:
    """Finish a forced round: every hand stands (or plays ``choose``), offers declined."""
    while not rnd.complete:
        if rnd.acting is None:
            rnd.close_offers()
            continue
        if choose is None:
            rnd.decide(rnd.acting.box, "stand")
        else:
            verbs = {c.verb for c in rnd._choices_for(rnd.acting)}
            verb, amount = choose(rnd, verbs)
            rnd.decide(rnd.acting.box, verb, amount)


def first_cards(game: str, options: Mapping[str, Any], wager: str) -> WagerSheet:
    """A side wager settled on the box's first cards, exact (perfect pairs BJ s43-s48 /
    SP s33-s38 and any pair CH s32-s36 on the first two; super match SW s8(3) on the first
    four, by rank): every ordered pair of cards, or every multiset of four ranks, played
    once through the engine with its exact probability from the shoe."""
    from collections import Counter
    from fractions import Fraction
    from itertools import combinations_with_replacement
    from math import factorial

    from server.cards import FIRST, card
    from server.games.banked.base import Forced
    from server.par.model import from_distribution, merge

    v = rules.VARIANTS[game]
    cls: Any = round_class(game)
    decks = options["decks"]
    kinds = sorted(set(v.deck))
    n = len(v.deck) * decks
    stake = unit_stake(options)
    up = card("2d")
    dist: dict[tuple[str, Fraction], Fraction] = {}

    def play(box: list[int]) -> tuple[int, str]:
        shoe = [box[0], up, box[1]] if v.areas == 1 else [box[0], box[1], up, box[2], box[3]]
        rnd = cls(options, {1: {"main": stake, wager: stake}}, FIRST, forced=Forced(shoe=shoe))
        rnd.start()
        _play_out(rnd)
        words = next((e.detail for e in rnd.events if getattr(e, "wager", "") == wager), "")
        return rnd.nets[1][wager], words.split(": ", 1)[-1]

    if v.areas == 1:
        for a in kinds:
            for b in kinds:
                p = Fraction(decks * (decks - (b == a)), n * (n - 1))
                if p:
                    net, words = play([a, b])
                    merge(dist, words, Fraction(net, stake), p)
    else:
        ranks = sorted({c >> 2 for c in v.deck})
        per_rank = 4 * decks
        for combo in combinations_with_replacement(ranks, 4):
            counts = Counter(combo)
            ways = factorial(4)
            for k in counts.values():
                ways //= factorial(k)
            weight = ways
            for k in counts.values():
                for i in range(k):
                    weight *= per_rank - i
            if not weight:
                continue
            suit = {r: 0 for r in counts}
            box = []
            for r in combo:
                box.append(r * 4 + suit[r])
                suit[r] += 1
            net, words = play(box)
            merge(
                dist, words, Fraction(net, stake), Fraction(weight, n * (n - 1) * (n - 2) * (n - 3))
            )
    line = from_distribution(dist)
    line.note = f"exact: the box's first cards from {decks} decks"
    return line


def super_sevens(options: Mapping[str, Any], choose: Any) -> WagerSheet:
    """Super sevens (BJ s32-s37), exact: sevens among the first three cards dealt to the
    player (after a split, the first split hand's second card, digest A6). The third card
    counts only when the player takes one on 7-7 (basic strategy hits or splits 7-7 against
    every up card; the engine is played with ``choose`` to find out): the first cards are
    enumerated by seven-of-each-suit or not, the up card by rank (a seven by suit), each
    class through the engine with its exact probability."""
    from fractions import Fraction

    from server.cards import FIRST
    from server.games.banked.base import Forced
    from server.par.model import from_distribution, merge

    cls: Any = round_class("blackjack")
    decks = options["decks"]
    stake = unit_stake(options)
    sevens = [5 * 4 + s for s in range(4)]  # 7s, 7h, 7d, 7c
    other = 12 * 4  # a stand-in for a non-seven first card (an ace: no seven)
    n = 52 * decks
    counts = dict.fromkeys(range(52), decks)

    def p_take(c: int | None, taken: list[int], left: int) -> Fraction:
        """P(next card is ``c``, or any non-seven when None) from what is left."""
        if c is not None:
            return Fraction(counts[c] - taken.count(c), left)
        non = (n - 4 * decks) - sum(1 for t in taken if t >> 2 != 5)
        return Fraction(non, left)

    dist: dict[tuple[str, Fraction], Fraction] = {}

    def run(shoe: list[int], p: Fraction) -> None:
        rnd = cls(
            options, {1: {"main": stake, "super_sevens": stake}}, FIRST, forced=Forced(shoe=shoe)
        )
        rnd.start()
        _play_out(rnd, choose)
        net = rnd.nets[1]["super_sevens"]
        words = next(
            (e.detail for e in rnd.events if getattr(e, "wager", "") == "super_sevens"), ""
        )
        merge(dist, words.split(": ", 1)[-1], Fraction(net, stake), p)

    # no seven first: whatever follows
    run([other, 0, other], Fraction(n - 4 * decks, n))
    for c1 in sevens:
        p1 = Fraction(decks, n)
        for up_rank in range(13):
            up_cards = sevens if up_rank == 5 else [up_rank * 4 + 1]
            for up in up_cards:
                pu = (
                    Fraction(decks - (up == c1), n - 1)
                    if up_rank == 5
                    else Fraction(4 * decks, n - 1)
                )
                taken = [c1, up]
                # a non-seven second card: one seven
                p2 = p_take(None, taken, n - 2)
                run([c1, up, other], p1 * pu * p2)
                for c2 in sevens:
                    p2 = p_take(c2, taken, n - 2)
                    for c3 in [None, *sevens]:
                        p3 = p_take(c3, [*taken, c2], n - 3)
                        third = other if c3 is None else c3
                        run([c1, up, c2, third], p1 * pu * p2 * p3)
    line = from_distribution(dist)
    line.note = (
        f"exact: {decks} decks; the third card as basic strategy takes it (7-7 is "
        "hit or split against every up card)"
    )
    return line
