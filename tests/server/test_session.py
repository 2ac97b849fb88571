"""Sessions, lobby, seats and table stakes, over real sockets on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from dataclasses import replace

import pytest
import trio

from clients.client import Client, ServerError
from server.config import load_tables
from server.room.accounts import Accounts, BadToken
from server.store.ledger import Ledger
from server.store.memory import MemoryStore
from server.store.model import InsufficientFunds
from tests.server.helpers import GAMES, fast_config, table
from tests.support import running_server


def test_tokens_are_signed_and_expire():
    accounts = Accounts("s3cret", ttl=60)
    token = accounts.issue("ann", "Ann", now=1000)
    assert accounts.verify(token, now=1030).account == "ann"
    with pytest.raises(BadToken):
        accounts.verify(token, now=1061)
    with pytest.raises(BadToken):
        Accounts("other").verify(token, now=1030)
    body, sig = token.split(".")
    with pytest.raises(BadToken):
        accounts.verify(body + "x." + sig, now=1030)
    with pytest.raises(BadToken):
        accounts.verify("garbage", now=1030)


def test_ledger_moves_integer_cents_only():
    ledger = Ledger(MemoryStore())
    ledger.open("ann", 500)
    with pytest.raises(InsufficientFunds):
        ledger.withdraw("ann", 501)
    with pytest.raises(ValueError):
        ledger.deposit("ann", 1.5)  # type: ignore[arg-type]
    assert ledger.withdraw("ann", 200) == 300 and ledger.deposit("ann", 50) == 350
    assert ledger.total() == 350 and ledger.issued == 350


async def test_guest_session_lobby_and_token_resume():
    """Dev mode hands out a guest with a starting balance; its token names it again."""
    config = fast_config(*(table(g) for g in GAMES))
    async with running_server(config) as server:
        async with Client.connect(server.url, name="ann") as ann:
            assert ann.welcome["dev"] is True
            assert ann.welcome["balance"] == config.starting_balance
            lobby = await ann.lobby()
            assert sorted(t["game"] for t in lobby) == sorted(GAMES)
            row = next(t for t in lobby if t["game"] == "holdem-qld")
            assert row["min_buy_in"] == 4000 and row["max_buy_in"] == 40000
            assert row["seats"] == 9 and row["taken"] == 0
            await ann.join("holdem-qld-t", seat=4)
            assert await ann.buy_in("holdem-qld-t", 5000) == config.starting_balance - 5000
            token = ann.token
        # the seat is held (grace); the token resumes the same account and its seat
        async with Client.connect(server.url, token=token) as again:
            assert again.account == ann.account
            assert again.welcome["seated"] == ["holdem-qld-t"]
            assert again.welcome["balance"] == config.starting_balance - 5000
            view = await again.join("holdem-qld-t")
            assert view.seat == 4 and view.stake == 5000
            left = await again.leave("holdem-qld-t")
            assert left["returned"] == 5000
            assert (await again.ping(3))["nonce"] == 3
            lobby = await again.lobby()
            assert next(t for t in lobby if t["id"] == "holdem-qld-t")["taken"] == 0
            # the stake went home: the wallet is whole again
            while again.balance != config.starting_balance:
                await again.recv()


async def test_welcome_lists_every_held_seat_in_lobby_order():
    """``welcome.seated`` names each table where the account holds a seat (from the server's
    account -> tables index), in lobby order; a seat given up is no longer listed."""
    config = fast_config(*(table(g) for g in GAMES))
    async with running_server(config) as server:
        async with Client.connect(server.url, name="bob") as bob:
            for g in ("omaha-qld", "holdem-act", "manila-act"):
                await bob.join(f"{g}-t", seat=2)
            await bob.leave("holdem-act-t")
            token = bob.token
        async with Client.connect(server.url, token=token) as again:
            order = [t["id"] for t in await again.lobby()]
            expected = [t for t in order if t in ("omaha-qld-t", "manila-act-t")]
            assert again.welcome["seated"] == expected


async def test_hello_rules():
    """hello first, once, with protocol 1 and a valid token; a server with a secret has no
    guests."""
    async with running_server(fast_config(table("holdem-act"))) as server:
        async with Client.connect(server.url, hello=False) as c:
            with pytest.raises(ServerError) as err:
                await c.request({"type": "lobby"}, "lobby")
            assert err.value.code == "hello_required"
            with pytest.raises(ServerError) as err:
                await c.request({"type": "hello", "protocol": 2}, "welcome")
            assert err.value.code == "protocol_version"
            with pytest.raises(ServerError) as err:
                await c.hello(token="abc.def")
            assert err.value.code == "bad_token"
            await c.hello()
            with pytest.raises(ServerError) as err:
                await c.hello()
            assert err.value.code == "already_hello"
    secure = replace(fast_config(table("holdem-act")), secret="s3cret")
    async with running_server(secure) as server:
        async with Client.connect(server.url, hello=False) as c:
            with pytest.raises(ServerError) as err:
                await c.hello()
            assert err.value.code == "guests_disabled"
            token = Accounts("s3cret").issue("carol", "Carol")
            welcome = await c.hello(token=token)
            assert welcome["account"] == "carol" and welcome["dev"] is False


async def test_seats_and_table_stakes():
    """Seat errors; buy-in within the limits (QLD Sch 11 s18(3), s31(6): 4000..40000) and
    covered by the wallet; ACT 5.4: no maximum."""
    config = fast_config(table("holdem-qld", seats=2), table("holdem-act"), starting_balance=50_000)
    async with running_server(config) as server:
        async with (
            Client.connect(server.url) as a,
            Client.connect(server.url) as b,
            Client.connect(server.url) as c,
        ):
            for msg, code in [
                ({"type": "join", "table": "nope"}, "unknown_table"),
                ({"type": "join", "table": "holdem-qld-t", "seat": 3}, "bad_seat"),
                ({"type": "buy_in", "table": "holdem-qld-t", "amount": 4000}, "not_at_table"),
            ]:
                with pytest.raises(ServerError) as err:
                    await a.request(msg, "snapshot")
                assert err.value.code == code
            await a.join("holdem-qld-t", seat=1)
            with pytest.raises(ServerError) as err:
                await b.join("holdem-qld-t", seat=1)
            assert err.value.code == "seat_taken"
            await b.join("holdem-qld-t")
            with pytest.raises(ServerError) as err:
                await c.join("holdem-qld-t")
            assert err.value.code == "table_full"
            await c.join("holdem-qld-t", role="spectator")
            with pytest.raises(ServerError) as err:
                await c.buy_in("holdem-qld-t", 4000)
            assert err.value.code == "not_seated"
            for amount, code in [
                (3999, "buy_in_range"),
                (40001, "buy_in_range"),
                (0, "buy_in_range"),
            ]:
                with pytest.raises(ServerError) as err:
                    await a.buy_in("holdem-qld-t", amount)
                assert err.value.code == code
            await c.join("holdem-act-t")
            with pytest.raises(ServerError) as err:
                await c.buy_in("holdem-act-t", 50_001)
            assert err.value.code == "insufficient_funds"
            assert await c.buy_in("holdem-act-t", 50_000) == 0  # ACT 5.4: no maximum
            await a.buy_in("holdem-qld-t", 4000)
            await b.buy_in("holdem-qld-t", 40000)
            # a round starts: top-ups wait until it is over (QLD s18(4), ACT 5.5)
            view = a.tables["holdem-qld-t"]
            while view.view["status"] != "playing":
                await a.recv()
            with pytest.raises(ServerError) as err:
                await a.buy_in("holdem-qld-t", 100)
            assert err.value.code == "round_in_progress"
            money = server.croupier.money()
            assert money["wallets"] + money["stakes"] + money["commission"] == money["issued"]


async def test_http_page_and_health(tmp_path):
    """The same port serves the page (static files) and /health; /ws is the WebSocket."""
    (tmp_path / "index.html").write_text("<title>croupier</title>")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "msgpack.min.js").write_text("var MessagePack={};")
    config = fast_config(table("holdem-act"), web_root=tmp_path)
    async with running_server(config) as server:

        def fetch(path: str) -> tuple[int, str, bytes]:
            try:
                with urllib.request.urlopen(server.http_url.rstrip("/") + path) as r:
                    return r.status, r.headers["Content-Type"], r.read()
            except urllib.error.HTTPError as e:
                return e.code, "", b""

        status, ctype, body = await trio.to_thread.run_sync(fetch, "/")
        assert status == 200 and ctype.startswith("text/html") and b"croupier" in body
        status, ctype, _ = await trio.to_thread.run_sync(fetch, "/vendor/msgpack.min.js")
        assert status == 200 and "javascript" in ctype
        assert (await trio.to_thread.run_sync(fetch, "/../pyproject.toml"))[0] == 404
        assert (await trio.to_thread.run_sync(fetch, "/missing.js"))[0] == 404
        status, ctype, body = await trio.to_thread.run_sync(fetch, "/health")
        assert status == 200 and json.loads(body) == {"status": "ok"}  # liveness, nothing else
        status, ctype, body = await trio.to_thread.run_sync(fetch, "/status")
        health = json.loads(body)  # a dev server tells this machine the operator status
        assert status == 200 and health["status"] == "ok" and health["tables"] == 1
        assert set(health["money"]) == {"issued", "wallets", "stakes", "commission"}


def test_croupier_serve_prints_its_url():
    """`croupier serve --port 0` listens on 127.0.0.1 and prints the page and client URLs."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, CROUPIER_DATA=tempfile.mkdtemp(prefix="croupier-test-")),
    )
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        page = next(line.split()[-1] for line in lines if "page:" in line)
        ws = next(line.split()[-1] for line in lines if "clients:" in line)
        assert page.startswith("http://127.0.0.1:") and ws.startswith("ws://127.0.0.1:")
        with urllib.request.urlopen(page + "status", timeout=10) as r:
            assert json.loads(r.read())["tables"] == len(load_tables())  # the default lobby
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_bad_table_config_exits_2(tmp_path):
    bad = tmp_path / "t.toml"
    bad.write_text("[[tables]]\nid = 'x'\n")
    proc = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--tables", str(bad)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2 and "needs an id and a game" in proc.stderr

    bad.write_text("[[tables]]\nid = 'x'\ngame = 'holdem-act'\noptions = { blinds = [1] }\n")
    proc = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--tables", str(bad)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2 and "blinds" in proc.stderr
