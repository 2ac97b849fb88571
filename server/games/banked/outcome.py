"""Shared-outcome games on the banked framework: one spin or roll settles every wager.

Roulette (Sch 7), sic-bo (Sch 8) and wheel of fortune (Sch 10) share one shape: many players
(boxes; on terminals, hundreds) place wagers on layout positions during a betting window; at
"no more bets" the wagers are frozen (roulette s9(4), sic-bo s8(3), wheel s7(3)); one outcome
(a pocket, three dice, a wheel section) is produced; every wager is settled strictly on its
position (roulette s13, sic-bo s9, wheel s9): losing wagers collected first, then winners paid
(roulette s6(2), wheel s4(b)).

Theory of operation
-------------------
A :class:`SharedOutcomeRound` is constructed with the frozen wagers (the "no more bets"
snapshot). It opens no street: :meth:`SharedOutcomeRound.start` takes the outcome and settles.
The outcome is, in order of precedence:

1. ``start(outcome)``: a live result (dealer's entry terminal, automated wheel or tumbler),
   in the scenario shape (``{"number": 17}``, ``{"dice": [1, 4, 4]}``, ``{"segment": "b"}``);
2. the scenario's forced outcome (:class:`~server.games.banked.base.Forced` ``outcome``);
3. otherwise the injected :class:`~server.cards.RandomSource`: one unbiased ``randbelow(n)``
   per wheel spin, one ``randbelow(6)`` per die.

A "no spin" (roulette s17, sic-bo s17, wheel s13) is the table's business: roulette and sic-bo
wagers stand and the round is started later with the re-spin's result (the digests' PROPOSED
reading); at wheel of fortune every wager is void (s13(4)): the table calls
:meth:`~server.games.banked.base.BankedRound.void` on the round before starting it.

Wager ids are open families (``straight_17``, ``total_10``), so a game's
:class:`SharedOutcomeSpec` parses ids instead of listing every one; ``describe()`` lists the
families. An id that names no wager of the game is malformed input (``InvalidRound``); a
wager of the game that this table's wheel does not offer (``first_five`` on a single-zero
wheel) is refused with :class:`IllegalAction` ``not_on_this_wheel``.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from server.cards import RandomSource
from server.errors import IllegalAction
from server.games.banked.base import (
    BankedRound,
    Choice,
    Event,
    Forced,
    GameSpec,
    InvalidRound,
    JackpotState,
    Odds,
    WagerSpec,
    pay,
)

__all__ = ["OutcomeDeclared", "SharedOutcomeRound", "SharedOutcomeSpec", "roll_dice", "spin"]


@dataclass(frozen=True)
class SharedOutcomeSpec(GameSpec):
    """A :class:`GameSpec` whose wager ids are parsed, not listed.

    ``wagers`` holds one :class:`WagerSpec` per *family* (for ``--describe``); ``parse`` maps a
    concrete wager id to its pay-table key (``straight_17`` -> ``straight``) or ``None`` when the
    id names no wager of the game.
    """

    parse: Callable[[str], str | None] | None = None

    def wager(self, name: str) -> WagerSpec | None:
        if self.parse is None or not isinstance(name, str) or self.parse(name) is None:
            return None
        return WagerSpec(name)


class OutcomeDeclared(Event, frozen=True):
    """The spin or roll's result, announced to everyone (roulette s6(1), sic-bo s14, wheel
    s4(a)). ``outcome`` is the scenario shape; ``call`` is the dealer's announcement."""

    TYPE: ClassVar[str] = "outcome_declared"
    outcome: Mapping[str, Any]
    call: str
    source: str  # "live", "forced" or "rng"


def spin(rng: RandomSource, sections: int) -> int:
    """One spin of a wheel of ``sections`` equal sections: one unbiased ``randbelow``."""
    return rng.randbelow(sections)


def roll_dice(rng: RandomSource, n: int = 3) -> tuple[int, ...]:
    """``n`` dice, one unbiased ``randbelow(6)`` each, faces 1..6."""
    return tuple(rng.randbelow(6) + 1 for _ in range(n))


class SharedOutcomeRound(BankedRound):
    """One spin or roll at a shared-outcome table (see the module docstring).

    Subclasses set ``spec`` and implement :meth:`_available`, :meth:`_parse_outcome`,
    :meth:`_random_outcome`, :meth:`_wire_outcome`, :meth:`_call` and :meth:`_odds`.
    """

    spec: ClassVar[SharedOutcomeSpec]

    def __init__(
        self,
        options: Mapping[str, Any] | None,
        wagers: Mapping[Any, Mapping[str, Any]],
        rng: RandomSource,
        forced: Forced | None = None,
        jackpot: JackpotState | None = None,
    ) -> None:
        super().__init__(options, wagers, rng, forced, jackpot)
        if jackpot is not None:
            raise InvalidRound(f"{self.spec.id} has no jackpot")
        if self.options["jackpot_wager"] is not None:
            raise InvalidRound(f"{self.spec.id} offers no jackpot wager")
        if forced is not None and (forced.boxes or forced.dealer or forced.board or forced.shoe):
            raise InvalidRound(f"{self.spec.id} uses no cards: give the outcome instead")
        self._options_checked()
        for box, ws in self.wagers.items():
            for name in ws:
                why = self._available(name)
                if why:
                    raise IllegalAction("not_on_this_wheel", f"box {box}: {name}: {why}")
        self.forced_outcome: Any = None
        if forced is not None and forced.outcome is not None:
            self.forced_outcome = self._parse_outcome(forced.outcome)
        self.outcome: Any = None

    # ----------------------------------------------------------------- public API
    def start(self, outcome: Mapping[str, Any] | None = None) -> list[Event]:
        """No more bets has been called: take the outcome and settle every wager.

        ``outcome`` is a live result in the scenario shape; without one the forced outcome
        or, failing that, the injected random source decides. A malformed live outcome raises
        :class:`InvalidRound` and changes nothing.
        """
        if self._started:
            raise IllegalAction("already_started", "the round has already started")
        if self.complete:
            raise IllegalAction("round_complete", "the round is complete (void)")
        if outcome is not None:
            self._live = self._parse_outcome(outcome)
        return super().start()

    def pay_table(self) -> Mapping[str, Mapping[str, Odds]]:
        """The pay tables in force (the ``pay_table`` option's set)."""
        return self.spec.pay_tables[self.options["pay_table"]]

    # ----------------------------------------------------------------- for subclasses
    def _options_checked(self) -> None:
        """Cross-check options once validated (InvalidRound on a bad configuration)."""

    @abstractmethod
    def _available(self, wager: str) -> str | None:
        """Why this table does not offer ``wager`` (a parsed id), or ``None`` when it does."""

    @abstractmethod
    def _parse_outcome(self, raw: Mapping[str, Any]) -> Any:
        """A live or forced outcome (scenario shape) -> the game's outcome; InvalidRound."""

    @abstractmethod
    def _random_outcome(self) -> Any:
        """The outcome from ``self.rng`` (one spin / one ``randbelow(6)`` per die)."""

    @abstractmethod
    def _wire_outcome(self, outcome: Any) -> dict[str, Any]:
        """The outcome in the scenario shape."""

    @abstractmethod
    def _call(self, outcome: Any) -> str:
        """The dealer's announcement of the outcome."""

    @abstractmethod
    def _odds(self, wager: str, outcome: Any) -> Odds | None:
        """The odds ``wager`` wins at on ``outcome``, or ``None`` when it loses."""

    # ----------------------------------------------------------------- the round
    _live: Any = None

    def _deal(self) -> list[Event]:
        if self._live is not None:
            self.outcome, source = self._live, "live"
        elif self.forced_outcome is not None:
            self.outcome, source = self.forced_outcome, "forced"
        else:
            self.outcome, source = self._random_outcome(), "rng"
        wire = self._wire_outcome(self.outcome)
        self.detail["outcome"] = wire
        self.detail["scenario_extra"] = {"outcome": wire}
        out: list[Event] = [
            OutcomeDeclared(outcome=wire, call=self._call(self.outcome), source=source)
        ]
        return out + self._finish()

    def _settle(self) -> list[Event]:
        """Collect every losing wager, then pay every winner (roulette s6(2), wheel s4(b));
        winnings are ``stake x odds`` rounded down to the cent (general.md §4), capped at
        ``max_payout`` when the operator sets one."""
        losers: list[Event] = []
        winners: list[Event] = []
        cap = self.options["max_payout"]
        for box, ws in self.wagers.items():
            for name, stake in ws.items():
                odds = self._odds(name, self.outcome)
                if odds is None:
                    losers.append(self._lose(box, name, "not spun"))
                else:
                    won = pay(stake, odds)
                    detail = f"{odds[0]}:{odds[1]}" if odds[1] != 1 else f"{odds[0]} to 1"
                    if cap is not None and won > cap:
                        won, detail = cap, f"{detail}, capped at {cap}"
                    winners.append(self._win(box, name, won, detail))
        return losers + winners

    def _choices(self, box: int) -> tuple[Choice, ...]:
        return ()

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        raise IllegalAction("no_decisions", f"{self.spec.id} takes no decisions")

    def _street_closed(self) -> list[Event]:
        return self._finish()


def number_suffix(name: str, prefix: str) -> int | None:
    """``total_10`` with prefix ``total`` -> 10 (canonical decimal only), else ``None``."""
    if not name.startswith(prefix + "_"):
        return None
    tail = name[len(prefix) + 1 :]
    if not tail.isdigit() or tail != str(int(tail)):
        return None
    return int(tail)
