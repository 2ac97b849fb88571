"""The terminal client in a deployment of several servers (``server/room/directory.py``).

Joining a table another server serves is followed by :meth:`clients.client.Client.join`
itself (``table_elsewhere``: the connection moves there). This hook handles the other case:
the table's server lost it while we sat there (``left`` with reason ``moved``: it died or
was paused, and another server took the table over, voiding the round in play and sending
the stakes home): the session joins the table again, wherever it is served now.
"""

from __future__ import annotations

from typing import Any, Protocol

from clients.client import Client, ServerError, TableView


class Seated(Protocol):
    client: Client
    tv: TableView

    def say(self, line: str, style: str = "") -> None: ...


async def rejoin_moved(session: Seated, msg: dict[str, Any]) -> bool:
    """``left`` because the table moved: join it again (True), else False."""
    if msg.get("reason") != "moved":
        return False
    table = session.tv.table
    session.say(f"{table} moved to another server: joining it again", "yellow")
    try:
        session.tv = await session.client.join(table)
    except ServerError as exc:
        session.say(f"could not join {table} again: {exc}", "red")
        return False
    session.say(f"back at {table} (served at {session.client.url})", "yellow")
    return True
