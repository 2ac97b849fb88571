"""The service moves exactly what the regimes compute (``jackpot_regimes/act.py``, ``qld.py``).

A table coins in, asks the regime for the round's prizes on the live pool, and commits them
with :func:`award_by_rule`; the pool the service leaves (meter, reserve, house funding) must
be the pool the regime says the round leaves (digest 3 steps 3-5, 4.1-4.3, 5.4).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.games.banked.jackpot_regimes import act, qld
from server.jackpots.model import PoolConfig, Snapshot
from server.jackpots.model import regime_prizes as to_prizes
from server.jackpots.service import JackpotService, award_by_rule, open_jackpot_service
from tests.jackpots.conftest import fresh_pool

QLD_HANDS = [
    None,
    qld.FLUSH,
    qld.FULL_HOUSE,
    qld.FOUR_OF_A_KIND,
    qld.STRAIGHT_FLUSH,
    qld.ROYAL_FLUSH,
]
ACT_HANDS = [
    None,
    act.FLUSH,
    act.FULL_HOUSE,
    act.FOUR_OF_A_KIND,
    act.STRAIGHT_FLUSH,
    act.ROYAL_FLUSH,
]
tables = st.dictionaries(st.integers(1, 7), st.integers(0, 5), min_size=1, max_size=7)
money = st.integers(0, 12_000_000)
SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


async def coin_in(service: JackpotService, pool: str, boxes: list[int], wager: int) -> None:
    for box in boxes:
        await service.contribute(pool, "round-1", f"box{box}", wager)


@SETTINGS
@given(hands=tables, meter=money, reserve=money)
async def test_qld_round_leaves_the_pool_the_regime_computes_s24_s25(
    backend_url: str | None, hands: dict[int, int], meter: int, reserve: int
) -> None:
    async with open_jackpot_service(backend_url) as service:
        await qld_round(service, hands, meter, reserve)


async def qld_round(
    service: JackpotService, hands: dict[int, int], meter: int, reserve: int
) -> None:
    cfg = qld.QldJackpotConfig()
    pool = fresh_pool("qld")
    await service.open_pool(
        pool, PoolConfig.profile("qld", seed=cfg.seed), meter=meter, reserve=reserve
    )
    await coin_in(service, pool, sorted(hands), cfg.wager)
    by_box = {box: QLD_HANDS[h] for box, h in hands.items() if QLD_HANDS[h]}
    expected: list[qld.Award] = []

    def regime(snap: Snapshot) -> list:
        result = qld.award(by_box, snap.meter, snap.reserve, cfg)
        expected.append(result)
        majors = [b for b, h in by_box.items() if h in (qld.STRAIGHT_FLUSH, qld.ROYAL_FLUSH)]
        return to_prizes(result.prizes, majors)

    before = await service.snapshot(pool)
    await award_by_rule(service, pool, "round-1", "jackpot", regime)
    after = await service.snapshot(pool)
    assert before is not None and after is not None and after.balanced
    want = expected[-1]
    assert (after.meter, after.reserve) == (want.pool, want.reserve)
    assert after.house - before.house == want.house_funded
    assert after.paid - before.paid == sum(want.prizes.values())


@SETTINGS
@given(hands=tables, meter=money, reserve=money)
async def test_act2017_round_leaves_the_pool_the_regime_computes_r11(
    backend_url: str | None, hands: dict[int, int], meter: int, reserve: int
) -> None:
    async with open_jackpot_service(backend_url) as service:
        await act_round(service, hands, meter, reserve)


async def act_round(
    service: JackpotService, hands: dict[int, int], meter: int, reserve: int
) -> None:
    cfg = act.ActJackpotConfig()
    pool = fresh_pool("act")
    await service.open_pool(
        pool, PoolConfig.profile("act2017", seed=cfg.seed), meter=meter, reserve=reserve
    )
    await coin_in(service, pool, sorted(hands), cfg.wager)
    by_box = {box: ACT_HANDS[h] for box, h in hands.items()}
    expected: list[act.JackpotSettlement] = []

    def regime(snap: Snapshot) -> list:
        result = act.settle_2017(cfg, snap.meter, snap.reserve, by_box)
        expected.append(result)
        majors = [b for b, h in by_box.items() if h in act.MAJOR]
        return to_prizes(result.prizes, majors)

    before = await service.snapshot(pool)
    await award_by_rule(service, pool, "round-1", "jackpot", regime)
    after = await service.snapshot(pool)
    assert before is not None and after is not None and after.balanced
    want = expected[-1]
    assert (after.meter, after.reserve) == (want.pool, want.reserve)
    assert after.house - before.house == want.house_funded
