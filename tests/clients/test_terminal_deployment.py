"""The terminal client's deployment hook (clients/terminal/deployment.py): a table that moved
to another server (``left`` with reason ``moved``) is joined again; any other ``left`` ends
the session as before."""

from __future__ import annotations

from typing import Any, cast

from clients.client import Client, TableView
from clients.terminal.deployment import rejoin_moved


class FakeClient:
    """Answers ``join`` with a fresh snapshot, as Client.join does after a redirect."""

    url = "ws://127.0.0.1:2/ws"

    def __init__(self) -> None:
        self.joined: list[str] = []

    async def join(self, table: str) -> TableView:
        self.joined.append(table)
        return TableView({"table": table, "role": "player", "seat": 1, "seq": 1, "view": {}})


class Session:
    def __init__(self) -> None:
        self.client = cast(Client, FakeClient())
        self.tv = TableView({"table": "t1", "role": "player", "seat": 2, "seq": 9, "view": {}})
        self.said: list[str] = []

    def say(self, line: str, style: str = "") -> None:
        self.said.append(line)


async def test_a_table_that_moved_is_joined_again() -> None:
    session = Session()
    moved: dict[str, Any] = {"type": "left", "table": "t1", "seq": 10, "returned": 0}
    assert await rejoin_moved(session, {**moved, "reason": "moved"})
    assert cast(FakeClient, session.client).joined == ["t1"]
    assert session.tv.seq == 1 and session.tv.seat == 1  # the new server's snapshot
    assert "served at ws://127.0.0.1:2/ws" in session.said[-1]
    assert not await rejoin_moved(session, {**moved, "reason": "left"})
    assert cast(FakeClient, session.client).joined == ["t1"]
