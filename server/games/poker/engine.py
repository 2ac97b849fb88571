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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, TypeVar

from server.cards import DECKS, RandomSource, card_str
from server.errors import IllegalAction
from server.games.poker import settle
from server.games.poker.buck import blind_posters
from server.games.poker.events import (
    ActionTaken,
    BettingRoundEnded,
    BlindPosted,
    BoardDealt,
    CardBurned,
    CommissionTaken,
    Event,
    FeeCharged,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    PotAwarded,
    RoundEnded,
    RoundVoided,
    TurnToAct,
    UncalledReturned,
)
from server.games.poker.legal import LegalActions
from server.games.poker.rules import RuleSet
from server.games.visibility import may_see
from server.hands import best_exact, best_of_each, category_name

#: (n, k) -> (n (n-1) ... (n-k+1), the number of ordered draws of k of n cards; the radices
#: n, n-1, ... with their positions, in groups whose product stays below 2**30, each with that
#: product)
_SPANS: dict[tuple[int, int], tuple[int, tuple[tuple[int, tuple[tuple[int, int], ...]], ...]]] = {}


def _draw_plan(n: int, k: int) -> tuple[int, tuple[tuple[int, tuple[tuple[int, int], ...]], ...]]:
    """The span and the radix groups of :func:`_draw` for ``k`` of ``n`` cards (cached)."""
    span = 1
    groups: list[tuple[int, tuple[tuple[int, int], ...]]] = []
    group: list[tuple[int, int]] = []
    product = 1
    for i in range(k):
        m = n - i
        span *= m
        if product * m >= 1 << 30:
            groups.append((product, tuple(group)))
            group, product = [], 1
        group.append((i, m))
        product *= m
    groups.append((product, tuple(group)))
    return span, tuple(groups)


def _draw(cards: list[int], k: int, rng: RandomSource) -> None:
    """Put a uniformly random ordered draw of ``k`` cards at the front of ``cards``.

    The first ``k`` steps of an unbiased Fisher-Yates shuffle (``cards.shuffle`` does all of
    them; the cards after these are never seen). The ``k`` swap choices are decoded, in mixed
    radix, from ONE uniform integer below ``n (n-1) ... (n-k+1)``: a bijection, so no bias,
    and one call to the injected random source instead of ``k``. (The digits are peeled off
    a group of radices at a time, the group's digits then from a one-word integer: the same
    digits, fewer operations on the long one.)
    """
    n = len(cards)
    k = min(k, n - 1)
    plan = _SPANS.get((n, k))
    if plan is None:
        plan = _SPANS[n, k] = _draw_plan(n, k)
    span, groups = plan
    x = rng.randbelow(span)
    for product, radices in groups:
        x, y = divmod(x, product)
        for i, m in radices:
            j = i + y % m
            y //= m
            cards[i], cards[j] = cards[j], cards[i]


#: seat order -> (seat index, seat -> the other seats clockwise after it, seat -> the seats
#: clockwise after it ending with itself, seat -> the seats clockwise from itself, every seat
#: -> 0 (a template, only ever copied: a fresh round's wagers)); tables reuse orders
_RINGS: dict[
    tuple[int, ...],
    tuple[
        dict[int, int],
        dict[int, tuple[int, ...]],
        dict[int, tuple[int, ...]],
        dict[int, tuple[int, ...]],
        dict[int, int],
    ],
] = {}

_T = TypeVar("_T", bound=tuple[Any, ...])


class _Build(Protocol):
    """``tuple.__new__`` typed: ``_new(EventClass, fields)`` is an ``EventClass``."""

    def __call__(self, cls: type[_T], fields: Iterable[Any], /) -> _T: ...


class PotLayer(TypedDict):
    """One pot of :meth:`PokerRound.current_pots` (the view's ``round.pots``)."""

    amount: int
    eligible: list[int]


VERBS = frozenset({"fold", "check", "call", "bet", "raise", "allin"})
_BLIND_KINDS = ("blind1", "blind2", "blind3")
_BIG = 1 << 62
#: builds an event (a named tuple) from a complete field tuple without the keyword-aware
#: ``__new__``: the hot path's events are built this way, every field given in order
_new: _Build = tuple.__new__


@dataclass(slots=True)
class RoundResult:
    """The settled round. ``to_scenario()`` gives the SCENARIOS.md result fields."""

    stacks: dict[int, int]
    pots: list[dict[str, Any]]
    commission: int
    fees: int
    uncalled: dict[int, int]
    board: list[int]
    showdown: dict[int, str]
    voided: str | None = None
    groups: list[dict[str, Any]] = field(default_factory=list)

    def to_scenario(self) -> dict[str, Any]:
        return {
            "state": "complete",
            "stacks": {str(s): v for s, v in sorted(self.stacks.items())},
            "commission": self.commission,
            "fees": self.fees,
            "pots": [
                {
                    "amount": p["amount"],
                    "eligible": p["eligible"],
                    "winners": p["winners"],
                    "commission": p["commission"],
                }
                for p in self.pots
            ],
            "uncalled": {str(s): v for s, v in self.uncalled.items()},
            "board": [card_str(c) for c in self.board],
            "showdown": {str(s): v for s, v in sorted(self.showdown.items())},
            "error": None,
        }


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
        """Participation fee (QLD s19), blinds, the deal, and the first turn to act."""
        if self._started:
            raise IllegalAction(
                "round_complete" if self.complete else "action_not_allowed",
                "the round of play has already started",
            )
        r = self.rules
        ev: list[Event] = []
        posters = self._blind_posters()
        for s in self._posts:
            if s not in self._idx or s in posters:
                raise ValueError(f"seat {s} cannot make a s23A post (not dealt in, or a blind)")
        self._started = True
        if r.participation_fee:
            fee = r.participation_fee
            for s in self.seats:
                self.stacks[s] -= fee
                self.fees += fee
                ev.append(FeeCharged(s, fee))
        if not self._first_blind:  # QLD s23(4): the second blind only
            self.lb = r.blinds[1]
            ev.append(self._post(posters[0], r.blinds[1], "blind2"))
        else:
            self.lb = r.blinds[len(posters) - 1]  # ACT digest A-13
            for i, s in enumerate(posters):
                ev.append(self._post(s, r.blinds[i], _BLIND_KINDS[i]))
        self.blind_seats = posters
        if r.dead_button:
            self.second_blind_seat = posters[-1]
            if self._first_blind:
                self.no_check.add(posters[0])  # QLD s4(1)(a), digest A-15
        for s, amount in sorted(self._posts.items()):
            amount = min(amount, self.stacks[s])
            live = min(amount, self.lb)
            if live:
                ev.append(self._post(s, live, "live"))
            if amount > live:  # s23A(4): dead money, main pot
                self.stacks[s] -= amount - live
                self.dead += amount - live
                self.pot += amount - live
                if self.stacks[s] == 0:
                    self.allin.add(s)
                    self._out.add(s)
                    self.n_active -= 1
                ev.append(BlindPosted(s, "dead", amount - live, self.stacks[s]))
        self.cb = self.lb  # the call stays at the blind
        self.max_wager = self.lb
        self.opening = self.lb
        self._deal(ev)
        self._begin_betting(ev)
        return ev

    def _blind_posters(self) -> list[int]:
        """Who posts the blinds, in posting order (:func:`.buck.blind_posters`)."""
        return blind_posters(self.rules, self.designated, self.seats, self._first_blind)

    def _post(self, s: int, amount: int, kind: str) -> BlindPosted:
        """A blind or live post, capped at the stake (ACT digest A-14, QLD A-11, Sch 5 A-10)."""
        stacks = self.stacks
        stack = stacks[s]
        if amount >= stack:
            amount = stack
            self.allin.add(s)
            self._out.add(s)
            self.n_active -= 1
        stacks[s] = stack = stack - amount
        self.bet[s] += amount
        self.contrib[s] += amount
        self.pot += amount
        return BlindPosted(s, kind, amount, stack)

    def _deal(self, ev: list[Event]) -> None:
        """Shuffle and deal the hole cards (each seat's event visible to that seat only) and
        draw the board, turned street by street; appends the events to ``ev``."""
        r = self.rules
        fh = self._fixed_hole
        if fh or self._fixed_board:
            fixed = set(self._fixed_board)
            for cs in fh.values():
                fixed.update(cs)
            rest = [c for c in DECKS[r.deck_size] if c not in fixed]
        else:
            rest = list(DECKS[r.deck_size])
        need = r.hole_cards * (self.n - len(fh))
        need += (len(r.board_schedule) - r.board_schedule.count(0)) * r.burns
        need += max(0, 5 - len(self._fixed_board))
        _draw(rest, need, self._rng)
        self.deck = rest
        pos = 0
        d = self.designated
        groups: tuple[int, ...]  # cards dealt to each player per pass round the table
        if r.variant == "manila":
            order, groups = self.from_(d), ((2, 1) if r.hole_cards == 3 else (2,))
        elif r.jurisdiction == "act":
            order, groups = self.from_(d), (1,) * r.hole_cards
        else:
            order, groups = self.after(d), (1,) * r.hole_cards
        if not fh and groups[0] == 1:  # one card at a time round the table
            n, k = self.n, r.hole_cards
            pos = n * k
            hole = {}
            for i, s in enumerate(order):
                hole[s] = cards = rest[i:pos:n]
                ev.append(HoleCardsDealt(seat=s, cards=tuple(cards), visible_to=s))
        else:
            hole = {s: list(fh[s]) for s in order if s in fh}
            for g in groups:
                for s in order:
                    if s in fh:
                        continue
                    hole.setdefault(s, []).extend(rest[pos : pos + g])
                    pos += g
            ev.extend([HoleCardsDealt(seat=s, cards=tuple(hole[s]), visible_to=s) for s in order])
        self.hole = hole
        board: list[int] = []
        fb = self._fixed_board
        burns = self._burns if r.burns else None
        for street, n in enumerate(r.board_schedule):
            if n == 0:
                continue
            if burns is not None:
                burns[street] = rest[pos]
                pos += 1
            if len(board) >= len(fb):  # no fixed (scenario) cards left
                board += rest[pos : pos + n]
                pos += n
                continue
            for _ in range(n):
                if len(board) < len(fb):
                    board.append(fb[len(board)])
                else:
                    board.append(rest[pos])
                    pos += 1
        self._board_all = board
        if r.board_schedule[0]:
            self._turn_board(0, ev)

    def _turn_board(self, street: int, ev: list[Event]) -> None:
        """The burn card and the communal cards of betting round ``street`` (0-based)."""
        r = self.rules
        n = r.board_schedule[street]
        if not n:
            return
        if r.burns:
            ev.append(CardBurned(cards=(self._burns[street],)))
        board = self.board
        have = len(board)
        new = tuple(self._board_all[have : have + n])
        board.extend(new)
        ev.append(BoardDealt(street + 1, new, tuple(board)))

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

    def _sizes(self, opening: bool) -> tuple[int, ...] | None:
        """Fixed increments of a limit round, or None for pot/no-limit ranges."""
        r = self.rules
        if r.structure != "limit":
            return None
        lb, st, last = self.lb, self.street, self.street == r.rounds - 1
        if r.variant == "manila":  # ACT r 10.2-10.4, Sch 5 s24, s26
            return (lb, 2 * lb, 3 * lb, 4 * lb) if last else (lb, 2 * lb)
        if r.jurisdiction == "act":  # ACT r 10.2-10.4, digest A-2
            if st == 0:
                return (lb, 2 * lb)
            return (2 * lb, 4 * lb) if last else (2 * lb,)
        assert r.maximum is not None  # rules_for sets it for every QLD hold'em/Omaha table
        return (lb,) if st < 2 else (r.maximum,)  # QLD s28(8)

    def _min_raise(self, s: int) -> int:
        """The smallest full raise increment now (before limit sizes)."""
        r = self.rules
        if r.min_raise_rule == "act":  # r 10.2-10.4, digest
            return max(self.lb, self.max_wager)
        if r.min_raise_rule == "qld-ma":  # s26(4), digest A-8
            return max(self.lb, self.last_raise)
        if self.cb - self.bet[s] < self.lb:  # QLD s28(4)(a)
            return self.lb
        if self.last_raise:  # s28(4)(c)
            return self.last_raise
        return max(self.opening, self.lb)  # s28(4)(b)

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
            return _new(
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
            return _new(
                LegalActions, (s, True, check, call, None, None, None, None, "betting_closed")
            )
        # a bet or raise needs someone who could still answer it (rulings: "nobody to answer")
        n_active = self.n_active
        if n_active < 2:
            return _new(
                LegalActions, (s, True, check, call, None, None, None, None, "action_not_allowed")
            )
        out = self._out
        for x in self._ring[s]:  # (``out`` first: most seats passed over have folded)
            if x not in out and bets[x] + stacks[x] > cb:
                break
        else:
            return _new(
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
                lo = self._min_raise(s)
            self._full_inc = lo
            lo += cb
            if reach < lo:
                return _new(LegalActions, (s, True, check, call, None, None, stack, None, None))
            if cb == 0:
                return _new(
                    LegalActions, (s, True, check, call, (lo, reach), None, stack, None, None)
                )
            return _new(LegalActions, (s, True, check, call, None, (lo, reach), stack, None, None))
        return self._compute_legal_general(s, check, call, to_call, reach)

    def _compute_legal_general(
        self, s: int, check: bool, call: int | None, to_call: int, reach: int
    ) -> LegalActions:
        """:meth:`_compute_legal` once a bet or raise has someone to answer it: every structure,
        raise caps, heads-up exemptions."""
        cb = self.cb
        stack = self.stacks[s]
        n_active = self.n_active
        r = self.rules
        opening = cb == 0
        # ACT r 10.5 / Sch 5 s26(5), digests: exactly two players neither folded nor
        # tapped out (Sch 11 has no heads-up exemption: heads_up is None)
        heads_up = n_active == 2 and r.heads_up is not None
        if not opening and r.raise_cap is not None and self.raises >= r.raise_cap and not heads_up:
            return _new(
                LegalActions, (s, True, check, call, None, None, None, None, "raise_cap_reached")
            )
        structure = r.structure
        sizes: tuple[int, ...] | None = None
        if heads_up and not opening and r.heads_up == "unrestricted":
            lo, hi = r.chip_unit, _BIG
        elif structure == "limit":
            incs = self._sizes(opening)
            assert incs is not None
            if opening or r.min_raise_rule == "qld-he":
                allowed = incs
            else:
                mr = self._min_raise(s)
                allowed = tuple(x for x in incs if x >= mr) or (incs[-1],)
            lo, hi = allowed[0], allowed[-1]
            sizes = tuple(cb + x for x in allowed if cb + x <= reach)
        else:
            rule = r.min_raise_rule
            lb = self.lb
            if opening and rule != "qld-ma":
                lo = lb
            elif rule == "qld-he":  # _min_raise inline (QLD s28(4))
                if to_call < lb:
                    lo = lb
                elif self.last_raise:
                    lo = self.last_raise
                else:
                    lo = self.opening if self.opening > lb else lb
            else:
                lo = self._min_raise(s)
            if structure == "no-limit":
                hi = _BIG
            else:
                pot = self.pot + to_call
                hi = pot if structure == "full-pot" else pot // 2
                hi = hi // r.chip_unit * r.chip_unit
            if lo > hi:  # QLD s28(3)
                lo = hi
        self._full_inc = lo
        bounds: tuple[int, int] | None = None
        allin: int | None = None
        if hi > 0:
            top = cb + hi  # tapping out allowed up to this total
            if reach <= top:
                allin = stack
            if reach >= cb + lo and (sizes is None or sizes):
                bounds = (cb + lo, top if top < reach else reach)
        if bounds is None:
            return _new(
                LegalActions,
                (
                    s,
                    True,
                    check,
                    call,
                    None,
                    None,
                    allin,
                    None,
                    None if allin is not None else "action_not_allowed",
                ),
            )
        if opening:
            return _new(LegalActions, (s, True, check, call, bounds, None, allin, sizes, None))
        return _new(LegalActions, (s, True, check, call, None, bounds, allin, sizes, None))

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
            return self._bet_or_raise(la, seat, verb, amount)
        if verb == "allin":
            if la.allin is None:
                code = la.no_raise_code or "action_not_allowed"
                raise IllegalAction(code, self._no_raise_message(code, seat))
            return self._wager(seat, "allin", self.bet[seat] + la.allin)
        raise IllegalAction("unknown_action", f"unknown action {verb!r}")

    def _bet_or_raise(
        self, la: LegalActions, seat: int, verb: str, amount: int | None
    ) -> list[Event]:
        mine = self.bet[seat]
        opening = self.cb == 0
        if verb == "bet" and not opening:
            raise IllegalAction(
                "action_not_allowed",
                f"a wager of {self.rules.money(self.cb)} is already made: raise or call",
            )
        if verb == "raise" and opening:
            raise IllegalAction("action_not_allowed", "nothing to raise: bet or check")
        if amount is None:
            raise IllegalAction("amount_required", f"{verb} needs a 'raise to' amount")
        if type(amount) is not int:
            raise IllegalAction(
                "amount_invalid",
                f"amount must be whole {'chips' if self.rules.chips else 'cents'}, got {amount!r}",
            )
        bounds = la.bet if opening else la.raise_
        reach = mine + self.stacks[seat]
        if amount == reach and la.allin is not None:
            return self._wager(seat, "allin", amount)
        if bounds is None:
            code = la.no_raise_code or "action_not_allowed"
            if code == "action_not_allowed" and la.allin is not None and amount > reach:
                code = "amount_too_large"
            raise IllegalAction(code, self._no_raise_message(code, seat))
        lo, hi = bounds
        if amount > reach:
            raise IllegalAction(
                "amount_too_large",
                f"{verb} to {self.rules.money(amount)} exceeds seat {seat}'s stake "
                f"({self.rules.money(reach)} in all)",
            )
        if amount < lo:
            raise IllegalAction(
                "amount_too_small", f"the minimum {verb} is to {self.rules.money(lo)}", {"min": lo}
            )
        if amount > hi:
            raise IllegalAction(
                "amount_too_large", f"the maximum {verb} is to {self.rules.money(hi)}", {"max": hi}
            )
        if la.sizes is not None and amount not in la.sizes:
            sizes = " or ".join(self.rules.money(s) for s in la.sizes)
            raise IllegalAction(
                "amount_not_allowed",
                f"{verb} must be to {sizes}",
                {f"size_{i}": x for i, x in enumerate(la.sizes)},
            )
        return self._wager(seat, verb, amount)

    def _no_raise_message(self, code: str, seat: int) -> str:
        if code == "raise_cap_reached":
            return f"the raise cap ({self.rules.raise_cap}) for this betting round is reached"
        if code == "betting_closed":
            return "after an all-in for less than a raise, only calls are allowed"
        return f"seat {seat} may not bet or raise now"

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
            self._settle(ev)
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
            self._settle(ev)
            return
        self.street = street = street + 1
        self._turn_board(street, ev)
        self._begin_betting(ev)

    # ------------------------------------------------------------------ settlement
    def _values(self, live: list[int]) -> dict[int, int]:
        """Every live hand's value (the showdown shows or mucks them all, so all are needed):
        hold'em the best five of hole and board (ACT r 14.1, QLD s2), the board's keys summed
        once for all; Omaha and Manila exactly ``exact_use`` hole and board cards (ACT r 14.1,
        QLD s2 "hand", Sch 5 s4)."""
        r = self.rules
        hole, board, ranking = self.hole, self.board, r.ranking
        if r.exact_use is None:
            values = best_of_each([hole[s] for s in live], board, ranking)
            return dict(zip(live, values, strict=False))  # one value per seat
        nh, nb = r.exact_use
        return {s: best_exact(hole[s], board, nh, nb, ranking) for s in live}

    def _settle(self, ev: list[Event]) -> None:
        """Deal out, return the uncalled wager, build and award the pots (module
        :mod:`.settle`), show or muck, and end the round; appends the events to ``ev``."""
        r = self.rules
        folded = self.folded
        live = [s for s in self.seats if s not in folded]
        showdown = len(live) > 1
        if showdown:  # deal out (ACT r 8.6, QLD s27(2))
            while self.street < self._last_street:
                self.street += 1
                self._turn_board(self.street, ev)
        contrib = self.contrib
        uncalled: dict[int, int] = {}
        top: int | None
        if (
            not showdown
            and r.fold_around == "return-second-blind"
            and self.street == 0
            and live[0] == self.second_blind_seat
            and self.cb == self.lb
            and all(c < self.lb for x, c in contrib.items() if x != live[0])
        ):
            top, excess = live[0], contrib[live[0]]  # QLD s24(5)-(6), s26(3)(a), digest A-1
        else:
            top, excess = settle.uncalled(contrib)
        if top is not None and excess:
            contrib = dict(contrib)  # self.contrib keeps what was wagered
            contrib[top] -= excess
            self.stacks[top] += excess
            uncalled[top] = excess
            ev.append(UncalledReturned(top, excess))
        pots = settle.build_pots(contrib, live, self.dead)
        vals = self._values(live) if showdown else {}

        def winners_of(eligible: list[int]) -> list[int]:
            if len(eligible) == 1:
                return list(eligible)
            best = max(map(vals.__getitem__, eligible))
            return [s for s in eligible if vals[s] == best]

        def order() -> Sequence[int]:
            ref = self.designated_player() if r.odd_chip == "after-designated" else self.designated
            if ref in self._idx:  # settle.odd_chip_order, from the rings
                return self._from[ref] if r.odd_chip == "buck-first" else self._after[ref]
            return settle.odd_chip_order(r, self.seats, ref)

        payouts, commission, groups = settle.settle_pots(r, pots, winners_of, order)
        showdown_names: dict[int, str] = {}
        if showdown:
            self._show(live, pots, vals, showdown_names, ev)
        for g in groups:
            if g["commission"]:
                ev.append(CommissionTaken(tuple(g["pots"]), g["base"], g["commission"]))
            ev.append(
                PotAwarded(
                    g["pots"][0], g["base"], tuple(g["winners"]), g["shares"], g["commission"]
                )
            )
        stacks = self.stacks
        for s, v in payouts.items():
            stacks[s] += v
        self.complete = True
        self.to_act = None
        self._legal = None
        self.result = RoundResult(
            stacks=dict(stacks),
            pots=[
                {
                    "amount": p.amount,
                    # in seat order already: filtered from the live seats, in seat order
                    "eligible": list(p.eligible),
                    "winners": sorted(p.winners),
                    "commission": p.commission,
                }
                for p in pots
            ],
            commission=commission,
            fees=self.fees,
            uncalled=uncalled,
            board=list(self.board),
            showdown=showdown_names,
            groups=groups,
        )
        ev.append(RoundEnded(dict(stacks)))

    def _show(
        self,
        live: list[int],
        pots: list[settle.Pot],
        vals: dict[int, int],
        names: dict[int, str],
        ev: list[Event],
    ) -> None:
        """Showing order: the called player first (ACT r 9.2, QLD s27(2)-(3), Sch 5 s25(2)-(3));
        with no final wager the first player in the betting order (ACT A-10, QLD s27(3), Sch 5
        s25(3)). Others show only an equal or better hand, or a hand that wins a pot."""
        r = self.rules
        winners = {w for p in pots for w in p.winners}
        folded = self.folded
        start = self.aggressor
        if start is None or start in folded:
            first = (
                self.after(self.designated)
                if r.postflop_after_button
                else self.from_(self.designated_player())
            )
            for start in first:
                if start not in folded:
                    break
        assert start is not None
        best = -1
        hole, shown = self.hole, self.shown
        i = live.index(start)  # the live seats clockwise from start (live is in seat order)
        for s in live[i:] + live[:i]:
            v = vals[s]
            if v >= best or s in winners:
                if v > best:
                    best = v
                name = category_name(v)
                names[s] = name
                cards = shown[s] = hole[s]
                ev.append(HandShown(s, tuple(cards), name))
            else:
                ev.append(HandMucked(s))

    def void(self, reason: str) -> list[Event]:
        """A misdeal or void round (ACT r 16.2, 18.3-18.4; QLD s32-33A; Sch 5 s33): every
        wager and fee is returned and no commission is taken."""
        if self.complete:
            raise IllegalAction("round_complete", "the round of play is over")
        self.stacks = dict(self.start_stacks)
        self.complete = True
        self.to_act = None
        self._legal = None
        self.result = RoundResult(
            stacks=dict(self.stacks),
            pots=[],
            commission=0,
            fees=0,
            uncalled={},
            board=list(self.board),
            showdown={},
            voided=reason,
        )
        return [RoundVoided(reason, dict(self.stacks)), RoundEnded(dict(self.stacks))]

    # ------------------------------------------------------------------ views
    def current_pots(self) -> list[PotLayer]:
        """The pots as they stand now: a layer at each tapped-out player's contribution, then
        the pot the players still able to bet are building (ACT r 12.1, QLD s29(5))."""
        live = [s for s in self.seats if s not in self.folded]
        levels = sorted({self.contrib[s] for s in live if s in self.allin})
        out: list[PotLayer] = []
        prev = 0
        for level in levels:
            amount = sum(min(c, level) - min(c, prev) for c in self.contrib.values())
            out.append(
                {
                    "amount": amount,  # players still able to bet may yet reach it
                    "eligible": [
                        s for s in live if self.contrib[s] >= level or s not in self.allin
                    ],
                }
            )
            prev = level
        rest = sum(c - min(c, prev) for c in self.contrib.values())
        active = [s for s in live if s not in self.allin]
        if rest or not out:
            out.append({"amount": rest, "eligible": active or live})
        if out:
            out[0]["amount"] += self.dead
        return [p for p in out if p["amount"] or len(out) == 1]

    def view(self, viewer: int | None) -> dict[str, Any]:
        """Everything ``viewer`` (a seat, or None for a spectator) may see now."""
        seats = {}
        for s in self.seats:
            d: dict[str, Any] = {
                "stack": self.stacks[s],
                "bet": self.bet[s],
                "in_pot": self.contrib[s],
                "folded": s in self.folded,
                "allin": s in self.allin,
            }
            if s in self.shown:
                d["cards"] = [card_str(c) for c in self.shown[s]]
            elif s == viewer and s in self.hole:
                d["cards"] = [card_str(c) for c in self.hole[s]]
            seats[str(s)] = d
        out: dict[str, Any] = {
            "game": self.rules.game,
            "designated": self.designated,
            "round": self.street + 1,
            "seats": seats,
            "pot": self.pot,
            "pots": self.current_pots(),
            "board": [card_str(c) for c in self.board],
            "to_act": self.to_act,
            "complete": self.complete,
        }
        if viewer is not None and viewer == self.to_act and self._legal is not None:
            out["legal"] = self._legal.to_wire()
        if self.result is not None:
            res = self.result.to_scenario()
            out["result"] = {
                k: res[k] for k in ("stacks", "commission", "fees", "pots", "uncalled", "showdown")
            }
        return out


def visible(events: Sequence[Event], viewer: int | None) -> list[dict[str, Any]]:
    """The wire form of the events ``viewer`` may see (a convenience for tests and demos)."""
    out = []
    for e in events:
        if may_see(e.visible_to, viewer):
            out.append(e.to_wire())
    return out
