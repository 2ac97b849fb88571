"""Refusals a player can act on (issue 27, point 2): the rule cited apart, what to do said."""

from __future__ import annotations

from server.refusals import for_player, split_rule


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
