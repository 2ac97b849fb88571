"""Exact sheets of card games by composition: casino war (QLD Sch 14), three card poker
(Sch 13) and four card poker's Aces Up (seed 003).

Theory of operation
-------------------
* **Casino war**: only ranks matter (s5: suits are equal), so the deal is enumerated by
  rank with exact weights from the six- or eight-deck shoe: the box's and the dealer's first
  cards and, after a tie, the additional cards (s18). One engine round per rank sequence.
  On a tie the box goes to war (the sheet's strategy; surrendering is shown in the notes).
* **Three card poker**: every one of the 22,100 player hands against every dealer hand of
  the 49 cards left. The dealer's hands are only *counted*, in four classes (does not
  qualify, qualifies and lower, equal, higher), by inclusion-exclusion over sorted lists of
  hand values (all hands, hands holding a given card, hands holding a given pair). For each
  player hand value and class one engine round is played on forced cards (the player's
  hand itself and a dealer hand of that class), which gives what the ante, bet and pair plus
  net. The decision is the better of play and fold for each hand, by that exact EV.
* **Four card poker, Aces Up**: the player's five cards alone decide it (r 9.2.1.3). The
  2,598,960 hands are grouped by rank pattern and by the suit pattern that can make a
  four-card flush; one engine round per group, weighted by its exact count.

Hand values come from :mod:`server.hands` (the engines' own evaluators); every payout comes
from an engine round.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from fractions import Fraction
from itertools import combinations, combinations_with_replacement
from math import comb
from typing import Any

from server.cards import FIRST, Card
from server.games.banked.base import Forced
from server.par.engine import labels_of, options_for, round_class, unit_stake
from server.par.model import Distribution, Sheet, from_distribution, merge

# --------------------------------------------------------------------------- casino war


def casino_war(raw: Mapping[str, Any] | None) -> Sheet:
    options = options_for("casino-war", raw)
    stake = unit_stake(options)
    cls = round_class("casino-war")
    decks = options["decks"]
    n = 52 * decks
    per_rank = 4 * decks
    wagers = {1: {"war": stake, "tie": stake}}

    def play(
        box: list[Card], dealer: list[Card], verb: str | None
    ) -> tuple[dict[str, int], dict[str, str]]:
        rnd = cls(options, wagers, FIRST, forced=Forced(boxes={1: box}, dealer=dealer))
        rnd.start()
        if verb is not None and rnd.pending():
            rnd.decide(1, verb)
        labels = labels_of(rnd)
        return dict(rnd.nets[1]), {w: labels[(1, w)] for w in rnd.nets[1]}

    def rep(rank: int, i: int) -> Card:
        return rank * 4 + i % 4

    dists: dict[str, dict[str, Distribution]] = {"war": {}, "surrender": {}}
    for strategy in ("war", "surrender"):
        out: dict[str, Distribution] = {"war": {}, "tie": {}, "go_to_war": {}, "round": {}}
        for r1 in range(13):
            for r2 in range(13):
                p = Fraction(per_rank * (per_rank - (r1 == r2)), n * (n - 1))
                if r1 != r2:
                    branches = [([rep(r1, 0)], [rep(r2, 1)], p)]
                else:
                    if strategy == "surrender":
                        branches = [([rep(r1, 0)], [rep(r2, 1)], p)]
                    else:
                        branches = []
                        left = [per_rank] * 13
                        left[r1] -= 2
                        for r3 in range(13):
                            for r4 in range(13):
                                w = left[r3] * (left[r4] - (r3 == r4))
                                if w:
                                    branches.append(
                                        (
                                            [rep(r1, 0), rep(r3, 2)],
                                            [rep(r2, 1), rep(r4, 3)],
                                            p * Fraction(w, (n - 2) * (n - 3)),
                                        )
                                    )
                for box, dealer, q in branches:
                    nets, labels = play(box, dealer, strategy)
                    for w, net in nets.items():
                        merge(out[w], labels[w], Fraction(net, stake), q)
                    round_net = nets["war"] + nets.get("go_to_war", 0)
                    label = (
                        "go to war: " + labels.get("go_to_war", "")
                        if "go_to_war" in nets
                        else labels["war"]
                    )
                    merge(out["round"], label, Fraction(round_net, stake), q)
        dists[strategy] = out
    war = dists["war"]
    gtw = war["go_to_war"]
    p_war = sum(gtw.values(), Fraction(0))
    go_to_war = {k: v / p_war for k, v in gtw.items()}
    per_round = from_distribution(war["round"])
    per_round.basis = "war (the casino war and go to war wagers, per unit of the war wager)"
    surrender = from_distribution(dists["surrender"]["round"])
    return Sheet(
        game="casino-war",
        options=options,
        method="exact",
        rounds=None,
        strategy="go to war on every tie (s17(5)(b))",
        wagers={
            "war": from_distribution(war["war"]),
            "tie": from_distribution(war["tie"]),
            "go_to_war": from_distribution(go_to_war),
        },
        per_round=per_round,
        notes=[
            f"{decks} decks, a fresh shoe each round (s31(3)(g)); ranks only (s5); {stake}c",
            "go_to_war: per unit of the go to war wager, over the ties",
            f"surrendering every tie instead: the round returns {surrender.rtp:.6%} of the "
            f"war wager (house edge {surrender.house_edge:.4%})",
        ],
    )


# --------------------------------------------------------------------------- three card poker

#: the four classes of the dealer's hand against a player hand
NQ, LOWER, EQUAL, HIGHER = "dealer does not qualify", "dealer lower", "equal", "dealer higher"


def three_card_poker(raw: Mapping[str, Any] | None) -> Sheet:
    from server.games.banked import three_card_poker as engine
    from server.hands.three_card import evaluate3, hand_name

    options = options_for("three-card-poker", raw)
    stake = unit_stake(options)
    cls = round_class("three-card-poker")
    hands = list(combinations(range(52), 3))
    values = [evaluate3(h) for h in hands]
    ordered = sorted(values)
    qualifying = sorted({v for v in values if engine.dealer_qualifies(v)})
    q = qualifying[0]
    assert all(engine.dealer_qualifies(v) == (v >= q) for v in set(values)), "not monotone"
    with_card: list[list[int]] = [[] for _ in range(52)]
    with_pair: dict[tuple[int, int], list[int]] = {}
    by_value: dict[int, list[tuple[int, int, int]]] = {}
    for h, v in zip(hands, values, strict=True):
        a, b, c = h
        for x in h:
            with_card[x].append(v)
        for pair in ((a, b), (a, c), (b, c)):
            with_pair.setdefault(pair, []).append(v)
        by_value.setdefault(v, []).append(h)
    for lst in with_card:
        lst.sort()
    for lst in with_pair.values():
        lst.sort()
    distinct = sorted(by_value)
    total = comb(49, 3)

    def below(h: tuple[int, int, int], v: int, t: int) -> int:
        """Dealer hands from the 49 cards left with a value below ``t``."""
        a, b, c = h
        n = bisect_left(ordered, t)
        n -= bisect_left(with_card[a], t) + bisect_left(with_card[b], t)
        n -= bisect_left(with_card[c], t)
        n += bisect_left(with_pair[(a, b)], t) + bisect_left(with_pair[(a, c)], t)
        n += bisect_left(with_pair[(b, c)], t)
        return n - (v < t)

    def dealer_for(h: tuple[int, int, int], v: int, klass: str) -> tuple[int, int, int]:
        """A dealer hand disjoint from ``h`` in class ``klass``."""
        used = set(h)
        if klass == NQ:
            pool = (x for val in distinct if val < q for x in by_value[val])
        elif klass == LOWER:
            pool = (x for val in distinct if q <= val < v for x in by_value[val])
        elif klass == EQUAL:
            pool = (x for x in by_value[v])
        else:
            pool = (x for val in reversed(distinct) if val > v and val >= q for x in by_value[val])
        return next(x for x in pool if not used & set(x))

    runs: dict[tuple[int, str, str], tuple[dict[str, int], dict[str, str]]] = {}

    def settle(
        h: tuple[int, int, int], v: int, klass: str, verb: str
    ) -> tuple[dict[str, int], dict[str, str]]:
        key = (v, klass if verb == "bet" else "", verb)
        got = runs.get(key)
        if got is None:
            dealer = dealer_for(h, v, klass)
            rnd = cls(
                options,
                {1: {"ante": stake, "pair_plus": stake}},
                FIRST,
                forced=Forced(boxes={1: list(h)}, dealer=list(dealer)),
            )
            rnd.start()
            rnd.decide(1, verb)
            labels = labels_of(rnd)
            got = runs[key] = (dict(rnd.nets[1]), {w: labels[(1, w)] for w in rnd.nets[1]})
        return got

    ante: Distribution = {}
    bet: Distribution = {}
    pair_plus: Distribution = {}
    whole: Distribution = {}
    played = Fraction(0)
    folded_best = played_worst = None
    p_hand = Fraction(1, len(hands))
    for h, v in zip(hands, values, strict=True):
        nq = below(h, v, q)
        if v < q:
            counts = {NQ: nq, HIGHER: total - nq}
        else:
            lower = below(h, v, v) - nq
            equal = below(h, v, v + 1) - nq - lower
            counts = {NQ: nq, LOWER: lower, EQUAL: equal, HIGHER: total - nq - lower - equal}
        counts = {k: c for k, c in counts.items() if c}
        ev_play = sum(
            (
                Fraction(c, total)
                * sum(x for w, x in settle(h, v, k, "bet")[0].items() if w != "pair_plus")
                for k, c in counts.items()
            ),
            Fraction(0),
        )
        fold_nets, fold_labels = settle(h, v, NQ, "fold")
        ev_fold = Fraction(fold_nets["ante"])
        if ev_play >= ev_fold:
            played += p_hand
            if played_worst is None or v < played_worst:
                played_worst = v
            for k, c in counts.items():
                nets, labels = settle(h, v, k, "bet")
                p = p_hand * Fraction(c, total)
                merge(ante, labels["ante"], Fraction(nets["ante"], stake), p)
                merge(bet, labels["bet"], Fraction(nets["bet"], stake), p)
                merge(pair_plus, labels["pair_plus"], Fraction(nets["pair_plus"], stake), p)
                merge(
                    whole,
                    f"{k}: ante {labels['ante']}",
                    Fraction(nets["ante"] + nets["bet"], stake),
                    p,
                )
        else:
            if folded_best is None or v > folded_best:
                folded_best = v
            merge(ante, fold_labels["ante"], Fraction(fold_nets["ante"], stake), p_hand)
            merge(
                pair_plus, fold_labels["pair_plus"], Fraction(fold_nets["pair_plus"], stake), p_hand
            )
            merge(whole, "fold", Fraction(fold_nets["ante"], stake), p_hand)
    bet = {k: p / played for k, p in bet.items()}
    per_round = from_distribution(whole)
    per_round.basis = "ante (the ante and bet wagers, per unit of the ante)"

    def short(v: int | None) -> str:
        """A hand value as the published strategy writes it (``Q-6-4``)."""
        if v is None:
            return "-"
        if v >> 12 == 0:  # an odd card hand (s9): its three ranks
            return "-".join("23456789TJQKA"[(v >> s) & 0xF] for s in (8, 4, 0))
        return hand_name(v)

    rule = f"play {short(played_worst)} or better, fold {short(folded_best)} and below"
    return Sheet(
        game="three-card-poker",
        options=options,
        method="exact",
        rounds=None,
        strategy="the better of play and fold for each of the 22,100 hands (exact EV): " + rule,
        wagers={
            "ante": from_distribution(ante),
            "pair_plus": from_distribution(pair_plus),
            "bet": from_distribution(bet),
        },
        per_round=per_round,
        strategy_table={"rule": rule, "hands played": float(played)},
        notes=[
            f"one box, one deck; {len(runs)} engine rounds (player hand value x dealer "
            f"class); every wager {stake}c",
            "ante: includes the ante bonus (s23-s24); bet: per unit of the bet, over the "
            "hands played",
            "pair plus: settled as the engine does under the strategy (a folded hand loses "
            "it, s3; every hand it pays on is played)",
        ],
    )


# --------------------------------------------------------------------------- four card poker


def aces_up_classes() -> list[tuple[list[Card], int]]:
    """Every five-card hand, grouped: (a representative hand, how many hands it stands for).

    Rank patterns with the suit patterns that matter to a four-card hand (a flush or
    straight flush needs four cards of one suit): five different ranks (all one suit; four
    of one suit, for each odd card; the rest), one pair (its rank with the three kickers in
    one suit; the rest), and the other patterns (no four-card flush possible)."""
    out: list[tuple[list[Card], int]] = []
    for ranks in combinations_with_replacement(range(13), 5):
        counts = {r: ranks.count(r) for r in set(ranks)}
        if max(counts.values()) > 4:
            continue
        distinct = sorted(counts)
        if len(distinct) == 5:
            out.append(([r * 4 for r in distinct], 4))
            for odd in range(5):
                out.append(([r * 4 + (1 if i == odd else 0) for i, r in enumerate(distinct)], 12))
            out.append(
                ([r * 4 + s for r, s in zip(distinct, (0, 1, 2, 3, 0), strict=True)], 4**5 - 4 - 60)
            )
        elif len(distinct) == 4:
            pair = next(r for r, k in counts.items() if k == 2)
            kickers = [r for r in distinct if r != pair]
            out.append(([pair * 4, pair * 4 + 1, *(k * 4 for k in kickers)], 12))
            out.append(
                (
                    [
                        pair * 4,
                        pair * 4 + 1,
                        *(k * 4 + s for k, s in zip(kickers, (2, 3, 0), strict=True)),
                    ],
                    6 * 64 - 12,
                )
            )
        else:
            hand = [r * 4 + s for r, k in counts.items() for s in range(k)]
            weight = 1
            for k in counts.values():
                weight *= comb(4, k)
            out.append((hand, weight))
    return out


def aces_up_distribution(options: Mapping[str, Any], stake: int) -> tuple[Distribution, int]:
    """The Aces Up wager's exact distribution (every group played once)."""
    cls = round_class("four-card-poker")
    classes = aces_up_classes()
    assert sum(w for _, w in classes) == comb(52, 5)
    dist: Distribution = {}
    total = comb(52, 5)
    for hand, weight in classes:
        rnd = cls(options, {1: {"aces_up": stake}}, FIRST, forced=Forced(boxes={1: hand}))
        rnd.start()
        rnd.decide(1, "play")
        label = labels_of(rnd)[(1, "aces_up")]
        merge(dist, label, Fraction(rnd.nets[1]["aces_up"], stake), Fraction(weight, total))
    return dist, len(classes)
