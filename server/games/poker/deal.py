"""Starting a round of play: fee, blinds and posts, the shuffle and the deal, the board.

Theory of operation
-------------------
:func:`start` runs once per :class:`~server.games.poker.engine.PokerRound`, before any
player acts: it takes the participation fee (QLD Sch 11 s19), posts the blinds in the order
:func:`~server.games.poker.buck.blind_posters` gives (ACT r 7.1, QLD s23-24, Sch 5 s23; a
short stake posts what it has: ACT digest A-14, QLD A-11, Sch 5 A-10) and any returning or
new player's live and dead posts (QLD Sch 11 s23A), then shuffles and deals
(:func:`deal`) and opens the first betting round. The whole deal is drawn at once from the
injected random source (:func:`draw`: one uniform integer, no bias) and kept in
``rnd.deck`` in the order drawn, hole cards, burns (ACT r 7.3, 8.4, 9.1; QLD Sch 11 s20)
and board: the deal a table commits to (``server/fair.py``). :func:`turn_board` turns the
communal cards of each betting round as the round reaches it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.cards import DECKS, RandomSource
from server.errors import IllegalAction
from server.games.poker.buck import blind_posters
from server.games.poker.events import (
    BlindKind,
    BlindPosted,
    BoardDealt,
    CardBurned,
    Event,
    FeeCharged,
    HoleCardsDealt,
)

if TYPE_CHECKING:
    from server.games.poker.engine import PokerRound

_BLIND_KINDS: tuple[BlindKind, ...] = ("blind1", "blind2", "blind3")

#: (n, k) -> (n (n-1) ... (n-k+1), the number of ordered draws of k of n cards; the radices
#: n, n-1, ... with their positions, in groups whose product stays below 2**30, each with that
#: product)
_SPANS: dict[tuple[int, int], tuple[int, tuple[tuple[int, tuple[tuple[int, int], ...]], ...]]] = {}


def draw_plan(n: int, k: int) -> tuple[int, tuple[tuple[int, tuple[tuple[int, int], ...]], ...]]:
    """The span and the radix groups of :func:`draw` for ``k`` of ``n`` cards (cached)."""
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


def draw(cards: list[int], k: int, rng: RandomSource) -> None:
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
        plan = _SPANS[n, k] = draw_plan(n, k)
    span, groups = plan
    x = rng.randbelow(span)
    for product, radices in groups:
        x, y = divmod(x, product)
        for i, m in radices:
            j = i + y % m
            y //= m
            cards[i], cards[j] = cards[j], cards[i]


def start(rnd: PokerRound) -> list[Event]:
    """Participation fee (QLD s19), blinds, the deal, and the first turn to act."""
    if rnd._started:
        raise IllegalAction(
            "round_complete" if rnd.complete else "action_not_allowed",
            "the round of play has already started",
        )
    r = rnd.rules
    ev: list[Event] = []
    posters = blind_posters(rnd.rules, rnd.designated, rnd.seats, rnd._first_blind)
    for s in rnd._posts:
        if s not in rnd._idx or s in posters:
            raise ValueError(f"seat {s} cannot make a s23A post (not dealt in, or a blind)")
    rnd._started = True
    if r.participation_fee:
        fee = r.participation_fee
        for s in rnd.seats:
            rnd.stacks[s] -= fee
            rnd.fees += fee
            ev.append(FeeCharged(s, fee))
    if not rnd._first_blind:  # QLD s23(4): the second blind only
        rnd.lb = r.blinds[1]
        ev.append(post(rnd, posters[0], r.blinds[1], "blind2"))
    else:
        rnd.lb = r.blinds[len(posters) - 1]  # ACT digest A-13
        for i, s in enumerate(posters):
            ev.append(post(rnd, s, r.blinds[i], _BLIND_KINDS[i]))
    rnd.blind_seats = posters
    if r.dead_button:
        rnd.second_blind_seat = posters[-1]
        if rnd._first_blind:
            rnd.no_check.add(posters[0])  # QLD s4(1)(a), digest A-15
    for s, amount in sorted(rnd._posts.items()):
        amount = min(amount, rnd.stacks[s])
        live = min(amount, rnd.lb)
        if live:
            ev.append(post(rnd, s, live, "live"))
        if amount > live:  # s23A(4): dead money, main pot
            rnd.stacks[s] -= amount - live
            rnd.dead += amount - live
            rnd.pot += amount - live
            if rnd.stacks[s] == 0:
                rnd.allin.add(s)
                rnd._out.add(s)
                rnd.n_active -= 1
            ev.append(BlindPosted(s, "dead", amount - live, rnd.stacks[s]))
    rnd.cb = rnd.lb  # the call stays at the blind
    rnd.max_wager = rnd.lb
    rnd.opening = rnd.lb
    deal(rnd, ev)
    rnd._begin_betting(ev)
    return ev


def post(rnd: PokerRound, s: int, amount: int, kind: BlindKind) -> BlindPosted:
    """A blind or live post, capped at the stake (ACT digest A-14, QLD A-11, Sch 5 A-10)."""
    stacks = rnd.stacks
    stack = stacks[s]
    if amount >= stack:
        amount = stack
        rnd.allin.add(s)
        rnd._out.add(s)
        rnd.n_active -= 1
    stacks[s] = stack = stack - amount
    rnd.bet[s] += amount
    rnd.contrib[s] += amount
    rnd.pot += amount
    return BlindPosted(s, kind, amount, stack)


def deal(rnd: PokerRound, ev: list[Event]) -> None:
    """Shuffle and deal the hole cards (each seat's event visible to that seat only) and
    draw the board, turned street by street; appends the events to ``ev``."""
    r = rnd.rules
    fh = rnd._fixed_hole
    if fh or rnd._fixed_board:
        fixed = set(rnd._fixed_board)
        for cs in fh.values():
            fixed.update(cs)
        rest = [c for c in DECKS[r.deck_size] if c not in fixed]
    else:
        rest = list(DECKS[r.deck_size])
    need = r.hole_cards * (rnd.n - len(fh))
    need += (len(r.board_schedule) - r.board_schedule.count(0)) * r.burns
    need += max(0, 5 - len(rnd._fixed_board))
    draw(rest, need, rnd._rng)
    rnd.deck = rest
    pos = 0
    d = rnd.designated
    groups: tuple[int, ...]  # cards dealt to each player per pass round the table
    if r.variant == "manila":
        order, groups = rnd.from_(d), ((2, 1) if r.hole_cards == 3 else (2,))
    elif r.jurisdiction == "act":
        order, groups = rnd.from_(d), (1,) * r.hole_cards
    else:
        order, groups = rnd.after(d), (1,) * r.hole_cards
    if not fh and groups[0] == 1:  # one card at a time round the table
        n, k = rnd.n, r.hole_cards
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
    rnd.hole = hole
    board: list[int] = []
    fb = rnd._fixed_board
    burns = rnd._burns if r.burns else None
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
    rnd._board_all = board
    if r.board_schedule[0]:
        turn_board(rnd, 0, ev)


def turn_board(rnd: PokerRound, street: int, ev: list[Event]) -> None:
    """The burn card and the communal cards of betting round ``street`` (0-based)."""
    r = rnd.rules
    n = r.board_schedule[street]
    if not n:
        return
    if r.burns:
        ev.append(CardBurned(cards=(rnd._burns[street],)))
    board = rnd.board
    have = len(board)
    new = tuple(rnd._board_all[have : have + n])
    board.extend(new)
    ev.append(BoardDealt(street + 1, new, tuple(board)))
