"""Stadium tables, property-based (hypothesis): random sessions of terminals and staff on a
roulette, craps and wheel of fortune table, driven through the table's own handlers.

After every command the books balance against the layout the table reports
(``Books.check``), and every cent issued is in a wallet, a meter, on the layout or with the
house (QLD Sch 19 s4, s7, s10: credits, settlement, corrections by adjustment).
"""

from __future__ import annotations

from typing import Any

import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import messages as wire
from server.config import ServerConfig, TableConfig
from server.store.ledger import Ledger
from server.store.memory import MemoryStore
from server.tables.base import TableCommand
from server.tables.connection import Connection
from server.tables.phases import Phase
from server.tables.stadium import StadiumTable

GAMES: dict[str, dict[str, Any]] = {
    "roulette": {
        "positions": ["red", "black", "straight_17", "split_17_20", "dozen_2", "column_1"],
        "outcomes": [{"number": n} for n in (0, 1, 17, 20, 36)] + [{"invalid": "no spin"}],
    },
    "craps": {
        "positions": ["win", "dont_win", "come", "win_odds", "place_6", "buy_4", "lay_10", "field"],
        "outcomes": [{"dice": d} for d in ([3, 4], [2, 4], [3, 3], [1, 1], [5, 6], [2, 2])]
        + [{"invalid": "off_table"}],
    },
    "wheel-of-fortune": {
        "positions": ["a", "b", "c", "h"],
        "outcomes": [{"segment": s} for s in "abch"] + [{"invalid": "malfunction"}],
    },
}

PLACE = st.tuples(
    st.just("place"), st.integers(0, 2), st.integers(0, 7), st.sampled_from([0, 500, 600, 1000])
)
op = st.one_of(
    st.tuples(st.just("credit"), st.integers(0, 2), st.integers(1, 5_000)),
    PLACE,
    PLACE,
    PLACE,
    st.tuples(st.just("collect"), st.integers(0, 2)),
    st.tuples(st.just("cash_out"), st.integers(0, 2)),
    st.tuples(st.just("close")),
    st.tuples(st.just("result"), st.integers(0, 7)),
    st.tuples(st.just("correct"), st.integers(0, 7)),
    st.tuples(st.just("open")),
    st.tuples(st.just("leave"), st.integers(0, 2)),
)


def conn(account: str, role: str = "player") -> Connection:
    c = Connection(100_000)
    c.account, c.name, c.role = account, account, role
    return c


def play(game: str, ops: list[tuple[Any, ...]]) -> None:
    async def main() -> None:
        wallet = Ledger(MemoryStore())
        cfg = ServerConfig()
        table = StadiumTable(
            TableConfig(
                id="t",
                game=game,
                kind="stadium",
                options={"minimum": 500, "maximum": 5_000},
                result_source="dealer",
                seed=3,
            ),
            cfg,
            wallet,
        )
        players = [conn(f"p{i}") for i in range(3)]
        dealer, boss = conn("dealer", "dealer"), conn("boss", "manager")
        for c in players:
            wallet.open(c.account or "", 20_000)
            table.dispatch(TableCommand(c, wire.Join(table="t")))
        data = GAMES[game]

        def run(item: Any) -> None:
            table.dispatch(item)
            table.flush()
            table.books.check(table.where_money_is())
            m = table.books.money()
            assert wallet.total() + m["stakes"] + m["house"] == wallet.issued

        for step in ops:
            kind = step[0]
            if kind == "credit":
                run(TableCommand(players[step[1]], wire.CreditIn(table="t", amount=step[2])))
            elif kind == "place":
                position = data["positions"][step[2] % len(data["positions"])]
                msg = wire.Place(table="t", position=position, amount=step[3])
                run(TableCommand(players[step[1]], msg))
            elif kind == "collect":
                run(TableCommand(players[step[1]], wire.Collect(table="t")))
            elif kind == "cash_out":
                run(TableCommand(players[step[1]], wire.CashOut(table="t")))
            elif kind == "close" and table.phase is Phase.BETTING:
                table.close_betting()
                run(TableCommand(dealer, wire.Recall(table="t")))
            elif kind == "result":
                outcome = data["outcomes"][step[1] % len(data["outcomes"])]
                run(TableCommand(dealer, wire.EnterResult(table="t", outcome=outcome)))
            elif kind == "correct" and table.records:
                outcome = data["outcomes"][step[1] % len(data["outcomes"])]
                if "invalid" not in outcome:
                    fix = {"round": table.records[-1].round_no, **outcome}
                    msg = wire.Operator("correct_result", "test", table="t", result=fix)
                    run(TableCommand(boss, msg))
            elif kind == "open" and table.phase in (Phase.IDLE, Phase.PAUSE) and table.members:
                table.open_betting(trio.current_time())
                run(TableCommand(dealer, wire.Recall(table="t")))
            elif kind == "leave" and (players[step[1]].account or "") in table.members:
                run(TableCommand(players[step[1]], wire.Leave(table="t")))
        table.void_round("shutdown")
        for member in list(table.members.values()):
            table.vacate(member, "shutdown")
        table.books.check(table.where_money_is())
        assert wallet.total() + table.books.money()["house"] == wallet.issued
        assert table.books.money()["stakes"] == 0

    trio.run(main)


PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(st.lists(op, min_size=5, max_size=60))
def test_roulette_sessions_conserve_money(ops: list[tuple[Any, ...]]) -> None:
    play("roulette", [("open",), *ops])


@PROPERTY
@given(st.lists(op, min_size=5, max_size=60))
def test_craps_sessions_conserve_money(ops: list[tuple[Any, ...]]) -> None:
    play("craps", [("open",), *ops])


@PROPERTY
@given(st.lists(op, min_size=5, max_size=60))
def test_wheel_sessions_conserve_money(ops: list[tuple[Any, ...]]) -> None:
    play("wheel-of-fortune", [("open",), *ops])
