"""A banked table's snapshot for one player or spectator (server/tables/views.py): the
table, its boxes and wagers, the round's events the viewer may see (event visibility), the
decisions it owes with their clocks, its last round (recall, Sch 19 s3(2)(f)-(h)), and the
parts' own (jackpot, backers, the deal)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from server.tables.phases import Phase
from server.tables.views import ms_left

if TYPE_CHECKING:
    from server.tables.banked.table import BankedTable, Player


def banked_view(t: BankedTable, player: Player | None) -> dict[str, Any]:
    """What ``player`` (``None``: a spectator) sees of the table ``t`` now."""
    info = t.info()
    now = trio.current_time()
    mine = t.boxes_of(player)
    pending = t.clock.pending_for(player.account, now) if player is not None else []
    betting = t.phase is Phase.BETTING
    return {
        "table": t.table_view(
            info,
            boxes=t.num_boxes,
            betting_seconds=t.table.betting_seconds,
            decision_seconds=t.table.decision_seconds,
            wagers=[
                w
                for w, spec in zip(t.spec.describe()["wagers"], t.spec.wagers, strict=True)
                if spec.offered(t.options)
            ],
            verbs=list(t.spec.verbs),
            bank_box=t.bank_box,
        ),
        "status": "closing" if t.closing else t.phase.value,
        "no_more_bets": not betting,
        "round": t.round_no,
        "round_id": t.round_id,
        "closes_in_ms": ms_left(t.closes_at, now) if betting else 0,
        "boxes": [
            {"box": b, "player": t.name_of(a), "wagers": dict(t.layout.get(b, {}))}
            for b, a in sorted(t.owners.items())
        ],
        "my_boxes": sorted(mine),
        "jackpot": t.desk.view(),
        "round_events": [w for w, vis in t.round_events if t.may_see(vis, player)],
        "pending": pending,
        "last_round": t.last_round.get(player.account) if player else None,
        **(t.backers.view(player.account if player else None) if t.backers else {}),
        **t.dealing.view(),
    }
