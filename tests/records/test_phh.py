"""PHH export (issue 10 item 3): pokerkit's ``HandHistory`` loads every exported hand and
replays it to our final stacks, commission accounted for, over 200+ recorded hands of
no-limit hold'em and pot-limit Omaha with side pots and all-ins."""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path

from pokerkit import HandHistory

from server.records import phh
from server.records.history_cli import read_rounds


def test_pokerkit_replays_every_exported_hand_to_our_stacks(recorded: Path) -> None:
    rounds = {r.ref: r for r in read_rounds(recorded, None, None)}
    text = phh.export(list(rounds.values()))
    hands = list(HandHistory.loads_all(text))
    assert len(hands) == sum(phh.hand(r) is not None for r in rounds.values())
    exact: Counter[str] = Counter()
    split = allin = side = 0
    for hh in hands:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            final = list(list(hh)[-1].stacks)
        extra = hh.user_defined_fields
        ours = [a + c for a, c in zip(hh.finishing_stacks, extra["_commission"], strict=True)]
        rnd = rounds[extra["_round"]]
        events = rnd.of("event")
        allin += any(e["type"] == "action_taken" and e["stack"] == 0 for e in events)
        side += sum(e["type"] == "pot_awarded" for e in events) > 1
        assert sum(final) == sum(ours) == sum(hh.starting_stacks)
        if final == ours:
            exact[hh.variant] += 1
            continue
        # a split pot: pokerkit divides the whole pot in cents, we divide it less commission
        # in the table's chip unit (ACT r 9.4, r 11.3): the sharers' total is the same
        seats = hh.seats
        sharers = {
            seats.index(int(s))
            for e in events
            if e["type"] == "pot_awarded" and len(e["shares"]) > 1
            for s in e["shares"]
        }
        differ = {i for i, (a, b) in enumerate(zip(final, ours, strict=True)) if a != b}
        assert differ and differ <= sharers, (hh.actions, final, ours)
        split += 1
    assert exact["NT"] >= 200 and exact["PO"] >= 200, exact
    assert allin >= 50 and side >= 10 and split < len(hands) // 10, (allin, side, split)
    assert any(c for hh in hands for c in hh.user_defined_fields["_commission"])
