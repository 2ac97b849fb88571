"""Operator controls over real sockets (issue 10, item 5): each control against each role,
its effect on the table, and its entry in the audit log."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from clients.client import Client, ServerError
from server.accounts import Accounts
from tests.server.helpers import fast_config, is_event, running_server, table, until
from tests.shared import REPO

SECRET = "operator-secret"
T = "holdem-act-t"
ACCOUNTS = Accounts(SECRET)
CONTROLS: dict[str, dict[str, Any]] = {
    "close_table": {"table": T},
    "open_table": {"table": T},
    "set_limits": {"table": T, "limits": {"blind_1": 200, "blind_2": 400}},
    "void_round": {"table": T},
    "correct_result": {"table": T, "result": {"number": 17}},
    "approve_jackpot": {"table": T},
    "suspend": {"account": "nobody"},
    "unsuspend": {"account": "nobody"},
}
MANAGER_ONLY = {"approve_jackpot", "suspend", "unsuspend"}
#: table staff of stadium tables: a correction only (general.md §4: not manager-only)
CORRECTORS = {"dealer", "boxperson"}


def op(action: str, **fields: Any) -> dict[str, Any]:
    return {"type": "operator", "action": action, "reason": f"test {action}", **fields}


async def _fund(server: Any, *accounts: str) -> None:
    for account in accounts:
        server.croupier.ledger.deposit(account, 1_000_000)


@pytest.mark.parametrize(
    "role",
    ["player", "cashier", "dealer", "stickperson", "boxperson", "supervisor", "manager"],
)
async def test_each_control_is_refused_to_the_wrong_role(role: str, tmp_path: Path) -> None:
    config = fast_config(table("holdem-act"), secret=SECRET, data=tmp_path / "var")
    async with running_server(config) as server:
        token = ACCOUNTS.issue(f"{role}-1", role.title(), role=role)
        async with Client.connect(server.url, token=token) as staff:
            for action, fields in CONTROLS.items():
                may = (
                    role == "manager"
                    or (role == "supervisor" and action not in MANAGER_ONLY)
                    or (role in CORRECTORS and action == "correct_result")
                )
                try:
                    await staff.request(op(action, **fields), "operator")
                    refused = None
                except ServerError as exc:
                    refused = exc.code
                if not may:
                    assert refused == "not_authorized", (role, action)
                else:
                    assert refused != "not_authorized", (role, action)
    audit = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "admin",
            "audit",
            "--data",
            str(tmp_path / "var"),
            "--json",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    entries = [json.loads(line) for line in audit.stdout.splitlines()]
    assert [e["action"] for e in entries] == list(CONTROLS)  # every control, applied or not
    assert all(e["who"] == f"{role}-1" and e["role"] == role and e["why"] for e in entries)
    if role in ("player", "cashier"):
        assert all(e["outcome"] == "refused: role" for e in entries)


async def test_close_void_limits_and_open_act_on_the_table(tmp_path: Path) -> None:
    config = fast_config(table("holdem-act", seats=2), secret=SECRET, data=tmp_path / "var")
    async with running_server(config) as server:
        await _fund(server, "ann", "bob")
        sup = ACCOUNTS.issue("sue", "Sue", role="supervisor")
        async with (
            Client.connect(server.url, token=ACCOUNTS.issue("ann", "Ann")) as ann,
            Client.connect(server.url, token=ACCOUNTS.issue("bob", "Bob")) as bob,
            Client.connect(server.url, token=sup) as sue,
        ):
            for p in (ann, bob):
                await p.join(T)
                await p.buy_in(T, 10_000)
            await until(ann, is_event("round_starting"))
            # a void: every wager back, the stakes as they were
            done = await sue.request(op("void_round", table=T), "operator")
            assert "void" in done["detail"]
            await until(ann, is_event("round_voided"))
            # new limits: announced now, in force from the next round
            await sue.request(
                op("set_limits", table=T, limits={"blind_1": 200, "blind_2": 400}), "operator"
            )
            notice = await until(ann, is_event("table_notice", action="set_limits"))
            assert notice["event"]["limits"] == {"blind_1": 200, "blind_2": 400}
            posted = await until(
                ann,
                lambda m: (
                    m["type"] == "event"
                    and m["event"]["type"] == "blind_posted"
                    and m["event"]["kind"] == "blind2"
                ),
            )
            assert posted["event"]["amount"] == 400
            # closing: notice, no new round, seats vacated with their stakes home
            await sue.request(op("close_table", table=T), "operator")
            await until(ann, is_event("table_notice", action="close_table"))
            left = await until(ann, lambda m: m["type"] == "left")
            assert left["reason"] == "table_closed" and left["returned"] > 0
            with pytest.raises(ServerError) as closed:
                await ann.join(T)
            assert closed.value.code == "shutting_down"
            await sue.request(op("open_table", table=T), "operator")
            await ann.join(T)  # open again
            with pytest.raises(ServerError) as nothing:
                await sue.request(op("correct_result", table=T, result={"x": 1}), "operator")
            # a supervisor may correct (general.md §4), but a poker table has no result to
            assert nothing.value.code == "not_supported"
        money = server.croupier.money()
        assert money["issued"] == money["wallets"] + money["stakes"] + money["commission"]


async def test_suspend_refuses_the_account_and_vacates_its_seat(tmp_path: Path) -> None:
    config = fast_config(table("holdem-act"), secret=SECRET, data=tmp_path / "var")
    ann_token = ACCOUNTS.issue("ann", "Ann")
    async with running_server(config) as server:
        await _fund(server, "ann")
        mgr = ACCOUNTS.issue("max", "Max", role="manager")
        async with Client.connect(server.url, token=mgr) as boss:
            async with Client.connect(server.url, token=ann_token) as ann:
                await ann.join(T)
                await ann.buy_in(T, 10_000)
                await boss.request(op("suspend", account="ann"), "operator")
                with trio.fail_after(5), pytest.raises(Exception):  # noqa: B017 - dropped
                    while True:
                        await ann.recv()
            with pytest.raises(ServerError) as refused:
                async with Client.connect(server.url, token=ann_token):
                    pass
            assert refused.value.code == "bad_token"
            with trio.fail_after(5):
                while server.croupier.tables[T].members:
                    await trio.sleep(0.02)
            assert server.croupier.ledger.balance("ann") == 1_000_000  # the stake came home
            await boss.request(op("unsuspend", account="ann"), "operator")
            async with Client.connect(server.url, token=ann_token):
                pass


async def test_act_2017_jackpot_reopens_only_when_a_manager_approves() -> None:
    """ACT 2017 r 14.5: after the jackpot system was down, jackpot wagers reopen only with a
    manager's approval (Canberra Poker 2017's default ``jackpot_reopen``)."""
    from server.config import TableConfig
    from server.tables.banked import APPROVAL_TEXT, JackpotAvailability

    cp = TableConfig(
        id="cp17",
        game="canberra-poker-2017",
        options={"minimum": 500, "maximum": 50000, "jackpot_wager": 100},
        jackpot_pool="cp17-pool",
    )
    async with running_server(fast_config(cp, secret=SECRET)) as server:
        tbl = server.croupier.tables["cp17"]
        mgr = ACCOUNTS.issue("max", "Max", role="manager")
        async with (
            Client.connect(server.url, token=mgr) as boss,
            Client.connect(server.url, token=ACCOUNTS.issue("viv", "Viv")) as viv,
        ):
            await viv.join("cp17", role="spectator")
            with pytest.raises(ServerError):  # nothing awaits approval yet
                await boss.request(op("approve_jackpot", table="cp17"), "operator")
            tbl.submit(JackpotAvailability(False))
            await until(viv, is_event("jackpot_status", open=False))
            tbl.submit(JackpotAvailability(True))  # the pool answers again
            held = await until(viv, is_event("jackpot_status", status=APPROVAL_TEXT))
            assert held["event"]["open"] is False and not tbl.jackpot_open
            done = await boss.request(op("approve_jackpot", table="cp17"), "operator")
            assert "open" in done["detail"]
            await until(viv, is_event("jackpot_status", open=True))
            assert tbl.jackpot_open
