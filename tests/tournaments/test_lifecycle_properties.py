"""Property tests over random tournaments (every example's conditions, random entries,
no-shows, eliminations, buy-backs, session ends and cancellations): the books always balance,
a completed tournament pays exactly its pool (fees less commission, forfeits included) and
places every player who took part once, a cancelled one refunds every cent it took, and
tables stay balanced where the conditions balance them."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource
from server.tournaments.conditions import Conditions, load
from server.tournaments.lifecycle import (
    Finished,
    Phase,
    Step,
    Tournament,
    TournamentError,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "tournaments"
EXAMPLES = [load(p) for p in sorted(DOCS.glob("*.toml"))]


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(EXAMPLES),
    st.integers(0, 2**32),
    st.floats(0, 1),
    st.integers(0, 400),
)
def test_random_tournaments_keep_the_books(
    conditions: Conditions, seed: int, no_show: float, cancel_at: int
) -> None:
    rng = random.Random(seed)
    t = Tournament(conditions, SeededRandomSource(seed))
    balances: Counter[str] = Counter()
    placed: list[str] = []
    commands = 0

    def book(step: Step) -> None:
        nonlocal commands
        commands += 1
        for tr in step.transfers:
            balances[tr.source] -= tr.amount
            balances[tr.target] += tr.amount
        for e in step.events:
            if isinstance(e, Finished):
                placed.extend(e.players)
        assert sum(balances.values()) == 0

    book(t.open_registration())
    n = conditions.sit_and_go or rng.randint(conditions.min_players, conditions.max_players)
    for i in range(n):
        book(t.register(f"p{i}"))
    if t.phase is Phase.REGISTERING:
        book(t.close_registration())
    while t.phase not in (Phase.COMPLETE, Phase.CANCELLED):
        if commands >= cancel_at:
            book(t.cancel("test"))
            break
        if t.phase is Phase.SEATING:
            waiting = [p for p, s in t.status.items() if s == "entered"]
            for p in waiting:
                if rng.random() >= no_show / 2 or len(waiting) < 4:
                    t.take_seat(p)
            try:
                book(t.start())
            except TournamentError as exc:
                assert exc.code == "too_few"
                book(t.cancel("too few"))
            continue
        left = t.playing
        roll = rng.random()
        out = [p for p, s in t.status.items() if s == "out"]
        if roll < 0.1 and out:
            try:
                book(t.buy_back(rng.choice(out), level=rng.randint(1, 8)))
            except TournamentError as exc:
                assert exc.code in ("no_buy_back", "no_seat")
        elif roll < 0.2 or (len(left) <= 2 and t.session < len(conditions.sessions)):
            chips = {p: rng.randrange(0, 3) * 100 for p in left}
            if conditions.rulebook.poker:
                chips[left[0]] += t.issued - sum(chips.values())
            book(t.end_session(chips))
        else:
            gone = rng.sample(left, rng.randint(1, min(3, len(left) - 1)))
            book(t.eliminate({p: rng.randrange(1, 5) for p in gone}))
            if t.phase is Phase.RUNNING:
                book(t.rebalance())
                if conditions.balances:
                    counts = [len(tb.players) for tb in t.tables]
                    assert max(counts) - min(counts) <= 1
    pool = f"tournament:{t.id}:pool"
    commission = f"tournament:{t.id}:commission"
    if t.phase is Phase.CANCELLED:
        assert all(v == 0 for v in balances.values())
    else:
        assert balances[pool] == 0
        assert balances[commission] == conditions.commission * len(t.entries)
        assert -sum(v for k, v in balances.items() if k.startswith("wallet:")) == (
            conditions.commission * len(t.entries)
        )
        took_part = [p for p, s in t.status.items() if s != "forfeited"]
        assert sorted(placed) == sorted(took_part)
