"""``croupier admin``: the operator's controls, staff tokens, and the audit log.

    croupier admin close_table --table T --reason "..."      (supervisor or manager)
    croupier admin open_table --table T --reason "..."
    croupier admin set_limits --table T --limit minimum=10 --limit maximum=500 --reason "..."
    croupier admin void_round --table T --reason "..."
    croupier admin correct_result --table T --result number=17 --reason "..."   (manager)
    croupier admin correct_result --table T --result round=41 --result 'dice=[1,4,4]' ...
    croupier admin set_limits --table T --terminal 12 --limit minimum=5 ... (stadium)
    croupier admin suspend --account ann --reason "..."   /   unsuspend            (manager)
    croupier admin start_tournament --tournament ID --reason "..."   (tournament director)
    croupier admin move_player --tournament ID --account ann --limit table=2 --limit seat=5 ...
    croupier admin token issue --account mia --name "Mia Chen" --role manager [--out FILE]
    croupier admin audit [--data DIR | --redis-file PATH] [--json] [--who PERSON]
                         [--control ACTION] [--table T] [--outcome done|refused]
                         [--since TIME] [--until TIME]

Controls go to a running server (``--url``, default ws://127.0.0.1:8765/ws) under the staff
member's own name: their token from ``--token-file PATH`` or env ``CROUPIER_TOKEN``
(clients/staff.py); against a dev-mode server without a token, the dev operator acts (its
secret is read from ``--data`` or ``--redis``). Limit amounts are dollars (tournament
controls: plain numbers). ``token issue`` signs a named staff token with the server's secret
(env ``CROUPIER_SECRET`` or ``--secret-file PATH``). Every control, done or refused, is in
the audit log (server/room/operator.py); ``audit`` prints it from either store (``--data`` or,
for ``croupier serve --redis``, ``--redis-file PATH`` / env ``CROUPIER_REDIS``), filtered by
person (account or name), control, table, outcome and time (ISO 8601, UTC by default).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import trio

from clients.client import Client, ServerError
from clients.staff import DEV_OPERATOR, NoIdentity, staff_token
from server.cli import OneLineParser, iso_time
from server.credentials import CredentialError, add_redis, add_token, read_secret, redis_url
from server.money import AmountError, parse_dollars
from server.room import operator
from server.room.accounts import ROLES, Accounts
from server.store.model import StoreError
from server.store.sqlite import SqliteStore, default_data_dir

PROG = "croupier admin"
TABLE_ACTIONS = (
    "open_table",
    "close_table",
    "set_limits",
    "void_round",
    "correct_result",
    "approve_jackpot",
)
ACTIONS = (*TABLE_ACTIONS, "suspend", "unsuspend", *sorted(operator.TOURNAMENT_ACTIONS))
STAFF_ROLES = tuple(r for r in ROLES if r != "player")


def read_audit(data: Path, redis: str | None) -> list[dict[str, Any]]:
    """The audit log of the store: Redis (``croupier serve --redis``) or SQLite in ``data``;
    :class:`StoreError` when there is none."""
    if redis is None:
        store = SqliteStore(data, lock=False, readonly=True)
        try:
            return store.audit_entries()
        finally:
            store.close()
    from server.store.redis import open_redis_store, public_url

    async def read() -> list[dict[str, Any]]:
        async with open_redis_store(redis, create=False) as store:
            if not store.epoch:
                raise StoreError(f"no ledger store in the Redis at {public_url(redis)}")
            return await store.audit_entries()

    return trio.run(read)


def audit(args: Any, redis: str | None) -> int:
    query = operator.AuditQuery(
        who=args.who,
        action=args.control,
        table=args.table,
        outcome=args.outcome,
        since=args.since,
        until=args.until,
    )
    try:
        entries = query.select(read_audit(args.data, redis))
    except StoreError as exc:
        where = "its Redis" if redis else str(args.data)
        print(f"{PROG}: cannot read the audit log in {where}: {exc}", file=sys.stderr)
        return 3
    for e in entries:
        print(json.dumps(e) if args.json else operator.line(e))
    return 0


def issue(argv: list[str]) -> int:
    """``croupier admin token issue``: a named staff token, signed with the server's secret."""
    p = OneLineParser(prog=f"{PROG} token issue", description="issue a named staff session token")
    p.add_argument("--account", required=True, help="the staff member's own account")
    p.add_argument("--name", required=True, help="their name, as the audit log shows it")
    p.add_argument("--role", required=True, choices=STAFF_ROLES)
    p.add_argument("--days", type=float, default=7.0, help="valid for (default 7 days)")
    p.add_argument("--out", type=Path, help="write the token to this file (mode 600)")
    p.add_argument(
        "--secret-file",
        type=Path,
        metavar="PATH",
        help="a file whose first line is the server's secret (or env CROUPIER_SECRET)",
    )
    args = p.parse_args(argv)
    generic = {*ROLES, DEV_OPERATOR[0]}
    if args.account in generic or args.account.endswith("-cli"):
        p.error(f"{args.account!r} names a role, not a person: give the person's own account")
    if not args.name.strip() or args.name.strip().lower() in generic:
        p.error("--name is the person's name, as the audit log shows it")
    if not 0 < args.days <= 366:
        p.error("--days is between 0 and 366")
    try:
        secret = (
            read_secret(args.secret_file, "secret")
            if args.secret_file
            else os.environ.get("CROUPIER_SECRET")
        )
    except CredentialError as exc:
        p.error(str(exc))
    if not secret:
        p.error("a token is signed with the server's secret: set CROUPIER_SECRET or --secret-file")
    accounts = Accounts(secret, ttl=args.days * 86400)
    token = accounts.issue(args.account, args.name.strip(), role=args.role)
    if args.out is None:
        print(token)
        return 0
    try:
        fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(token + "\n")
    except OSError as exc:
        print(f"{PROG} token issue: cannot write {args.out}: {exc.strerror}", file=sys.stderr)
        return 3
    print(
        f"a {args.role} token for {args.name.strip()} ({args.account}), valid {args.days:g} "
        f"days: {args.out} (give it with --token-file, or env CROUPIER_TOKEN)"
    )
    return 0


def _pairs(items: list[str], money: bool) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"{PROG}: {item!r}: write KEY=VALUE")
        if money:
            try:
                out[key] = parse_dollars(value)
            except AmountError as exc:
                raise SystemExit(f"{PROG}: {key}: {exc}") from None
        else:
            try:  # 17, [1, 4, 4], ["9h", "Kd", "9d"]; else the text (segment=b)
                out[key] = json.loads(value)
            except ValueError:
                out[key] = value
    return out


async def send(url: str, token: str, message: dict[str, object]) -> dict[str, object]:
    async with Client.connect(url, token=token) as client:
        return await client.request(message, "operator")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["token"]:
        if argv[1:2] != ["issue"]:
            print(f"{PROG}: token issue is the token command (see {PROG} --help)", file=sys.stderr)
            return 2
        return issue(argv[2:])
    p = OneLineParser(prog=PROG, description=__doc__.split("\n")[0])
    p.add_argument("action", choices=(*ACTIONS, "audit"))
    p.add_argument("--table")
    p.add_argument("--account")
    p.add_argument("--tournament")
    p.add_argument("--reason", default="")
    p.add_argument("--limit", action="append", default=[], help="KEY=DOLLARS")
    p.add_argument("--result", action="append", default=[], help="KEY=VALUE")
    p.add_argument("--url", default="ws://127.0.0.1:8765/ws")
    add_token(p, "your staff session token (croupier admin token issue)")
    p.add_argument("--terminal", type=int, help="set_limits at a stadium table: one terminal")
    p.add_argument(
        "--role",
        default="manager",
        choices=STAFF_ROLES,
        help="the dev operator's role (a dev-mode server only; your token says yours)",
    )
    p.add_argument("--data", type=Path, default=default_data_dir())
    add_redis(p, "the Redis of croupier serve --redis (audit; a dev server's secret)")
    audit_options = p.add_argument_group("audit: which entries")
    audit_options.add_argument("--json", action="store_true", help="one JSON entry a line")
    audit_options.add_argument("--who", metavar="PERSON", help="a staff account or name")
    audit_options.add_argument("--control", metavar="ACTION", help="one control (set_limits...)")
    audit_options.add_argument("--outcome", choices=("done", "refused"))
    audit_options.add_argument("--since", type=iso_time, metavar="TIME", help="at or after")
    audit_options.add_argument("--until", type=iso_time, metavar="TIME", help="before")
    args = p.parse_args(argv)
    try:
        redis = redis_url(args, PROG)
    except CredentialError as exc:
        p.error(str(exc))
    if args.action == "audit":
        return audit(args, redis)
    if not args.reason:
        p.error("every control needs a --reason (it goes into the audit log)")
    tournament = args.action in operator.TOURNAMENT_ACTIONS
    if tournament and not args.tournament:
        p.error(f"{args.action} needs --tournament ID")
    message: dict[str, object] = {"type": "operator", "action": args.action, "reason": args.reason}
    for field in ("table", "account", "tournament"):
        if getattr(args, field):
            message[field] = getattr(args, field)
    if args.limit:
        limits = _pairs(args.limit, money=not tournament)
        if args.terminal is not None:
            limits["terminal"] = args.terminal
        message["limits"] = limits
    if args.result:
        message["result"] = _pairs(args.result, money=False)
    try:
        token = staff_token(args, PROG, args.role, args.data, redis, also=("CROUPIER_ADMIN_TOKEN",))
    except NoIdentity as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    try:
        reply = trio.run(send, args.url, token, message)
    except ServerError as exc:
        print(f"{PROG}: refused ({exc.code}): {exc.message.get('message')}", file=sys.stderr)
        return 1
    print(f"{args.action}: {reply['detail']}")
    return 0
