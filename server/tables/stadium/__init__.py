"""The stadium table: hundreds of electronic player terminals on one shared outcome.

QLD Casino Gaming Rule 2010, Schedule 19 (electronic table games; digest
``electronic-table-games.md``, ETG-nn below). One spin, roll or coup of a shared-outcome
game (the games whose registry entry tables them as ``"stadium"``) settles the wagers of up
to ``max_terminals`` terminals (s2(3), ETG-04). What differs between the games is declared
on each game's spec (``server/games/banked/``): what an invalid result does
(``on_invalid``), the layout a terminal draws (``terminal_layout``), whether the layout
carries from throw to throw (``layout_carries``).

Theory of operation, one round
------------------------------
1. **Betting window** (s5(4), ETG-24): ``betting_open`` with the countdown goes to every
   terminal. A terminal makes, changes or withdraws wagers on layout positions (``place``,
   s5(1)-(2)); each is checked against the game's rules and the terminal's own limits
   (s5(3), s8) and answered privately with ``bet_ack`` and its credit meter (ETG-15).
   (:mod:`.layout`, :mod:`.limits`)
2. **No more bets** (s3(2)(d), s3(3)): at the deadline, or when staff call it
   (``close_betting``), the server closes the window and refuses every later wager
   (``betting_closed``). The layout frozen here is what is settled. (:mod:`.entry`,
   :mod:`.results`)
3. **The result** comes from one result source (ETG-05): the CSPRNG (the engine's
   injected random source: one unbiased draw per die or wheel, at once) or a dealer or an
   automated wheel or tumbler entering it with the staff ``result`` message. An invalid
   result (a no spin, a no roll, a misdeal) is handled as the game's schedule says (the
   spec's ``on_invalid``): the wagers stand for the re-spin or re-deal, or every wager is
   void and returned, or (a carried layout) the engine records the no roll, every wager
   stands and the next window opens. (:mod:`.entry`)
4. **Settlement** (s7): the game's engine settles every terminal's wagers (:mod:`.plays`);
   the result goes to everyone in one event, each terminal gets its own ``settlement``
   (its wagers, the winnings, what rides) and its meter. Winnings go to the meter at once
   (s7(3)(b)); a winning stake rides on the layout until collected (s7(3)(c), s7(4);
   general.md C-2), or is collected at once with ``winning_stake_policy =
   "auto_collect"``. (:mod:`.results`)
5. **Recall** (s3(2)(f)-(h)): each terminal's previous round (bet, result, win) and the
   table's last results are in every snapshot and answer ``recall``.
6. **Corrections** (s10): staff re-settle a kept round on the right result
   (``correct_result``); the difference is posted to each meter as an adjustment, never
   overwritten; what a meter cannot cover is recorded as owed (s10(3)).
   (:mod:`.corrections`)

Money: the terminal's credit meter is a wallet-side account of its own
(:func:`server.tables.books.meter`), so a wager reserves credits with the wallet's one
atomic debit and the same meter serves every stadium table the account plays (s4(3)).
``box:N`` holds terminal N's wagers on the layout; ``house`` the house's net. Every movement
is a named transfer of the table's :class:`~server.tables.books.Books`. (:mod:`.terminals`)

Events: the table's own are typed (:mod:`.events`); a terminal's comings and goings go to
staff screens only. The base asks its ``connection_event`` hook for the event of a
connection dropped or back: a stadium answers with the typed, staff-only
:class:`~.events.TerminalConnection`.
"""

from server.tables.stadium.entry import ENTRY_ROLES
from server.tables.stadium.results import RESULT_SOURCES, EnteredSource, ResultSource, RngSource
from server.tables.stadium.table import STADIUM_GAMES, STADIUM_OPTIONS, StadiumTable, layout_config
from server.tables.stadium.terminals import Terminal

__all__ = [
    "ENTRY_ROLES",
    "RESULT_SOURCES",
    "STADIUM_GAMES",
    "STADIUM_OPTIONS",
    "EnteredSource",
    "ResultSource",
    "RngSource",
    "StadiumTable",
    "Terminal",
    "layout_config",
]
