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
from server.par.engine import FastRandom, round_class, unit_stake
from server.par.model import Entry, Tally
from server.par.sim import Runner


def book(rnd: BankedRound, tally: Tally, round_of: Sequence[str] = (), basis: str = "") -> None:
    """Every box's settled wagers into ``tally``; with ``round_of``, also the box's total
    over those wagers per unit of its ``basis`` wager, as ``round``."""
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
    tally.add_round(entries)


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
    wager on every box, raise by :func:`stud_raise`."""

    strategy = (
        "raise with a pair or better; with A-K: A-K-Q-J, or the up card (2-Q) pairs "
        "a player card, or the up card is A/K and the player holds a Q or J, or the "
        "up card pairs none, the player holds a Q and the up card is below the "
        "player's fourth card; fold the rest (Wizard of Odds simple strategy)"
    )

    def __init__(
        self, game: str, options: Mapping[str, Any], boxes: int = 7, jackpot: bool = True
    ) -> None:
        self.game = game
        self.options = dict(options)
        self.boxes = boxes
        self.jackpot = jackpot and options.get("jackpot_wager") is not None

    def _upcard(self, rnd: Any) -> int:
        if self.game == "caribbean-stud":
            dealer = rnd.cards[("dealer", None)]
            return int(dealer[min(self.options["upcard_index"], 5) - 1])
        return int(rnd.dealer[rnd._upcard_index()])

    def _hand(self, rnd: Any, box: int) -> list[int]:
        if self.game == "caribbean-stud":
            return list(rnd.cards[("box", box)])
        return list(rnd.hands[box])

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        wagers: dict[str, int] = {"ante": stake}
        if self.jackpot:
            wagers["jackpot"] = self.options["jackpot_wager"]
        boxes = {b: dict(wagers) for b in range(1, self.boxes + 1)}
        for _ in range(rounds):
            rnd: Any = cls(self.options, boxes, rng)
            rnd.start()
            up = self._upcard(rnd)
            for d in rnd.pending():
                rnd.decide(d.box, "bet" if stud_raise(self._hand(rnd, d.box), up) else "fold")
            book(rnd, tally, ("ante", "bet"), "ante")


# --------------------------------------------------------------------------- hold'em bonus


class HoldemBonus(Runner):
    """Texas hold'em bonus (QLD Sch 12): ante and bonus on every box."""

    game = "holdem-bonus"
    strategy = (
        "flop wager on every hand but 2-3 to 2-7 offsuit; turn and river wagers whenever "
        "the box holds a pair or better (but a pair the board makes alone), or four to a "
        "flush with a hole card"
    )

    def __init__(self, options: Mapping[str, Any], boxes: int = 7) -> None:
        self.options = dict(options)
        self.boxes = boxes

    @staticmethod
    def preflop(hole: Sequence[int]) -> bool:
        hi, lo = sorted((c >> 2 for c in hole), reverse=True)
        suited = hole[0] & 3 == hole[1] & 3
        return not (lo == 0 and 1 <= hi <= 5 and not suited)

    @staticmethod
    def later(hole: Sequence[int], board: Sequence[int]) -> bool:
        from server.hands import ONE_PAIR, category
        from server.hands.fast import best_of

        mine = best_of([*hole, *board])
        if category(mine) >= ONE_PAIR:
            ranks = [c >> 2 for c in board]
            if len(set(ranks)) == len(ranks) or category(mine) > ONE_PAIR:
                return True
            if any((c >> 2) in ranks for c in hole) or hole[0] >> 2 == hole[1] >> 2:
                return True
        suits = [c & 3 for c in (*hole, *board)]
        return any(suits.count(c & 3) >= 4 for c in hole)

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        boxes = {b: {"ante": stake, "bonus": stake} for b in range(1, self.boxes + 1)}
        for _ in range(rounds):
            rnd: Any = cls(self.options, boxes, rng)
            rnd.start()
            board = rnd.cards[("board", None)]
            while not rnd.complete:
                street = rnd.street
                shown = {"flop": 0, "turn": 3, "river": 4}[street]
                for d in rnd.pending():
                    hole = rnd.cards[("box", d.box)]
                    if street == "flop":
                        verb = "bet" if self.preflop(hole) else "fold"
                    else:
                        verb = "bet" if self.later(hole, board[:shown]) else "check"
                    rnd.decide(d.box, verb)
            book(rnd, tally, ("ante", "flop", "turn", "river"), "ante")


# --------------------------------------------------------------------------- four card poker


class FourCardPoker(Runner):
    """Four card poker (seed 003): ante and Aces Up on every box."""

    game = "four-card-poker"
    strategy = (
        "play 3x with a pair of tens or better, 1x with a pair of threes to nines, "
        "fold less (the game's published basic strategy)"
    )

    def __init__(self, options: Mapping[str, Any], boxes: int = 7) -> None:
        self.options = dict(options)
        self.boxes = boxes

    @staticmethod
    def multiple(hand: Sequence[int]) -> int:
        from server.hands.four_card import ONE_PAIR, best_four, category

        value, _ = best_four(hand)
        cat = category(value)
        if cat > ONE_PAIR:
            return 3
        if cat < ONE_PAIR:
            return 0
        pair = ((value >> 12) & 0xF) - 1  # the pair's rank (the value packs rank + 1)
        return 3 if pair >= 8 else 1 if pair >= 1 else 0

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        boxes = {b: {"ante": stake, "aces_up": stake} for b in range(1, self.boxes + 1)}
        for _ in range(rounds):
            rnd: Any = cls(self.options, boxes, rng)
            rnd.start()
            for d in rnd.pending():
                k = self.multiple(rnd.hands[d.box])
                if k:
                    rnd.decide(d.box, "play", k * stake)
                else:
                    rnd.decide(d.box, "fold")
            book(rnd, tally, ("ante", "play"), "ante")


# --------------------------------------------------------------------------- pai gow


class PaiGow(Runner):
    """Pai gow tiles (QLD Sch 6): seven players on boxes 2-8 against the bank on box 1 (the
    house, s18(13); or, where the options allow it, a player/banker or a co-banker covering
    the wagers, s18(4), s14(1)-(2)); every hand set the house way (s29)."""

    game = "pai-gow"

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

    def play(self, rounds: int, rng: FastRandom, tally: Tally) -> None:
        cls = round_class(self.game)
        stake = unit_stake(self.options)
        boxes: dict[int, dict[str, int]] = {b: {"bet": stake} for b in range(2, 9)}
        if self.bank is not None:
            liability = stake * len(boxes)
            boxes[1] = {self.bank: liability if self.bank == "bank" else -(-liability // 2)}
        for _ in range(rounds):
            rnd = cls(self.options, boxes, rng)
            rnd.start()
            while not rnd.complete:
                for d in rnd.pending():
                    rnd.decide(d.box, "house_way")
            book(rnd, tally)


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
