"""``croupier admin``: the operator's controls, and the audit log.

    croupier admin close_table --table T --reason "..."      (supervisor or manager)
    croupier admin open_table --table T --reason "..."
    croupier admin set_limits --table T --limit minimum=10 --limit maximum=500 --reason "..."
    croupier admin void_round --table T --reason "..."
    croupier admin correct_result --table T --result number=17 --reason "..."   (manager)
    croupier admin correct_result --table T --result round=41 --result 'dice=[1,4,4]' ...
    croupier admin set_limits --table T --terminal 12 --limit minimum=5 ... (stadium)
    croupier admin suspend --account ann --reason "..."   /   unsuspend            (manager)
    croupier admin audit [--data DIR] [--json]

Controls go to a running server (``--url``, default ws://127.0.0.1:8765/ws) in a staff
session (``--token``, env ``CROUPIER_ADMIN_TOKEN``, or signed with ``CROUPIER_SECRET`` for
``--role``; a dev server's secret is read from ``--data``). Limit amounts are dollars. Every
control, applied or refused, is in the audit log; ``audit`` prints it from the store.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import trio

from clients.client import Client, ServerError
from clients.staff import staff_token
from server.cli import OneLineParser
from server.money import AmountError, parse_dollars
from server.store.sqlite import LEDGER_FILE, default_data_dir

ACTIONS = (
    "open_table",
    "close_table",
    "set_limits",
    "void_round",
    "correct_result",
    "approve_jackpot",
    "suspend",
    "unsuspend",
)


def audit(data: Path, as_json: bool) -> int:
    path = data / LEDGER_FILE
    if not path.exists():
        print(f"croupier admin: no ledger in {data}", file=sys.stderr)
        return 3
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = [json.loads(body) for (body,) in db.execute("SELECT body FROM notes ORDER BY at")]
    entries = [r for r in rows if r.get("audit")]
    for e in entries:
        if as_json:
            print(json.dumps(e))
        else:
            target = e.get("table") or e.get("account") or ""
            print(
                f"{e['at']:.3f} {e['who']} ({e['role']}) {e['action']} {target}: "
                f"{e['why']} -> {e['outcome']}"
            )
    return 0


def _pairs(items: list[str], money: bool) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"croupier admin: {item!r}: write KEY=VALUE")
        if money:
            try:
                out[key] = parse_dollars(value)
            except AmountError as exc:
                raise SystemExit(f"croupier admin: {key}: {exc}") from None
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
    p = OneLineParser(prog="croupier admin", description=__doc__.split("\n")[0])
    p.add_argument("action", choices=(*ACTIONS, "audit"))
    p.add_argument("--table")
    p.add_argument("--account")
    p.add_argument("--reason", default="")
    p.add_argument("--limit", action="append", default=[], help="KEY=DOLLARS")
    p.add_argument("--result", action="append", default=[], help="KEY=VALUE")
    p.add_argument("--url", default="ws://127.0.0.1:8765/ws")
    p.add_argument("--token", default=None)
    p.add_argument("--terminal", type=int, help="set_limits at a stadium table: one terminal")
    p.add_argument(
        "--role", default="manager", choices=("dealer", "boxperson", "supervisor", "manager")
    )
    p.add_argument("--data", type=Path, default=default_data_dir())
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.action == "audit":
        return audit(args.data, args.json)
    if not args.reason:
        p.error("every control needs a --reason (it goes into the audit log)")
    message: dict[str, object] = {"type": "operator", "action": args.action, "reason": args.reason}
    if args.table:
        message["table"] = args.table
    if args.account:
        message["account"] = args.account
    if args.limit:
        limits = _pairs(args.limit, money=True)
        if args.terminal is not None:
            limits["terminal"] = args.terminal
        message["limits"] = limits
    if args.result:
        message["result"] = _pairs(args.result, money=False)
    token = staff_token(
        args.role, f"{args.role}-cli", args.token, "CROUPIER_ADMIN_TOKEN", args.data
    )
    try:
        reply = trio.run(send, args.url, token, message)
    except ServerError as exc:
        print(
            f"croupier admin: refused ({exc.code}): {exc.message.get('message')}", file=sys.stderr
        )
        return 1
    print(f"{args.action}: {reply['detail']}")
    return 0
