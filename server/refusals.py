"""A refusal as a player reads it: what to do, with the rule it applies kept apart.

Engines word their refusals for the record (``"win: only immediately before a come-out roll
(s4)"``). A player needs to know what to do instead (issue 27, point 2); staff and the logs
need the rule. :func:`for_player` splits a message's closing rule citation off into the
``error``'s ``rule`` field and, for the refusals whose remedy is known by their reason code,
says what to do (protocol/README.md, "Errors").
"""

from __future__ import annotations

import re

#: a closing parenthesis that cites a rule: "(s4)", "(s14-s17(2)-(3))", "(A5)", "(s4, A1)",
#: "(QLD Sch 19 s3(2))", "(ETG s2(3))", "(digest A2(v))"
_CITATION = re.compile(
    r"\s*\(((?:s\d|A\d|Sch\b|QLD\b|ACT\b|ETG\b|digest\b|r\s?\d)(?:[^()]|\([^()]*\))*)\)\s*$"
)

#: what to do, by the rules' reason code (the wager's own words stay in the message after it)
WHAT_TO_DO: dict[str, str] = {
    "not_before_come_out": (
        "Pass line and Don't pass take wagers only before a come-out roll: wait until the "
        "point is made or a seven rolls, or bet Come now"
    ),
    "no_point": "Wait for the come-out roll to set a point, then place this wager",
    "contract_bet": "A point is set: this wager stays on the layout until it is decided",
    "no_increase": "This wager was reduced: it may not be raised again until it is decided",
    "odds_above_maximum": "Lower the odds to the most the table allows on this point",
    "horn_units": "Bet the horn in equal units (or remove it whole)",
    "place_unit": "Bet the place number in the units it pays in",
}


def split_rule(message: str) -> tuple[str, str | None]:
    """``(message without its closing rule citation, the citation or None)``."""
    found = _CITATION.search(message)
    if found is None:
        return message, None
    return message[: found.start()].rstrip(), found.group(1)


def for_player(message: str, reason: str | None) -> tuple[str, str | None]:
    """``(what the player reads, the rule cited)`` for a refusal's ``message``."""
    text, rule = split_rule(message)
    todo = WHAT_TO_DO.get(reason or "")
    if todo is not None:
        text = f"{todo}."
    return text, rule
