"""Every game id, declared once: which kind of table plays it and where its engine is.

The poker engine (``server.games.poker``), the banked framework's adapter
(``server.games.banked.scenario``), the scenario command (``server.scenario``) and the server
(``server.app``) all read their game ids from :data:`GAMES`; nothing else lists them. A game's
title and rules live with its engine (the poker :class:`~server.games.poker.RuleSet`, a banked
game's ``GameSpec``).

``kind`` is the table kind that plays it (``"poker"``: players against each other;
``"banked"``: players against the house; ``"blackjack"``: a banked table whose boxes
decide in turn, with backers and a shoe kept across rounds), or ``None`` for a game with an
engine and scenario support but no server table yet. ``module`` is the engine's module
(banked games: under ``server.games.banked``, exposing ``ROUNDS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

TableKind = Literal["poker", "banked", "blackjack"]

POKER_MODULE: Final = "server.games.poker"


@dataclass(frozen=True)
class Game:
    id: str
    kind: TableKind | None
    module: str


def _poker(game: str) -> Game:
    return Game(game, "poker", POKER_MODULE)


def _banked(game: str, module: str, tabled: bool = True, kind: TableKind = "banked") -> Game:
    return Game(game, kind if tabled else None, f"server.games.banked.{module}")


_ALL = (
    _poker("holdem-act"),
    _poker("omaha-act"),
    _poker("manila-act"),
    _poker("holdem-qld"),
    _poker("omaha-qld"),
    _poker("manila-qld"),
    _banked("caribbean-stud", "caribbean_stud"),
    _banked("holdem-bonus", "holdem_bonus"),
    _banked("three-card-poker", "three_card_poker"),
    _banked("mississippi-stud", "mississippi_stud"),
    _banked("canberra-poker-2004", "canberra_poker"),
    _banked("canberra-poker-2017", "canberra_poker"),
    _banked("four-card-poker", "four_card_poker"),
    _banked("casino-war", "casino_war"),
    _banked("baccarat", "baccarat"),
    _banked("lucky-draw-baccarat", "lucky_draw_baccarat"),
    # shared-outcome games: engines and scenarios; their stadium tables are future work
    _banked("roulette", "roulette", tabled=False),
    _banked("sic-bo", "sic_bo", tabled=False),
    _banked("wheel-of-fortune", "wheel_of_fortune", tabled=False),
    _banked("pai-gow", "pai_gow", tabled=False),
    _banked("craps", "craps", tabled=False),
    # the blackjack family: boxes decide in turn, one hand at a time (server/tables/blackjack.py)
    _banked("blackjack", "blackjack", kind="blackjack"),
    _banked("spanish-blackjack", "blackjack", kind="blackjack"),
    _banked("blackjack-switch", "blackjack", kind="blackjack"),
    _banked("blackjack-challenge", "blackjack", kind="blackjack"),
)

#: game id -> its entry, in lobby order.
GAMES: Final[dict[str, Game]] = {g.id: g for g in _ALL}

#: The player-vs-player poker games.
POKER: Final[tuple[str, ...]] = tuple(g.id for g in _ALL if g.module == POKER_MODULE)
#: Every game on the banked framework, tabled or not.
BANKED: Final[tuple[str, ...]] = tuple(g.id for g in _ALL if g.module != POKER_MODULE)


def tabled(kind: TableKind) -> tuple[str, ...]:
    """The game ids a table of ``kind`` plays."""
    return tuple(g.id for g in _ALL if g.kind == kind)
