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

Several players on a box (s8, SCENARIOS.md ``others``): up to 3 players wager on one box,
each with their own casino war and tie wagers under the same limits (s7, s11; option
``box_limit_mode``: the table maximum per player or for the box's total, s8(2)). Every player
uses the box's one card; on a tie each decides separately (``{"player": id}`` qualifies a
decision by another player), and the box takes one additional card if any of its players goes
to war (casino-war.md A6, CW-06).

Result figures: ``war``, ``tie`` and ``go_to_war`` per box for the box's own player, and the
same per other player under ``others`` (``detail["others"]``; ledger party ``box:N:id``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from server.cards import STANDARD_DECK, Card, RandomSource, card_str, rank_of, shuffle
from server.errors import IllegalAction
from server.games.banked.base import (
    BankedRound,
    CardsDealt,
    Choice,
    Decision,
    DecisionMade,
    Event,
    Forced,
    GameSpec,
    InvalidRound,
    JackpotState,
    OptionSpec,
    PastRound,
    WagerSettled,
    WagerSpec,
    others_on_box,
    pay,
    split_others,
    validate_wagers,
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
    options=(
        OptionSpec("decks", 6, choices=(6, 8), doc="s4(1): six or eight decks"),
        OptionSpec(
            "box_limit_mode",
            "per_player",
            str,
            choices=("per_player", "total_per_box"),
            doc="s8(2): the table maximum applies to each player's casino war wager, or to "
            "the total of the players' casino war wagers on a box",
        ),
    ),
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


#: Who holds wagers on a box: ``None`` for the box's own player, else an ``others`` id
#: (SCENARIOS.md: other players wagering on the box, s8).
Player = str | None


class BackerDecisionMade(DecisionMade, frozen=True, kw_only=True):
    """A decision by another player on a box (s8, s17(4); casino-war.md A6)."""

    player: str


class BackerWagerSettled(WagerSettled, frozen=True, kw_only=True):
    """A wager of another player on a box settled."""

    player: str


@dataclass(frozen=True)
class BackerDecision(Decision):
    """A decision another player on a box owes (``{"player": id}`` in a scenario)."""

    player: str

    def to_wire(self) -> dict[str, Any]:
        return {**super().to_wire(), "player": self.player}


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
        own, others_raw = split_others(wagers)
        super().__init__(options, own, rng, forced, jackpot)
        #: box -> other player id -> that player's wagers (s8)
        self.others: dict[int, dict[str, dict[str, int]]] = {
            int(key): self._check_others(int(key), raw) for key, raw in others_raw.items()
        }
        for box in self.boxes:
            players = self._players(box)
            for player in players:
                self._check_tie(self.options, box, self._wagers_of(box, player))
            total = sum(self._wagers_of(box, p)["war"] for p in players)
            if (
                self.options["box_limit_mode"] == "total_per_box"
                and total > self.options["maximum"]
            ):
                raise IllegalAction(
                    "above_maximum",
                    f"box {box}: the players' casino war wagers total {dollars(total)}, above the "
                    f"table maximum (s8(2)(a))",
                )
        #: the others' nets per box, per player, per wager (the box's own player: ``nets``)
        self.backer_nets: dict[int, dict[str, dict[str, int]]] = {
            b: {p: {} for p in ps} for b, ps in self.others.items()
        }
        self.detail["others"] = self.backer_nets
        self._shoe = self._build_shoe()
        self.first: dict[int, Card] = {}
        self.additional: dict[int, Card] = {}
        self.dealer_first: Card | None = None
        self.dealer_additional: Card | None = None
        self.surrendered: set[tuple[int, Player]] = set()
        self.go_to_war: dict[tuple[int, Player], int] = {}
        self.undecided: dict[int, set[Player]] = {}

    # ------------------------------------------------------------------ players on a box (s8)
    def _check_others(self, box: int, raw: Any) -> dict[str, dict[str, int]]:
        """SCENARIOS.md ``others``: ``{"P2": {"war": ..., "tie": ...}}``; at most 3 players
        on a box (s8(1)), each with their own wagers under the same limits (s7, s11)."""
        if box not in self.wagers:
            raise InvalidRound(f"box {box}: others on a box with no wager")
        return others_on_box(
            box,
            raw,
            2,
            "s8(1)",
            lambda pid, ws: validate_wagers(self.spec, self.options, {box: ws})[box],
        )

    @classmethod
    def check_layout(
        cls,
        options: Mapping[str, Any],
        layout: Mapping[int, Mapping[str, int]],
        owners: Mapping[int, str],
        past: Sequence[PastRound] = (),
    ) -> None:
        """s7(5), s11(2) when the wager is made: a tie wager above its limits is refused, not
        accepted to void the round for every box at the deal."""
        for box, ws in layout.items():
            cls._check_tie(options, box, ws)

    @staticmethod
    def _check_tie(options: Mapping[str, Any], box: int, ws: Mapping[str, int]) -> None:
        """s7(5), s11(2): a tie wager at most 3x the player's war wager and a tenth of the
        table maximum."""
        if "tie" in ws and ws["tie"] > 3 * ws.get("war", 0):
            raise IllegalAction(
                "tie_above_limit",
                f"box {box}: the tie wager may be at most three times the war wager (s7(5))",
            )
        tie_cap = options["maximum"] // 10
        if "tie" in ws and ws["tie"] > tie_cap:
            raise IllegalAction(
                "tie_above_limit",
                f"box {box}: the tie wager may be at most {dollars(tie_cap)}, one "
                f"tenth of the table maximum (s11(2))",
            )

    def _players(self, box: int) -> list[Player]:
        return [None, *self.others.get(box, {})]

    def _wagers_of(self, box: int, player: Player) -> dict[str, int]:
        return self.wagers[box] if player is None else self.others[box][player]

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
            for player in self._players(box):
                tie = self._wagers_of(box, player).get("tie")
                if tie is None:
                    continue
                if rank_of(self.first[box]) == d:
                    why = "equal first cards 10:1 (s12(2))"
                    out.append(self._book(box, player, "tie", pay(tie, TIE_ODDS), "win", why))
                else:
                    why = "first cards differ (s6(2))"
                    out.append(self._book(box, player, "tie", -tie, "lose", why))
        for box in right_to_left:  # s17(2)(b): winning and losing casino war wagers
            r = rank_of(self.first[box])
            for player in self._players(box):
                war = self._wagers_of(box, player)["war"]
                if r > d:
                    out.append(self._book(box, player, "war", war, "win", "higher (s6(2)(a))"))
                elif r < d:
                    out.append(self._book(box, player, "war", -war, "lose", "lower (s6(2)(b))"))
        tied = [b for b in self.boxes if rank_of(self.first[b]) == d]
        self.undecided = {b: set(self._players(b)) for b in tied}
        out += self._open_street("tie", tied)
        return out

    # ------------------------------------------------------------------ decisions (s17(4)-(5))
    def pending(self) -> list[Decision]:
        """Every player on a tied box decides separately (s17(4), A6)."""
        if self.complete or self.street is None:
            return []
        out: list[Decision] = []
        for box in self._awaiting:
            for player in self._players(box):
                if player in self.undecided[box]:
                    choices = self._choices_of(box, player)
                    if player is None:
                        out.append(Decision(box, self.street, choices))
                    else:
                        out.append(BackerDecision(box, self.street, choices, player))
        return out

    def _choices(self, box: int) -> tuple[Choice, ...]:
        return self._choices_of(box, None)

    def _choices_of(self, box: int, player: Player) -> tuple[Choice, ...]:
        return (Choice("war", (self._wagers_of(box, player)["war"],)), Choice("surrender"))

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        return self._apply_as(box, None, verb, amount)

    def _apply_as(self, box: int, player: Player, verb: str, amount: int | None) -> list[Event]:
        if verb == "war":
            assert amount is not None
            self.go_to_war[(box, player)] = amount
            if player is None:
                self._stake(box, "go_to_war", amount)
        else:
            self.surrendered.add((box, player))
        return []

    def _decide(self, box: int, verb: str, amount: int | None, cause: str) -> list[Event]:
        return self._decide_as(box, None, verb, amount, cause)

    def _decide_qualified(
        self, box: int, verb: str, amount: Any, qualifiers: Mapping[str, Any]
    ) -> list[Event]:
        """``{"player": id}``: a decision by another player on the box (SCENARIOS.md)."""
        if set(qualifiers) != {"player"}:
            raise IllegalAction(
                "unexpected_qualifiers", f"casino war takes only a player: {sorted(qualifiers)}"
            )
        player = qualifiers["player"]
        if not isinstance(player, str) or player not in self.others.get(box, {}):
            raise IllegalAction("no_such_player", f"box {box} has no other player {player!r}")
        cause = "player"
        if verb in ("timeout", "insufficient"):  # s28; cannot fund the go to war wager
            if amount is not None:
                raise IllegalAction("unexpected_amount", f"{verb} takes no amount")
            verb, cause = "surrender", verb
        return self._decide_as(box, player, verb, amount, cause)

    def _decide_as(
        self, box: int, player: Player, verb: str, amount: int | None, cause: str
    ) -> list[Event]:
        self._check_awaiting(box)
        if player not in self.undecided[box]:
            who = "the box's player" if player is None else player
            raise IllegalAction("not_awaiting_decision", f"box {box}: {who} has decided")
        choices = {c.verb: c for c in self._choices_of(box, player)}
        if verb not in choices:
            raise IllegalAction(
                "illegal_verb", f"box {box} may {', '.join(choices)} now, not {verb!r}"
            )
        resolved = choices[verb].resolve(amount)
        assert self.street is not None
        made = DecisionMade(box=box, street=self.street, verb=verb, amount=resolved, cause=cause)
        if player is not None:
            made = BackerDecisionMade(**msgspec.structs.asdict(made), player=player)
        out: list[Event] = [made]
        out += self._apply_as(box, player, verb, resolved)
        self.undecided[box].discard(player)
        if not self.undecided[box]:
            self._awaiting.remove(box)
        if not self._awaiting:
            out += self._street_closed()
        return self._emit(out)

    def _timeout_decision(self, box: int) -> tuple[str, int | None]:
        """s28: a player not present to decide is deemed to have surrendered."""
        return "surrender", None

    def _insufficient_decision(self, box: int) -> tuple[str, int | None]:
        """A player who cannot fund the go to war wager can only surrender (s17(4))."""
        return "surrender", None

    # ------------------------------------------------------------------ subsequent deal (s18)
    def _street_closed(self) -> list[Event]:
        out: list[Event] = []
        at_war = sorted({b for b, _p in self.go_to_war})  # s18(1)(a): one card per box
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
            for player in self._players(box):
                if (box, player) in self.surrendered:
                    out.append(self._surrender(box, player))
                elif (box, player) in self.go_to_war:
                    out += self._settle_war(box, player)
        return out

    def _surrender(self, box: int, player: Player) -> WagerSettled:
        """s17(5)(a): the dealer takes half the war wager (rounded down, A1)."""
        half = self._wagers_of(box, player)["war"] // 2
        why = "half the casino war wager (s17(5)(a))"
        return self._book(box, player, "war", -half, "surrender", why)

    def _settle_war(self, box: int, player: Player) -> list[Event]:
        assert self.dealer_additional is not None
        p, d = rank_of(self.additional[box]), rank_of(self.dealer_additional)
        stake = self.go_to_war[(box, player)]
        war = self._wagers_of(box, player)["war"]
        if p < d:
            return [
                self._book(box, player, "war", -war, "lose", "additional card lower (s6(2)(e))"),
                self._book(box, player, "go_to_war", -stake, "lose", "additional card lower"),
            ]
        odds = GO_TO_WAR_EQUAL if p == d else GO_TO_WAR_HIGHER
        why = f"{'equal 2:1' if p == d else 'higher 1:1'} (s12(3))"
        void = "void: additional card equal or higher (s6(2)(d))"
        return [
            self._book(box, player, "war", 0, "returned", void),
            self._book(box, player, "go_to_war", pay(stake, odds), "win", why),
        ]

    # ------------------------------------------------------------------ money
    def _book(
        self, box: int, player: Player, wager: str, net: int, outcome: str, detail: str
    ) -> WagerSettled:
        """Record a player's net on a wager and move the money with the house."""
        if player is None:
            self._record(box, wager, net)
            self._transfer("house", f"box:{box}", net)
            return WagerSettled(box=box, wager=wager, net=net, outcome=outcome, detail=detail)
        nets = self.backer_nets[box][player]
        nets[wager] = nets.get(wager, 0) + net
        self._transfer("house", f"box:{box}:{player}", net)
        return BackerWagerSettled(
            box=box, wager=wager, net=net, outcome=outcome, detail=detail, player=player
        )

    def void(self, reason: str) -> list[Event]:
        """A void round returns the others' wagers too."""
        out = super().void(reason)
        for box, players in self.backer_nets.items():
            for player in players:
                staked = [
                    *self.others[box][player],
                    *(["go_to_war"] * ((box, player) in self.go_to_war)),
                ]
                players[player] = {w: 0 for w in staked}
        return out


ROUNDS: dict[str, type[BankedRound]] = {SPEC.id: CasinoWar}
