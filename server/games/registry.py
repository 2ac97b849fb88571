"""Every game id, declared once: which kind of table plays it and where its engine is.

The poker engine (``server.games.poker``), the banked framework's adapter
(``server.games.banked.scenario``), the scenario command (``server.scenario``) and the server
(``server.net.app``) all read their game ids from :data:`GAMES`; nothing else lists them. A game's
title and rules live with its engine (the poker :class:`~server.games.poker.RuleSet`, a banked
game's ``GameSpec``).

``kinds`` are the table kinds that play it, the default first (``"poker"``: players against
each other; ``"banked"``: players against the house at boxes; ``"blackjack"``: a banked table
whose boxes decide in turn, with backers and a shoe kept across rounds; ``"stadium"``:
hundreds of electronic player terminals on one shared outcome, QLD Sch 19), or ``()`` for a
game with an engine and scenario support but no server table yet. A game with several kinds
(baccarat: a banked table of boxes and a stadium of terminals) is tabled as the table
config's ``kind`` asks (:func:`table_kind`). ``module`` is the engine's module (banked games:
under ``server.games.banked``, exposing ``ROUNDS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

TableKind = Literal["poker", "banked", "blackjack", "stadium"]

POKER_MODULE: Final = "server.games.poker"


@dataclass(frozen=True)
class Game:
    id: str
    kinds: tuple[TableKind, ...]
    module: str

    @property
    def kind(self) -> TableKind | None:
        """The default table kind (``None``: engine and scenario only)."""
        return self.kinds[0] if self.kinds else None


def _poker(game: str) -> Game:
    return Game(game, ("poker",), POKER_MODULE)


def _banked(game: str, module: str, *kinds: TableKind) -> Game:
    return Game(game, kinds, f"server.games.banked.{module}")


_ALL = (
    _poker("holdem-act"),
    _poker("omaha-act"),
    _poker("manila-act"),
    _poker("holdem-qld"),
    _poker("omaha-qld"),
    _poker("manila-qld"),
    _banked("caribbean-stud", "caribbean_stud", "banked"),
    _banked("holdem-bonus", "holdem_bonus", "banked"),
    _banked("three-card-poker", "three_card_poker", "banked"),
    _banked("mississippi-stud", "mississippi_stud", "banked"),
    _banked("canberra-poker-2004", "canberra_poker", "banked"),
    _banked("canberra-poker-2017", "canberra_poker", "banked"),
    _banked("four-card-poker", "four_card_poker", "banked"),
    _banked("casino-war", "casino_war", "banked"),
    _banked("baccarat", "baccarat", "banked", "stadium"),
    _banked("lucky-draw-baccarat", "lucky_draw_baccarat", "banked"),
    # shared-outcome games: terminals on one spin, roll or coup (stadium tables, Sch 19)
    _banked("roulette", "roulette", "stadium"),
    _banked("sic-bo", "sic_bo", "stadium"),
    _banked("wheel-of-fortune", "wheel_of_fortune", "stadium"),
    _banked("craps", "craps", "stadium"),
    _banked("pai-gow", "pai_gow", "banked"),
    # the blackjack family: boxes decide in turn, one hand at a time (server/tables/blackjack.py)
    _banked("blackjack", "blackjack", "blackjack"),
    _banked("spanish-blackjack", "blackjack", "blackjack"),
    _banked("blackjack-switch", "blackjack", "blackjack"),
    _banked("blackjack-challenge", "blackjack", "blackjack"),
)

#: game id -> its entry, in lobby order.
GAMES: Final[dict[str, Game]] = {g.id: g for g in _ALL}

#: The player-vs-player poker games.
POKER: Final[tuple[str, ...]] = tuple(g.id for g in _ALL if g.module == POKER_MODULE)
#: Every game on the banked framework, tabled or not.
BANKED: Final[tuple[str, ...]] = tuple(g.id for g in _ALL if g.module != POKER_MODULE)


def tabled(kind: TableKind) -> tuple[str, ...]:
    """The game ids a table of ``kind`` plays."""
    return tuple(g.id for g in _ALL if kind in g.kinds)


def table_kind(game: str, kind: str | None = None) -> TableKind:
    """The kind of table a config asks for ``game`` (``None``: the game's default kind);
    ``LookupError`` with the reason when there is none."""
    entry = GAMES.get(game)
    if entry is None:
        raise LookupError(f"unknown game {game!r}")
    if not entry.kinds:
        raise LookupError(f"no tables of {game}")
    if kind is None:
        return entry.kinds[0]
    for k in entry.kinds:
        if k == kind:
            return k
    raise LookupError(f"no {kind} tables of {game} (kinds: {', '.join(entry.kinds)})")
