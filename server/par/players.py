"""The simulated games' players: each a :class:`~server.par.sim.Runner` that plays full
rounds through the engine under a stated strategy and books every settled wager.

A round seats ``boxes`` boxes (a full table: boxes share the dealer, which the interval
accounts for); each box holds the game's wagers at the unit stake. The strategies read only
what the player may see (their cards, the dealer's up card, the exposed board).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.games.banked.base import BankedRound
from server.par.controls import HighCardOdds
from server.par.engine import FastRandom, round_class, unit_stake
from server.par.model import Entry, Tally
from server.par.sim import Runner


def book(
    rnd: BankedRound,
    tally: Tally,
    round_of: Sequence[str] = (),
    basis: str = "",
    controls: list[tuple[int, float]] | None = None,
) -> None:
    """Every box's settled wagers into ``tally``; with ``round_of``, also the box's total
    over those wagers per unit of its ``basis`` wager, as ``round``; and the round's
    controls, for a runner that has them."""
    entries: list[Entry] = []
    add = entries.append
    for box, nets in rnd.nets.items():
        stakes = rnd.stakes[box]
        whole = 0
        for w, net in nets.items():
            stake = stakes.get(w)
            if stake:
                add((w, stake, net))
                if w in round_of:
                    whole += net
        if round_of:
            add(("round", stakes[basis], whole))
    tally.add_round(entries, controls)


class SharedOutcome(Runner):
    """Roulette, sic-bo, wheel of fortune: every wager on a box of its own, the outcome
    from the engine's random source (one ``randbelow`` per spin or die)."""

    strategy = None

    def __init__(self, game: str, options: Mapping[str, Any], wagers: Sequence[str]) -> None:
        self.game = game
        self.options = {**options, "num_boxes": len(wagers)}
        self.wagers = list(wagers)
        self.boxes = len(wagers)

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        boxes = {i + 1: {w: stake} for i, w in enumerate(self.wagers)}
        for _ in range(rounds):
            rnd = cls(self.options, boxes, rng)
            rnd.start()
            book(rnd, tally)


class Baccarat(Runner):
    """Baccarat: one box holding every wager the layout offers, a fresh shoe each round."""

    game = "baccarat"
    strategy = None

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options = dict(options)
        self.wagers = ["player", "banker", "tie", *options["side_wagers"]]

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        boxes = {1: dict.fromkeys(self.wagers, stake)}
        for _ in range(rounds):
            rnd = cls(self.options, boxes, rng)
            rnd.start()
            book(rnd, tally)


class CasinoWar(Runner):
    """Casino war: every box holds war and tie wagers and goes to war on a tie."""

    game = "casino-war"
    strategy = "go to war on every tie (s17(5)(b))"

    def __init__(self, options: Mapping[str, Any], boxes: int = 7) -> None:
        self.options = dict(options)
        self.boxes = boxes

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        boxes = {b: {"war": stake, "tie": stake} for b in range(1, self.boxes + 1)}
        for _ in range(rounds):
            rnd = cls(self.options, boxes, rng)
            rnd.start()
            for d in rnd.pending():
                rnd.decide(d.box, "war")
            book(rnd, tally, ("war", "go_to_war"), "war")


class ThreeCardPoker(Runner):
    """Three card poker: ante and pair plus on every box; play at or above ``threshold``
    (a hand value), fold below."""

    game = "three-card-poker"

    def __init__(self, options: Mapping[str, Any], threshold: int, boxes: int = 7) -> None:
        self.options = dict(options)
        self.threshold = threshold
        self.boxes = boxes
        self.strategy = "play at or above the exact sheet's lowest played hand"

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        boxes = {b: {"ante": stake, "pair_plus": stake} for b in range(1, self.boxes + 1)}
        for _ in range(rounds):
            rnd: Any = cls(self.options, boxes, rng)
            rnd.start()
            for d in rnd.pending():
                rnd.decide(d.box, "bet" if rnd.values[d.box] >= self.threshold else "fold")
            book(rnd, tally, ("ante", "bet"), "ante")


# --------------------------------------------------------------------------- five-card stud


def stud_raise(hand: Sequence[int], up: int) -> bool:
    """The stated strategy of Caribbean stud and Canberra Poker (five cards against the
    dealer's five, one dealer card face up; the dealer qualifies with A-K or better): raise
    with a pair or better; fold below ace-king; with ace-king-queen-jack raise; with
    ace-king raise when (1) the up card is 2 to Q and pairs one of the player's cards, or
    (2) the up card is an A or K and the player holds a Q or J, or (3) the up card pairs
    none of the player's cards, the player holds a Q, and the up card is below the player's
    fourth-highest card (the Wizard of Odds "simple strategy")."""
    from server.hands import ONE_PAIR, category, evaluate5

    if category(evaluate5(hand)) >= ONE_PAIR:  # a pair or better (straights, flushes too)
        return True
    ranks = sorted((c >> 2 for c in hand), reverse=True)
    if ranks[0] != 12 or ranks[1] != 11:
        return False
    if ranks[2] == 10 and ranks[3] == 9:
        return True
    u = up >> 2
    if u <= 10 and u in ranks:
        return True
    if u in (11, 12) and (10 in ranks or 9 in ranks):
        return True
    return u not in ranks and 10 in ranks and u < ranks[3]


class FiveCardStud(Runner):
    """Caribbean stud (QLD Sch 3) and Canberra Poker (ACT 2004, 2017): ante and the jackpot
    wager on every box, raise by :func:`stud_raise`.

    Controls (:mod:`server.par.controls`): per box, the class of its five cards
    (:func:`~server.par.controls.value_class`, exact probabilities over the 2,598,960
    hands); the class of the dealer's five cards (the same distribution: the dealer's cards
    are five more from the same shuffled deck); and who beat whom, antisymmetric in the box
    and the dealer (zero mean, as the deal gives the box's five cards and the dealer's the
    same joint law in either order): per category, ``sign(box - dealer)`` when both hold at
    least ace-king high and either holds that category."""

    strategy = (
        "raise with a pair or better; with A-K: A-K-Q-J, or the up card (2-Q) pairs "
        "a player card, or the up card is A/K and the player holds a Q or J, or the "
        "up card pairs none, the player holds a Q and the up card is below the "
        "player's fourth card; fold the rest (Wizard of Odds simple strategy)"
    )
    controls_doc = (
        "each box's hand class and the dealer's (exact probabilities); who beat whom by "
        "category (antisymmetric in the box and the dealer: mean zero); the dealer short of "
        "A-K less its exact odds given the box's cards; and, at a fixed coefficient, each "
        "straight or royal flush box at its expectation"
    )

    def __init__(
        self, game: str, options: Mapping[str, Any], boxes: int = 7, jackpot: bool = True
    ) -> None:
        self.game = game
        self.options = dict(options)
        self.boxes = boxes
        self.jackpot = jackpot and options.get("jackpot_wager") is not None
        self._means: list[float] = []
        self._player: dict[int, int] = {}
        self._dealer: dict[int, int] = {}
        self._versus: list[int] = []
        self._nq: list[int] = []
        self._odds: HighCardOdds | None = None
        self._fixed_at: dict[int, tuple[int, int]] = {}
        self._fixed: dict[str, dict[int, float]] = {}

    def prepare(self) -> None:
        from server.par.controls import Index, five_card_classes

        dist = five_card_classes()
        common = max(dist, key=lambda k: dist[k])  # left out: the indicators sum to one
        index = Index()
        self._player = {
            k: index.add(f"box class {k}", self.boxes * p) for k, p in dist.items() if k != common
        }
        self._dealer = {
            k: index.add(f"dealer class {k}", p) for k, p in dist.items() if k != common
        }
        self._versus = [index.add(f"beats, category {c}", 0) for c in range(10)]
        self._nq = [index.add(f"dealer short of A-K, box category {c}", 0) for c in range(10)]
        self._odds = HighCardOdds()
        self._add_fixed(index)
        self._means = index.means

    def _add_fixed(self, index: Any) -> None:
        """The straight flushes' controls of fixed coefficient (royal flush 250 to 1, a few
        a run: no fold's regression could fit them; :func:`server.par.controls.shifted`):
        per class, the count of boxes holding it and the sum of their chances that the
        dealer qualifies (exact, :class:`HighCardOdds`), with the coefficients the engine's
        own settlement of one such box against a dealer who qualifies and loses and one
        who does not qualify."""
        from math import comb

        from server.games.banked.base import Forced
        from server.hands import STRAIGHT_FLUSH, category, evaluate5
        from server.par.controls import _straight_masks, value_class

        odds = self._odds
        assert odds is not None
        hands: dict[int, list[list[int]]] = {}
        for suit in range(4):
            for mask in sorted(_straight_masks()):
                hand = [r * 4 + suit for r in range(13) if mask >> r & 1]
                if category(evaluate5(hand)) >= STRAIGHT_FLUSH:
                    hands.setdefault(value_class(evaluate5(hand)), []).append(hand)
        total = comb(52, 5)
        stake = unit_stake(self.options)
        cls: Any = round_class(self.game)
        self._fixed_at = {}
        fixed: dict[str, dict[int, float]] = {"ante": {}, "bet": {}, "round": {}}
        for k, group in sorted(hands.items()):
            a = index.add(f"straight flush class {k}: boxes", self.boxes * len(group) / total)
            q = sum(1 - odds.probability(h) for h in group)
            b = index.add(f"straight flush class {k}: dealer qualifies", self.boxes * q / total)
            self._fixed_at[k] = (a, b)
            box = group[0]
            suit = box[0] & 3
            other = [(suit + 1) % 4, (suit + 2) % 4, (suit + 3) % 4]
            nets = {}
            for name, ranks in (("qualifies", (12, 11, 3, 2, 0)), ("short", (10, 9, 7, 5, 1))):
                dealer = [r * 4 + other[i % 3] for i, r in enumerate(ranks)]
                rnd: Any = cls(
                    self.options,
                    {1: {"ante": stake}},
                    FastRandom(0),
                    forced=Forced(boxes={1: box}, dealer=dealer),
                )
                rnd.start()
                for d in rnd.pending():
                    rnd.decide(d.box, "bet")
                nets[name] = rnd.nets[1]
            for w in ("ante", "bet"):
                short = nets["short"].get(w, 0)
                fixed[w][a] = short
                fixed[w][b] = nets["qualifies"].get(w, 0) - short
            fixed["round"][a] = fixed["ante"][a] + fixed["bet"][a]
            fixed["round"][b] = fixed["ante"][b] + fixed["bet"][b]
        self._fixed = fixed

    def control_means(self) -> list[float]:
        return self._means

    def control_fixed(self) -> dict[str, dict[int, float]]:
        return self._fixed

    def _upcard(self, rnd: Any) -> int:
        if self.game == "caribbean-stud":
            dealer = rnd.cards[("dealer", None)]
            return int(dealer[min(self.options["upcard_index"], 5) - 1])
        return int(rnd.dealer[rnd._upcard_index()])

    def _hand(self, rnd: Any, box: int) -> list[int]:
        if self.game == "caribbean-stud":
            return list(rnd.cards[("box", box)])
        return list(rnd.hands[box])

    def _controls(self, rnd: Any) -> list[tuple[int, float]]:
        from server.hands import evaluate5
        from server.par.controls import value_class

        dealer = rnd.cards[("dealer", None)] if self.game == "caribbean-stud" else rnd.dealer
        dv = evaluate5(dealer)
        dk = value_class(dv)
        dq = dk >= 13
        out: list[tuple[int, float]] = []
        i = self._dealer.get(dk)
        if i is not None:
            out.append((i, 1.0))
        versus, nq, odds = self._versus, self._nq, self._odds
        assert odds is not None
        for b in rnd.boxes:
            hand = self._hand(rnd, b)
            v = evaluate5(hand)
            k = value_class(v)
            i = self._player.get(k)
            if i is not None:
                out.append((i, 1.0))
            if dq and k >= 13 and v != dv:
                sign = 1.0 if v > dv else -1.0
                out.append((versus[(v >> 20) & 0xF], sign))
                out.append((versus[(dv >> 20) & 0xF], sign))
            # given the box's five, the dealer's are any five of the other 47: exact odds
            short = odds.probability(hand)
            out.append((nq[(v >> 20) & 0xF], (not dq) - short))
            fixed = self._fixed_at.get(k)
            if fixed is not None:
                out.append((fixed[0], 1.0))
                out.append((fixed[1], 1.0 - short))
        return out

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        wagers: dict[str, int] = {"ante": stake}
        if self.jackpot:
            wagers["jackpot"] = self.options["jackpot_wager"]
        boxes = {b: dict(wagers) for b in range(1, self.boxes + 1)}
        controlled = bool(self._means) and tally.controls is not None
        for _ in range(rounds):
            rnd: Any = cls(self.options, boxes, rng)
            rnd.start()
            up = self._upcard(rnd)
            for d in rnd.pending():
                rnd.decide(d.box, "bet" if stud_raise(self._hand(rnd, d.box), up) else "fold")
            book(rnd, tally, ("ante", "bet"), "ante", self._controls(rnd) if controlled else None)


# --------------------------------------------------------------------------- pai gow


class PaiGow(Runner):
    """Pai gow tiles (QLD Sch 6): seven players on boxes 2-8 against the bank on box 1 (the
    house, s18(13); or, where the options allow it, a player/banker or a co-banker covering
    the wagers, s18(4), s14(1)-(2)); every hand set the house way (s29).

    Controls (:mod:`server.par.controls`): the value of each player's high and low hand and
    of the bank's (exact probabilities over the 35,960 ways to hold four of the 32 tiles,
    each set the house way), and who beat whom, antisymmetric in a player and the bank (the
    eight stacks of a deal are alike, so each player's four tiles and the bank's have the
    same joint law in either order): high against high, low against low, and both."""

    game = "pai-gow"
    controls_doc = (
        "each player's and the bank's high and low hand values (exact probabilities), and "
        "who beat whom, high, low and both (antisymmetric in a player and the bank: mean "
        "zero)"
    )

    def __init__(self, options: Mapping[str, Any], bank: str | None = None) -> None:
        self.options = dict(options)
        self.bank = bank
        self.boxes = 7
        banker = {
            None: "the house banks",
            "bank": "a player banks (box 1, covering every wager)",
            "co_bank": "a player co-banks with the house (box 1, covering half)",
        }[bank]
        self.strategy = f"every hand set the house way (s29(1)); {banker}"
        self._means: list[float] = []
        self._index: dict[tuple[str, Any], int] = {}

    def prepare(self) -> None:
        from fractions import Fraction
        from itertools import combinations
        from math import comb

        from server.games.banked.pai_gow import TILE_SET, house_way, value
        from server.par.controls import Index

        wild = self.options["gee_joon_wild"]
        kinds = sorted(set(TILE_SET))
        copies = {k: TILE_SET.count(k) for k in kinds}
        counts: dict[tuple[str, Any], int] = {}
        for hand in combinations([k for k in kinds for _ in range(copies[k])], 4):
            setting = house_way(list(hand), wild)
            for key in (("high", value(setting.high, wild)), ("low", value(setting.low, wild))):
                counts[key] = counts.get(key, 0) + 1
        total = comb(len(TILE_SET), 4)
        index = Index()
        for side in ("high", "low"):
            mine = {k: n for k, n in counts.items() if k[0] == side}
            common = max(mine, key=lambda k: mine[k])
            for k, n in sorted(mine.items()):
                if k != common:
                    p = Fraction(n, total)
                    self._index[("player", k)] = index.add(f"player {k}", self.boxes * p)
                    self._index[("bank", k)] = index.add(f"bank {k}", p)
        for name in ("high", "low", "both"):
            self._index[("versus", name)] = index.add(f"beats the bank, {name}", 0)
        self._means = index.means

    def control_means(self) -> list[float]:
        return self._means

    def _controls(self, rnd: Any) -> list[tuple[int, float]]:
        from server.games.banked.pai_gow import key, value

        wild = self.options["gee_joon_wild"]
        at = self._index
        out: list[tuple[int, float]] = []
        bank = rnd.bank_setting
        bh, bl = key(bank.high, wild), key(bank.low, wild)
        for side, hand in (("high", bank.high), ("low", bank.low)):
            i = at.get(("bank", (side, value(hand, wild))))
            if i is not None:
                out.append((i, 1.0))
        for b in self.players_of(rnd):
            s = rnd.settings[b]
            ph, pl = key(s.high, wild), key(s.low, wild)
            for side, hand in (("high", s.high), ("low", s.low)):
                i = at.get(("player", (side, value(hand, wild))))
                if i is not None:
                    out.append((i, 1.0))
            h = (ph > bh) - (ph < bh)
            lo = (pl > bl) - (pl < bl)
            out.append((at[("versus", "high")], float(h)))
            out.append((at[("versus", "low")], float(lo)))
            out.append((at[("versus", "both")], float((h > 0 and lo > 0) - (h < 0 and lo < 0))))
        return out

    @staticmethod
    def players_of(rnd: Any) -> list[int]:
        return list(rnd.players)

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        boxes: dict[int, dict[str, int]] = {b: {"bet": stake} for b in range(2, 9)}
        if self.bank is not None:
            liability = stake * len(boxes)
            boxes[1] = {self.bank: liability if self.bank == "bank" else -(-liability // 2)}
        controlled = bool(self._means) and tally.controls is not None
        for _ in range(rounds):
            rnd: Any = cls(self.options, boxes, rng)
            rnd.start()
            while not rnd.complete:
                for d in rnd.pending():
                    rnd.decide(d.box, "house_way")
            book(rnd, tally, controls=self._controls(rnd) if controlled else None)


# --------------------------------------------------------------------------- lucky draw


class LuckyDraw(Runner):
    """Lucky draw baccarat: enter on every box, draw or stand by a strategy table."""

    game = "lucky-draw-baccarat"

    def __init__(
        self, options: Mapping[str, Any], strategy: Mapping[str, str], boxes: int = 7
    ) -> None:
        self.options = dict(options)
        self.table = dict(strategy)
        self.boxes = boxes
        self.strategy = "the exact sheet's strategy table"

    @staticmethod
    def key(hand: Sequence[int], up: int) -> str:
        from server.games.banked.baccarat import baccarat_value

        dv = baccarat_value(up)
        if all(c >> 2 == 1 for c in hand):
            suited = "suited" if hand[0] & 3 == hand[1] & 3 else "off suit"
            return f"3-3 {suited} v {dv}"
        return f"{sum(baccarat_value(c) for c in hand) % 10} v {dv}"

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        boxes = {b: {"enter": stake} for b in range(1, self.boxes + 1)}
        for _ in range(rounds):
            rnd: Any = cls(self.options, boxes, rng)
            rnd.start()
            up = rnd.dealer[0]
            for d in rnd.pending():
                rnd.decide(d.box, self.table[self.key(rnd.hands[d.box][:2], up)])
            book(rnd, tally, ("enter", "draw"), "enter")


# --------------------------------------------------------------------------- craps


class Craps(Runner):
    """Craps: each round places the ``wagers`` (one a box) before a come-out roll and rolls
    the engine's dice until every one has had its first decision."""

    game = "craps"
    strategy = None

    def __init__(self, options: Mapping[str, Any], wagers: Sequence[str], stake: int) -> None:
        self.options = dict(options)
        self.wagers = list(wagers)
        self.stake = stake
        self.boxes = len(wagers)

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        from server.games.banked.base import WagerSettled
        from server.games.banked.craps import Craps as Engine

        boxes = {i + 1: {w: self.stake} for i, w in enumerate(self.wagers)}
        for _ in range(rounds):
            rnd = Engine(self.options, boxes, rng)
            rnd.start()
            done: dict[int, int] = {}
            while len(done) < len(boxes):
                now: dict[int, int] = {}
                for e in rnd.roll():
                    if isinstance(e, WagerSettled) and e.box not in done:
                        now[e.box] = now.get(e.box, 0) + e.net
                done.update(now)
                del rnd.events[:]
            entries: list[Entry] = []
            for box, net in done.items():
                w = self.wagers[box - 1]
                fee = -rnd.nets[box].get("commission", 0)
                entries.append((w, self.stake, net - fee))
            tally.add_round(entries)
