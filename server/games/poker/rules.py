"""Rule sets for the six player-vs-player poker games, as data.

One engine (:mod:`server.games.poker.engine`) plays every game; what differs between the
rulebooks lives here, in a frozen :class:`RuleSet` built by :func:`rules_for` from a game id
and the table's options (``shared/SCENARIOS.md``, "Player-vs-player poker").

=============  ==========================================  ==================================
game id        rulebook                                    digest
=============  ==========================================  ==================================
holdem-act     seed 001, Casino Canberra Hold-em           ``holdem-omaha-act.md``
omaha-act      seed 001, Casino Canberra Omaha             ``holdem-omaha-act.md``
manila-act     seed 001, 3 Card Manila                     ``manila-act.md``
holdem-qld     seed 004, Schedule 11 (Texas hold'em)       ``holdem-omaha-qld.md``
omaha-qld      seed 004, Schedule 11 (Omaha)               ``holdem-omaha-qld.md``
manila-qld     seed 004, Schedule 5 (Manila poker)         ``manila-qld.md``
=============  ==========================================  ==================================

Options (amounts in cents; every option has a default; an unknown option or a bad value
raises :class:`~server.errors.ScenarioError`):

* ``blinds`` - ACT hold'em/Omaha ``[m, 2m]`` or ``[m, 2m, 4m]`` (r 5.3, 6.4, 10.1);
  QLD hold'em/Omaha ``[first, second]``, the second being the minimum wager W (s23(1)-(2));
  Manila ``[B]`` (ACT r 10.1, QLD s20(2)).
* ``structure`` - ``limit`` (fixed sizes; QLD "structured"), ``half-pot``, ``full-pot``,
  ``no-limit`` (ACT r 10.6, QLD s28(1)); Manila: ``limit`` only.
* ``maximum`` - QLD hold'em/Omaha: the table maximum wager (structured rounds 3-4, s28(8)).
* ``raise_cap`` - QLD hold'em/Omaha: raises per betting round, or ``null`` (s9(3)).
* ``commission_percent`` - QLD hold'em/Omaha: the rate, 0..10 (s30(1), (3)).
* ``participation_fee`` - QLD hold'em/Omaha: a fee per player per round instead of
  commission (s19, s30(5)); ``0`` for none.
* ``commission`` - ``rules`` (the rulebook's formula) or ``none``.
* ``ace_low`` - Manila: the ace declared high and low (ACT r 3.5, QLD s18).
* ``chip_unit`` - the smallest chip; split pots are divided in it (ACT r 9.4, QLD s27(14)).
* ``amounts`` - ``cents`` (money, the default) or ``chips`` (a tournament's chips, ACT r 19:
  refusal texts say "150 chips", never dollars).
* ``heads_up`` - ACT games and QLD Manila: ``uncapped`` or ``unrestricted`` (ACT r 10.5,
  QLD Sch 5 s26(5)); QLD hold'em/Omaha has no heads-up exemption.
* ``short_allin_reopens`` - QLD hold'em/Omaha (s29(10), digest A-3).
* ``min_table_stake`` (ACT, QLD Manila) / ``min_buy_in`` and ``max_buy_in`` (QLD
  hold'em/Omaha, s18(3)) - table-level figures the table server enforces; ``max_seats``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from server.errors import ScenarioError
from server.games.registry import POKER
from server.hands import MANILA, MANILA_ACE_LOW, STANDARD, Ranking
from server.money import dollars

#: The six poker games (declared in :mod:`server.games.registry`).
GAME_IDS: tuple[str, ...] = POKER

#: Each game's name as players read it (the lobby's description).
TITLES: dict[str, str] = {
    "holdem-act": "Texas Hold'em, ACT rules",
    "omaha-act": "Omaha, ACT rules",
    "manila-act": "3 Card Manila, ACT rules",
    "holdem-qld": "Texas Hold'em, Queensland Schedule 11",
    "omaha-qld": "Omaha, Queensland Schedule 11",
    "manila-qld": "Manila, Queensland Schedule 5",
}

#: The rulebook a table plays under: seed 001 (ACT) or seed 004 (QLD).
Jurisdiction = Literal["act", "qld"]
#: The game: hold'em, Omaha or Manila (the hand each player forms: ACT r 14.1, QLD s2).
GameVariant = Literal["holdem", "omaha", "manila"]
#: The betting structure (option ``structure``: ACT r 10.6, QLD s28(1)); QLD "structured" is
#: ``limit``.
Structure = Literal["limit", "half-pot", "full-pot", "no-limit"]
#: The heads-up exemption from the raise cap (ACT r 10.5, QLD Sch 5 s26(5)).
HeadsUp = Literal["uncapped", "unrestricted"]
#: After an all-in for less than a full raise: ``act`` nobody may raise (ACT r 12.5, digest
#: A-8); ``qld-closed`` / ``qld-open`` (QLD s29(10), digest A-3, option
#: ``short_allin_reopens``); ``qld-ma`` (Sch 5 s27(5)-(6)).
ShortAllin = Literal["act", "qld-closed", "qld-open", "qld-ma"]
#: The smallest full raise: ACT r 10.2-10.4; QLD s28(4) (``qld-he``); Sch 5 s26(4) (``qld-ma``).
MinRaiseRule = Literal["act", "qld-he", "qld-ma"]
#: Who gets an odd chip of a split pot first (ACT r 9.4, QLD s27(14), Sch 5 s2).
OddChip = Literal["buck-first", "after-button", "after-designated"]
#: A round won by everyone folding to the second blind (QLD s24(5)-(6), digest A-1).
FoldAround = Literal["award", "return-second-blind"]
#: Option ``commission``: the rulebook's formula, or none.
Commission = Literal["rules", "none"]
#: Option ``amounts``: money (cents) or a tournament's chips (ACT r 19).
Amounts = Literal["cents", "chips"]

STRUCTURES: tuple[Structure, ...] = get_args(Structure)

_COMMON = {"blinds", "structure", "commission", "chip_unit", "max_seats", "amounts"}
_OPTIONS: dict[str, frozenset[str]] = {
    "holdem-act": frozenset(_COMMON | {"heads_up", "min_table_stake"}),
    "omaha-act": frozenset(_COMMON | {"heads_up", "min_table_stake"}),
    "manila-act": frozenset(_COMMON | {"heads_up", "min_table_stake", "ace_low"}),
    "holdem-qld": frozenset(
        _COMMON
        | {
            "maximum",
            "raise_cap",
            "commission_percent",
            "participation_fee",
            "short_allin_reopens",
            "min_buy_in",
            "max_buy_in",
        }
    ),
    "omaha-qld": frozenset(
        _COMMON
        | {
            "maximum",
            "raise_cap",
            "commission_percent",
            "participation_fee",
            "short_allin_reopens",
            "min_buy_in",
            "max_buy_in",
        }
    ),
    "manila-qld": frozenset(_COMMON | {"heads_up", "min_table_stake", "ace_low"}),
}


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Everything the engine needs to know about one game at one table (immutable)."""

    game: str
    jurisdiction: Jurisdiction
    variant: GameVariant
    options: dict[str, Any] = field(hash=False, compare=False)
    deck_size: int = 52
    hole_cards: int = 2
    #: (n_hole, n_board) a hand must use exactly, or None for "best five of all" (hold'em).
    exact_use: tuple[int, int] | None = None
    ranking: Ranking = STANDARD
    #: communal cards turned before each betting round (index = betting round).
    board_schedule: tuple[int, ...] = (0, 3, 1, 1)
    burns: bool = True
    blinds: tuple[int, ...] = (100, 200)
    structure: Structure = "limit"
    maximum: int | None = None
    raise_cap: int | None = 3
    heads_up: HeadsUp | None = "uncapped"  # None: no heads-up exemption (QLD Sch 11)
    short_allin: ShortAllin = "act"
    min_raise_rule: MinRaiseRule = "act"
    commission_on: bool = True
    commission_percent: int = 5
    commission_step: int = 2000
    commission_cap_base: int = 10000
    cumulative_cap: bool = False
    participation_fee: int = 0
    chip_unit: int = 100
    odd_chip: OddChip = "buck-first"
    postflop_after_button: bool = False  # QLD Sch 11: first active player *after* button
    fold_around: FoldAround = "award"
    max_seats: int = 10
    min_table_stake: int = 0
    max_buy_in: int | None = None
    dead_button: bool = False
    chips: bool = False  #: amounts are a tournament's chips, not cents (option ``amounts``)

    def money(self, amount: int) -> str:
        """An amount for people (refusal texts): ``$1.50`` at a cash table (cents), ``150
        chips`` at a tournament's (ACT r 19: tournament chips are not money)."""
        return f"{amount:,} chips" if self.chips else dollars(amount)

    @property
    def title(self) -> str:
        return TITLES[self.game]

    @property
    def absent_players(self) -> bool:
        """QLD Sch 11 s21(2): a player sitting out is absent: not dealt in, skipped for the
        button and the blinds (s17(4), s23(3)), and posts the second blind on return (s23A).
        ACT (6.3) and QLD Manila (Sch 5 s17(3)) deal a sitting-out seat in instead."""
        return self.jurisdiction == "qld" and self.variant != "manila"

    @property
    def top_up_below(self) -> str:
        """When a seat must top up before it is dealt in: ``"min_stake"`` (ACT 12.3: below
        the minimum table stake, if the wallet can cover it), ``"min_wager"`` (QLD Sch 11
        s31(2): below the minimum wager) or ``"empty"`` (QLD Sch 5 s29: no stake)."""
        if self.jurisdiction == "act":
            return "min_stake"
        return "min_wager" if self.variant != "manila" else "empty"

    @property
    def vacates_abstainers(self) -> bool:
        """ACT 18.8: a seat that wagers on no round for 3 rounds while every seat is taken
        is vacated (ACT tables only)."""
        return self.jurisdiction == "act"

    @property
    def rounds(self) -> int:
        """Betting rounds in a round of play (4 hold'em/Omaha, 5 Manila)."""
        return len(self.board_schedule)

    @property
    def min_buy_in(self) -> int:
        return self.min_table_stake

    @property
    def minimum_wager(self) -> int:
        """The blind the limit sizes key off: ACT the last blind (LB), QLD W, Manila B."""
        return self.blinds[-1]

    def describe(self) -> dict[str, Any]:
        """The options in force, JSON-friendly (``croupier scenario --describe``)."""
        return {
            "game": self.game,
            "options": dict(self.options),
            "deck": self.deck_size,
            "hole_cards": self.hole_cards,
            "betting_rounds": self.rounds,
            "max_seats": self.max_seats,
            "min_buy_in": self.min_table_stake,
            "max_buy_in": self.max_buy_in,
        }


def _err(game: str, msg: str) -> ScenarioError:
    return ScenarioError(f"{game}: {msg}")


def _int(game: str, name: str, v: Any, lo: int = 0) -> int:
    if type(v) is not int or v < lo:
        raise _err(game, f"option {name} must be an integer >= {lo}, got {v!r}")
    return v


#: raise_cap default marker: 3 for structured betting, none otherwise (QLD digest table).
_BY_STRUCTURE: Any = object()


def defaults(game: str) -> dict[str, Any]:
    """The default options of ``game`` (the rules' values, or the digest's recommendation)."""
    act = game.endswith("-act")
    manila = game.startswith("manila")
    d: dict[str, Any] = {
        "blinds": [100] if manila else [100, 200],
        "structure": "limit",
        "commission": "rules",
        "chip_unit": 100,
        "max_seats": 9 if game == "manila-act" else 13 if game == "manila-qld" else 10,
    }
    if act or manila:
        d["heads_up"] = "unrestricted" if game == "manila-qld" else "uncapped"
        d["min_table_stake"] = None  # 20 x the table minimum (digest Rec.)
    if manila:
        d["ace_low"] = False
    if not act and not manila:
        d.update(
            maximum=None,
            raise_cap=_BY_STRUCTURE,
            commission_percent=10,
            participation_fee=0,
            short_allin_reopens=False,
            min_buy_in=None,
            max_buy_in=None,
        )
    return d


def rules_for(game: str, options: dict[str, Any] | None = None) -> RuleSet:
    """Validate ``options`` for ``game`` and build its :class:`RuleSet`."""
    if game not in GAME_IDS:
        raise ScenarioError(f"unknown game: {game!r}")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise _err(game, "options must be an object")
    unknown = sorted(set(options) - _OPTIONS[game])
    if unknown:
        raise _err(game, f"unknown option {unknown[0]!r}")
    o = defaults(game)
    o.update(options)
    jur = game.rsplit("-", 1)[1]
    variant = game.split("-", 1)[0]

    unit = _int(game, "chip_unit", o["chip_unit"], 1)
    max_seats = _int(game, "max_seats", o["max_seats"], 2)
    limit_seats = 9 if game == "manila-act" else 13 if game == "manila-qld" else 10
    if max_seats > limit_seats:
        raise _err(game, f"max_seats is at most {limit_seats}")

    blinds = o["blinds"]
    if not isinstance(blinds, list) or not all(type(b) is int and b > 0 for b in blinds):
        raise _err(game, f"blinds must be a list of positive integers, got {blinds!r}")
    if variant == "manila":
        if len(blinds) != 1:
            raise _err(game, "Manila has one blind: blinds must be [B]")
    elif jur == "act":
        m = blinds[0] if blinds else 0
        if len(blinds) not in (2, 3) or blinds != [m * 2**i for i in range(len(blinds))]:
            raise _err(game, "ACT blinds must be [m, 2m] or [m, 2m, 4m] (r 5.3, 10.1)")
    elif len(blinds) != 2:
        raise _err(game, "QLD blinds must be [first, second] (s23)")

    structure = o["structure"]
    if structure not in STRUCTURES:
        raise _err(game, f"unknown structure {structure!r}")
    if variant == "manila" and structure != "limit":
        raise _err(game, "Manila has only the limit structure")

    if o.get("amounts", "cents") not in get_args(Amounts):
        raise _err(game, f"amounts must be 'cents' or 'chips', got {o['amounts']!r}")

    if o["commission"] not in get_args(Commission):
        raise _err(game, f"commission must be 'rules' or 'none', got {o['commission']!r}")
    commission_on = o["commission"] == "rules"

    kw: dict[str, Any] = dict(
        game=game,
        jurisdiction=jur,
        variant=variant,
        options=o,
        blinds=tuple(blinds),
        structure=structure,
        chip_unit=unit,
        max_seats=max_seats,
        commission_on=commission_on,
        chips=o.get("amounts") == "chips",
    )
    if "heads_up" in o:
        if o["heads_up"] not in get_args(HeadsUp):
            raise _err(
                game, f"heads_up must be 'uncapped' or 'unrestricted', got {o['heads_up']!r}"
            )
        kw["heads_up"] = o["heads_up"]
    if "ace_low" in o and type(o["ace_low"]) is not bool:
        raise _err(game, "ace_low must be true or false")
    if "min_table_stake" in o:
        mts = o["min_table_stake"]
        kw["min_table_stake"] = (
            20 * blinds[0] if mts is None else _int(game, "min_table_stake", mts, 1)
        )
        o["min_table_stake"] = kw["min_table_stake"]

    if variant == "manila":
        kw.update(
            deck_size=32,
            hole_cards=3 if jur == "act" else 2,
            exact_use=(2, 3),
            board_schedule=(1, 1, 1, 1, 1),
            burns=False,
            ranking=MANILA_ACE_LOW if o["ace_low"] else MANILA,
        )
    elif variant == "omaha":
        kw.update(hole_cards=4, exact_use=(2, 3))
    b_last = blinds[-1]
    if jur == "act":
        # r 11.1: 5% of the largest multiple of $20, base capped at 100 x table minimum m.
        kw.update(commission_cap_base=100 * blinds[0], odd_chip="buck-first")
    elif variant == "manila":
        # Sch 5 s28: 5% of the largest multiple of $20, base capped at 100 x B.
        kw.update(
            jurisdiction="qld",
            commission_cap_base=100 * b_last,
            short_allin="qld-ma",
            min_raise_rule="qld-ma",
            odd_chip="after-designated",
        )
    else:
        maximum = o["maximum"]
        maximum = 2 * b_last if maximum is None else _int(game, "maximum", maximum, 1)
        if maximum < b_last:
            raise _err(game, "maximum must be at least the minimum wager (second blind)")
        cap = o["raise_cap"]
        if cap is _BY_STRUCTURE:
            cap = 3 if structure == "limit" else None
        elif cap is not None:
            cap = _int(game, "raise_cap", cap, 1)
        pct = _int(game, "commission_percent", o["commission_percent"], 0)
        if pct > 10:
            raise _err(game, "commission_percent is at most 10 (s30(1))")
        fee = _int(game, "participation_fee", o["participation_fee"], 0)
        if fee and commission_on and "commission" in options:
            raise _err(
                game,
                "a participation fee replaces commission (s19(3), s30(5)): "
                "set commission to 'none'",
            )
        if type(o["short_allin_reopens"]) is not bool:
            raise _err(game, "short_allin_reopens must be true or false")
        mn, mx = o["min_buy_in"], o["max_buy_in"]
        mn = 20 * b_last if mn is None else _int(game, "min_buy_in", mn, 1)
        mx = None if mx is None else _int(game, "max_buy_in", mx, 1)
        if mx is not None and mx < mn:
            raise _err(game, "max_buy_in is below min_buy_in")
        o.update(maximum=maximum, raise_cap=cap, min_buy_in=mn)  # resolved, for describe()
        kw.update(
            maximum=maximum,
            raise_cap=cap,
            heads_up=None,
            short_allin="qld-open" if o["short_allin_reopens"] else "qld-closed",
            min_raise_rule="qld-he",
            commission_percent=pct,
            commission_step=1000,
            commission_cap_base=100 * b_last,
            cumulative_cap=True,
            participation_fee=fee,
            commission_on=commission_on and not fee,
            odd_chip="after-button",
            postflop_after_button=True,
            fold_around="return-second-blind",
            min_table_stake=mn,
            max_buy_in=mx,
            dead_button=True,
        )
    return RuleSet(**kw)
