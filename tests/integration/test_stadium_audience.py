"""Who hears a stadium table's events (QLD Sch 19; server/tables/stadium/events.py): a
terminal's comings and goings reach staff screens only, a terminal's own figures reach it
alone, a round's events reach everyone. Driven through the table's own handlers."""

from __future__ import annotations

from typing import Any

import trio

from protocol import messages as wire
from server.config import ServerConfig, TableConfig
from server.store.ledger import Ledger
from server.store.memory import MemoryStore
from server.tables.base import Detach, TableCommand
from server.tables.connection import Connection
from server.tables.stadium import StadiumTable


def conn(account: str, role: str = "player") -> Connection:
    c = Connection(100_000)
    c.account, c.name, c.role = account, account, role
    return c


def events(c: Connection) -> list[dict[str, Any]]:
    """The events queued for ``c`` so far (taken)."""
    out: list[dict[str, Any]] = []
    while True:
        try:
            frame = c.outbox.receive_nowait()
        except trio.WouldBlock:
            return out
        out += getattr(frame, "events", [])


async def test_terminal_lifecycle_reaches_staff_only_and_a_meter_its_terminal_alone() -> None:
    wallet = Ledger(MemoryStore())
    table = StadiumTable(
        TableConfig(id="t", game="roulette", kind="stadium", result_source="dealer", seed=1),
        ServerConfig(),
        wallet,
    )
    ann, bob, staff = conn("ann"), conn("bob"), conn("sue", "dealer")
    for c in (ann, bob):
        wallet.open(c.account or "", 10_000)
        table.dispatch(TableCommand(c, wire.Join(table="t")))
    table.dispatch(TableCommand(staff, wire.Join(table="t", role="spectator")))
    table.flush()
    for c in (ann, bob, staff):
        events(c)

    table.dispatch(TableCommand(ann, wire.CreditIn(table="t", amount=1_000)))
    table.dispatch(Detach(ann))
    table.dispatch(TableCommand(bob, wire.Leave(table="t")))
    table.flush()

    assert [e["type"] for e in events(bob)] == []  # ann's meter and connection: not bob's
    seen = {e["type"]: e for e in events(staff)}
    assert set(seen) == {"connection", "terminal_left"}
    assert seen["connection"]["connected"] is False
    assert seen["terminal_left"]["reason"] == "left"
