"""The player-vs-player poker round: a sans-I/O state machine (commands in, events out).

Theory of operation
-------------------
A :class:`PokerRound` is one round of play at one table. It is built from a
:class:`~server.games.poker.rules.RuleSet`, the seats' table stakes, the seat holding the
buck / dealer button and an injected random source; it never reads a clock, sleeps or draws
randomness except through that source. ``start()`` takes any participation fee, posts the
blinds, shuffles and deals; then the table feeds it ``act(seat, verb, amount)`` (or
``timeout(seat)``) until ``complete``. Every call returns the events it caused; every event
carries ``visible_to``. An illegal command raises
:class:`~server.errors.IllegalAction` and changes nothing.

State per betting round: each seat's wager in the round (``bet``), the level to call
(``cb``), the seats that have acted since the last full bet or raise (``acted``: a seat not in
it still has the option, e.g. the last blind in round 1), the raise count, the size the
next raise must reach, and the short-all-in restrictions (``closed`` for everybody, or
``blocked`` seats). A betting round ends when nobody still needs to act; the round of play
ends when one player is left or the last betting round ends (then the showdown).

The round's state lives here, with the betting round itself (whose turn, what the seat to act
may do on the no-limit fast path, applying an action, ending a betting round: the hot path);
each other job is a module of functions of the round: :mod:`.deal` (fee, blinds, posts, the
shuffle and deal, the board), :mod:`.limits` (the structure's sizes, minimum raise, caps, and
checking a bet or raise), :mod:`.showdown` (dealing out, the uncalled wager, the pots, the
showdown, a void) and :mod:`.view` (what a seat may see).

IllegalAction codes (stable):

=====================  ===================================================================
``round_complete``     the round of play is over (or was voided)
``not_your_turn``      another seat is to act
``unknown_action``     the verb is not fold/check/call/bet/raise/allin
``action_not_allowed`` the verb does not apply now (check facing a wager, bet after an
                       opening bet, raise with nobody left to answer, ...)
``amount_required``    bet/raise without an amount
``amount_invalid``     the amount is not an integer number of cents
``amount_too_small``   below the minimum bet or raise (ACT r 10.2-10.4, QLD s28(4), Sch 5 s26(4))
``amount_too_large``   above the structure's maximum or the seat's table stake
``amount_not_allowed`` between the fixed sizes of a limit round
``raise_cap_reached``  the round's raises are used up (ACT r 10.2-10.4, QLD s9(3), Sch 5 s26(1))
``betting_closed``     a short all-in allows only calls (ACT r 12.5, QLD s29(10), Sch 5 s27(6))
=====================  ===================================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.cards import RandomSource
from server.errors import IllegalAction
from server.games.poker import deal, limits, showdown, view
from server.games.poker.events import ActionTaken, BettingRoundEnded, Event, TurnToAct
from server.games.poker.legal import LegalActions, fast
from server.games.poker.rules import RuleSet
from server.games.poker.showdown import RoundResult
from server.games.poker.view import PotLayer, visible

__all__ = ["VERBS", "PokerRound", "PotLayer", "RoundResult", "visible"]

#: (seat index, seat -> the other seats clockwise after it, seat -> the seats clockwise after
#: it ending with itself, seat -> the seats clockwise from itself, every seat -> 0 (a
#: template, only ever copied: a fresh round's wagers))
_Rings = tuple[
    dict[int, int],
    dict[int, tuple[int, ...]],
    dict[int, tuple[int, ...]],
    dict[int, tuple[int, ...]],
    dict[int, int],
]
#: seat order -> its rings; tables reuse orders
_RINGS: dict[tuple[int, ...], _Rings] = {}


def _rings_of(seats: list[int]) -> _Rings:
    """The seat orders of :data:`_RINGS` for ``seats`` (cached)."""
    key = tuple(seats)
    cached = _RINGS.get(key)
    if cached is None:
        rings = {s: tuple(seats[i + 1 :] + seats[:i]) for i, s in enumerate(seats)}
        cached = _RINGS[key] = (
            {s: i for i, s in enumerate(seats)},
            rings,
            {s: (*ring, s) for s, ring in rings.items()},
            {s: (s, *ring) for s, ring in rings.items()},
            dict.fromkeys(seats, 0),
        )
    return cached


VERBS = frozenset({"fold", "check", "call", "bet", "raise", "allin"})
_BIG = limits.BIG


class PokerRound:
    """One round of play of any of the six games (see the module docstring)."""

    # every attribute is declared: a round has some fifty, too many for an instance
    # dictionary's shared keys, and slots make creating, reading and freeing them cheaper
    __slots__ = (
        "_after",
        "_board_all",
        "_burns",
        "_first_blind",
        "_fixed_board",
        "_fixed_hole",
        "_from",
        "_full_inc",
        "_idx",
        "_last_street",
        "_legal",
        "_min_raise_rule",
        "_nl_free",
        "_nolimit",
        "_out",
        "_posts",
        "_ring",
        "_rng",
        "_started",
        "_zeros",
        "acted",
        "acted_round",
        "aggressor",
        "allin",
        "bet",
        "blind_seats",
        "blocked",
        "board",
        "cb",
        "closed",
        "complete",
        "contrib",
        "dead",
        "deck",
        "designated",
        "fees",
        "folded",
        "hole",
        "last_raise",
        "lb",
        "max_wager",
        "n",
        "n_active",
        "n_live",
        "no_check",
        "opening",
        "pot",
        "raises",
        "result",
        "rules",
        "seats",
        "second_blind_seat",
        "shown",
        "stacks",
        "start_stacks",
        "street",
        "to_act",
    )

    def __init__(
        self,
        rules: RuleSet,
        stacks: Mapping[int, int],
        designated: int,
        rng: RandomSource,
        hole: Mapping[int, Sequence[int]] | None = None,
        board: Sequence[int] | None = None,
        posts: Mapping[int, int] | None = None,
        first_blind: bool = True,
    ) -> None:
        seats = sorted(stacks)
        if len(seats) < 2:
            raise ValueError("a round of play needs at least two players")
        if seats[0] < 1 or seats[-1] > rules.max_seats:
            raise ValueError(f"seats must be 1..{rules.max_seats}")
        for v in stacks.values():
            if type(v) is not int or v <= 0:
                raise ValueError("every table stake must be a positive integer")
        if designated not in stacks and not (
            rules.dead_button and 1 <= designated <= rules.max_seats
        ):
            raise ValueError(f"designated seat {designated} is not occupied")
        fee = rules.participation_fee
        if fee and any(v <= fee for v in stacks.values()):
            raise ValueError("every player must hold more than the participation fee (s31)")
        if not first_blind and not rules.dead_button:
            raise ValueError("a round without a first blind exists only in QLD Sch 11 (s23(4))")
        if posts and not rules.dead_button:
            raise ValueError("returning/new player posts exist only in QLD Sch 11 (s23A)")
        self.rules = rules
        self.seats = seats
        self.n = len(seats)
        cached = _rings_of(seats)
        self._idx = cached[0]
        #: seat -> the other seats clockwise after it
        self._ring = cached[1]
        #: seat -> every seat clockwise from the next one, itself last / itself first
        self._after = cached[2]
        self._from = cached[3]
        self._zeros = zeros = cached[4]
        self.designated = designated
        self.start_stacks = dict(stacks)
        self.stacks = dict(stacks)
        self._rng = rng
        self._fixed_hole = {s: list(c) for s, c in hole.items()} if hole else {}
        self._fixed_board = list(board) if board else []
        self._posts = dict(posts) if posts else {}
        self._first_blind = first_blind
        self.hole: dict[int, list[int]] = {}
        self.board: list[int] = []
        self._board_all: list[int] = []
        self._burns: dict[int, int] = {}  # street -> the card burnt before its board
        #: the deck in the order drawn (hole cards, burns, board first): the deal a table
        #: commits to (server/fair.py)
        self.deck: list[int] = []
        self.bet = zeros.copy()
        self.contrib = zeros.copy()
        self.dead = 0
        self.fees = 0
        self.folded: set[int] = set()
        self.allin: set[int] = set()
        self._out: set[int] = set()  # folded or tapped out: no longer to act
        self.n_live = len(seats)  # players not folded
        self.n_active = len(seats)  # players neither folded nor tapped out
        self.pot = 0  # every chip wagered this round of play (+ dead money)
        self.street = 0
        self.to_act: int | None = None
        self.complete = False
        self.result: RoundResult | None = None
        self.shown: dict[int, list[int]] = {}
        self._started = False
        self._legal: LegalActions | None = None
        # betting-round state
        self.cb = 0
        self.raises = 0
        self.acted: set[int] = set()
        self.acted_round: set[int] = set()
        self.closed = False
        self.blocked: set[int] = set()
        self.opening = 0  # the opening bet of the round (QLD s28(4)(b))
        self.last_raise = 0  # the last full raise increment (QLD s28(4)(c), Sch 5 s26(4))
        self.max_wager = 0  # largest opening wager / raise increment (ACT r 10.2-10.4)
        self.aggressor: int | None = None
        self.no_check: set[int] = set()
        self.lb = rules.blinds[-1]
        self.second_blind_seat: int | None = None
        self.blind_seats: list[int] = []
        self._full_inc = _BIG
        self._last_street = rules.rounds - 1
        self._min_raise_rule = rules.min_raise_rule
        self._nolimit = nolimit = rules.structure == "no-limit"
        self._nl_free = nolimit and rules.raise_cap is None and rules.heads_up != "unrestricted"

    # ------------------------------------------------------------------ seat order
    def after(self, pos: int) -> tuple[int, ...]:
        """Occupied seats clockwise strictly after position ``pos``, then ``pos`` if occupied
        (``pos`` may be a dead button's vacant seat)."""
        order = self._after.get(pos)
        if order is not None:
            return order
        seats = self.seats
        return tuple([s for s in seats if s > pos] + [s for s in seats if s < pos])

    def from_(self, pos: int) -> tuple[int, ...]:
        """Occupied seats clockwise from ``pos`` inclusive."""
        order = self._from.get(pos)
        if order is not None:
            return order
        return self.after(pos)

    def _active(self, s: int) -> bool:
        return s not in self.folded and s not in self.allin

    def designated_player(self) -> int:
        """QLD Sch 5 s2: the buck holder, or the next active player after it (A-5: else
        the buck holder); other games: the buck/button seat itself."""
        if self.rules.odd_chip != "after-designated":
            return self.designated
        for s in self.from_(self.designated):
            if self._active(s):
                return s
        return self.designated

    # ------------------------------------------------------------------ start
    def start(self) -> list[Event]:
        """Participation fee, blinds, the deal, and the first turn to act (:func:`.deal.start`)."""
        return deal.start(self)

    # ------------------------------------------------------------------ betting
    def _begin_betting(self, ev: list[Event]) -> None:
        """Open betting round ``street``: the first seat to act, or (nobody to act) its end."""
        r = self.rules
        if self.street == 0:
            first = self.after(self.blind_seats[-1])
        else:
            self.bet = self._zeros.copy()
            self.cb = self.raises = self.opening = self.last_raise = self.max_wager = 0
            self.acted.clear()
            self.acted_round.clear()
            self.closed = False
            self.blocked.clear()
            self.aggressor = None
            self.no_check.clear()
            if self.n_active < 2:  # nobody left to bet: on to the next board
                self._end_betting(ev)
                return
            first = (
                self.after(self.designated)
                if r.postflop_after_button
                else self.from_(self.designated)
            )
        out, bets, cb, acted = self._out, self.bet, self.cb, self.acted
        # a seat that has not acted has the option; alone, only a blind's round-1 option
        # (ACT r 7.1, QLD s24(4), Sch 5 s23(2)(b)) is still offered: check or fold
        option = self.n_active >= 2 or self.street == 0
        for s in first:
            if s not in out and (bets[s] < cb or (option and s not in acted)):
                self.to_act = s
                la = self._legal = self._compute_legal(s)
                ev.append(TurnToAct(s, la))
                return
        self._end_betting(ev)

    def _compute_legal(self, s: int) -> LegalActions:
        """The seat's options now (hot path: called once per turn, before the turn's event).

        When a bet or raise is open to the seat, also leaves in ``_full_inc`` the smallest
        increment that counts as a full raise (``_wager`` tells a raise from a short all-in by
        it; it is consulted only after a wager above the level to call, which is possible
        only on that path).
        """
        bets, stacks = self.bet, self.stacks
        stack = stacks[s]
        mine = bets[s]
        cb = self.cb
        to_call = cb - mine
        call: int | None
        if to_call > 0:
            check = False
            call = to_call if to_call < stack else stack
        elif s in self.no_check:
            check, call = False, 0
        else:
            check, call = True, None
        reach = mine + stack  # the most this seat can have in
        if reach <= cb:  # a call (of the whole stack, perhaps)
            return fast(
                LegalActions,
                (
                    s,
                    True,
                    check,
                    call,
                    None,
                    None,
                    stack if stack > 0 else None,
                    None,
                    "action_not_allowed",
                ),
            )
        if self.closed or s in self.blocked:
            return fast(
                LegalActions, (s, True, check, call, None, None, None, None, "betting_closed")
            )
        # a bet or raise needs someone who could still answer it (rulings: "nobody to answer")
        n_active = self.n_active
        if n_active < 2:
            return fast(
                LegalActions, (s, True, check, call, None, None, None, None, "action_not_allowed")
            )
        out = self._out
        for x in self._ring[s]:  # (``out`` first: most seats passed over have folded)
            if x not in out and bets[x] + stacks[x] > cb:
                break
        else:
            return fast(
                LegalActions, (s, True, check, call, None, None, None, None, "action_not_allowed")
            )
        if (self._nl_free or (cb == 0 and self._nolimit)) and reach < _BIG:
            # no-limit with no raise cap and no heads-up exemption in play (an opening bet is
            # never capped): any total from the minimum bet or raise up to the whole stake
            # (ACT r 10.6, QLD s28(1)), tapping out always allowed; the general path below
            # gives the same (differential test: tests/poker/test_legal_fast_path.py)
            rule = self._min_raise_rule
            lb = self.lb
            if cb == 0 and rule != "qld-ma":
                lo = lb
            elif rule == "qld-he":  # _min_raise inline (QLD s28(4))
                if to_call < lb:
                    lo = lb
                elif self.last_raise:
                    lo = self.last_raise
                else:
                    lo = self.opening if self.opening > lb else lb
            else:
                lo = limits.min_raise(self, s)
            self._full_inc = lo
            lo += cb
            if reach < lo:
                return fast(LegalActions, (s, True, check, call, None, None, stack, None, None))
            if cb == 0:
                return fast(
                    LegalActions, (s, True, check, call, (lo, reach), None, stack, None, None)
                )
            return fast(LegalActions, (s, True, check, call, None, (lo, reach), stack, None, None))
        return limits.general_legal(self, s, check, call, to_call, reach)

    def legal_actions(self) -> LegalActions | None:
        """What the seat to act may do (None when nobody is to act)."""
        return self._legal

    # ------------------------------------------------------------------ commands
    def _refusal(self, seat: int) -> IllegalAction:
        """Why a command from ``seat`` is refused when it is not that seat's turn."""
        if self.complete:
            return IllegalAction("round_complete", "the round of play is over")
        if not self._started:
            return IllegalAction("action_not_allowed", "the round of play has not started")
        return IllegalAction("not_your_turn", f"it is seat {self.to_act}'s turn, not {seat}'s")

    def act(self, seat: int, verb: str, amount: int | None = None) -> list[Event]:
        """Apply one player action. Raises IllegalAction (state unchanged) if not allowed."""
        la = self._legal  # set exactly while a seat is to act
        if la is None or seat != la.seat:
            raise self._refusal(seat)
        if verb == "call":  # never above the level to call: no raise
            add = la.call
            if add is None:
                raise IllegalAction("action_not_allowed", "nothing to call: check or bet")
            stacks, bets = self.stacks, self.bet
            stack = stacks[seat] = stacks[seat] - add
            total = bets[seat] = bets[seat] + add
            self.contrib[seat] += add
            self.pot += add
            if stack == 0:
                self.allin.add(seat)
                self._out.add(seat)
                self.n_active -= 1
            return self._after_action(seat, [ActionTaken(seat, "call", add, total, stack)])
        if verb == "check":
            if not la.check:
                mine = self.bet[seat]
                raise IllegalAction(
                    "action_not_allowed",
                    f"seat {seat} cannot check: {self.rules.money(self.cb - mine)} to call"
                    if self.cb > mine
                    else f"seat {seat} must call or raise",
                )
            return self._after_action(
                seat, [ActionTaken(seat, "check", 0, self.bet[seat], self.stacks[seat])]
            )
        if verb == "fold":
            self.folded.add(seat)
            self._out.add(seat)
            self.n_live -= 1
            self.n_active -= 1
            return self._after_action(
                seat, [ActionTaken(seat, "fold", 0, self.bet[seat], self.stacks[seat])]
            )
        if verb == "bet" or verb == "raise":
            return limits.bet_or_raise(self, la, seat, verb, amount)
        if verb == "allin":
            if la.allin is None:
                code = la.no_raise_code or "action_not_allowed"
                raise IllegalAction(code, limits.no_raise_message(self, code, seat))
            return self._wager(seat, "allin", self.bet[seat] + la.allin)
        raise IllegalAction("unknown_action", f"unknown action {verb!r}")

    def timeout(self, seat: int) -> list[Event]:
        """The turn timer ran out: check if that is free, else fold."""
        if self.complete:
            raise IllegalAction("round_complete", "the round of play is over")
        la = self._legal
        if la is None or seat != la.seat:
            raise IllegalAction("not_your_turn", f"it is seat {self.to_act}'s turn, not {seat}'s")
        return self.act(seat, "check" if la.check else "fold")

    def _wager(self, s: int, verb: str, total: int) -> list[Event]:
        """Move chips so that seat ``s`` has ``total`` in this betting round."""
        bets, stacks = self.bet, self.stacks
        add = total - bets[s]
        stack = stacks[s] = stacks[s] - add
        bets[s] = total
        self.contrib[s] += add
        self.pot += add
        if stack == 0:
            self.allin.add(s)
            self._out.add(s)
            self.n_active -= 1
        cb = self.cb
        if total > cb:
            inc = total - cb
            if cb == 0:
                # an opening bet (a short all-in one too: QLD s25(5)) opens the betting
                self.opening = total
                if inc > self.max_wager:
                    self.max_wager = inc
                self.acted.clear()
                self.blocked.clear()
                self.aggressor = s
            elif inc >= self._full_inc:
                self.raises += 1
                self.last_raise = inc
                if inc > self.max_wager:
                    self.max_wager = inc
                self.acted.clear()
                self.blocked.clear()
                self.aggressor = s
            else:
                self._short_allin(s)
            self.cb = total
        return self._after_action(s, [ActionTaken(s, verb, add, total, stack)])

    def _short_allin(self, s: int) -> None:
        """An all-in raise below a full raise: not a raise (no cap count, no new minimum)."""
        policy = self.rules.short_allin
        if policy == "act":  # r 12.5, digest A-8: nobody may raise
            self.closed = True
        elif policy == "qld-closed":  # s29(10), digest A-3
            self.blocked |= self.acted
        elif policy == "qld-ma":  # Sch 5 s27(5)-(6)
            others = [x for x in self.seats if x != s and self._active(x)]
            if all(x in self.acted_round for x in others):
                self.closed = True
        self.aggressor = s

    def _after_action(self, s: int, ev: list[Event]) -> list[Event]:
        """After seat ``s``'s action (``ev`` holds its event): the next seat to act, or the
        end of the betting round; returns ``ev`` with what followed."""
        acted = self.acted
        acted.add(s)
        self.acted_round.add(s)
        if self.n_live == 1:
            self.to_act = None
            self._legal = None
            showdown.settle_round(self, ev)
            return ev
        out, cb, bets = self._out, self.cb, self.bet
        if self.n_active >= 2 or self.street == 0:
            # a seat that has not acted has the option; alone, only a blind's round-1 option
            # (ACT r 7.1, QLD s24(4), Sch 5 s23(2)(b)) is still offered: check or fold
            for x in self._ring[s]:  # (``out`` first: most seats passed over have folded)
                if x not in out and (bets[x] < cb or x not in acted):
                    self.to_act = x
                    la = self._legal = self._compute_legal(x)
                    ev.append(TurnToAct(x, la))
                    return ev
        else:
            for x in self._ring[s]:
                if x not in out and bets[x] < cb:
                    self.to_act = x
                    la = self._legal = self._compute_legal(x)
                    ev.append(TurnToAct(x, la))
                    return ev
        self._end_betting(ev)
        return ev

    def _end_betting(self, ev: list[Event]) -> None:
        """Close the betting round; the next board and betting round, or the settlement."""
        self.to_act = None
        self._legal = None
        street = self.street
        ev.append(BettingRoundEnded(street + 1, self.pot))
        if street == self._last_street:
            showdown.settle_round(self, ev)
            return
        self.street = street = street + 1
        deal.turn_board(self, street, ev)
        self._begin_betting(ev)

    # ------------------------------------------------------------------ the end, views
    def void(self, reason: str) -> list[Event]:
        """A misdeal or void round: every wager and fee returned (:func:`.showdown.void`)."""
        return showdown.void(self, reason)

    def current_pots(self) -> list[PotLayer]:
        """The pots as they stand now (:func:`.view.current_pots`)."""
        return view.current_pots(self)

    def view(self, viewer: int | None) -> dict[str, Any]:
        """Everything ``viewer`` (a seat, or None for a spectator) may see now."""
        return view.view(self, viewer)
