"""The cashier and durable accounts over real sockets (issue 9, "Cashier and accounts").

A cashier session (token role ``cashier``) deposits and withdraws, idempotently per request
id; a player session is refused; a withdrawal below zero is refused; production accounts
start at zero; balances and a dev guest's token survive a restart on the same data directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from clients.client import Client, ServerError
from server.room.accounts import Accounts
from server.store.sqlite import SqliteStore
from tests.server.helpers import fast_config, table
from tests.support import running_server

SECRET = "cashier-test-secret"


def _call(op: str, account: str, amount: int, request: str) -> dict[str, object]:
    return {"type": "cashier", "op": op, "account": account, "amount": amount, "request": request}


async def test_cashier_moves_money_in_and_out_once_per_request(tmp_path: Path) -> None:
    accounts = Accounts(SECRET)
    cashier = accounts.issue("till-1", "Till 1", role="cashier")
    player = accounts.issue("ann", "Ann")
    config = fast_config(table("holdem-act"), secret=SECRET, data=tmp_path / "var")
    async with running_server(config) as server:
        async with Client.connect(server.url, token=player) as ann:
            assert ann.welcome["balance"] == 0  # production accounts start at zero
            with pytest.raises(ServerError) as refused:
                await ann.request(_call("deposit", "ann", 100, "x1"), "cashier")
            assert refused.value.code == "not_authorized"
        async with Client.connect(server.url, token=cashier) as till:
            done = await till.request(_call("deposit", "ann", 50_000, "r-1"), "cashier")
            assert done["balance"] == 50_000 and done["repeated"] is False
            again = await till.request(_call("deposit", "ann", 50_000, "r-1"), "cashier")
            assert again["balance"] == 50_000 and again["repeated"] is True
            with pytest.raises(ServerError) as short:
                await till.request(_call("withdraw", "ann", 50_001, "r-2"), "cashier")
            assert short.value.code == "insufficient_funds"
            assert "$500.00" in short.value.message["message"]
            out = await till.request(_call("withdraw", "ann", 20_000, "r-3"), "cashier")
            assert out["balance"] == 30_000
            seen = await till.request(_call("balance", "ann", 0, "r-4"), "cashier")
            assert seen["balance"] == 30_000
        assert server.croupier.money()["issued"] == 30_000
    # a restart on the same data directory: the balance is as it was, the request id still once
    async with running_server(config) as server:
        async with Client.connect(server.url, token=player) as ann:
            assert ann.welcome["balance"] == 30_000
        async with Client.connect(server.url, token=cashier) as till:
            again = await till.request(_call("deposit", "ann", 50_000, "r-1"), "cashier")
            assert again["repeated"] is True and again["balance"] == 30_000


async def test_a_dev_guest_keeps_its_token_and_wallet_across_a_restart(tmp_path: Path) -> None:
    config = fast_config(table("holdem-act"), data=tmp_path / "var", starting_balance=12_345)
    async with running_server(config) as server:
        async with Client.connect(server.url, name="gus") as gus:
            token = gus.token
            assert gus.welcome["balance"] == 12_345
            await gus.join("holdem-act-t")
            await gus.buy_in("holdem-act-t", 5_000)
    async with running_server(config) as server:
        async with Client.connect(server.url, token=token) as gus:
            # the same account, no second starting balance, the stake came home at shutdown
            assert gus.welcome["balance"] == 12_345
        assert server.croupier.money()["issued"] == 12_345


async def test_the_cashier_command_acts_with_its_own_token_file(tmp_path: Path) -> None:
    """Issue 23: ``croupier cashier --token-file PATH`` (a named cashier's token, issued by
    ``croupier admin token issue``): the deposit is made, and audited under that name;
    without a token a production command line refuses in one line."""
    from tests.server.test_operator import croupier

    till = tmp_path / "till.token"
    issue = ("admin", "token", "issue", "--account", "till-1", "--name", "Tina Till")
    issued = await trio.to_thread.run_sync(
        lambda: croupier(
            *issue, "--role", "cashier", "--out", str(till), env={"CROUPIER_SECRET": SECRET}
        )
    )
    assert issued.returncode == 0, issued.stderr
    config = fast_config(table("holdem-act"), secret=SECRET, data=tmp_path / "var")
    async with running_server(config) as server:
        url = ("--url", server.url)
        done = await trio.to_thread.run_sync(
            lambda: croupier("cashier", "deposit", "ann", "50", *url, "--token-file", str(till))
        )
        assert done.returncode == 0 and done.stdout.strip() == "ann: $50.00", done.stderr
        assert done.stderr == ""  # no secret on the command line: no warning
        nobody = await trio.to_thread.run_sync(
            lambda: croupier(
                "cashier", "deposit", "ann", "50", *url, env={"CROUPIER_SECRET": SECRET}
            )
        )
        assert nobody.returncode == 2 and len(nobody.stderr.splitlines()) == 1, nobody.stderr
        assert "staff act under their own names" in nobody.stderr
        assert server.croupier.ledger.balance("ann") == 5_000  # the refused call moved nothing
    store = SqliteStore(tmp_path / "var", lock=False, readonly=True)
    try:
        entries = store.audit_entries()
    finally:
        store.close()
    assert [(e["who"], e["name"], e["role"], e["action"], e["outcome"]) for e in entries] == [
        ("till-1", "Tina Till", "cashier", "deposit", "done")
    ]
    assert entries[0]["account"] == "ann" and entries[0]["asked"]["amount"] == 5_000
