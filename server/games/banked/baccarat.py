"""Baccarat (Queensland Casino Gaming Rule 2010, Schedule 1; seed 004).

Game id ``baccarat``. Digest: ``../shared/rules/baccarat.md``.

Theory of operation: two hands, the *player's* and the *banker's*, are dealt from a six- or
eight-deck shoe (s4(1), option ``decks``); every patron's wagers back one of them, a tie, or
a side wager. Nobody decides anything during a round: drawing follows the tableau (s22, s23),
so the whole round is dealt and settled in :meth:`Baccarat.start` and no street ever opens.
A scenario fixes the shoe (``cards.shoe``, in dealing order); the rest of the shoe is the
``decks`` decks less those cards, shuffled by the injected random source (:func:`shoe_for`).

1. Deal (s19): P1, B1, P2, B2, all exposed (s19(5)); point count = total mod 10 (s5).
2. A natural (8 or 9 on two cards) in either hand: nobody draws (s21).
3. Otherwise the player's hand draws on 0-5 and stays on 6-7 (s22); then the banker's hand
   draws by the tableau of s23 on its two-card count and the player's third card
   (:func:`banker_draws`). Banker 5 draws on a player's third card of 4-7 (digest A1, the
   default; option ``banker_five_rule: literal`` gives the OCR text's "4 or 7").
4. Settlement (s24(3)): losing wagers are collected first, then winners are paid.

Wagers and odds (result figures are nets per wager, integer cents, rounded down):

* ``player`` 1:1 (s12(1)); ``banker`` 19:20 (s12(2)), optionally rounded down to a multiple
  of 50c (s12(4), option ``banker_round_down_50c``, default on); in no commission baccarat
  (``banker_payout: no_commission``, s13) 1:2 on a banker 6, else 1:1. Both are void on a
  tie (s11(1)(c), (2)(c)).
* ``tie`` 8:1 (s12(3)), at most one eighth of the table maximum (s9(3)).
* ``perfect_pairs_player`` / ``perfect_pairs_banker`` (s27-s30): mixed / coloured / perfect
  pair 5/10/30:1 with 6 decks, 6/12/25:1 with 8 decks.
* ``dragon_bonus_player`` / ``dragon_bonus_banker`` (s31-s34): a natural win 1:1; a
  non-natural win by 9/8/7/6/5/4 points 30/10/6/4/2/1:1; void on a tie of naturals, lost on
  any other tie (digest A2).
* ``player_pair`` / ``banker_pair`` 11:1 (s35-s38); ``super_6`` 15:1 when the banker wins
  with 6 (s39-s41), offered in either payout mode (digest A6).

Side wagers need no baccarat wager in the same box (s32(2): a dragon bonus may go in any
player's area); option ``side_wagers`` lists the side wagers the layout provides (s29(1),
s32(1), s37(1); default all). Side wagers share the table minimum and maximum here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from server.cards import STANDARD_DECK, Card, RandomSource, Shoe, card_str, rank_of, suit_of
from server.cards import shuffle as shuffle_cards
from server.errors import IllegalAction
from server.games.banked.base import (
    Argument,
    BankedRound,
    CardsDealt,
    Choice,
    Event,
    Forced,
    GameSpec,
    HandShown,
    InvalidRound,
    JackpotState,
    Odds,
    OptionSpec,
    PastRound,
    WagerSpec,
    pay,
)
from server.money import dollars

# ------------------------------------------------------------------------------ the shoe


def shoe_for(decks: int, forced: Forced | None, rng: RandomSource, game: str) -> Shoe:
    """A multi-deck shoe for one round: the forced ``cards.shoe`` first, in dealing order,
    then the rest of ``decks`` standard decks less those cards, shuffled by ``rng``.

    A forced card may appear as often as the shoe holds it. Cards forced per box, for the
    dealer or the board, a card outside the deck, or a card forced more often than the shoe
    holds it raise :class:`InvalidRound`.
    """
    forced = forced or Forced()
    if forced.boxes or forced.dealer or forced.board or forced.outcome:
        raise InvalidRound(f"{game} is dealt from a shoe: give cards.shoe in dealing order")
    counts: Counter[Card] = Counter(forced.shoe)
    for c, n in counts.items():
        if c not in STANDARD_DECK:
            raise InvalidRound(f"{card_str(c)} is not in this game's deck")
        if n > decks:
            raise InvalidRound(f"{card_str(c)} is used {n} times; the shoe holds {decks}")
    rest = [c for c in STANDARD_DECK for _ in range(decks - counts[c])]
    return Shoe.stacked([*forced.shoe, *shuffle_cards(rest, rng)])


def points(cards: Sequence[Card]) -> int:
    """Point count (s5, s2): 2-9 face value, 10/J/Q/K 0, ace 1; the total's right digit."""
    return sum(baccarat_value(c) for c in cards) % 10


def baccarat_value(c: Card) -> int:
    """s5(1): ranks 2..9 count their number, T/J/Q/K count 0, the ace counts 1."""
    r = rank_of(c)  # 0..12 = 2..A
    if r == 12:
        return 1
    return r + 2 if r <= 7 else 0


# ------------------------------------------------------------------------------ the tableau

#: s23(4): the player's third-card values on which a banker 5 draws. ``standard``: 4 to 7
#: (digest A1, the recommended reading); ``literal``: the OCR text's "4 or 7".
BANKER_FIVE_DRAWS: dict[str, frozenset[int]] = {
    "standard": frozenset({4, 5, 6, 7}),
    "literal": frozenset({4, 7}),
}


def player_draws(player: int, banker: int) -> bool:
    """s21, s22: no natural on either hand and the player's count is 0 to 5."""
    return player <= 7 and banker <= 7 and player <= 5


def banker_draws(banker: int, player: int, third: int | None, five_rule: str = "standard") -> bool:
    """s21, s23: whether the banker's hand draws on two-card count ``banker``.

    ``player`` is the player's two-card count (a natural there ends the round, s21) and
    ``third`` the baccarat value of the player's third card, ``None`` if the player stood.
    """
    if banker >= 8 or player >= 8:
        return False  # s21: a natural
    if banker <= 2:
        return True  # s23(1)
    if banker == 3:
        return third != 8  # s23(2)
    if banker == 4:
        return third is None or 2 <= third <= 7  # s23(3)
    if banker == 5:
        return third is None or third in BANKER_FIVE_DRAWS[five_rule]  # s23(4), A1
    if banker == 6:
        return third in (6, 7)  # s23(5): a banker 6 stands when the player stood
    return False  # s23(6): 7 stands


# ------------------------------------------------------------------------------ pay tables

PLAYER_ODDS: Odds = (1, 1)  # s12(1)
BANKER_ODDS: Odds = (19, 20)  # s12(2)
BANKER_NC_SIX: Odds = (1, 2)  # s13(2)(a)
BANKER_NC_OTHER: Odds = (1, 1)  # s13(2)(b)
TIE_ODDS: Odds = (8, 1)  # s12(3)
PAIR_ODDS: Odds = (11, 1)  # s38(3)
SUPER_6_ODDS: Odds = (15, 1)  # s41(2)

#: s30(3): perfect pairs by number of decks.
PERFECT_PAIRS: dict[int, dict[str, Odds]] = {
    6: {"mixed pair": (5, 1), "coloured pair": (10, 1), "perfect pair": (30, 1)},
    8: {"mixed pair": (6, 1), "coloured pair": (12, 1), "perfect pair": (25, 1)},
}

#: s34: a natural win; otherwise by the winning margin in points.
DRAGON_NATURAL: Odds = (1, 1)
DRAGON_MARGIN: dict[int, Odds] = {
    9: (30, 1),
    8: (10, 1),
    7: (6, 1),
    6: (4, 1),
    5: (2, 1),
    4: (1, 1),
}

SIDE_WAGERS: tuple[str, ...] = (
    "perfect_pairs_player",
    "perfect_pairs_banker",
    "dragon_bonus_player",
    "dragon_bonus_banker",
    "player_pair",
    "banker_pair",
    "super_6",
)


def terminal_layout(options: Mapping[str, Any]) -> dict[str, Any]:
    """What a stadium terminal draws (Sch 19 ETG-10, -12): the hands and the side wagers the
    table offers."""
    offered = options.get("side_wagers") or list(SIDE_WAGERS)
    return {
        "kind": "baccarat",
        "positions": [
            {"id": w, "label": w.replace("_", " ")} for w in ("player", "banker", "tie", *offered)
        ],
    }


SPEC = GameSpec(
    id="baccarat",
    title="Baccarat",
    rules="Queensland Casino Gaming Rule 2010, Schedule 1",
    wagers=(
        WagerSpec("player", doc="s11(2), s12(1): the player's hand wins 1:1"),
        WagerSpec(
            "banker",
            doc="s11(1), s12(2), s13: the banker's hand wins 19:20 "
            "(no commission: 1:2 on a 6, else 1:1)",
        ),
        WagerSpec("tie", doc="s11(3), s12(3): 8:1; at most 1/8 of the table maximum (s9(3))"),
        WagerSpec("player_pair", doc="s36, s38: the player's first 2 cards a pair, 11:1"),
        WagerSpec("banker_pair", doc="s36, s38: the banker's first 2 cards a pair, 11:1"),
        WagerSpec("perfect_pairs_player", doc="s28, s30: mixed/coloured/perfect pair"),
        WagerSpec("perfect_pairs_banker", doc="s28, s30: mixed/coloured/perfect pair"),
        WagerSpec("dragon_bonus_player", doc="s31, s33, s34: natural win or win by 4+"),
        WagerSpec("dragon_bonus_banker", doc="s31, s33, s34: natural win or win by 4+"),
        WagerSpec("super_6", doc="s40, s41: the banker wins with 6, 15:1"),
    ),
    verbs=(),
    options=(
        OptionSpec("decks", 8, choices=(6, 8), doc="s4(1): six or eight decks"),
        OptionSpec(
            "banker_payout",
            "commission",
            str,
            choices=("commission", "no_commission"),
            doc="s12(2) 19:20, or s13 no commission baccarat (1:2 on a banker 6)",
        ),
        OptionSpec(
            "banker_round_down_50c",
            True,
            bool,
            doc="s12(4): round a 19:20 banker payout down to a multiple of 50c",
        ),
        OptionSpec(
            "banker_five_rule",
            "standard",
            str,
            choices=tuple(BANKER_FIVE_DRAWS),
            doc="s23(4): banker 5 draws on a player third card of 4-7 (standard, "
            "digest A1) or only 4 or 7 (literal)",
        ),
        OptionSpec(
            "side_wagers",
            list(SIDE_WAGERS),
            list,
            doc="side wagers the layout provides (s29(1), s32(1), s37(1))",
        ),
        OptionSpec("num_boxes", 14, minimum=1, doc="s3(1): up to 14 seated places"),
    ),
    pay_tables={
        "schedule_1": {
            "player": {"win": PLAYER_ODDS},
            "banker": {"win": BANKER_ODDS},
            "banker_no_commission": {"win with 6": BANKER_NC_SIX, "win": BANKER_NC_OTHER},
            "tie": {"tie": TIE_ODDS},
            "perfect_pairs_6_decks": PERFECT_PAIRS[6],
            "perfect_pairs_8_decks": PERFECT_PAIRS[8],
            "dragon_bonus": {
                "natural": DRAGON_NATURAL,
                **{f"by {m}": o for m, o in DRAGON_MARGIN.items()},
            },
            "pair": {"pair": PAIR_ODDS},
            "super_6": {"banker wins with 6": SUPER_6_ODDS},
        }
    },
    # table facts (stadium): a misdeal is re-dealt, the wagers standing
    on_invalid="stand",
    terminal_layout=terminal_layout,
)


def pair_kind(a: Card, b: Card) -> str | None:
    """s27: a pair is two cards of the same face value (rank: 10-J is no pair); perfect =
    same suit, coloured = same colour of different suits, mixed = one red and one black."""
    if rank_of(a) != rank_of(b):
        return None
    if suit_of(a) == suit_of(b):
        return "perfect pair"
    red = (1, 2)  # hearts, diamonds
    return "coloured pair" if (suit_of(a) in red) == (suit_of(b) in red) else "mixed pair"


def banker_win(stake: int, options: Mapping[str, Any], banker_points: int) -> int:
    """What a winning banker wager wins, in cents (s12(2), s12(4), s13(2)).

    Commission game: 19:20 rounded down to the cent, then, with ``banker_round_down_50c``,
    down to a multiple of 50c (never up; digest section 8). No commission: 1:2 on a banker
    6 (rounded down to the cent), else 1:1.
    """
    if options["banker_payout"] == "no_commission":
        return pay(stake, BANKER_NC_SIX if banker_points == 6 else BANKER_NC_OTHER)
    win = pay(stake, BANKER_ODDS)
    if options["banker_round_down_50c"]:
        win -= win % 50
    return win


class Baccarat(BankedRound):
    """One round of baccarat (see the module docstring). Settles in :meth:`start`."""

    spec = SPEC

    @staticmethod
    def _check_boxes(options: Mapping[str, Any], wagers: Mapping[int, Mapping[str, int]]) -> None:
        """The side wagers this layout offers; a tie wager at most one eighth of the table
        maximum (s9(3))."""
        tie_cap = options["maximum"] // 8
        for box, ws in wagers.items():
            for name in ws:
                if name in SIDE_WAGERS and name not in options["side_wagers"]:
                    raise IllegalAction(
                        "wager_not_offered", f"box {box}: this layout provides no {name} wager"
                    )
            if ws.get("tie", 0) > tie_cap:
                raise IllegalAction(
                    "tie_above_limit",
                    f"box {box}: a tie wager may be at most {dollars(tie_cap)}, one "
                    f"eighth of the table maximum (s9(3))",
                )

    @classmethod
    def check_layout(
        cls,
        options: Mapping[str, Any],
        layout: Mapping[int, Mapping[str, int]],
        owners: Mapping[int, str],
        past: Sequence[PastRound] = (),
    ) -> None:
        """The checks of :meth:`_check_boxes` when the wager is made: a tie above s9(3)'s
        limit is refused, not accepted to void the round for every box at the deal."""
        cls._check_boxes(options, layout)

    def __init__(
        self,
        options: Mapping[str, Any] | None,
        wagers: Mapping[Any, Mapping[str, Any]],
        rng: RandomSource,
        forced: Forced | None = None,
        jackpot: JackpotState | None = None,
    ) -> None:
        super().__init__(options, wagers, rng, forced, jackpot)
        offered = self.options["side_wagers"]
        if not all(isinstance(w, str) and w in SIDE_WAGERS for w in offered):
            raise InvalidRound(f"option side_wagers: each must be one of {list(SIDE_WAGERS)}")
        self._check_boxes(self.options, self.wagers)
        self.shoe = shoe_for(self.options["decks"], forced, rng, SPEC.id)
        self.player: list[Card] = []
        self.banker: list[Card] = []

    # ------------------------------------------------------------------ the deal (s19-s23)
    def _deal(self) -> list[Event]:
        out: list[Event] = []
        for hand in (self.player, self.banker, self.player, self.banker):  # s19(2)-(4)
            hand.append(self.shoe.deal())
        out.append(self._dealt("player", self.player))
        out.append(self._dealt("banker", self.banker))
        p, b = points(self.player), points(self.banker)
        third: int | None = None
        if player_draws(p, b):  # s22
            self.player.append(self.shoe.deal())
            third = baccarat_value(self.player[2])
            out.append(self._dealt("player", self.player[2:], "third card"))
        if banker_draws(b, p, third, self.options["banker_five_rule"]):  # s23
            self.banker.append(self.shoe.deal())
            out.append(self._dealt("banker", self.banker[2:], "third card"))
        return out + self._finish()

    @staticmethod
    def _dealt(hand: str, cards: Sequence[Card], street: str | None = None) -> CardsDealt:
        """All baccarat cards are exposed (s4(2), s19(5)): visible to everyone."""
        return CardsDealt(to=hand, box=None, cards=tuple(map(card_str, cards)), street=street)

    # ------------------------------------------------------------------ no decisions
    def decide(
        self,
        box: int,
        verb: str,
        amount: Argument = None,
        qualifiers: Mapping[str, Any] | None = None,
    ) -> list[Event]:
        """Nobody decides in baccarat: drawing follows the tableau (s22, s23, digest s7)."""
        raise IllegalAction(
            "no_decisions", "baccarat takes no decisions: the tableau draws (s22, s23)"
        )

    def _choices(self, box: int) -> tuple[Choice, ...]:
        return ()  # drawing is automatic (s22, s23): no street ever opens

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        raise AssertionError("baccarat takes no decisions")

    def _street_closed(self) -> list[Event]:
        raise AssertionError("baccarat opens no street")

    # ------------------------------------------------------------------ settlement (s24)
    @property
    def outcome(self) -> str:
        p, b = points(self.player), points(self.banker)
        return "player" if p > b else "banker" if b > p else "tie"

    def _settle(self) -> list[Event]:
        p, b = points(self.player), points(self.banker)
        self.dealer_status = (
            f"{'tie' if p == b else self.outcome + ' wins'} {max(p, b)}-{min(p, b)}"
        )
        self.detail["scenario_extra"] = {
            "hands": {
                "player": {"cards": [card_str(c) for c in self.player], "points": p},
                "banker": {"cards": [card_str(c) for c in self.banker], "points": b},
            },
            "outcome": self.outcome,
        }
        shown: list[Event] = [
            HandShown(box=None, cards=tuple(map(card_str, self.player)), hand=f"player {p}"),
            HandShown(box=None, cards=tuple(map(card_str, self.banker)), hand=f"banker {b}"),
        ]
        verdicts = [
            (box, wager, *self._verdict(box, wager))
            for box in self.boxes
            for wager in self.wagers[box]
        ]
        losers: list[Event] = []
        others: list[Event] = []
        for box, wager, win, detail in verdicts:  # s24(3): collect losers, then pay winners
            if win is None:
                losers.append(self._lose(box, wager, detail))
        for box, wager, win, detail in verdicts:
            if win == 0:
                others.append(self._push(box, wager, detail, "returned"))
            elif win is not None:
                others.append(self._win(box, wager, win, detail))
        return shown + losers + others

    def _verdict(self, box: int, wager: str) -> tuple[int | None, str]:
        """``(winnings, why)`` for one wager: winnings ``None`` = lost, ``0`` = void."""
        stake = self.wagers[box][wager]
        b = points(self.banker)
        outcome = self.outcome
        if wager in ("player", "banker"):
            if outcome == "tie":
                return 0, "tie: void (s11(1)(c), (2)(c))"
            if outcome != wager:
                return None, f"{outcome} wins"
            if wager == "player":
                return pay(stake, PLAYER_ODDS), "1:1 (s12(1))"
            return banker_win(stake, self.options, b), self._banker_why(b)
        if wager == "tie":
            return (pay(stake, TIE_ODDS), "8:1 (s12(3))") if outcome == "tie" else (None, "")
        if wager in ("player_pair", "banker_pair"):
            hand = self.player if wager == "player_pair" else self.banker
            if pair_kind(hand[0], hand[1]):
                return pay(stake, PAIR_ODDS), "pair 11:1 (s38(3))"
            return None, "no pair (s38(4),(5))"
        if wager.startswith("perfect_pairs_"):
            hand = self.player if wager.endswith("player") else self.banker
            kind = pair_kind(hand[0], hand[1])
            if kind is None:
                return None, "no pair (s30(4),(5))"
            decks = self.options["decks"]
            return pay(stake, PERFECT_PAIRS[decks][kind]), f"{kind}, {decks} decks (s30(3))"
        if wager.startswith("dragon_bonus_"):
            return self._dragon(stake, "player" if wager.endswith("player") else "banker")
        if wager == "super_6":
            if outcome == "banker" and b == 6:
                return pay(stake, SUPER_6_ODDS), "banker wins with 6, 15:1 (s41(2))"
            return None, "no banker win with 6 (s41(3))"
        raise AssertionError(wager)

    def _banker_why(self, b: int) -> str:
        if self.options["banker_payout"] == "no_commission":
            return "no commission: 1:2 on a 6 (s13(2)(a))" if b == 6 else "no commission 1:1"
        if self.options["banker_round_down_50c"]:
            return "19:20 rounded down to 50c (s12(2),(4))"
        return "19:20 (s12(2))"

    def _dragon(self, stake: int, backed: str) -> tuple[int | None, str]:
        """s33, s34 with digest A2 (a tie of naturals is void, any other tie loses) and A3
        (a natural is the backed hand's own two-card 8 or 9)."""
        mine, theirs = (
            (self.player, self.banker) if backed == "player" else (self.banker, self.player)
        )
        natural = len(mine) == 2 and points(mine) >= 8
        margin = points(mine) - points(theirs)
        if margin == 0:
            if natural:
                return 0, "tie with naturals: void (s33(1)(c), (3))"
            return None, "tie without naturals (s33(1)(b)(ii))"
        if margin < 0:
            return None, "backed hand lost (s33(1)(b)(i))"
        if natural:
            return pay(stake, DRAGON_NATURAL), "natural win 1:1 (s34(a))"
        if margin >= 4:
            return pay(stake, DRAGON_MARGIN[margin]), f"non-natural win by {margin} (s34(b))"
        return None, f"non-natural win by {margin}, under 4 (s33(1)(b)(ii))"


ROUNDS: dict[str, type[BankedRound]] = {SPEC.id: Baccarat}
