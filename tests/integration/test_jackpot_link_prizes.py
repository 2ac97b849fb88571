"""The table's jackpot link against the pool service: digest vectors end to end.

A linked table coins in each jackpot wager and then commits the regime's prizes computed on
the live pool (``server/tables/jackpot_link.py``). Run through the in-memory service, the
prizes, the pool and the reserve after the round must be the digest's (jackpots.md s8,
JP-01, JP-03, JP-06; one unit = 100 cents, DJW = 1 unit, seed 10,000).
"""

from __future__ import annotations

import pytest

from server.games.banked.jackpot_regimes import act, qld
from server.games.banked.scenario import round_class
from server.jackpots.memory import MemoryJackpotService
from server.tables.jackpot_link import JackpotLink

QLD_OPTIONS = {"jackpot_wager": 100, "jackpot_seed": 1_000_000}
ACT_OPTIONS = {"jackpot_wager": 100, "jackpot_seed": 1_000_000}

CASES = [
    pytest.param(
        "caribbean-stud",
        5_000_000,
        2_000_000,
        [2, 5, 7],
        {2: qld.ROYAL_FLUSH, 5: qld.STRAIGHT_FLUSH},
        {2: 4_500_068, 5: 500_007},
        1_000_000,
        1_000_015,
        0,
        id="JP-01 QLD",
    ),
    pytest.param(
        "canberra-poker-2017",
        5_000_000,
        2_000_000,
        [2, 5, 7],
        {2: act.ROYAL_FLUSH, 5: act.STRAIGHT_FLUSH},
        {2: 4_500_081, 5: 500_009},
        1_000_000,
        1_000_210,
        0,
        id="JP-01 ACT 2017",
    ),
    pytest.param(
        "caribbean-stud",
        1_500_000,
        2_000_000,
        [1, 4],
        {1: qld.ROYAL_FLUSH, 4: qld.ROYAL_FLUSH},
        {1: 1_250_025, 4: 1_250_025},
        1_000_000,
        1_000_010,
        1_000_000,
        id="JP-03 QLD s24_shared",
    ),
    pytest.param(
        "canberra-poker-2017",
        8_000_000,
        2_000_000,
        [2, 4, 6],
        {2: act.STRAIGHT_FLUSH, 4: act.ROYAL_FLUSH, 6: act.ROYAL_FLUSH},
        {2: 800_009, 4: 3_600_040, 6: 3_600_040},
        1_000_000,
        1_000_211,
        0,
        id="JP-06 ACT 2017",
    ),
]


@pytest.mark.parametrize(
    (
        "game",
        "meter",
        "reserve",
        "boxes",
        "hands",
        "prizes",
        "meter_after",
        "reserve_after",
        "house",
    ),
    CASES,
)
async def test_link_coins_in_and_awards_the_digest_figures(
    game: str,
    meter: int,
    reserve: int,
    boxes: list[int],
    hands: dict[int, str],
    prizes: dict[int, int],
    meter_after: int,
    reserve_after: int,
    house: int,
) -> None:
    """jackpots.md s8 vectors through coin-in (5.2) and the award commit (5.5)."""
    options = round_class(game).spec.validate_options(
        QLD_OPTIONS if game == "caribbean-stud" else ACT_OPTIONS
    )
    service = MemoryJackpotService()
    link = JackpotLink(service, "p", game, options)
    await service.open_pool("p", link.config, meter=meter, reserve=reserve)
    await link.ensure_pool()  # found, not reopened
    coined = await link.coin_in("r1", {b: 100 for b in boxes})
    assert sorted(coined.accepted) == boxes and not coined.returned
    assert await link.award("r1", hands) == prizes
    assert await link.award("r1", hands) == prizes  # a retried commit pays nothing twice
    snap = await service.snapshot("p")
    assert snap is not None
    assert (snap.meter, snap.reserve, snap.paid) == (
        meter_after,
        reserve_after,
        sum(prizes.values()),
    )
    assert snap.house == house and (await service.check("p")).ok


async def test_set_jackpots_and_act_2004_are_not_linked() -> None:
    """QLD s24 set jackpots have no pool; ACT-2004 r 11.3 on a shared pool needs approval."""
    from server.tables.jackpot_link import LinkError, pool_config_for

    spec = round_class("caribbean-stud").spec
    with pytest.raises(LinkError):
        pool_config_for("caribbean-stud", spec.validate_options({"jackpot_kind": "set"}))
    with pytest.raises(LinkError):
        pool_config_for(
            "canberra-poker-2004", round_class("canberra-poker-2004").spec.validate_options({})
        )


async def test_a_pool_on_other_terms_is_not_joined_s9() -> None:
    """QLD Sch 3 s9: linked tables share one jackpot; a table whose regime or rates differ
    from the existing pool's offers no jackpot wager instead of mixing them."""
    service = MemoryJackpotService()
    act_options = round_class("canberra-poker-2017").spec.validate_options(ACT_OPTIONS)
    await service.open_pool(
        "shared", JackpotLink(service, "shared", "canberra-poker-2017", act_options).config
    )
    qld_options = round_class("caribbean-stud").spec.validate_options(QLD_OPTIONS)
    link = JackpotLink(service, "shared", "caribbean-stud", qld_options)
    await link.ensure_pool()
    assert not link.open and link.mismatch and "act2017" in link.mismatch
    coined = await link.coin_in("r1", {1: 100})
    assert coined.returned == {1: 100} and not coined.accepted
