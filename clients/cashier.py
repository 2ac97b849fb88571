"""``croupier cashier``: deposit to, withdraw from, or read a wallet on a running server.

    croupier cashier deposit ACCOUNT AMOUNT [--url ws://127.0.0.1:8765/ws] [--request ID]
    croupier cashier withdraw ACCOUNT AMOUNT
    croupier cashier balance ACCOUNT

Amounts are dollars (``50``, ``$12.50``). The cashier acts under their own name
(clients/staff.py): their cashier token from ``--token-file PATH`` or env ``CROUPIER_TOKEN``
(``croupier admin token issue ... --role cashier``); against a dev-mode server without a
token, the dev operator acts (its secret is read from its data directory, ``--data``, or
from its Redis, ``--redis-file PATH`` or env ``CROUPIER_REDIS``). Each call carries a request
id (``--request``; a fresh one by default): the server applies an id once, so a call
repeated after a lost answer moves nothing twice. Every call is in the audit log.
"""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import trio

from clients.client import Client, ServerError
from clients.staff import NoIdentity, staff_token
from server.cli import OneLineParser, dollars_option
from server.credentials import CredentialError, add_redis, add_token, redis_url
from server.money import dollars
from server.store.sqlite import default_data_dir


async def call(url: str, token: str, message: dict[str, object]) -> dict[str, object]:
    async with Client.connect(url, token=token) as client:
        return await client.request(message, "cashier")


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="croupier cashier", description=__doc__.split("\n")[0])
    p.add_argument("op", choices=("deposit", "withdraw", "balance"))
    p.add_argument("account")
    p.add_argument("amount", nargs="?", type=dollars_option, default=0, help="dollars")
    p.add_argument("--url", default="ws://127.0.0.1:8765/ws")
    add_token(p, "your cashier session token (croupier admin token issue)")
    p.add_argument("--data", type=Path, default=default_data_dir(), help="dev server's data")
    add_redis(p, "a dev server's Redis (croupier serve --redis)")
    p.add_argument("--request", default=None, help="request id (default: a fresh one)")
    args = p.parse_args(argv)
    if args.op != "balance" and args.amount <= 0:
        p.error(f"{args.op} needs an AMOUNT in dollars")
    message = {
        "type": "cashier",
        "op": args.op,
        "account": args.account,
        "amount": args.amount,
        "request": args.request or secrets.token_hex(8),
    }
    prog = "croupier cashier"
    try:
        redis = redis_url(args, prog)
    except CredentialError as exc:
        p.error(str(exc))
    try:
        token = staff_token(
            args, prog, "cashier", args.data, redis, also=("CROUPIER_CASHIER_TOKEN",)
        )
    except NoIdentity as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    try:
        reply = trio.run(call, args.url, token, message)
    except ServerError as exc:
        print(
            f"croupier cashier: refused ({exc.code}): {exc.message.get('message')}", file=sys.stderr
        )
        return 1
    balance = reply["balance"]
    assert isinstance(balance, int)
    again = " (already applied: nothing moved again)" if reply.get("repeated") else ""
    print(f"{args.account}: {dollars(balance)}{again}")
    return 0
