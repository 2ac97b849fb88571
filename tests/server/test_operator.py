"""Operator controls over real sockets (issue 10, item 5): each control against each role,
its effect on the table, and its entry in the audit log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from clients.client import Client, ServerError
from server.room.accounts import Accounts
from server.store.sqlite import SqliteStore
from tests.server.helpers import fast_config, is_event, next_turn, table
from tests.shared import REPO
from tests.support import next_message, running_server

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
    assert [e["action"] for e in entries] == list(CONTROLS)  # every control, done or refused
    assert all(
        e["who"] == f"{role}-1" and e["name"] == role.title() and e["role"] == role and e["reason"]
        for e in entries
    )
    # the final outcome, decided and written by the router or the table: never "sent"
    assert all(e["outcome"] in ("done", "refused") for e in entries)
    assert all((e["code"] is None) == (e["outcome"] == "done") for e in entries)
    if role in ("player", "cashier"):
        assert all(e["code"] == "not_authorized" for e in entries)


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
            await next_message(ann, is_event("round_starting"))
            # a void: every wager back, the stakes as they were
            done = await sue.request(op("void_round", table=T), "operator")
            assert "void" in done["detail"]
            await next_message(ann, is_event("round_voided"))
            # new limits: announced now, in force from the next round
            await sue.request(
                op("set_limits", table=T, limits={"blind_1": 200, "blind_2": 400}), "operator"
            )
            notice = await next_message(ann, is_event("table_notice", action="set_limits"))
            assert notice["event"]["limits"] == {"blind_1": 200, "blind_2": 400}
            seats = {p.tables[T].seat: p for p in (ann, bob)}
            turn = ann.tables[T].view["turn"]
            if turn is not None:  # a round began on the old limits: it ends now, not timed out
                await seats[turn["seat"]].act(T, "fold")
            posted = await next_message(
                ann,
                lambda m: (
                    m["type"] == "event"
                    and m["event"]["type"] == "blind_posted"
                    and m["event"]["kind"] == "blind2"
                ),
            )
            assert posted["event"]["amount"] == 400
            turn = await next_turn(ann, seats)
            # closing: notice, no new round, seats vacated with their stakes home
            await sue.request(op("close_table", table=T), "operator")
            await next_message(ann, is_event("table_notice", action="close_table"))
            await seats[turn["seat"]].act(T, "fold")  # the round ends (not on the turn timer)
            left = await next_message(ann, lambda m: m["type"] == "left")
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
            await next_message(viv, is_event("jackpot_status", open=False))
            tbl.submit(JackpotAvailability(True))  # the pool answers again
            held = await next_message(viv, is_event("jackpot_status", status=APPROVAL_TEXT))
            assert held["event"]["open"] is False and not tbl.jackpot_open
            done = await boss.request(op("approve_jackpot", table="cp17"), "operator")
            assert "open" in done["detail"]
            await next_message(viv, is_event("jackpot_status", open=True))
            assert tbl.jackpot_open


# -- the audit log a regulator would accept (issue 23, point 4) --------------------------------
STAFF = {  # account: (name, role): each staff member acts under their own name
    "mia": ("Mia Chen", "manager"),
    "sue": ("Sue Park", "supervisor"),
    "tina": ("Tina Diaz", "tournament_director"),
    "dan": ("Dan Wu", "dealer"),
    "tom": ("Tom Till", "cashier"),
}
ROU = "rou"


def _audit_config(tmp_path: Path, redis_url: str | None) -> Any:
    from server.config import TableConfig
    from tests.tournaments.helpers import holdem

    stadium = TableConfig(
        id=ROU,
        game="roulette",
        kind="stadium",
        seed=3,
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=30.0,  # the dealer calls "no more bets"
        max_terminals=10,
        result_source="dealer",
    )
    return fast_config(
        table("holdem-act", seats=2),
        stadium,
        secret=SECRET,
        data=tmp_path / "var",
        tournaments=(holdem(9, id="td", min_players=4),),
        redis=redis_url,
        redis_ledger=redis_url is not None,
        new_store=redis_url is not None,
    )


#: what a staff member's shell may hold: none of it leaks into a test's command
STAFF_ENV = ("CROUPIER_REDIS", "CROUPIER_SECRET", "CROUPIER_TOKEN", "CROUPIER_ADMIN_TOKEN")


def croupier(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``croupier ARGS`` in a process of its own, with ``env`` on a clean staff environment."""
    clean = {k: v for k, v in os.environ.items() if k not in STAFF_ENV}
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, **(env or {})},
    )


def _admin(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return croupier("admin", *args, env=env)


async def _every_kind_of_staff_act(url: str) -> None:
    """A table control, an account control, a tournament control, a stadium staff command
    and a cashier call, each done and refused, each by a named staff member."""
    from clients.stadium import credit_in, place, until_event

    tokens = {a: ACCOUNTS.issue(a, name, role=role) for a, (name, role) in STAFF.items()}
    async with (
        Client.connect(url, token=tokens["mia"]) as mia,
        Client.connect(url, token=tokens["sue"]) as sue,
        Client.connect(url, token=tokens["tina"]) as tina,
        Client.connect(url, token=tokens["dan"]) as dan,
        Client.connect(url, token=tokens["tom"]) as tom,
        Client.connect(url, token=ACCOUNTS.issue("bob", "Bob")) as bob,
    ):
        # the cashier: done, refused
        cash = {"type": "cashier", "account": "bob", "request": "r-1"}
        await tom.request({**cash, "op": "deposit", "amount": 20_000}, "cashier")
        with pytest.raises(ServerError):
            await tom.request({**cash, "op": "withdraw", "amount": 10**8, "request": "r-2"}, "x")
        # a table control: done (new limits from the next round), refused (no round)
        limits = {"blind_1": 200, "blind_2": 400}
        await mia.request(op("set_limits", table=T, limits=limits), "operator")
        with pytest.raises(ServerError):
            await mia.request(op("void_round", table=T), "operator")
        # an account control: done by a manager, refused to a supervisor
        await mia.request(op("suspend", account="ann"), "operator")
        with pytest.raises(ServerError):
            await sue.request(op("suspend", account="ann"), "operator")
        # a tournament control: refused (not on a break), done (cancelled, refunds)
        with pytest.raises(ServerError):
            await tina.request(op("resume_tournament", tournament="td"), "operator")
        await tina.request(op("cancel_tournament", tournament="td"), "operator")
        # stadium staff commands: a result refused (none awaited), "no more bets", a result
        await dan.join(ROU, role="spectator")
        await bob.join(ROU)
        await credit_in(bob, ROU, 5_000)
        await until_event(bob, ROU, "betting_open")
        result = {"type": "result", "table": ROU, "outcome": {"number": 17}}
        with pytest.raises(ServerError):
            await dan.request(result, "never")
        await place(bob, ROU, "red", 1_000)
        await dan.send({"type": "close_betting", "table": ROU})
        await until_event(bob, ROU, "awaiting_result")
        await dan.send(result)
        await until_event(bob, ROU, "settlement")
        with pytest.raises(ServerError):  # a player enters no result (Sch 19 s6)
            await bob.request(result, "never")


EXPECTED = [  # (who, action, outcome, code), in order
    ("tom", "deposit", "done", None),
    ("tom", "withdraw", "refused", "insufficient_funds"),
    ("mia", "set_limits", "done", None),
    ("mia", "void_round", "refused", "no_round"),
    ("mia", "suspend", "done", None),
    ("sue", "suspend", "refused", "not_authorized"),
    ("tina", "resume_tournament", "refused", "tournament_refused"),
    ("tina", "cancel_tournament", "done", None),
    ("dan", "result", "refused", "bad_result"),
    ("dan", "close_betting", "done", None),
    ("dan", "result", "done", None),
    ("bob", "result", "refused", "not_authorized"),
]


@pytest.mark.parametrize("store", ["sqlite", "redis"])
async def test_every_staff_act_is_audited_with_its_named_staff_and_outcome(
    store: str, tmp_path: Path
) -> None:
    """GLI-11/19 significant events: who (own account and name), role, reason, target and
    the final outcome (done with what was done, or refused with the error's code and text),
    written by whoever decided it; ``croupier admin audit`` reads it from either store."""
    from tests.integration.helpers import RedisServer

    redis = None
    if store == "redis":
        (tmp_path / "redis").mkdir()
        redis = RedisServer(tmp_path / "redis")
        redis.start()
    try:
        config = _audit_config(tmp_path, redis.url if redis else None)
        async with running_server(config) as server:
            with trio.fail_after(60):
                await _every_kind_of_staff_act(server.url)
        where = ["--data", str(tmp_path / "var")]
        env = {"CROUPIER_REDIS": redis.url} if redis else None  # the documented form
        audit = await trio.to_thread.run_sync(lambda: _admin("audit", "--json", *where, env=env))
        assert audit.returncode == 0, audit.stderr
        entries = [json.loads(line) for line in audit.stdout.splitlines()]
        assert [(e["who"], e["action"], e["outcome"], e["code"]) for e in entries] == EXPECTED
        for e in entries:
            if e["who"] in STAFF:
                assert (e["name"], e["role"]) == STAFF[e["who"]], e
            assert e["detail"], e  # what was done, or the refusal's text
        by = {(e["action"], e["outcome"]): e for e in entries}
        limits = by["set_limits", "done"]
        assert limits["table"] == T and limits["reason"] == "test set_limits"
        assert limits["asked"] == {"limits": {"blind_1": 200, "blind_2": 400}}
        assert limits["effect"] == {"limits": {"blind_1": 200, "blind_2": 400}, "from_round": 1}
        assert by["suspend", "done"]["account"] == "ann"
        assert by["suspend", "done"]["effect"]["suspended"] is True
        assert by["cancel_tournament", "done"]["tournament"] == "td"
        assert by["cancel_tournament", "done"]["effect"] == {"refunded": 0, "refunds": 0}
        assert "wrong_phase" in by["resume_tournament", "refused"]["detail"]
        closed = by["close_betting", "done"]
        assert closed["table"] == ROU and closed["round"] and closed["reason"] is None
        assert by["deposit", "done"]["effect"] == {"balance": 20_000, "repeated": False}
        # filters: person (account or name), control, table, outcome, time
        picks = {
            ("--who", "Mia Chen"): [e for e in EXPECTED if e[0] == "mia"],
            ("--control", "result"): [e for e in EXPECTED if e[1] == "result"],
            ("--table", ROU): [e for e in EXPECTED if e[1] in ("result", "close_betting")],
            ("--outcome", "refused"): [e for e in EXPECTED if e[2] == "refused"],
            ("--since", "2099-01-01"): [],
        }
        for option, expected in picks.items():
            got = await trio.to_thread.run_sync(
                lambda o=option: _admin("audit", "--json", *o, *where, env=env)
            )
            rows = [json.loads(line) for line in got.stdout.splitlines()]
            assert [(e["who"], e["action"], e["outcome"], e["code"]) for e in rows] == expected
        text = await trio.to_thread.run_sync(lambda: _admin("audit", *where, env=env))
        assert "mia (Mia Chen, manager) set_limits table=holdem-act-t" in text.stdout
        assert "refused (no_round): no round is in play" in text.stdout
        # the journal is read from the same store: the stadium round the dealer settled
        export = ("history", "export", "--format", "journal", *where)
        rounds = await trio.to_thread.run_sync(lambda: croupier(*export, env=env))
        assert rounds.returncode == 0, rounds.stderr
        settled = [r for r in json.loads(rounds.stdout) if r["table"] == ROU]
        assert [r["round"] for r in settled] == [closed["round"]]
        assert settled[0]["state"] == "settled"
    finally:
        if redis is not None:
            redis.kill()


def _one_line(done: subprocess.CompletedProcess[str], status: int) -> str:
    assert done.returncode == status, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    return done.stderr.strip()


async def test_staff_tools_act_only_under_a_named_staff_identity(tmp_path: Path) -> None:
    """Issue 23: a production command line acts with the person's own token (a token file
    issued by ``croupier admin token issue``), never a generic role name; without one it
    refuses in one line and nothing is done."""
    mia = tmp_path / "mia.token"
    secret = {"CROUPIER_SECRET": SECRET}
    issued = await trio.to_thread.run_sync(
        lambda: _admin(
            *("token", "issue", "--account", "mia", "--name", "Mia Chen", "--role", "manager"),
            *("--out", str(mia)),
            env=secret,
        )
    )
    assert issued.returncode == 0 and "Mia Chen (mia)" in issued.stdout, issued.stderr
    assert mia.stat().st_mode & 0o777 == 0o600
    generic = await trio.to_thread.run_sync(
        lambda: _admin(
            *("token", "issue", "--account", "manager-cli", "--name", "x", "--role", "manager"),
            env=secret,
        )
    )
    assert "names a role, not a person" in _one_line(generic, 2)
    unsigned = await trio.to_thread.run_sync(
        lambda: _admin("token", "issue", "--account", "a", "--name", "A", "--role", "cashier")
    )
    assert "CROUPIER_SECRET" in _one_line(unsigned, 2)
    config = fast_config(table("holdem-act"), secret=SECRET, data=tmp_path / "var")
    async with running_server(config) as server:
        close = ("close_table", "--table", T, "--reason", "end of shift", "--url", server.url)
        refused = await trio.to_thread.run_sync(lambda: _admin(*close, env=secret))
        line = _one_line(refused, 2)
        assert "staff act under their own names" in line and "--token-file" in line
        assert not server.croupier.tables[T].closed_by_operator  # nothing was done
        done = await trio.to_thread.run_sync(lambda: _admin(*close, "--token-file", str(mia)))
        assert done.returncode == 0 and "close_table: closing" in done.stdout, done.stderr
        assert server.croupier.tables[T].closed_by_operator
        token = mia.read_text().strip()
        by_env = await trio.to_thread.run_sync(
            lambda: _admin(
                *("open_table", "--table", T, "--reason", "r", "--url", server.url),
                env={"CROUPIER_TOKEN": token},
            )
        )
        assert by_env.returncode == 0 and by_env.stderr == "", by_env.stderr
    entries = SqliteStore(tmp_path / "var", lock=False, readonly=True).audit_entries()
    assert [(e["who"], e["name"], e["action"], e["outcome"]) for e in entries] == [
        ("mia", "Mia Chen", "close_table", "done"),
        ("mia", "Mia Chen", "open_table", "done"),
    ]


async def test_a_dev_server_takes_the_dev_operator_named_as_such(tmp_path: Path) -> None:
    """A dev-mode server (no secret) keeps one convenience identity: the dev operator, named
    so in the audit log; the role asked for is the one it acts in."""
    config = fast_config(table("holdem-act"), data=tmp_path / "var")
    async with running_server(config) as server:
        done = await trio.to_thread.run_sync(
            lambda: _admin(
                *("set_limits", "--table", T, "--limit", "blind_1=2", "--limit", "blind_2=4"),
                *("--reason", "quiet night", "--url", server.url, "--role", "supervisor"),
                *("--data", str(tmp_path / "var")),
            )
        )
        assert done.returncode == 0, done.stderr
    (entry,) = SqliteStore(tmp_path / "var", lock=False, readonly=True).audit_entries()
    assert (entry["who"], entry["name"], entry["role"]) == (
        "dev-operator",
        "Dev operator",
        "supervisor",
    )
    assert entry["effect"] == {"limits": {"blind_1": 200, "blind_2": 400}, "from_round": 1}
