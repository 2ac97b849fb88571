"""The jackpot wagers: Caribbean stud (QLD Sch 3 s23-s25, jackpots.md s4) and Canberra Poker
(ACT 2004 Boomerang, 2017 progressive; jackpots.md s2, s3).

Theory of operation: a jackpot wager is settled on the box's own five cards, whatever the
dealer holds, if the hand is played (every jackpot hand, a flush or better, and Dead Man's
Hand, is raised by the sheets' strategy). The 2,598,960 hands are grouped by rank pattern
and by whether all five cards share a suit; one engine round per group, on forced cards,
with the jackpot meter at a stated amount, gives the prize the regime pays (fixed prizes,
the straight and royal flush shares of the meter) and the wager's net. A progressive
jackpot's return grows with its meter: the sheet gives it at the seed (the meter's floor),
its slope per dollar on the meter, the meter at which it returns 100%, and the long-run
return (every contribution to the prize pool is eventually paid out; the meter is reset to
the seed after a royal flush).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from itertools import combinations_with_replacement
from math import comb
from typing import Any

from server.cards import FIRST, Card
from server.games.banked.base import Forced, JackpotState
from server.par.engine import labels_of, round_class, unit_stake
from server.par.model import Distribution, WagerSheet, from_distribution, merge


def five_card_classes() -> list[tuple[list[Card], int]]:
    """Every five-card hand, grouped: (representative, count). Five different ranks: all of
    one suit (4 ways) or not (1,020); otherwise no flush is possible."""
    out: list[tuple[list[Card], int]] = []
    for ranks in combinations_with_replacement(range(13), 5):
        counts = {r: ranks.count(r) for r in set(ranks)}
        if max(counts.values()) > 4:
            continue
        if len(counts) == 5:
            distinct = sorted(counts)
            out.append(([r * 4 for r in distinct], 4))
            out.append(
                ([r * 4 + s for r, s in zip(distinct, (0, 1, 2, 3, 0), strict=True)], 4**5 - 4)
            )
        else:
            weight = 1
            for k in counts.values():
                weight *= comb(4, k)
            out.append(([r * 4 + s for r, k in counts.items() for s in range(k)], weight))
    assert sum(w for _, w in out) == comb(52, 5)
    return out


def _distribution(
    game: str,
    options: Mapping[str, Any],
    pool: int,
    hands: list[tuple[list[Card], int]] | None = None,
) -> tuple[Distribution, Fraction, list[tuple[list[Card], int]]]:
    """The jackpot wager's distribution with the meter at ``pool`` before the round, P(any
    prize), and the groups that won one (``hands``: play only these groups; the others
    count as no prize)."""
    cls = round_class(game)
    stake = unit_stake(options)
    wager = options["jackpot_wager"]
    boxes = {1: {"ante": stake, "jackpot": wager}}
    total = comb(52, 5)
    dist: Distribution = {}
    winners: list[tuple[list[Card], int]] = []
    played = 0
    for hand, weight in hands if hands is not None else five_card_classes():
        rnd: Any = cls(
            options, boxes, FIRST, forced=Forced(boxes={1: hand}), jackpot=JackpotState(pool, 0)
        )
        rnd.start()
        rnd.decide(1, "bet")
        net = rnd.nets[1]["jackpot"]
        played += weight
        if net > -wager:
            winners.append((hand, weight))
            words = next(
                (
                    f"{e.hand}: prize {e.amount}c"
                    for e in rnd.events
                    if type(e).__name__ == "JackpotPaid"
                ),
                labels_of(rnd).get((1, "jackpot"), "win"),
            )
        else:
            words = "no jackpot hand"
        merge(dist, words, Fraction(net, wager), Fraction(weight, total))
    if played < total:
        merge(dist, "no jackpot hand", Fraction(-1), Fraction(total - played, total))
    p_win = sum((p for (_, pays), p in dist.items() if pays > -1), Fraction(0))
    return dist, p_win, winners


def jackpot_sheet(game: str, options: Mapping[str, Any]) -> tuple[WagerSheet, dict[str, Any]]:
    """The jackpot wager at the seed, and the regime's figures for the sheet's ``jackpot``."""
    if options.get("jackpot_wager") is None:
        raise ValueError("no jackpot wager at this table (option jackpot_wager is null)")
    seed = options["jackpot_seed"]
    wager = options["jackpot_wager"]
    at_seed, p_win, winners = _distribution(game, options, seed)
    line = from_distribution(at_seed)
    line.note = f"with {seed / 100:,.2f} on the meter (the seed), one box"
    # a second meter level for the slope (the majors grow with the meter above the minima)
    higher, _, _ = _distribution(game, options, 2 * seed, winners)
    rtp_hi = float(1 + sum((p * x for (_, x), p in higher.items()), Fraction(0)))
    slope = (rtp_hi - line.rtp) / (seed / 100)  # per dollar on the meter
    out: dict[str, Any] = {
        "wager": wager,
        "seed": seed,
        "rtp_at_seed": line.rtp,
        "rtp_per_dollar_on_meter": slope,
        "break_even_meter": None if slope <= 0 else round((1 - line.rtp) / slope * 100 + seed),
    }
    majors = ("royal", "straight flush", "straight_flush")
    p_rf = next((p for (r, _), p in at_seed.items() if r.startswith("royal")), Fraction(0))
    fixed = sum(
        (p * (x + 1) for (r, x), p in at_seed.items() if x > -1 and not r.startswith(majors)),
        Fraction(0),
    )
    if game == "caribbean-stud":
        prize, reserve = options["prize_rate_bp"] / 10_000, options["reserve_rate_bp"] / 10_000
        out.update(
            regime="QLD Sch 3 s24-s25 (jackpots.md s4): fixed prizes from the house, straight "
            "and royal flush from the meter",
            kind=options["jackpot_kind"],
            contribution={"prize": prize, "reserve": reserve, "operator": 1 - prize - reserve},
        )
        fed = 1.0
        progressive = options["jackpot_kind"] == "progressive"
    else:
        prize = options["prize_pool_rate_bp"] / 10_000
        version = 2004 if game.endswith("2004") else 2017
        out.update(
            regime=(
                "ACT 2004 Boomerang Jackpot r 10-11 (jackpots.md s2): losing wagers "
                "feed the pools, a winning wager is kept"
                if version == 2004
                else "ACT 2017 progressive r 10-11 (jackpots.md s3): every wager feeds the "
                "pools at coin-in"
            ),
            contribution={"prize": prize, "reserve": 1 - prize, "operator": 0.0},
            fixed_prizes_from=options["fixed_prize_source"],
        )
        fed = 1 - float(p_win) if version == 2004 else 1.0
        progressive = True
    # in the long run the majors pay out what flows into the prize pool: the contributions
    # and the resets to the seed after a royal flush (top-ups after a straight flush, rarely
    # needed, are left out)
    out["rtp_long_run"] = (
        float(fixed) + fed * prize + float(p_rf) * seed / wager if progressive else line.rtp
    )
    out["fixed_prizes_rtp"] = float(fixed)
    out["p_royal_flush"] = float(p_rf)
    return line, out
