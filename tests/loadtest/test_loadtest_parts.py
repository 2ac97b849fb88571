"""The load tester's parts: latency histogram, action choice, lobby config, CLI guards,
conservation arithmetic and report shape."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from loadtest.bot import choose_action
from loadtest.cli import main as loadtest_main
from loadtest.report import latency_svg, summary_rows, throughput_svg, write_html
from loadtest.runner import (
    RunSpec,
    build_report,
    conservation,
    money_conserved,
    money_held,
    pick_tables,
)
from loadtest.server_proc import tables_toml
from loadtest.stats import Histogram, Stats
from server.config import load_tables


@given(st.lists(st.floats(min_value=0.05, max_value=5000), min_size=1, max_size=300))
def test_histogram_percentiles_within_two_percent(samples: list[float]) -> None:
    h = Histogram()
    for s in samples:
        h.add(s)
    ordered = sorted(samples)
    for p in (50, 95, 99):
        exact = ordered[max(0, -(-len(ordered) * p // 100) - 1)]
        assert abs(h.percentile(p) - exact) <= exact * 0.011 + 1e-9
    assert h.max == max(samples)


def test_stats_merge_adds_counts_and_keeps_max() -> None:
    a, b = Stats(), Stats()
    a.count("hands", 3)
    a.latency_sample(0, 5.0)
    b.count("hands", 4)
    b.latency_sample(0, 50.0)
    b.errors["not_your_turn"] += 1
    a.merge(Stats.from_dict(b.to_dict()))
    assert a.counters["hands"] == 7
    assert a.latency.n == 2 and a.latency.max == 50.0
    assert a.timeline[0].n == 2
    assert a.errors == {"not_your_turn": 1}


@given(st.integers(0, 2**32), st.integers(1, 10_000), st.integers(0, 10_000))
def test_choose_action_stays_within_the_bounds_sent(seed: int, low: int, span: int) -> None:
    legal = {"fold": {}, "call": {"amount": 200}, "raise": {"min": low, "max": low + span}}
    verb, amount = choose_action(legal, random.Random(seed))
    assert verb in legal
    if verb == "raise":
        assert amount is not None and low <= amount <= low + span
    else:
        assert amount is None


def test_choose_action_uses_fixed_limit_sizes() -> None:
    legal = {"bet": {"min": 200, "max": 400, "sizes": [200, 400]}}
    for seed in range(20):
        assert choose_action(legal, random.Random(seed)) in (("bet", 200), ("bet", 400))


def test_generated_lobby_is_a_valid_server_config(tmp_path: Path) -> None:
    path = tmp_path / "lobby.toml"
    path.write_text(tables_toml(12, 6, ["holdem-act", "omaha-qld", "manila-act"]))
    tables = load_tables(path)
    assert len(tables) == 12
    assert {t.game for t in tables} == {"holdem-act", "omaha-qld", "manila-act"}
    assert all(t.options["max_seats"] == 6 for t in tables)


def test_write_config_option(tmp_path: Path) -> None:
    path = tmp_path / "lobby.toml"
    assert loadtest_main(["--write-config", str(path), "--tables", "3"]) == 0
    assert len(load_tables(path)) == 3


def test_refuses_a_remote_target_without_allow_remote() -> None:
    assert loadtest_main(["--url", "ws://192.0.2.1:8765/ws", "--quiet"]) == 2


def test_conservation_catches_a_missing_cent() -> None:
    stats = Stats()
    stats.count("bots", 2)
    stats.bots_settled = 2
    stats.balances_start, stats.balances_end = 200_000, 199_000
    before = {"issued": 300_000, "wallets": 300_000, "stakes": 0, "commission": 0}
    after = {"issued": 300_000, "wallets": 299_000, "stakes": 0, "commission": 1_000}
    assert conservation(before, after, stats)["conserved"] is True
    stats.balances_end = 198_999  # a cent vanished on the bots' side
    assert conservation(before, after, stats)["conserved"] is False
    stats.balances_end = 199_000
    broken = dict(after, wallets=298_999)  # the server lost a cent
    assert conservation(before, broken, stats)["conserved"] is False


def test_a_person_who_wins_at_a_bot_table_is_not_money_lost() -> None:
    """Issue 27, point 7: a person took $10 off the bots; the books balance, so the money is
    conserved (the bots' net is not the house's alone once the bots saw someone else)."""
    stats = Stats()
    stats.count("bots", 2)
    stats.bots_settled = 2
    stats.balances_start, stats.balances_end = 200_000, 198_900
    before = {"issued": 300_000, "wallets": 300_000, "stakes": 0, "commission": 0}
    after = {"issued": 300_000, "wallets": 299_900, "stakes": 0, "commission": 100}
    assert conservation(before, after, stats)["conserved"] is False  # no one else seen
    stats.count("others_seen")
    checked = conservation(before, after, stats)
    assert checked["conserved"] is True and checked["others_net"] == 1_000
    assert "other players at the tables (net +$10" in checked["client_note"]


def test_every_mode_sums_the_held_money_once() -> None:
    """A jackpot paid leaves its pool: held = wallets + ... + contributed - paid."""
    money = {"issued": 1_000, "wallets": 900, "house": 50, "jackpot_contributed": 80}
    money["jackpot_paid"] = 30
    assert money_held(money) == 1_000 and money_conserved(money)
    assert not money_conserved(dict(money, commission=1))


def test_report_has_the_required_keys_and_an_inline_plot() -> None:
    stats = Stats()
    stats.count("hands", 10)
    for t in range(5):
        stats.latency_sample(t, 1.0 + t)
    report = build_report(RunSpec(url="ws://127.0.0.1:1/ws"), stats, 5.0, None, None)
    assert {"hands", "errors", "latency_ms", "conserved"} <= set(report)
    assert set(report["latency_ms"]) >= {"p50", "p95", "p99", "max"}
    assert report["conserved"] is False  # nothing checked is not a pass
    svg = latency_svg(report["timeline"])
    assert svg.startswith("<svg") and svg.count("<polyline") == 3


def test_report_money_is_dollars_and_commission_is_called_commission(tmp_path: Path) -> None:
    stats = Stats()
    stats.count("bots", 2)
    stats.bots_settled, stats.balances_start, stats.balances_end = 2, 200_000, 198_750
    for t in range(4):
        stats.latency_sample(t, 2.0)
        stats.latency_sample(t, 3.0)
    before = {"issued": 200_000, "wallets": 200_000, "stakes": 0, "commission": 0}
    after = {"issued": 200_000, "wallets": 198_750, "stakes": 0, "commission": 1_250}
    report = build_report(RunSpec(url="ws://127.0.0.1:1/ws"), stats, 4.0, before, after)
    text = dict(summary_rows(report))["conservation"]
    assert "bots net -$12.50 + commission +$12.50: ok" in text
    assert "house" not in text
    throughput = throughput_svg(report["timeline"])
    assert throughput.startswith("<svg") and throughput.count("<polyline") == 1
    assert "actions/s" in throughput
    page = tmp_path / "report.html"
    write_html(report, page)
    assert page.read_text().count("<svg") == 2  # latency beside throughput
    assert '<meta name="viewport" content="width=device-width' in page.read_text()  # phones


def test_bots_join_a_table_a_person_plays_at() -> None:
    """Issue 27, point 7: the free seats of a table people sit at are filled (any seat)."""
    row = {"min_buy_in": 100, "max_buy_in": None, "game": "holdem-act"}
    rows = [
        {**row, "id": "full-ish", "seats": 6, "taken": 4},
        {**row, "id": "person", "seats": 6, "taken": 1},
        {**row, "id": "bank", "seats": 5, "taken": 1, "game": "baccarat"},
        {**row, "id": "empty", "seats": 6, "taken": 0},
    ]
    chosen = pick_tables(rows, RunSpec(url="ws://127.0.0.1:1/ws", tables=3, seats=3))
    assert [(t["id"], t["any_seat"], t["seats"]) for t in chosen] == [
        ("person", True, 3),
        ("bank", True, 3),  # the boxes the person does not hold
        ("empty", False, 3),
    ]
