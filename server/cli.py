"""The ``croupier`` command: one entry point, a subcommand per job.

croupier serve      run the table server (default: 127.0.0.1, in-memory stores)
croupier play       terminal client: sit at a table and play
croupier loadtest   fill tables with bots over real WebSockets
croupier scenario   settle a round from a fixed outcome (SCENARIOS.md)
croupier demo       play bot hands in-process and print them

Every failure a user can cause ends in one line on stderr saying what to do, and a non-zero
exit status; ``--debug`` (anywhere on the command line) shows the traceback instead.
"""

from __future__ import annotations

import argparse
import difflib
import errno
import importlib
import os
import re
import sys
from collections.abc import Iterator
from typing import NoReturn

COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("server.net.app", "run the table server"),
    "play": ("clients.terminal", "terminal client: sit at a table and play"),
    "loadtest": ("loadtest.cli", "fill tables with bots over real WebSockets"),
    "scenario": ("server.scenario", "settle a round from a fixed outcome"),
    "demo": ("server.demo", "play bot hands in-process and print them"),
    "jackpot": ("server.jackpots.cli", "show, check, seed and reset jackpot pools"),
    "ledger": ("server.store.cli", "check the books of a ledger store"),
    "cashier": ("clients.cashier", "deposit, withdraw or read a wallet on a running server"),
    "admin": ("clients.admin", "operator controls (tables, rounds, accounts) and the audit log"),
    "tournament": ("server.tournaments.cli", "check tournament conditions against the rules"),
    "history": ("server.records.history_cli", "export hand histories from the journal"),
    "verify": (
        "server.records.verify_cli",
        "check rounds' records and openings against their commitments",
    ),
    "par": ("server.par.cli", "PAR sheets: every wager's RTP, house edge and volatility"),
}

#: set (to "1") by ``--debug``; subcommands re-raise instead of printing one line
DEBUG_ENV = "CROUPIER_DEBUG"


def debug() -> bool:
    """True when ``--debug`` was given: show tracebacks instead of one-line errors."""
    return bool(os.environ.get(DEBUG_ENV))


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def dollars_option(text: str) -> int:
    """An option typed in dollars (``150``, ``$150``, ``150.50``) -> cents (argparse ``type``)."""
    from server.money import AmountError, parse_dollars

    try:
        return parse_dollars(text)
    except AmountError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def port_option(text: str) -> int:
    """A TCP port, 0 to 65535 (0: a free one the system picks) (argparse ``type``); out of
    range it is refused, never served on another port (issue 27, point 7)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is not between 0 and 65535")
    return port


def iso_time(text: str) -> float:
    """An option typed as an ISO 8601 time (``2026-11-27``, ``2026-11-27T20:00:00Z``; UTC
    when no zone is given) -> unix seconds (argparse ``type``)."""
    import datetime

    try:
        when = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO 8601 time (e.g. 2026-11-27T20:00:00Z)"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return when.timestamp()


def usage() -> str:
    lines = ["usage: croupier [--debug] COMMAND [ARGS]", "", "commands:"]
    lines += [f"  {name:<10} {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "croupier COMMAND --help shows a command's options."]
    return "\n".join(lines)


def leaves(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions inside (nested) exception groups, or ``exc`` itself."""
    if isinstance(exc, BaseExceptionGroup):
        for e in exc.exceptions:
            yield from leaves(e)
    else:
        yield exc


def option(args: list[str], name: str) -> str | None:
    """The value of ``--name VALUE`` or ``--name=VALUE`` in ``args`` (None: absent)."""
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def explain(command: str, exc: BaseException, args: list[str] = []) -> str:  # noqa: B006
    """One line for an exception that reached the top of a subcommand run with ``args``."""
    for e in leaves(exc):
        if isinstance(e, OSError) and e.errno == errno.EADDRINUSE:
            m = re.search(r"\('([^']*)', (\d+)", str(e))
            host = m.group(1) if m else option(args, "--host") or "127.0.0.1"
            port = m.group(2) if m else option(args, "--port") or "8765 (the default)"
            where = f"port {port} on {host}"
            return (
                f"croupier {command}: {where} is already in use (another croupier serve?): "
                "stop it or choose another --port"
            )
    first = next(leaves(exc))
    text = str(first).splitlines()[0] if str(first) else type(first).__name__
    return f"croupier {command}: {text} (run again with --debug for the details)"


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "--debug" in args:
        args.remove("--debug")
        os.environ[DEBUG_ENV] = "1"
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        near = difflib.get_close_matches(name, COMMANDS, n=1)
        hint = f"did you mean 'croupier {near[0]}'?" if near else "see croupier --help"
        print(f"croupier: unknown command {name!r}: {hint}", file=sys.stderr)
        return 2
    try:
        module = importlib.import_module(COMMANDS[name][0])
        return int(module.main(rest) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (``croupier ... | head``): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (Exception, BaseExceptionGroup) as exc:
        if debug():
            raise
        if all(isinstance(e, KeyboardInterrupt) for e in leaves(exc)):
            return 130
        print(explain(name, exc, rest), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
