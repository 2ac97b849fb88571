"""Refusals over a real socket say what to do; the rule stays in ``rule`` (issue 27, point 2).

A pai gow table (QLD Sch 6): a wager on box 1, the house's bank (s18(13)), and a wager below
the table minimum are refused with their reason codes; the player reads the refusal's facts
and what to do instead, without the rule number, which the ``error`` keeps in ``rule``.
"""

from __future__ import annotations

import pytest

from clients.client import Client, ServerError
from server.config import TableConfig
from tests.clients.support import config
from tests.integration.test_banked_round import expect
from tests.support import running_server

TABLE = "pg-refusals"


def table() -> TableConfig:
    return TableConfig(
        id=TABLE,
        game="pai-gow",
        options={"minimum": 100, "maximum": 10_000},
        betting_seconds=30.0,
        decision_seconds=20.0,
    )


async def test_wager_refusals_say_what_to_do_and_keep_the_rule_apart() -> None:
    async with (
        running_server(config(table())) as server,
        Client.connect(server.url, name="ann") as ann,
    ):
        log: list[dict] = []
        await ann.join(TABLE, seat=2)
        await expect(ann, "betting_open", log)
        with pytest.raises(ServerError) as bank:
            await ann.wager(TABLE, 1, "bet", 500)
        error = bank.value.message
        assert (error["code"], error["reason"]) == ("wager_refused", "box_1_is_bank")
        assert error["rule"] == "s18(13)" and "s18" not in error["message"]
        assert error["message"].endswith("Choose another box: box 1 is the house's bank."), error
        with pytest.raises(ServerError) as low:
            await ann.wager(TABLE, 2, "bet", 50)
        error = low.value.message
        assert error["reason"] == "below_minimum" and error["rule"] is None
        assert "$0.50" in error["message"] and "$1.00" in error["message"], error
        assert error["message"].endswith("Wager at least the table minimum."), error


async def test_a_tie_above_its_limit_is_refused_when_made_not_at_the_deal() -> None:
    """Baccarat s9(3): a tie wager of at most one eighth of the table maximum. It was accepted
    and then voided the whole round for every box at the deal (seen in a terminal); it is
    refused when made, saying what to do, and the round is dealt."""
    bac = TableConfig(
        id="bac-refusals",
        game="baccarat",
        options={"minimum": 500, "maximum": 50_000},
        betting_seconds=30.0,
    )
    async with (
        running_server(config(bac)) as server,
        Client.connect(server.url, name="ann") as ann,
    ):
        log: list[dict] = []
        await ann.join(bac.id)
        await expect(ann, "betting_open", log)
        with pytest.raises(ServerError) as tie:
            await ann.wager(bac.id, 3, "tie", 10_000)
        error = tie.value.message
        assert (error["reason"], error["rule"]) == ("tie_above_limit", "s9(3)"), error
        assert "$62.50" in error["message"] and error["message"].endswith(
            "Lower the tie wager to the most shown."
        )
        await ann.wager(bac.id, 3, "tie", 5_000)  # within the limit: taken
