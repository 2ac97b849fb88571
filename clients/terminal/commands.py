"""Typed commands of the terminal client: one stdin line -> a command (poker or banked table)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from clients.terminal.render import legal_summary, money

USAGE = """``croupier play``: sit at a table and play from a terminal.

    croupier play [--url ws://127.0.0.1:8765/ws] [--token T | --name NAME]
                  [--table ID] [--watch] [--seat N] [--buy-in AMOUNT]
    croupier play --bot [--hands N] [--table ID] [--seed S]

It speaks only the documented protocol (``protocol/README.md``) through ``clients/client.py``.
Commands, one per line on stdin:

    f  fold        k  check       c  call        a  all in
    b AMOUNT  bet (to AMOUNT)     r AMOUNT  raise to AMOUNT
    buy AMOUNT  buy in / top up (between rounds)      o / i  sit out / sit in
    t  show the table             h  help               q  leave the table and quit

At a banked table (players against the house) the commands are ``w BOX WAGER AMOUNT`` (a
wager in the betting window; 0 withdraws it), ``d BOX VERB [AMOUNT]`` or just ``VERB`` (the
decision a box owes), ``l`` (recall the last round), ``t``, ``h``, ``q``.

AMOUNT is in cents like everything in the protocol (``b 400`` bets $4.00); ``$4`` or ``4.00``
are read as dollars. A betting command, wager or decision typed before its moment waits for
it (and is checked against the legal actions then). On a terminal the table is a live
``rich`` display; with stdin/stdout piped every event is printed as a line, so the client
can be scripted.
``--bot`` plays random legal actions for ``--hands`` rounds, then leaves and prints a summary.
"""
VERBS = {"f": "fold", "k": "check", "c": "call", "a": "allin", "b": "bet", "r": "raise"}
T = TypeVar("T")
HELP = USAGE.split("Commands, one per line on stdin:")[1].split("AMOUNT is")[0].rstrip()


def parse_amount(text: str) -> int | None:
    """Cents from ``400`` (cents), ``$4``, ``4.00`` or ``$4.5`` (dollars); None if invalid."""
    text = text.strip().replace(",", "")
    m = re.fullmatch(r"(\$)?(\d+)(?:\.(\d{1,2}))?", text)
    if not m:
        return None
    dollars, whole, frac = m.groups()
    if dollars or frac is not None:
        return int(whole) * 100 + int((frac or "").ljust(2, "0"))
    return int(whole)


@dataclass
class Command:
    kind: str  # "act", "quit", "help", "table", "buy", "sit_out", "sit_in"
    verb: str | None = None
    amount: int | None = None


#: the words every table understands (quit, help, table) and the command kind of each
SHARED_WORDS = {
    "q": "quit",
    "quit": "quit",
    "exit": "quit",
    "h": "help",
    "help": "help",
    "?": "help",
    "t": "table",
    "table": "table",
}


class BadCommand(ValueError):
    pass


def parse_line(
    line: str, shared: Callable[[str], T], other: Callable[[str, list[str]], T]
) -> T | None:
    """A typed line -> None when blank, ``shared(kind)`` for a word of :data:`SHARED_WORDS`,
    else ``other(first word in lower case, the other words)``."""
    parts = line.strip().split()
    if not parts:
        return None
    word = parts[0].lower()
    if word in SHARED_WORDS:
        return shared(SHARED_WORDS[word])
    return other(word, parts[1:])


def parse_command(line: str) -> Command | None:
    """One stdin line -> a :class:`Command` (None for a blank line); BadCommand if unknown."""
    return parse_line(line, Command, poker_command)


def poker_command(word: str, rest: list[str]) -> Command:
    """A poker table command other than quit, help and table."""
    if word in ("o", "out"):
        return Command("sit_out")
    if word in ("i", "in"):
        return Command("sit_in")
    if word in ("buy", "topup"):
        amount = parse_amount(rest[0]) if rest else None
        if not amount:
            raise BadCommand("usage: buy AMOUNT (cents, or $dollars)")
        return Command("buy", amount=amount)
    verb = VERBS.get(word) or (word if word in VERBS.values() else None)
    if verb is None:
        raise BadCommand(f"unknown command {word!r} (h for help)")
    if verb in ("bet", "raise"):
        amount = parse_amount(rest[0]) if rest else None
        if amount is None:
            raise BadCommand(f"usage: {word} AMOUNT (cents, or $dollars)")
        return Command("act", verb, amount)
    if rest:
        raise BadCommand(f"{verb} takes no amount")
    return Command("act", verb)


def check_action(cmd: Command, legal: dict[str, Any]) -> str | None:
    """Why ``cmd`` is not among the ``legal`` actions the server sent (None: it is)."""
    assert cmd.verb is not None
    if cmd.verb not in legal:
        return f"{cmd.verb} is not possible now; you may: {legal_summary(legal)}"
    bounds = legal[cmd.verb]
    if cmd.verb in ("bet", "raise"):
        sizes = bounds.get("sizes")
        if sizes and cmd.amount not in sizes:
            return f"{cmd.verb} must be one of {', '.join(str(s) for s in sizes)}"
        lo, hi = bounds.get("min"), bounds.get("max")
        if lo is not None and cmd.amount is not None and not lo <= cmd.amount <= hi:
            return f"{cmd.verb} must be between {lo} and {hi} cents ({money(lo)}-{money(hi)})"
    return None


@dataclass
class BankedCommand:
    kind: str  # "wager", "decide", "recall", "quit", "help", "table"
    box: int | None = None
    name: str | None = None  # the wager name, or the decision verb
    amount: int | None = None


BANKED_HELP = """
    w BOX WAGER AMOUNT   wager on a box while betting is open (AMOUNT 0 withdraws it)
    d BOX VERB [AMOUNT]  a box's decision (or just VERB [AMOUNT] when one box owes one)
    l  your last round (recall)    t  show the table    h  help    q  leave and quit"""


def parse_banked_command(line: str) -> BankedCommand | None:
    """One stdin line at a banked table -> a :class:`BankedCommand` (None for a blank line)."""
    return parse_line(line, BankedCommand, banked_command)


def banked_command(word: str, rest: list[str]) -> BankedCommand:
    """A banked table command other than quit, help and table."""
    if word in ("l", "recall", "last"):
        return BankedCommand("recall")
    if word in ("w", "wager"):
        if len(rest) != 3 or not rest[0].isdigit() or parse_amount(rest[2]) is None:
            raise BadCommand("usage: w BOX WAGER AMOUNT (cents, or $dollars)")
        return BankedCommand("wager", int(rest[0]), rest[1].lower(), parse_amount(rest[2]))
    box = None
    if word in ("d", "decide"):
        if not rest or not rest[0].isdigit() or len(rest) < 2:
            raise BadCommand("usage: d BOX VERB [AMOUNT]")
        box, word, rest = int(rest[0]), rest[1].lower(), rest[2:]
    if not re.fullmatch(r"[a-z_]+", word) or len(rest) > 1:
        raise BadCommand(f"unknown command {word!r} (h for help)")
    amount = None
    if rest:
        amount = parse_amount(rest[0])
        if amount is None:
            raise BadCommand(f"{word}: bad amount {rest[0]!r}")
    return BankedCommand("decide", box, word, amount)
