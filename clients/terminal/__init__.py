"""``croupier play``: sit at a table and play from a terminal (usage: ``commands.USAGE``).

The package, one job per module: ``commands`` (typed lines), ``render`` (text and cards),
``hand`` (a poker round folded from events), ``session`` (what every table session shares:
output, commands, the message loop), ``poker`` and ``banked`` (the two kinds of table) and
``app`` (lobby, join, run).
"""

from __future__ import annotations

import argparse
import sys

import trio
from rich.console import Console

from clients.terminal.app import DEFAULT_URL, PlayError, run
from clients.terminal.commands import HELP, USAGE
from server.cli import OneLineParser, debug, dollars_option
from server.credentials import CredentialError, add_token, session_token

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(
        prog="croupier play",
        description=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=HELP,
    )
    parser.add_argument("--url", default=DEFAULT_URL, help=f"server URL (default {DEFAULT_URL})")
    add_token(parser, "a session token (a previous session's, or the operator's)", env=None)
    parser.add_argument("--name", help="display name for a guest session (dev servers)")
    parser.add_argument("--table", help="table id (or its number in the lobby list)")
    parser.add_argument("--seat", type=int, help="seat number (default: lowest free)")
    parser.add_argument("--watch", action="store_true", help="join as a spectator")
    parser.add_argument(
        "--tournament", metavar="ID", help="register for this tournament and play it to the end"
    )
    parser.add_argument(
        "--buy-in",
        type=dollars_option,
        metavar="AMOUNT",
        help="buy-in in dollars, e.g. 150 or $150.50 (default: five minimum buy-ins, within "
        "the table's limits; outside them it is refused)",
    )
    parser.add_argument(
        "--plain", action="store_true", help="print lines instead of the full-screen display"
    )
    parser.add_argument(
        "--bot", action="store_true", help="play random legal actions without reading stdin"
    )
    parser.add_argument("--hands", type=int, default=10, help="--bot: rounds to play (10)")
    parser.add_argument("--seed", type=int, help="--bot: seed for its choices")
    args = parser.parse_args(argv)
    try:
        args.token = session_token(args, "croupier play", env=None)
    except CredentialError as exc:
        parser.error(str(exc))
    console = Console(highlight=False)
    try:
        return trio.run(run, args, console)
    except KeyboardInterrupt:
        return 130
    except PlayError as exc:
        if debug():
            raise
        print(f"croupier play: {exc}", file=sys.stderr)
        return 1
