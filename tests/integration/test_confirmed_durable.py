"""Confirmed means durable: kill -9 the instant a confirmation arrives, and find it after.

A production server (``CROUPIER_SECRET``) runs in its own process, on SQLite (``--data``) or
on a real ``redis-server`` with AOF and ``appendfsync always`` (``--redis``). For every kind
of confirmation a player, a cashier or a manager is sent, the test does the act and sends
SIGKILL to the server the instant the confirming frame has been read, with nothing in
between; then it starts the server again on the same store and checks that what the frame
said is there (docs/rulings.md, "Commit, then speak"):

* a cashier deposit and a withdrawal (``cashier_done``): the wallet's balance, and the
  request id known (a repeat is ``repeated``);
* an operator suspension (``operator_done``): the account's token refused, its audit entry
  in the store;
* a poker hand's ``round_ended``: the stacks it showed (crash recovery sends each stake to
  its owner's wallet, so the wallet is what it was after the buy-in plus the stack);
* a banked round's ``round_result`` (casino war): the wallet is what it was after the wager
  plus what the round paid back;
* a stadium round's ``settlement`` (roulette, QLD Sch 19): the wallet and the credit meter
  hold what the wallet held after the credits were bought plus the credits and the wagers
  left riding that the settlement showed (crash recovery sends the wagers home, and on
  SQLite the meter too);
* a tournament registration (the ``tournament`` state with ``registered``): the entry fee's
  transfer is in the store (and the entry survives the restart: the next trial withdraws it
  before entering again).

Each kind is killed on :data:`TRIALS` times per store (20 by default; the issue's minimum).
The restarts are forked from a pre-loaded parent (``tests/integration/zygote.py``): each is
an ordinary ``croupier serve`` process, without the half second of imports.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from clients.client import Client, ServerError
from server.room.accounts import Accounts
from server.store.redis import connect, key, parse_transfer
from server.store.sqlite import LEDGER_FILE
from tests.integration.helpers import RedisServer, write_tables
from tests.shared import REPO

pytestmark = pytest.mark.slow

SECRET = "kill-on-reply-secret"
ORIGIN = "http://localhost:9"
TRIALS = int(os.environ.get("CROUPIER_KILL_TRIALS", "20"))
KINDS = ("deposit", "withdraw", "suspend", "poker", "banked", "stadium", "register")
TOURNAMENT = REPO / "docs" / "tournaments" / "act-manila-sng.toml"
PLAYERS = ("ann", "bob", "cat", "dan", "eve", "dana")
TABLES = [
    {"id": "p", "game": "holdem-act", "options": {"blinds": [100, 200], "max_seats": 2}},
    {
        "id": "w",
        "game": "casino-war",
        "betting_seconds": 0.15,
        "decision_seconds": 0.2,
        "options": {"minimum": 100, "maximum": 10_000},
    },
    {
        "id": "r",
        "game": "roulette",
        "kind": "stadium",
        "betting_seconds": 0.15,
        "result_source": "rng",
        "options": {"minimum": 100, "maximum": 10_000},
    },
]

accounts = Accounts(SECRET)
TOKENS = {a: accounts.issue(a, a.title()) for a in PLAYERS}
CASHIER = accounts.issue("till", "Till", role="cashier")
MANAGER = accounts.issue("mia", "Mia", role="manager")


class Zygote:
    """The parent the servers are forked from (``tests/integration/zygote.py``)."""

    def __init__(self, proc: trio.Process, workdir: Path) -> None:
        self.proc = proc
        self.workdir = workdir
        self.buffer = b""
        self.children: list[int] = []

    async def spawn(self, args: list[str], env: dict[str, str | None]) -> tuple[int, str]:
        """Fork ``croupier ARGS``; its pid and WebSocket URL once it listens."""
        out = self.workdir / f"server-{len(self.children)}.log"
        request = {"args": args, "out": str(out), "env": env}
        assert self.proc.stdin is not None and self.proc.stdout is not None
        await self.proc.stdin.send_all(json.dumps(request).encode() + b"\n")
        while b"\n" not in self.buffer:
            chunk = await self.proc.stdout.receive_some()
            if not chunk:
                raise RuntimeError("the zygote died")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        pid = int(json.loads(line)["pid"])
        self.children.append(pid)
        with trio.fail_after(30):
            while True:
                text = out.read_text() if out.exists() else ""
                for row in text.splitlines():
                    if row.strip().startswith("clients:"):
                        return pid, row.split()[-1]
                if not alive(pid):
                    raise RuntimeError(f"croupier serve exited: {text}")
                await trio.sleep(0.005)

    def kill_all(self) -> None:
        for pid in self.children:
            kill(pid)


def alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def kill(pid: int) -> None:
    if pid <= 0:  # never 0 or -1: os.kill would signal a whole process group
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@asynccontextmanager
async def zygote(workdir: Path) -> AsyncIterator[Zygote]:
    proc = await trio.lowlevel.open_process(
        [sys.executable, str(REPO / "tests" / "integration" / "zygote.py")],
        stdin=-1,  # subprocess.PIPE
        stdout=-1,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    z = Zygote(proc, workdir)
    try:
        yield z
    finally:
        z.kill_all()
        assert proc.stdin is not None
        await proc.stdin.aclose()
        with trio.move_on_after(5):
            await proc.wait()
        if proc.returncode is None:
            proc.kill()


class Store:
    """Reads the store the servers share, as a regulator would: straight from it."""

    def __init__(self, data: Path, redis_url: str | None) -> None:
        self.data, self.redis_url = data, redis_url

    async def notes(self) -> list[dict[str, Any]]:
        if self.redis_url is None:
            db = sqlite3.connect(f"file:{self.data / LEDGER_FILE}?mode=ro", uri=True)
            try:
                rows = db.execute("SELECT body FROM notes").fetchall()
            finally:
                db.close()
            return [json.loads(r[0]) for r in rows]
        async with connect(self.redis_url) as r:
            found = await r.hgetall(key("notes"))
        out = []
        for value in found.values():
            body = json.loads(value)
            out.append(body if isinstance(body, dict) else {"raw": body})
        return out

    async def balance(self, account: str) -> int:
        if self.redis_url is None:
            db = sqlite3.connect(f"file:{self.data / LEDGER_FILE}?mode=ro", uri=True)
            try:
                row = db.execute(
                    "SELECT balance FROM balances WHERE account = ?", (account,)
                ).fetchone()
            finally:
                db.close()
            return int(row[0]) if row else 0
        async with connect(self.redis_url) as r:
            return int(await r.hget(key("balances"), account) or 0)

    async def transfers(self) -> list[Any]:
        if self.redis_url is None:
            db = sqlite3.connect(f"file:{self.data / LEDGER_FILE}?mode=ro", uri=True)
            try:
                rows = db.execute(
                    "SELECT id, source, target, amount, kind, round FROM transfers"
                ).fetchall()
            finally:
                db.close()
            return rows
        async with connect(self.redis_url) as r:
            found = await r.hgetall(key("transfers"))
        out = []
        for text in found.values():
            t = parse_transfer(text)
            out.append((t.id, t.source, t.target, t.amount, t.kind, t.round))
        return out


class Trials:
    """One store's servers, one after the other: each trial acts, kills on the reply,
    restarts, and checks (see the module docstring)."""

    def __init__(self, z: Zygote, args: list[str], store: Store) -> None:
        self.z, self.args, self.store = z, args, store
        self.pid = 0
        self.url = ""
        self.rng = random.Random(7)
        self.wallet: dict[str, int] = {}  # what each wallet must hold after the restart
        self.requests = 0
        self.killed = 0
        self.fees = 0  # eve's entry fees found in the store so far

    async def start(self) -> None:
        env: dict[str, str | None] = {"CROUPIER_SECRET": SECRET, "CROUPIER_DATA": None}
        self.pid, self.url = await self.z.spawn(self.args, env)

    def kill_now(self) -> None:
        """SIGKILL the server, at once (called the instant a confirmation was read)."""
        if self.pid:
            kill(self.pid)
            self.killed += 1
            self.pid = 0

    async def cashier(self, op: str, account: str, amount: int, request: str) -> dict[str, Any]:
        async with Client.connect(self.url, token=CASHIER) as till:
            call = {"type": "cashier", "op": op, "account": account, "amount": amount}
            return await till.request({**call, "request": request}, "cashier")

    async def balance(self, account: str) -> int:
        self.requests += 1
        done = await self.cashier("balance", account, 0, f"b-{self.requests}")
        return int(done["balance"])

    # -- each kind: act, and kill on the confirmation; then check after the restart --------
    async def _cashier_killed(self, op: str, amount: int, request: str) -> int:
        """A cashier call on dana's wallet, the server killed the instant it is confirmed;
        the balance the confirmation told."""
        async with Client.connect(self.url, token=CASHIER) as till:
            call = {"type": "cashier", "op": op, "account": "dana", "amount": amount}
            await till.send({**call, "request": request})
            done = await reply(till, "cashier")
            self.kill_now()
        return int(done["balance"])

    async def deposit(self, trial: int) -> Callable[[], Awaitable[None]]:
        amount, request = self.rng.randint(1, 99_999), f"dep-{trial}"
        told = await self._cashier_killed("deposit", amount, request)

        async def check() -> None:
            assert await self.balance("dana") == told, f"deposit {request} lost"
            again = await self.cashier("deposit", "dana", amount, request)
            assert again["repeated"] is True and again["balance"] == told

        return check

    async def withdraw(self, trial: int) -> Callable[[], Awaitable[None]]:
        request = f"wd-{trial}"
        told = await self._cashier_killed("withdraw", self.rng.randint(1, 999), request)

        async def check() -> None:
            assert await self.balance("dana") == told, f"withdrawal {request} undone"

        return check

    async def suspend(self, trial: int) -> Callable[[], Awaitable[None]]:
        account = f"sus-{trial}"
        token = accounts.issue(account, "Sus")
        reason = f"kill-on-reply {trial}"
        async with Client.connect(self.url, token=MANAGER) as mia:
            await mia.send(
                {"type": "operator", "action": "suspend", "account": account, "reason": reason}
            )
            await reply(mia, "operator")
            self.kill_now()

        async def check() -> None:
            with pytest.raises(ServerError) as refused:
                async with Client.connect(self.url, token=token):
                    pass
            assert refused.value.code == "bad_token", refused.value
            notes = await self.store.notes()
            assert any(
                n.get("action") == "suspend" and n.get("account") == account for n in notes
            ), f"the audit entry of suspending {account} is lost"

        return check

    async def poker(self, trial: int) -> Callable[[], Awaitable[None]]:
        ended: dict[str, Any] = {}
        after_buy_in: dict[str, int] = {}
        seats = {"ann": 1, "bob": 2}

        async def player(name: str) -> None:
            async with Client.connect(self.url, token=TOKENS[name]) as c:
                await c.join("p", seat=seats[name])
                after_buy_in[name] = await c.buy_in("p", 2_000)
                async for msg in c:
                    if msg["type"] == "event" and msg["event"]["type"] == "round_ended":
                        ended.update(msg["event"])
                        self.kill_now()
                        return
                    if msg["type"] == "turn" and msg["legal"]:  # a turn: both are seated
                        verb = self.rng.choice(["fold", "call", "check"])
                        if verb not in msg["legal"]:
                            verb = "fold" if "fold" in msg["legal"] else "check"
                        await c.act("p", verb)

        await self._until_killed(player, ("ann", "bob"))
        stacks = {int(s): v for s, v in ended["stacks"].items()}

        async def check() -> None:
            for name, seat in seats.items():
                want = after_buy_in[name] + stacks[seat]
                got = await self.balance(name)
                assert got == want, f"{name}: the hand's result was undone ({got} != {want})"

        return check

    async def banked(self, trial: int) -> Callable[[], Awaitable[None]]:
        result: dict[str, Any] = {}
        after: dict[str, int] = {}

        async def player(name: str) -> None:
            async with Client.connect(self.url, token=TOKENS[name]) as c:
                await c.join("w")
                box = 1
                placed = False
                async for msg in c:
                    if msg["type"] != "event":
                        continue
                    ev = msg["event"]
                    if ev["type"] == "betting_open" and not placed:
                        try:
                            await c.wager("w", box, "war", 100 * self.rng.randint(1, 5))
                        except ServerError:
                            continue
                        placed = True
                        after[name] = c.balance or 0
                    elif ev["type"] == "round_result" and placed and str(box) in ev["boxes"]:
                        result.update(ev["boxes"][str(box)])
                        self.kill_now()
                        return

        await self._until_killed(player, ("cat",))

        async def check() -> None:
            want = after["cat"] + int(result["paid"])
            got = await self.balance("cat")
            assert got == want, f"the banked round's result was undone ({got} != {want})"

        return check

    async def stadium(self, trial: int) -> Callable[[], Awaitable[None]]:
        settled: dict[str, Any] = {}
        before: dict[str, int] = {}

        async def player(name: str) -> None:
            async with Client.connect(self.url, token=TOKENS[name]) as c:
                await c.join("r")
                bought = await c.request(
                    {"type": "credit_in", "table": "r", "amount": 1_000}, "balance"
                )
                before[name] = int(bought["balance"])  # the wallet, less the credits
                placed = False
                async for msg in c:
                    if msg["type"] != "event":
                        continue
                    ev = msg["event"]
                    if ev["type"] == "betting_open" and not placed:
                        # answered by a bet_ack, or by an error (the window closed before it
                        # came, on a slow machine) and the next window is tried: the first
                        # event after it is not its answer (no_more_bets may come first)
                        await c.send(
                            {"type": "place", "table": "r", "position": "red", "amount": 100}
                        )
                    elif ev["type"] == "bet_ack":
                        placed = True
                    elif ev["type"] == "settlement" and placed:
                        settled.update(ev)
                        self.kill_now()
                        return

        await self._until_killed(player, ("dan",))

        async def check() -> None:
            want = before["dan"] + int(settled["credits"]) + sum(settled["riding"].values())
            # on SQLite crash recovery sends the credit meter home; a shared store (Redis)
            # keeps it for the terminal's next session (docs/rulings.md, "Crash recovery")
            got = await self.balance("dan") + await self.store.balance("wallet:dan/meter")
            assert got == want, f"the stadium settlement was undone ({got} != {want})"

        return check

    async def register(self, trial: int) -> Callable[[], Awaitable[None]]:
        async with Client.connect(self.url, token=TOKENS["eve"]) as eve:
            if trial:  # her last entry survived the kill (docs/rulings.md): withdrawn first
                await eve.unregister("act-manila-sng")
            await eve.send({"type": "register", "tournament": "act-manila-sng"})
            while True:
                msg = await eve.recv()
                if msg["type"] == "error":
                    raise AssertionError(f"registration refused: {msg}")
                if msg["type"] == "tournament" and msg.get("registered"):
                    self.kill_now()
                    break
        fees_before = self.fees

        async def check() -> None:
            fees = [t for t in await self.store.transfers() if t[1] == "wallet:eve"]
            assert len(fees) > fees_before, "the confirmed registration's fee is not in the store"
            self.fees = len(fees)

        return check

    async def _until_killed(
        self, player: Callable[[str], Awaitable[None]], names: tuple[str, ...]
    ) -> None:
        """Run the players until one of them kills the server on its confirmation."""
        with trio.fail_after(60):  # a slow machine: a round takes a few seconds at most
            async with trio.open_nursery() as nursery:
                for name in names:
                    nursery.start_soon(player, name)


async def reply(client: Client, kind: str) -> dict[str, Any]:
    """The next frame of type ``kind`` (an ``error`` raises)."""
    while True:
        msg = await client.recv()
        if msg["type"] == "error":
            raise ServerError(msg)
        if msg["type"] == kind:
            return msg


@pytest.mark.parametrize("store", ["sqlite", "redis"])
async def test_no_confirmed_fact_is_lost_to_a_kill_on_its_reply(store: str, tmp_path: Path):
    """Every kind of confirmation, :data:`TRIALS` kills each, on SQLite and on Redis."""
    data = tmp_path / "data"
    tables = write_tables(tmp_path / "tables.toml", TABLES)
    args = ["serve", "--port", "0", "--tables", str(tables), "--data", str(data)]
    args += ["--origin", ORIGIN, "--round-pause", "0.02", "--turn-time", "5", "--grace", "1"]
    args += ["--time-bank", "0"]
    args += ["--tournament", str(TOURNAMENT)]
    redis = None
    if store == "redis":
        redis = RedisServer(tmp_path / "redis")
        (tmp_path / "redis").mkdir()
        redis.start()
        args += ["--redis", redis.url, "--new-store"]  # new here; never a flushed one
    try:
        async with zygote(tmp_path) as z:
            trials = Trials(z, args, Store(data, redis.url if redis else None))
            await trials.start()
            for name in PLAYERS:  # production accounts start at zero: the cashier pays in
                await trials.cashier("deposit", name, 1_000_000, f"seed-{name}")
            for trial in range(TRIALS):
                for kind in KINDS:
                    check = await getattr(trials, kind)(trial)
                    assert trials.pid == 0, f"{kind}: no confirmation arrived"
                    await trials.start()
                    await check()
            assert trials.killed == TRIALS * len(KINDS)
            kill(trials.pid)
    finally:
        if redis is not None:
            redis.kill()
