"""Casino war (Queensland Casino Gaming Rule 2010, Schedule 14; seed 004).

Game id ``casino-war``. Digest: ``../shared/rules/casino-war.md``.

Theory of operation: every box holds a casino ``war`` wager (s7(3)) and optionally a ``tie``
wager (s7(4)), at most three times the war wager (s7(5)) and one tenth of the table maximum
(s11(2)). Cards come from a six- or eight-deck shoe (s4(1), option ``decks``), so identical
cards may appear in one round; a card machine reshuffles every round (s31(3)(g)), which is
what one round here models: a fresh shuffled shoe each round.

1. Initial deal (s17(1)): one card face up to each box, from box 1 (the dealer's left), then
   one face up to the dealer. Suits are equal and the ace is the highest rank (s5).
2. Settlement from the dealer's right (s17(2)): every tie wager first (10:1 on equal ranks,
   s12(2); lost otherwise), then every casino war wager whose first card differs (1:1 on a
   higher card, s6(2)(a), s12(1); lost on a lower one, s6(2)(b)).
3. A box whose first card ties the dealer's decides (s17(4)): ``surrender`` forfeits half
   the war wager (s2, s17(5)(a); an odd cent stays with the player, casino-war.md A1), or
   ``war`` places a go to war wager equal to the war wager (s2, s6(2), s17(5)(b)). A player
   who is not there to decide is deemed to have surrendered (s28: ``timeout``); one who
   cannot fund the go to war wager surrenders too (``insufficient``).
4. Subsequent deal (s18(1)): one card to each box that went to war, then **one** card to the
   dealer shared by every war. No burn cards (A5). Settlement from the dealer's right
   (s18(2)): an additional card equal to or higher than the dealer's voids (returns) the war
   wager (s6(2)(d)) and wins the go to war wager 1:1, or 2:1 when equal (s12(3)); a lower
   card loses both (s6(2)(e), s6(2) "go to war wager" (b)).

Result figures: ``war``, ``tie`` and ``go_to_war`` per box. One player per box here: several
players sharing a box (s8) are not modelled by this engine (see docs/rulings.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from server.cards import STANDARD_DECK, Card, RandomSource, card_str, rank_of, shuffle
from server.errors import IllegalAction
from server.games.banked.base import (
    BankedRound,
    CardsDealt,
    Choice,
    Event,
    Forced,
    GameSpec,
    InvalidRound,
    JackpotState,
    OptionSpec,
    WagerSettled,
    WagerSpec,
    pay,
)
from server.money import dollars

TIE_ODDS = (10, 1)  # s12(2)
WAR_ODDS = (1, 1)  # s12(1)
GO_TO_WAR_HIGHER = (1, 1)  # s12(3)(a)
GO_TO_WAR_EQUAL = (2, 1)  # s12(3)(b)

SPEC = GameSpec(
    id="casino-war",
    title="Casino war",
    rules="Queensland Casino Gaming Rule 2010, Schedule 14",
    wagers=(
        WagerSpec("war", required=True, doc="s6(2), s7(3): the casino war wager, table limits"),
        WagerSpec(
            "tie",
            needs="war",
            doc="s7(4)-(5), s11(2): only with a war wager; at most 3x the war wager and "
            "one tenth of the table maximum",
        ),
        WagerSpec(
            "go_to_war",
            initial=False,
            limits="decision",
            doc="s2, s6(2), s17(5)(b): equal to the war wager, after a tie",
        ),
    ),
    verbs=("war", "surrender"),
    options=(OptionSpec("decks", 6, choices=(6, 8), doc="s4(1): six or eight decks"),),
    pay_tables={
        "s12": {
            "war": {"higher": WAR_ODDS},
            "tie": {"equal": TIE_ODDS},
            "go_to_war": {"higher": GO_TO_WAR_HIGHER, "equal": GO_TO_WAR_EQUAL},
        }
    },
    box_cards=2,
    dealer_cards=2,
)


class CasinoWar(BankedRound):
    """One round of casino war (see the module docstring)."""

    spec = SPEC

    def __init__(
        self,
        options: Mapping[str, Any] | None,
        wagers: Mapping[Any, Mapping[str, Any]],
        rng: RandomSource,
        forced: Forced | None = None,
        jackpot: JackpotState | None = None,
    ) -> None:
        super().__init__(options, wagers, rng, forced, jackpot)
        tie_cap = self.options["maximum"] // 10
        for box, ws in self.wagers.items():
            if "tie" in ws and ws["tie"] > 3 * ws["war"]:
                raise IllegalAction(
                    "tie_above_limit",
                    f"box {box}: the tie wager may be at most three times the war wager (s7(5))",
                )
            if "tie" in ws and ws["tie"] > tie_cap:
                raise IllegalAction(
                    "tie_above_limit",
                    f"box {box}: the tie wager may be at most {dollars(tie_cap)}, one "
                    f"tenth of the table maximum (s11(2))",
                )
        self._shoe = self._build_shoe()
        self.first: dict[int, Card] = {}
        self.additional: dict[int, Card] = {}
        self.dealer_first: Card | None = None
        self.dealer_additional: Card | None = None
        self.surrendered: set[int] = set()

    # ------------------------------------------------------------------ the shoe
    def _build_shoe(self) -> list[Card]:
        """The shoe less every forced card; forced cards may repeat up to ``decks`` times."""
        decks = self.options["decks"]
        forced = self.forced
        counts: Counter[Card] = Counter()
        if forced is not None:
            for box, cs in forced.boxes.items():
                if box not in self.wagers:
                    raise InvalidRound(f"cards given for box {box}, which has no wager")
                if len(cs) > 2:
                    raise InvalidRound(f"box {box}: {len(cs)} cards given, at most 2 are dealt")
                counts.update(cs)
            if len(forced.dealer) > 2:
                raise InvalidRound(f"dealer: {len(forced.dealer)} cards given, at most 2")
            counts.update(forced.dealer)
        for c, n in counts.items():
            if c not in STANDARD_DECK:
                raise InvalidRound(f"{card_str(c)} is not in this game's deck")
            if n > decks:
                raise InvalidRound(f"{card_str(c)} is used {n} times; the shoe holds {decks}")
        rest: list[Card] = []
        for c in STANDARD_DECK:
            rest += [c] * (decks - counts[c])
        return shuffle(rest, self.rng)

    def _draw(self, box: int | None, index: int) -> Card:
        """The ``index``-th card of ``box`` (``None``: the dealer): forced, or off the shoe."""
        given: Sequence[Card] = ()
        if self.forced is not None:
            given = self.forced.dealer if box is None else self.forced.boxes.get(box, ())
        if index < len(given):
            return given[index]
        return self._shoe.pop()

    # ------------------------------------------------------------------ initial deal (s17)
    def _deal(self) -> list[Event]:
        out: list[Event] = []
        for box in self.boxes:
            self.first[box] = self._draw(box, 0)
            out.append(CardsDealt(to="box", box=box, cards=(card_str(self.first[box]),)))
        self.dealer_first = self._draw(None, 0)
        out.append(CardsDealt(to="dealer", box=None, cards=(card_str(self.dealer_first),)))
        self.dealer_status = card_str(self.dealer_first)
        d = rank_of(self.dealer_first)
        right_to_left = sorted(self.boxes, reverse=True)
        for box in right_to_left:  # s17(2)(a): all tie wagers first
            if "tie" in self.wagers[box]:
                if rank_of(self.first[box]) == d:
                    out.append(
                        self._win(
                            box,
                            "tie",
                            pay(self.wagers[box]["tie"], TIE_ODDS),
                            "equal first cards 10:1 (s12(2))",
                        )
                    )
                else:
                    out.append(self._lose(box, "tie", "first cards differ (s6(2))"))
        for box in right_to_left:  # s17(2)(b): winning and losing casino war wagers
            r = rank_of(self.first[box])
            if r > d:
                out.append(self._win(box, "war", self.wagers[box]["war"], "higher (s6(2)(a))"))
            elif r < d:
                out.append(self._lose(box, "war", "lower (s6(2)(b))"))
        tied = [b for b in self.boxes if rank_of(self.first[b]) == d]
        out += self._open_street("tie", tied)
        return out

    # ------------------------------------------------------------------ decisions (s17(4)-(5))
    def _choices(self, box: int) -> tuple[Choice, ...]:
        return (Choice("war", (self.wagers[box]["war"],)), Choice("surrender"))

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        if verb == "war":
            assert amount is not None
            self._stake(box, "go_to_war", amount)
        else:
            self.surrendered.add(box)
        return []

    def _timeout_decision(self, box: int) -> tuple[str, int | None]:
        """s28: a player not present to decide is deemed to have surrendered."""
        return "surrender", None

    def _insufficient_decision(self, box: int) -> tuple[str, int | None]:
        """A player who cannot fund the go to war wager can only surrender (s17(4))."""
        return "surrender", None

    # ------------------------------------------------------------------ subsequent deal (s18)
    def _street_closed(self) -> list[Event]:
        out: list[Event] = []
        at_war = [b for b in self.boxes if "go_to_war" in self.stakes[b]]
        if at_war:
            for box in at_war:
                self.additional[box] = self._draw(box, 1)
                out.append(
                    CardsDealt(
                        to="box", box=box, cards=(card_str(self.additional[box]),), street="war"
                    )
                )
            self.dealer_additional = self._draw(None, 1)
            out.append(
                CardsDealt(
                    to="dealer", box=None, cards=(card_str(self.dealer_additional),), street="war"
                )
            )
            self.dealer_status = f"{self.dealer_status} then {card_str(self.dealer_additional)}"
        return out + self._finish()

    def _settle(self) -> list[Event]:
        out: list[Event] = []
        for box in sorted(self.boxes, reverse=True):  # s18(2): from the dealer's right
            if box in self.surrendered:
                out.append(self._surrender(box))
            elif box in self.additional:
                out += self._settle_war(box)
        return out

    def _surrender(self, box: int) -> WagerSettled:
        """s17(5)(a): the dealer takes half the war wager (rounded down, A1)."""
        half = self.wagers[box]["war"] // 2
        self._record(box, "war", -half)
        self._transfer(f"box:{box}", "house", half)
        return WagerSettled(
            box=box,
            wager="war",
            net=-half,
            outcome="surrender",
            detail="half the casino war wager (s17(5)(a))",
        )

    def _settle_war(self, box: int) -> list[Event]:
        assert self.dealer_additional is not None
        p, d = rank_of(self.additional[box]), rank_of(self.dealer_additional)
        stake = self.stakes[box]["go_to_war"]
        if p < d:
            return [
                self._lose(box, "war", "additional card lower (s6(2)(e))"),
                self._lose(box, "go_to_war", "additional card lower"),
            ]
        odds = GO_TO_WAR_EQUAL if p == d else GO_TO_WAR_HIGHER
        return [
            self._push(box, "war", "void: additional card equal or higher (s6(2)(d))", "returned"),
            self._win(
                box,
                "go_to_war",
                pay(stake, odds),
                f"{'equal 2:1' if p == d else 'higher 1:1'} (s12(3))",
            ),
        ]


ROUNDS: dict[str, type[BankedRound]] = {SPEC.id: CasinoWar}
