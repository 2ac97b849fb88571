"""The staff console's reads over real sockets (issue 28, point 1; server/net/staff.py): each
query refused to the roles that may not read it, the live floor, the audit log filtered,
an account found with its rounds and cashier movements, and the books' check."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import trio

from clients.client import Client, ServerError
from server.config import TableConfig
from server.net.staff import QUERY_ROLES
from server.room.accounts import Accounts
from tests.server.helpers import fast_config, table
from tests.support import running_server

SECRET = "staff-secret"
ACCOUNTS = Accounts(SECRET)
T = "holdem-act-t"
BJ = "bj-t"


def staff(query: str, **fields: Any) -> dict[str, Any]:
    return {"type": "staff", "query": query, **fields}


async def floor_until(client: Client, pred: Any) -> list[dict[str, Any]]:
    """The pushed floors, until one satisfies ``pred`` (a safety-net timeout only)."""
    with trio.fail_after(20):
        while True:
            msg = await client.recv()
            if msg["type"] == "staff" and msg["query"] == "floor" and pred(msg["data"]):
                return list(msg["data"])


@pytest.mark.parametrize("role", ["player", "dealer", "cashier", "supervisor"])
async def test_each_query_is_refused_to_the_roles_that_may_not_read_it(
    role: str, tmp_path: Path
) -> None:
    config = fast_config(table("holdem-act"), secret=SECRET, data=tmp_path / "var")
    async with running_server(config) as server:
        token = ACCOUNTS.issue(f"{role}-1", role.title(), role=role)
        async with Client.connect(server.url, token=token) as c:
            for query, roles in QUERY_ROLES.items():
                try:
                    await c.request(staff(query), "staff")
                    refused = None
                except ServerError as exc:
                    refused = exc.code
                assert (refused == "not_authorized") == (role not in roles), (role, query)
    assert "player" not in set().union(*QUERY_ROLES.values())


def blackjack() -> TableConfig:
    """A blackjack table whose round waits a minute for a decision: a round stays in play."""
    return TableConfig(
        id=BJ,
        game="blackjack",
        options={"minimum": 100, "maximum": 5_000},
        seed=7,
        betting_seconds=0.3,
        decision_seconds=60.0,
    )


def row(data: list[dict[str, Any]], table_id: str) -> dict[str, Any]:
    return next(r for r in data if r["id"] == table_id)


async def test_watched_floor_void_audit_account_and_ledger_check(tmp_path: Path) -> None:
    config = fast_config(
        table("holdem-act"), blackjack(), secret=SECRET, data=tmp_path / "var", round_pause=0.5
    )
    async with running_server(config) as server:
        sue = ACCOUNTS.issue("sue", "Sue Park", role="supervisor")
        tom = ACCOUNTS.issue("tom", "Tom Till", role="cashier")
        async with (
            Client.connect(server.url, token=sue) as boss,
            Client.connect(server.url, token=tom) as cashier,
        ):
            first = await boss.request(staff("floor", watch=True), "staff")
            assert [r["id"] for r in first["data"]] == [T, BJ]
            assert row(first["data"], T)["kind"] == "poker"
            assert row(first["data"], BJ)["round"] is None
            for who in ("ann", "bob"):
                done = await cashier.request(
                    {
                        "type": "cashier",
                        "op": "deposit",
                        "account": who,
                        "amount": 50_000,
                        "request": f"in-{who}",
                    },
                    "cashier",
                )
                assert done["balance"] == 50_000
            async with Client.connect(server.url, token=ACCOUNTS.issue("ann", "Ann")) as ann:
                await ann.join(BJ)
                await ann.request(
                    {"type": "wager", "table": BJ, "box": 1, "wager": "main", "amount": 500},
                    "balance",
                )
                # pushed, unasked: the round in play with Ann seated
                rows = await floor_until(boss, lambda d: row(d, BJ)["round"] is not None)
                assert row(rows, BJ)["seated"] == ["Ann"]
                voided = await boss.request(
                    {"type": "operator", "action": "void_round", "table": BJ, "reason": "misdeal"},
                    "operator",
                )
                assert sum(voided["effect"]["returned"].values()) == 500  # the refund
                rows = await floor_until(
                    boss, lambda d: (row(d, BJ)["last"] or {}).get("state") == "voided"
                )
            audit = await boss.request(staff("audit", action="void_round"), "staff")
            [entry] = audit["data"]["entries"]
            assert entry["name"] == "Sue Park" and entry["outcome"] == "done"
            assert entry["reason"] == "misdeal" and entry["table"] == BJ
            now = time.time()
            for filters, matched in (
                ({"table": BJ}, 1),
                ({"outcome": "refused"}, 0),
                ({"since": now - 600, "until": now + 600}, 3),
                ({"since": now + 600}, 0),
                ({"until": now - 600}, 0),
            ):
                read = await boss.request(staff("audit", **filters), "staff")
                assert read["data"]["matched"] == matched, filters
            mine = await boss.request(staff("audit", who="Tom Till", limit=1), "staff")
            assert mine["data"]["matched"] == 2 and len(mine["data"]["entries"]) == 1
            assert mine["data"]["entries"][0]["account"] == "bob"  # newest first
            found = await cashier.request(staff("account", account="an"), "staff")
            acct = found["data"]["account"]
            assert acct["account"] == "ann" and acct["suspended"] is False
            assert acct["balance"] == 50_000  # the void returned her wager
            assert [m["op"] for m in acct["cashier"]] == ["deposit"]
            assert acct["cashier"][0]["by"] == "Tom Till"
            assert acct["rounds"] and acct["rounds"][0]["state"] == "voided"
            check = await boss.request(staff("ledger_check"), "staff")
            assert check["data"]["balanced"] is True, check["data"]["problems"]


def test_a_deployments_floor_names_the_server_of_each_table_it_does_not_run() -> None:
    """In a deployment the floor lists the other servers' tables too, from their published
    lobby rows, each with its server's URL (the console links to that server's console)."""
    from types import SimpleNamespace

    from protocol.messages import TableInfo
    from server.net.staff import StaffDesk

    row = TableInfo(
        id="bac-2",
        name="Baccarat 2",
        game="baccarat",
        description="",
        stakes={"minimum": 500, "maximum": 50_000},
        min_buy_in=0,
        max_buy_in=None,
        seats=7,
        taken=3,
        spectators=1,
        url="ws://10.0.0.2:8765/ws",
    )
    entry = SimpleNamespace(config=TableConfig(id="bac-2", game="baccarat", kind="banked"))
    directory = SimpleNamespace(lobby=lambda local: [row], entries={"bac-2": entry})
    router = SimpleNamespace(tables={}, table_order={}, directory=directory)
    [elsewhere] = StaffDesk(router).floor()  # type: ignore[arg-type]
    assert elsewhere["phase"] == "elsewhere" and elsewhere["url"] == "ws://10.0.0.2:8765/ws"
    assert elsewhere["kind"] == "banked" and elsewhere["limits"]["minimum"] == 500
