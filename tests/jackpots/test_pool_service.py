"""The pool service on both backends: contribute / award / refund / void / reset.

Amounts are cents; "1 unit" in the digest vectors (jackpots.md s8) is 100 cents. Each test
names the rule or digest section it checks.
"""

from __future__ import annotations

import pytest
import trio

from server.jackpots.model import JackpotError, PoolConfig, Prize, Snapshot
from server.jackpots.service import JackpotService, award_by_rule
from tests.jackpots.conftest import fresh_pool

UNIT = 100
QLD = PoolConfig.profile("qld", seed=1_000_000)
ACT = PoolConfig.profile("act2017", seed=1_000_000)


async def opened(service: JackpotService, config: PoolConfig, meter: int, reserve: int) -> str:
    pool = fresh_pool()
    await service.open_pool(pool, config, meter=meter, reserve=reserve)
    return pool


async def state(service: JackpotService, pool: str) -> Snapshot:
    snap = await service.snapshot(pool)
    assert snap is not None
    assert snap.balanced, snap
    return snap


async def test_contribution_split_qld_4_1_floors_both_parts(service: JackpotService) -> None:
    """QLD (digest 4.1 step 1, 5.1): prize floor(25%), reserve floor(5%), operator the rest."""
    pool = await opened(service, QLD, 0, 0)
    result = await service.contribute(pool, "r1", "w1", 333)
    assert (result.status, result.prize, result.reserve) == ("applied", 83, 16)
    snap = await state(service, pool)
    assert (snap.meter, snap.reserve, snap.contributions) == (83, 16, 99)


async def test_contribution_split_act_r10_6_remainder_to_reserve(service: JackpotService) -> None:
    """ACT r.10.5/10.6 (digest 2.6, 3.1): every cent of the wager goes to prize or reserve."""
    pool = await opened(service, ACT, 0, 0)
    result = await service.contribute(pool, "r1", "w1", 333)
    assert (result.prize, result.reserve) == (99, 234)


async def test_contribution_idempotent_per_round_and_wager_5_5(service: JackpotService) -> None:
    """Digest 5.5: the same (round, wager) twice is applied once and reported as duplicate."""
    pool = await opened(service, QLD, 500_000, 0)
    first = await service.contribute(pool, "r1", "w1", UNIT)
    before = await state(service, pool)
    again = await service.contribute(pool, "r1", "w1", UNIT)
    assert first.status == "applied"
    assert (again.status, again.prize, again.reserve) == ("duplicate", 25, 5)
    assert await state(service, pool) == before
    other_round = await service.contribute(pool, "r2", "w1", UNIT)
    assert other_round.status == "applied"


async def test_jp05_qld_rf_above_pool_house_funded_then_top_up_5_4(
    service: JackpotService,
) -> None:
    """JP-05: RF min 10,000 on 6,000: 4,000 from the house; top-up 3,000.15 reserve + house."""
    pool = await opened(service, PoolConfig.profile("qld", seed=500_000), 599_925, 300_000)
    for box in ("3", "6", "7"):
        await service.contribute(pool, "round-1", box, UNIT)
    result = await service.award(pool, "round-1", "settle", [Prize("3", 1_000_000)])
    assert result.status == "applied"
    assert (result.from_meter, result.house_funded, result.topped_up) == (600_000, 599_985, 500_000)
    snap = await state(service, pool)
    assert (snap.meter, snap.reserve, snap.house, snap.paid) == (500_000, 0, 599_985, 1_000_000)
    # digest 5.9 for JP-05: 5,000 + 0 + 10,000 = 5,999.25 + 3,000 + 0.90 + 5,999.85
    assert snap.seed == 899_925 and snap.contributions == 90


async def test_jp03_act2017_two_royals_shortfall_from_reserve_then_top_up(
    service: JackpotService,
) -> None:
    """JP-03 (ACT 2017 row): 2 x 10,000 on 15,000.60: reserve covers the rest; after 5,002."""
    pool = await opened(service, ACT, 1_500_000, 2_000_000)
    for box in ("1", "4"):
        await service.contribute(pool, "r", box, UNIT)
    await service.award(pool, "r", "settle", [Prize("1", 1_000_000), Prize("4", 1_000_000)])
    snap = await state(service, pool)
    assert (snap.meter, snap.reserve, snap.house) == (1_000_000, 500_200, 0)


async def test_jp03_qld_s24_shared_excess_house_funded(service: JackpotService) -> None:
    """JP-03 (QLD row): 12,500.25 each on a 15,000.50 jackpot; 10,000 house-funded (4.1.6)."""
    pool = await opened(service, QLD, 1_500_000, 2_000_000)
    for box in ("1", "4"):
        await service.contribute(pool, "r", box, UNIT)
    await service.award(pool, "r", "settle", [Prize("1", 1_250_025), Prize("4", 1_250_025)])
    snap = await state(service, pool)
    assert (snap.meter, snap.reserve, snap.house) == (1_000_000, 1_000_010, 1_000_000)


async def test_jp06_act2017_sf_first_residue_stays_in_pool(service: JackpotService) -> None:
    """JP-06: SF 8,000.09, RFs 36,000.40 each; the 0.01 residue stays, top-up from reserve."""
    pool = await opened(service, ACT, 8_000_000, 2_000_000)
    for box in ("2", "4", "6"):
        await service.contribute(pool, "r", box, UNIT)
    prizes = [Prize("2", 800_009), Prize("6", 3_600_040), Prize("4", 3_600_040)]
    result = await service.award(pool, "r", "settle", prizes)
    assert result.from_meter == 8_000_089 and result.topped_up == 999_999
    snap = await state(service, pool)
    assert (snap.meter, snap.reserve, snap.house) == (1_000_000, 1_000_211, 0)


async def test_jp07_act2004_fixed_prizes_from_reserve_meter_untouched_5_3(
    service: JackpotService,
) -> None:
    """JP-07: fixed prizes 650 from the reserve (5.3); contributions of 4 losing wagers after."""
    pool = await opened(service, PoolConfig.profile("act2004"), 2_345_678, 150_000)
    prizes = [Prize("1", 10_000, "fixed"), Prize("4", 5_000, "fixed"), Prize("6", 50_000, "fixed")]
    result = await service.award(pool, "r", "settle", prizes)
    assert (result.from_meter, result.from_reserve, result.house_funded) == (0, 65_000, 0)
    for box in ("2", "3", "5", "7"):
        await service.contribute(pool, "r", box, UNIT)
    snap = await state(service, pool)
    assert (snap.meter, snap.reserve) == (2_345_798, 85_280)


async def test_fixed_prize_short_reserve_house_covers_5_3(service: JackpotService) -> None:
    """Digest 5.3: if the reserve is short, the house covers the difference."""
    pool = await opened(service, PoolConfig.profile("act2004"), 2_000_000, 30_000)
    result = await service.award(pool, "r", "settle", [Prize("6", 50_000, "fixed")])
    assert (result.from_reserve, result.house_funded) == (30_000, 20_000)


async def test_jp09_qld_set_prizes_paid_by_house_s25_1(service: JackpotService) -> None:
    """JP-09: set jackpot, no pool: 0 + 0 + 27,499.99 paid = 0 + 0 + 27,499.99 house."""
    pool = await opened(service, PoolConfig("qld-set", 0, 0, 0, "house", "house"), 0, 0)
    prizes = [Prize(b, 83_333, "house") for b in ("1", "2", "3")]
    prizes += [Prize(b, 1_250_000, "house") for b in ("5", "6")]
    await service.award(pool, "r", "settle", prizes)
    snap = await state(service, pool)
    assert (snap.meter, snap.reserve, snap.paid, snap.house) == (0, 0, 2_749_999, 2_749_999)


async def test_award_idempotent_per_id_returns_stored_result(service: JackpotService) -> None:
    """Digest 5.5: a retried award is a no-op that returns the stored result."""
    pool = await opened(service, QLD, 5_000_000, 100_000)
    first = await service.award(pool, "r", "a1", 700_000)
    before = await state(service, pool)
    again = await service.award(pool, "r", "a1", 700_000)
    assert again.status == "duplicate"
    assert (again.paid, again.from_meter, again.version) == (first.paid, 700_000, first.version)
    assert await state(service, pool) == before


async def test_award_compare_and_set_conflict_changes_nothing_5_5(
    service: JackpotService,
) -> None:
    """Digest 5.5 step 5: on a version mismatch nothing is applied; recompute and retry."""
    pool = await opened(service, QLD, 5_000_000, 0)
    snap = await state(service, pool)
    await service.contribute(pool, "other-table", "w", UNIT)
    moved = await state(service, pool)
    result = await service.award(pool, "r", "a1", 100_000, expected_version=snap.version)
    assert result.status == "conflict" and result.version == moved.version
    assert await state(service, pool) == moved


async def test_jp10_linked_tables_ordered_by_commit_award_by_rule(
    service: JackpotService,
) -> None:
    """JP-10 / JP-10b (QLD s9, A-J11): the second commit is computed on the first's result."""

    def royal(snap: Snapshot) -> list[Prize]:
        return [Prize("1", max(1_000_000, snap.meter))]

    def straight(snap: Snapshot) -> list[Prize]:
        return [Prize("4", max(100_000, snap.meter // 10))]

    rows = []
    for first, second in ((royal, straight), (straight, royal)):
        pool = await opened(service, QLD, 10_000_000, 5_000_000)
        a = await award_by_rule(service, pool, "t1-r1", "settle", first)
        b = await award_by_rule(service, pool, "t2-r1", "settle", second)
        snap = await state(service, pool)
        rows.append((a.paid[0][1], b.paid[0][1], snap.meter, snap.reserve))
    assert rows == [
        (10_000_000, 100_000, 1_000_000, 3_900_000),
        (1_000_000, 9_000_000, 1_000_000, 4_000_000),
    ]


async def test_award_by_rule_recomputes_when_another_table_commits(
    service: JackpotService,
) -> None:
    """A-J9: an RF wins the live pool at its commit, including a contribution that landed
    between the regime's read and the commit (the first commit conflicts, then succeeds)."""
    pool = await opened(service, QLD, 2_000_000, 0)
    calls = 0

    async def royal(snap: Snapshot) -> list[Prize]:
        nonlocal calls
        calls += 1
        if calls == 1:
            await service.contribute(pool, "other-table", "w", 10 * UNIT)
        return [Prize("3", max(1_000_000, snap.meter))]

    result = await award_by_rule(service, pool, "r", "settle", royal)
    assert calls == 2 and result.paid == (("3", 2_000_250),)


async def test_refund_reverses_exactly_that_wager_5_6(service: JackpotService) -> None:
    """Digest 5.6 refund: the negative of the wager's credited parts, once."""
    pool = await opened(service, QLD, 500_000, 1_000)
    await service.contribute(pool, "r", "w1", 333)
    await service.contribute(pool, "r", "w2", UNIT)
    refund = await service.refund(pool, "r", "w1")
    assert (refund.status, refund.prize, refund.reserve) == ("applied", 83, 16)
    assert (await service.refund(pool, "r", "w1")).status == "duplicate"
    snap = await state(service, pool)
    assert (snap.meter, snap.reserve, snap.contributions) == (500_025, 1_005, 30)
    assert (await service.contribute(pool, "r", "w1", 333)).status == "duplicate"


async def test_refund_before_contribution_refuses_late_retry_5_6(service: JackpotService) -> None:
    """A wager refunded before its coin-in landed: a late retry must not credit it."""
    pool = await opened(service, QLD, 500_000, 0)
    assert (await service.refund(pool, "r", "w1")).status == "none"
    assert (await service.contribute(pool, "r", "w1", UNIT)).status == "refunded"
    assert (await state(service, pool)).contributions == 0


async def test_void_round_reverses_every_coin_in_s23_6(service: JackpotService) -> None:
    """QLD s23(6)/s30(3), digest 5.6 phase void: all the round's contributions reversed."""
    pool = await opened(service, QLD, 500_000, 0)
    other = await service.contribute(pool, "r0", "w", UNIT)
    for box in ("1", "2", "3"):
        await service.contribute(pool, "r1", box, 200)
    await service.refund(pool, "r1", "2")
    void = await service.void_round(pool, "r1")
    assert (void.status, void.wagers, void.prize, void.reserve) == ("applied", 2, 100, 20)
    assert (await service.void_round(pool, "r1")).status == "duplicate"
    assert (await service.contribute(pool, "r1", "4", 200)).status == "refunded"
    snap = await state(service, pool)
    assert (snap.meter, snap.reserve) == (500_000 + other.prize, other.reserve)


async def test_reset_starts_new_epoch_5_9(service: JackpotService) -> None:
    """Digest 5.9: seed = meter + reserve at the last reset; totals restart; reset id once."""
    pool = await opened(service, QLD, 500_000, 0)
    await service.contribute(pool, "r", "w", UNIT)
    await service.award(pool, "r", "a", 100_000)
    snap = await service.reset(pool, "night-1", meter=2_000_000, reserve=7)
    assert (snap.meter, snap.reserve, snap.seed, snap.paid, snap.house) == (
        2_000_000,
        7,
        2_000_007,
        0,
        0,
    )
    again = await service.reset(pool, "night-1", meter=1)
    assert again.meter == 2_000_000
    report = await service.check(pool)
    assert report.ok, report.problems


async def test_check_replays_audit_trail_5_9(service: JackpotService) -> None:
    """Digest 5.9: stored totals and the audit replay agree after every kind of movement."""
    pool = await opened(service, ACT, 1_000_000, 5_000)
    await service.contribute(pool, "r1", "a", 250)
    await service.contribute(pool, "r1", "b", 250)
    await service.refund(pool, "r1", "a")
    await service.award(pool, "r1", "s", [Prize("b", 2_000_000), Prize("b", 100, "fixed")])
    await service.void_round(pool, "r2")
    report = await service.check(pool)
    assert report.ok, report.problems
    assert report.entries == 5  # open, 2 contributions, refund, award (void of nothing: none)
    entries = await service.audit(pool)
    assert [e["op"] for e in entries] == ["open", "contribute", "contribute", "refund", "award"]
    assert entries[-1]["ver"] == str(report.snapshot.version)


async def test_bad_requests_have_stable_codes_and_change_nothing(
    service: JackpotService,
) -> None:
    pool = await opened(service, QLD, 500_000, 0)
    before = await state(service, pool)
    cases = [
        (service.contribute(pool, "r", "w", -5), "bad_amount"),
        (service.contribute(pool, "r", "w", 0), "bad_amount"),
        (service.contribute("no{brace}", "r", "w", 5), "bad_pool"),
        (service.contribute(pool, "r", "w w", 5), "bad_id"),
        (service.contribute(fresh_pool("missing"), "r", "w", 5), "no_pool"),
        (service.award(pool, "r", "a", [Prize("1", 5, "gift")]), "bad_prize"),  # type: ignore[arg-type]
        (service.open_pool(pool, QLD), "pool_exists"),
    ]
    for call, code in cases:
        with pytest.raises(JackpotError) as err:
            await call
        assert err.value.code == code
    assert await state(service, pool) == before


async def test_concurrent_tables_every_contribution_lands_once(service: JackpotService) -> None:
    """Many tables (tasks) coin in at once, some twice: totals exact (5.5 idempotency)."""
    pool = await opened(service, ACT, 1_000_000, 0)

    async def table(t: int) -> None:
        for n in range(15):
            await service.contribute(pool, f"t{t}-r{n}", "box1", 100 + t)
            if n % 5 == 0:
                await service.contribute(pool, f"t{t}-r{n}", "box1", 100 + t)

    async with trio.open_nursery() as nursery:
        for t in range(8):
            nursery.start_soon(table, t)
    snap = await state(service, pool)
    assert snap.contributions == sum(15 * (100 + t) for t in range(8))
    assert (await service.check(pool)).ok


async def test_watch_linked_meters_see_every_commit_s9(service: JackpotService) -> None:
    """QLD s9(2)(c), s9(3): every linked table's meter shows another table's contribution
    and hit within 1 s, in commit order."""
    pool = await opened(service, QLD, 1_000_000, 0)
    async with service.watch(pool) as table_a, service.watch(pool) as table_b:
        for meter in (table_a, table_b):
            with trio.fail_after(1):
                first = await meter.receive()
            assert first.meter == 1_000_000
        await service.contribute(pool, "r1", "w", 400)
        await service.award(pool, "r1", "a", [Prize("w", 200_000)])
        for meter in (table_a, table_b):
            with trio.fail_after(1):
                coin_in = await meter.receive()
                hit = await meter.receive()
            assert (coin_in.op, coin_in.meter) == ("contribute", 1_000_100)
            assert (hit.op, hit.meter, hit.round_id) == ("award", 1_000_000, "r1")
            assert hit.version == coin_in.version + 1


async def test_void_after_credit_spent_on_top_up_house_covers_5_6(
    service: JackpotService,
) -> None:
    """Digest 5.6 reverses a void round's coin-in exactly; if a top-up already spent part of
    it, the pool cannot give it back: meter and reserve never go negative, the house covers
    the spent part and the invariant (5.9) holds."""
    pool = await opened(service, PoolConfig.profile("qld", seed=6), 0, 0)
    await service.contribute(pool, "r1", "w", 20)  # meter 5, reserve 1
    await service.award(pool, "r0", "nothing", [])  # top-up to 6 spends the reserve's cent
    void = await service.void_round(pool, "r1")
    assert (void.prize, void.reserve) == (5, 1)
    snap = await state(service, pool)
    assert (snap.meter, snap.reserve, snap.contributions, snap.house) == (1, 0, 0, 1)


async def test_round_coin_in_at_once_same_as_one_by_one_5_2(service: JackpotService) -> None:
    """Digest 5.2: a round's jackpot wagers are credited at coin-in; all boxes at once gives
    the same credits, idempotency and audit entries as one call per wager."""
    pool = await opened(service, QLD, 1_000_000, 0)
    await service.contribute(pool, "r1", "box2", 100)
    results = await service.contribute_round(pool, "r1", {"box1": 100, "box2": 100, "box5": 333})
    assert {w: r.status for w, r in results.items()} == {
        "box1": "applied",
        "box2": "duplicate",
        "box5": "applied",
    }
    assert (results["box5"].prize, results["box5"].reserve) == (83, 16)
    snap = await state(service, pool)
    assert (snap.meter, snap.reserve, snap.version) == (1_000_000 + 25 * 2 + 83, 5 * 2 + 16, 4)
    with pytest.raises(JackpotError):
        await service.contribute_round(pool, "r2", {"box1": 100, "box2": -1})
    assert await state(service, pool) == snap


async def test_pools_lists_every_pool(service: JackpotService) -> None:
    names = {await opened(service, QLD, 0, 0) for _ in range(3)}
    assert names <= set(await service.pools())
