"""Typed commands of the terminal client: one stdin line -> a command (poker or banked table)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from clients.terminal.render import IN_CHIPS, legal_summary, money
from server.money import AmountError, parse_dollars

USAGE = """croupier play: sit at a table and play from a terminal.

    croupier play [--url ws://127.0.0.1:8765/ws] [--token-file PATH | --name NAME]
                  [--table ID] [--watch] [--seat N] [--buy-in AMOUNT]
    croupier play --bot [--hands N] [--table ID] [--seed S]
    croupier play --tournament ID [--bot]    (register and play it; at the lobby
                  prompt: tournaments, register ID, unregister ID)

It speaks only the documented protocol (protocol/README.md) through clients/client.py.
Every AMOUNT is dollars: 6, 6.50 and $6.50 all mean six dollars (at most two decimals).
"""

POKER_HELP = """Poker table commands (one per line; AMOUNT in dollars: 6, 6.50 or $6.50):
    f  fold          k  check          c  call          a  all in
    b AMOUNT     bet AMOUNT (your total in this betting round)
    r AMOUNT     raise to AMOUNT (your total in this betting round)
    buy AMOUNT   buy in or top up (between hands)
    o  sit out       i  sit back in
    t  show the table    h  this help    q  leave the table and quit
    y  your last 10 rounds here (history)
    seed TEXT    your own seed for every deal (seed alone: a random one per deal)
A command typed before your turn waits for it and is checked against what you may do then;
q leaves at once and drops what waits. Commands typed faster than the server takes them are
queued and sent in order."""

BANKED_HELP = """Banked table commands (one per line; AMOUNT in dollars: 6, 6.50 or $6.50):
    w BOX WAGER AMOUNT   place a wager on a box while betting is open (AMOUNT 0 withdraws it)
    VERB [AMOUNT]        the decision your box owes (d BOX VERB [AMOUNT] when you play several)
    set I J              pai gow: your tiles I and J (positions 1-4) make the low hand, the
                         other two the high hand (d BOX set I J)
    house                pai gow: the dealer sets your tiles the house way
    l  your last round (recall)    t  show the table    h  this help    q  leave and quit
    y  your last 10 rounds here (history)
    seed TEXT            your own seed for every deal (blackjack: every shoe); seed alone:
                         a random one per deal
A wager typed outside the betting window waits for the next one; a decision typed early
waits until its box owes it (dropped, said, if the round ends first); q drops what waits."""

HELP = (
    POKER_HELP
    + "\n\n"
    + BANKED_HELP
    + "\n\nOn a terminal the table is redrawn in place above a scrolling log; with stdin or"
    "\nstdout piped (or --plain) every event is printed as a line, so the client can be"
    "\nscripted. --bot plays random legal actions for --hands rounds, then leaves."
)
VERBS = {"f": "fold", "k": "check", "c": "call", "a": "allin", "b": "bet", "r": "raise"}
#: decision causes the server applies by itself (not typed by a player)
SERVER_VERBS = ("timeout", "insufficient")
T = TypeVar("T")


#: a rule citation in a wager's description: "s14(b)", "r 8.5", "BJ s32-s37", "s6(1),(2)"
_CITE = (
    r"(?:[A-Z]{2,3} )?(?:s|r )\d+(?:\.\d+)?[a-z]?(?:,?\([^()]*\))*"
    r"(?:-s?\d*(?:\.\d+)?(?:\([^()]*\))*)?"
)
_CITES = rf"{_CITE}(?:,\s*{_CITE})*"


def without_rules(doc: str) -> str:
    """A wager's description as a player reads it: the rule numbers it cites left out (they
    are for staff and the logs): ``"s14(b); only with an ante (s28)"`` -> ``"only with an
    ante"``."""
    doc = re.sub(rf"\s*\({_CITES}\)", "", doc)
    doc = re.sub(rf"^{_CITES}(?::\s*|;\s*|$)", "", doc)
    return re.sub(rf"[,;]\s*{_CITES}$", "", doc).strip()


def game_help(table: dict[str, Any]) -> str:
    """A banked table's wagers and decisions, as its engine's ``describe()`` lists them (the
    table view carries them: ``wagers`` and ``verbs``)."""
    wagers = table.get("wagers") or []
    lines = [f"At {table.get('name', 'this table')} ({table.get('game', '')}):"]
    placed = [w for w in wagers if w.get("initial")]
    if placed:
        lines.append("  wagers you place (w BOX WAGER AMOUNT):")
        for w in placed:
            required = "  (required)" if w.get("required") else ""
            lines.append(f"    {w['name']:<21} {without_rules(w.get('doc', ''))}{required}")
    later = [w for w in wagers if not w.get("initial")]
    if later:
        lines.append("  wagers made by a decision:")
        lines += [f"    {w['name']:<21} {without_rules(w.get('doc', ''))}" for w in later]
    verbs = [v for v in table.get("verbs") or [] if v not in SERVER_VERBS]
    lines.append(
        "  decisions you type: "
        + (", ".join(verbs) if verbs else "none (the rules decide everything)")
    )
    return "\n".join(lines)


def parse_amount(text: str) -> int:
    """A typed amount (always dollars) -> cents; BadCommand with the reason if it is not one.
    At a tournament table (``IN_CHIPS``) amounts are whole tournament chips: ``400``."""
    if IN_CHIPS.get():
        if not text.replace(",", "").isdigit():
            raise BadCommand(f"{text!r}: tournament chips are a whole number, e.g. 400")
        return int(text.replace(",", ""))
    try:
        return parse_dollars(text)
    except AmountError as exc:
        raise BadCommand(str(exc)) from None


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
    "y": "history",
    "history": "history",
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
        if len(rest) != 1:
            raise BadCommand("usage: buy AMOUNT (dollars, e.g. buy 150)")
        return Command("buy", amount=parse_amount(rest[0]))
    verb = VERBS.get(word) or (word if word in VERBS.values() else None)
    if verb is None:
        raise BadCommand(f"unknown command {word!r} (h for help)")
    if verb in ("bet", "raise"):
        if len(rest) != 1:
            raise BadCommand(f"usage: {word} AMOUNT (dollars, e.g. {word} 6 or {word} 6.50)")
        return Command("act", verb, parse_amount(rest[0]))
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
            return f"{cmd.verb} must be one of {', '.join(money(s) for s in sizes)}"
        lo, hi = bounds.get("min"), bounds.get("max")
        if lo is not None and cmd.amount is not None and not lo <= cmd.amount <= hi:
            return f"{cmd.verb} must be between {money(lo)} and {money(hi)}"
    return None


@dataclass
class BankedCommand:
    kind: str  # "wager", "decide", "recall", "quit", "help", "table"
    box: int | None = None
    name: str | None = None  # the wager name, or the decision verb
    amount: int | None = None
    round: int = 0  # a decision's round (the one in play when typed, else the next)
    #: a pai gow ``set``: the positions (1-4) of the two tiles for the low hand
    low: tuple[int, int] | None = None

    def setting(self, tiles: list[str]) -> dict[str, list[str]]:
        """The ``set``'s hands of the box's four ``tiles`` (QLD Sch 6 s27)."""
        assert self.low is not None
        low = [tiles[i - 1] for i in self.low]
        high = [t for i, t in enumerate(tiles, 1) if i not in self.low]
        return {"high": high, "low": low}


def parse_banked_command(line: str) -> BankedCommand | None:
    """One stdin line at a banked table -> a :class:`BankedCommand` (None for a blank line)."""
    return parse_line(line, BankedCommand, banked_command)


def banked_command(word: str, rest: list[str]) -> BankedCommand:
    """A banked table command other than quit, help and table."""
    if word in ("l", "recall", "last"):
        return BankedCommand("recall")
    if word in ("w", "wager"):
        if len(rest) != 3 or not rest[0].isdigit():
            raise BadCommand("usage: w BOX WAGER AMOUNT (dollars, e.g. w 1 ante 5)")
        return BankedCommand("wager", int(rest[0]), rest[1].lower(), parse_amount(rest[2]))
    box = None
    if word in ("d", "decide"):
        if not rest or not rest[0].isdigit() or len(rest) < 2:
            raise BadCommand("usage: d BOX VERB [AMOUNT]")
        box, word, rest = int(rest[0]), rest[1].lower(), rest[2:]
    if word == "house":
        word = "house_way"
    if word == "set":
        if len(rest) != 2 or not all(r in ("1", "2", "3", "4") for r in rest) or rest[0] == rest[1]:
            raise BadCommand(
                "usage: set I J (positions 1-4 of the two tiles for your low hand, e.g. set 1 3)"
            )
        return BankedCommand("decide", box, "set", low=(int(rest[0]), int(rest[1])))
    if not re.fullmatch(r"[a-z_]+", word) or len(rest) > 1:
        raise BadCommand(f"unknown command {word!r} (h for help)")
    amount = parse_amount(rest[0]) if rest else None
    return BankedCommand("decide", box, word, amount)
