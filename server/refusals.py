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

#: what to do, by the refusal's reason code (``error.reason``: the rules engine's code, or the
#: table's for its own refusals), for every game. The message the player reads is the
#: refusal's own words (the amounts, the box), then this; a code of :data:`SAY_INSTEAD` is
#: said in place of words written for the record ("win: only immediately before a come-out
#: roll"). protocol/README.md, "Errors", lists them.
WHAT_TO_DO: dict[str, str] = {
    # -- craps (QLD Sch 4) --
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
    "not_a_reduction": "Reduce it to less than it is now, or remove it",
    "always_on": "This wager works on every roll: leave it on, or remove it",
    "no_such_wager": "Choose a wager you have on the layout",
    # -- every banked and stadium game: the layout and the table's limits --
    "below_minimum": "Wager at least the table minimum",
    "above_maximum": "Wager no more than the table maximum",
    "tie_above_limit": "Lower the tie wager to the most shown",
    "unknown_wager": "Choose one of the wagers this table offers",
    "wager_not_offered": "Choose one of the wagers this table offers",
    "not_a_wager": "Choose a position on this layout",
    "not_on_this_wheel": "Choose a position on this layout",
    "outside_limits": "Wager within this terminal's limits",
    "no_markers": "This game has no on / off markers: place or withdraw the wager instead",
    "no_jackpot": "This table has no jackpot wager: leave it out",
    "jackpot_denomination": "Make the jackpot wager exactly the amount shown",
    "needs_": "Place the wager it goes with first (or with it)",
    "too_many_players": "Choose another box: this one has as many players as it takes",
    "no_box_to_back": "Back a box another player holds",
    "one_player_per_box": "Choose a free box: one player plays each box",
    # -- decisions (banked games, blackjack, pai gow) --
    "illegal_verb": "Choose one of the decisions offered now",
    "not_awaiting_decision": "Wait: this box owes no decision now",
    "no_decisions": "Nothing to decide in this game: the cards decide",
    "no_such_box": "Choose a box that holds your wager",
    "no_such_player": "Name a player at this box",
    "controller_only": "Only the box's player decides; you back it",
    "unexpected_amount": "Send this decision without an amount",
    "amount_required": "Give an amount within the bounds shown",
    "bad_amount": "Give one of the amounts shown",
    "play_out_of_range": "Play between one and three times your ante",
    "not_started": "Wait for the round to start",
    "already_started": "Wait for the next round",
    "round_complete": "Wait for the next round",
    # -- pai gow (QLD Sch 6) --
    "setting_required": "Choose your two low-hand tiles to set, or ask for the house way",
    "nothing_to_fund": "Set your tiles: the setting takes no wager",
    "bad_setting": "Set your four tiles: two in the high hand, two in the low",
    "unexpected_setting": "Send this decision without a setting of the tiles",
    "not_your_tiles": "Set the four tiles dealt to your box",
    "high_below_low": "Swap the hands: the high hand must rank above the low hand",
    "box_1_is_bank": "Choose another box: box 1 is the house's bank",
    "one_bank": "Another box banks this round: wager as a player, or bank a later round",
    "player_banking_disabled": "The house banks at this table: wager as a player",
    "co_banking_disabled": "Nobody co-banks at this table: bank alone or wager as a player",
    "banker_may_not_bet": "While you bank, wager on no other hand",
    "no_players": "Wait for a player's wager before you bank",
    "bank_cannot_cover": "Bank with enough to cover the players' wagers",
    "house_liability": "The house cannot co-bank this much: bank alone or wager as a player",
    "house_banks_first": "The house banks this round: take the bank from the next round",
    "not_played_box": "Play a round on this box first, then take its bank",
    "banked_two_rounds": "You banked two rounds running: play this round, bank after it",
    "bank_has_no_backers": "Back a player's box: nobody backs the bank's box",
    "backer_bets_only": "Behind a box, place only the box's bet",
    "one_box_per_player": "Wager on one box (two at most, alone against the house)",
    "two_boxes_not_alone": "Wager on one box: two boxes only when you are the only player",
    "two_boxes_not_twice": "Make one box's wager at least twice the other's, or play one box",
    # -- poker (ACT, QLD): the betting action --
    "not_your_turn": "Wait for your turn",
    "action_not_allowed": "Choose one of the actions offered now",
    "unknown_action": "Choose one of the actions offered now",
    "amount_too_small": "Bet or raise at least the minimum shown",
    "amount_too_large": "Bet or raise no more than the maximum shown",
    "amount_invalid": "Give an amount within the bounds shown",
    "amount_not_allowed": "Give an amount within the bounds shown",
    "raise_cap_reached": "The raises are capped this betting round: call or fold",
    "betting_closed": "Betting is over for this round: wait for the next",
    "your_turn": "Act now instead: it is your turn",
    "not_to_act": "Nothing to queue: you have no more turns this hand",
    "amount": "Say the most you will call",
}

#: reason codes whose engine words are for the record only: what to do is said instead
SAY_INSTEAD: frozenset[str] = frozenset(
    {
        "not_before_come_out",
        "no_point",
        "contract_bet",
        "no_increase",
        "odds_above_maximum",
        "horn_units",
        "place_unit",
        "your_turn",
        "amount",
    }
)

#: what to do, by ``error.code``, for the table's refusals that carry no reason code (the
#: table layer passes the code: see :func:`for_player`)
WHAT_TO_DO_BY_CODE: dict[str, str] = {
    "betting_closed": "No more bets: wait for the next betting window",
    "box_taken": "Choose a free box",
    "bad_box": "Choose one of the table's boxes",
    "seat_taken": "Choose a free seat",
    "bad_seat": "Choose one of the table's seats",
    "table_full": "Join the waiting list or watch until a seat is free",
    "no_decision": "Wait: that box owes no decision now",
    "no_round": "Wait for the next round",
    "round_in_progress": "Wait until the round ends",
    "not_seated": "Take a seat first",
    "not_at_table": "Join the table first",
    "insufficient_funds": "Wager less, or add money (a deposit at the cashier, or credits)",
    "jackpot_unavailable": "Wager without the jackpot until it is back",
    "game_full": "Every terminal is taken: try again when one is free",
    "spectators_full": "Try again later: the table has as many watchers as it takes",
}


def what_to_do(reason: str | None, code: str | None = None) -> str | None:
    """The remedy for a refusal: by its reason code (``needs_ante`` by ``needs_``), else by
    its error code; None when none is declared."""
    if reason:
        found = WHAT_TO_DO.get(reason)
        if found is None and reason.startswith("needs_"):
            found = WHAT_TO_DO["needs_"]
        if found is not None:
            return found
    return WHAT_TO_DO_BY_CODE.get(code or "")


def split_rule(message: str) -> tuple[str, str | None]:
    """``(message without its closing rule citation, the citation or None)``."""
    found = _CITATION.search(message)
    if found is None:
        return message, None
    return message[: found.start()].rstrip(), found.group(1)


def for_player(message: str, reason: str | None, code: str | None = None) -> tuple[str, str | None]:
    """``(what the player reads, the rule cited)`` for a refusal's ``message``: its own words
    without the rule, then what to do (or only what to do, for :data:`SAY_INSTEAD`)."""
    text, rule = split_rule(message)
    todo = what_to_do(reason, code)
    if todo is None:
        return text, rule
    if reason in SAY_INSTEAD or not text:
        return f"{todo}.", rule
    said = text.rstrip(" .")
    if said.lower().endswith(todo.lower().rstrip(".")):  # the message says it already
        return f"{said}.", rule
    return f"{said}. {todo}.", rule
