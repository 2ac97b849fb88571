"""Refusals a player can act on (issue 27, point 2): the rule cited apart, what to do said."""

from __future__ import annotations

from server.refusals import WHAT_TO_DO, WHAT_TO_DO_BY_CODE, for_player, split_rule, what_to_do


def test_a_closing_rule_citation_moves_to_the_rule_field() -> None:
    assert split_rule("win_odds: at most $30.00 (s14-s17(2)-(3))") == (
        "win_odds: at most $30.00",
        "s14-s17(2)-(3)",
    )
    assert split_rule("come: only after the come out roll (s4, A1)")[1] == "s4, A1"
    assert split_rule("buy-in (QLD Sch 11 s18(3))")[1] == "QLD Sch 11 s18(3)"


def test_amounts_in_brackets_are_not_rules() -> None:
    assert split_rule("stake $0.50 (min $40.00)") == ("stake $0.50 (min $40.00)", None)


def test_the_pass_line_refusal_says_what_to_do() -> None:
    text, rule = for_player(
        "win: only immediately before a come-out roll (s4)", "not_before_come_out"
    )
    assert rule == "s4"
    assert "(s4)" not in text
    assert "wait until the point is made" in text and "bet Come" in text


def _raised_codes() -> set[str]:
    """Every reason code an engine raises (``IllegalAction("code", ...)``, ``"needs_" + x``)
    and every reason a table passes to its ``error`` (the fifth argument), read from the
    source: a new refusal without a remedy fails the test below."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "server"
    codes: set[str] = set()
    for path in [*root.glob("games/**/*.py"), *root.glob("tables/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            callee = node.func
            name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
            arg: ast.expr | None = None
            if name == "IllegalAction" and node.args:
                arg = node.args[0]
            elif name == "error" and len(node.args) >= 5:
                arg = node.args[4]
            if isinstance(arg, ast.BinOp) and isinstance(arg.left, ast.Constant):
                arg = arg.left  # "needs_" + the wager's name
            branches = [arg.body, arg.orelse] if isinstance(arg, ast.IfExp) else [arg]
            for one in branches:  # "setting_required" if ... else "unexpected_setting"
                if isinstance(one, ast.Constant) and isinstance(one.value, str):
                    codes.add(one.value)
    return codes


#: engine codes no player can meet: a scenario's or the dealer's input, never a player's
STAFF_ONLY = {"unexpected_qualifiers", "bad_before_roll", "no_more_rolls", "ambiguous"}


def test_every_refusal_a_player_can_meet_says_what_to_do() -> None:
    codes = _raised_codes()
    assert {"below_minimum", "not_before_come_out", "high_below_low", "needs_"} <= codes
    missing = sorted(c for c in codes - STAFF_ONLY if what_to_do(c) is None)
    assert not missing, missing
    for code in [*WHAT_TO_DO, *WHAT_TO_DO_BY_CODE]:
        text = what_to_do(code, code)
        assert text and text[0].isupper() and not text.endswith("."), code


def test_the_refusal_keeps_its_facts_and_adds_what_to_do() -> None:
    text, rule = for_player("box 2: ante $1.00 is below the table minimum $5.00", "below_minimum")
    assert text == (
        "box 2: ante $1.00 is below the table minimum $5.00. Wager at least the table minimum."
    )
    assert rule is None
    text, rule = for_player(
        "the high hand (pair) ranks below the low hand (gee joon) (s2)", "high_below_low"
    )
    assert rule == "s2" and text.endswith(
        "Swap the hands: the high hand must rank above the low hand."
    )
    assert for_player("box 3: the pair_plus wager needs a ante wager", "needs_ante")[0].endswith(
        "Place the wager it goes with first (or with it)."
    )
    # a table refusal without a reason: by its error code
    assert for_player("box 3 is another player's", None, "box_taken")[0] == (
        "box 3 is another player's. Choose a free box."
    )
    assert for_player("something new", "no_such_code") == ("something new", None)


def test_a_message_that_already_says_what_to_do_is_not_told_twice() -> None:
    text, _ = for_player("no more bets: wait for the next betting window", None, "betting_closed")
    assert text == "no more bets: wait for the next betting window."
