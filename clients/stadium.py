"""Stadium table verbs for :class:`clients.client.Client` (protocol/README.md "Stadium tables").

A terminal buys credits onto its meter (``credit_in``), places wagers on layout positions
during the betting window (``place``: the wager's new total; 0 withdraws), collects riding
wagers and cashes out; staff enter and correct results. Each function sends one message and
waits for its answer (``bet_ack``, ``credit_meter``...), keeping other messages for later.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clients.client import Client, Message, ServerError


async def until_event(
    client: Client,
    table: str,
    kind: str,
    ref: str | None = None,
    where: Callable[[dict[str, Any]], bool] = lambda event: True,
) -> dict[str, Any]:
    """The next ``kind`` event of ``table`` matching ``where`` (an error whose ``ref`` is
    ``ref`` raises); everything else received meanwhile is kept for :meth:`Client.recv`."""
    kept: list[Message] = []
    try:
        while True:
            if client._pending:  # messages kept by an earlier wait come first, in order
                reply = client._pending.popleft()
            else:
                reply = client._track(await client._recv_raw())
            if ref is not None and reply.get("type") == "error" and reply.get("ref") == ref:
                raise ServerError(reply)
            event = reply.get("event") if reply.get("type") == "event" else None
            if (
                event is not None
                and reply.get("table") == table
                and event.get("type") == kind
                and where(event)
            ):
                return dict(event)
            kept.append(reply)
    finally:
        client._pending.extendleft(reversed(kept))


async def credit_in(client: Client, table: str, amount: int, device_ref: str | None = None) -> int:
    """Buy credits from the wallet; returns the credit meter."""
    msg: Message = {"type": "credit_in", "table": table, "amount": amount}
    if device_ref is not None:
        msg["device_ref"] = device_ref
    await client.send(msg)
    return int((await until_event(client, table, "credit_meter", "credit_in"))["credits"])


async def place(client: Client, table: str, position: str, amount: int) -> dict[str, Any]:
    """Set a wager to ``amount`` (0 withdraws); returns the ``bet_ack`` (raises if refused)."""
    await client.send({"type": "place", "table": table, "position": position, "amount": amount})
    return await until_event(client, table, "bet_ack", "place")


async def marker(client: Client, table: str, position: str, on: bool) -> dict[str, Any]:
    await client.send({"type": "marker", "table": table, "position": position, "on": on})
    return await until_event(client, table, "bet_ack", "marker")


async def collect(client: Client, table: str) -> dict[str, Any]:
    await client.send({"type": "collect", "table": table})
    return await until_event(client, table, "bet_ack", "collect")


async def cash_out(client: Client, table: str) -> dict[str, Any]:
    await client.send({"type": "cash_out", "table": table})
    return await until_event(client, table, "cashed_out", "cash_out")


async def enter_result(client: Client, table: str, outcome: dict[str, Any]) -> None:
    """Staff: the round's result (no reply: watch for ``round_result`` or an error)."""
    await client.send({"type": "result", "table": table, "outcome": outcome})


async def correct_result(
    client: Client, table: str, round_no: int, outcome: dict[str, Any], reason: str
) -> dict[str, Any]:
    """Staff, through the operator channel (audited): re-settle ``round_no``; returns the
    ``result_corrected`` event."""
    await client.send(
        {
            "type": "operator",
            "action": "correct_result",
            "table": table,
            "result": {"round": round_no, **outcome},
            "reason": reason,
        }
    )
    return await until_event(client, table, "result_corrected", "operator")


async def set_limits(
    client: Client, table: str, limits: dict[str, int], reason: str
) -> dict[str, Any]:
    """Supervisor or manager, through the operator channel (audited): new limits for the
    table (or ``limits["terminal"]``'s) after notice; returns the ``operator`` reply (its
    ``detail`` says from which round); the table announces ``limits_notice``."""
    return await client.request(
        {
            "type": "operator",
            "action": "set_limits",
            "table": table,
            "limits": limits,
            "reason": reason,
        },
        "operator",
    )
