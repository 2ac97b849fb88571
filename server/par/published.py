"""The published figures each sheet is set beside: what the literature says a standard wager
returns, where it says it, whether its rules are ours, and (where they are not) what differs.

A figure is an RTP (per unit of the wager, or per unit of the basis of ``per_round``). The
sheet (docs/par) prints ours next to it: equal to the last digit published for exact
figures, within the 95% interval for simulated ones, or explained by the rule named here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatch
from typing import Any

WOO = "Wizard of Odds (wizardofodds.com)"


@dataclass(frozen=True)
class Published:
    """``wager``: a wager id or a pattern (``straight_*``), or ``per_round``."""

    wager: str
    rtp: float
    source: str
    same_rules: bool
    why: str = ""
    #: the figure applies to tables with these options only
    when: Callable[[Mapping[str, Any]], bool] = lambda o: True


def _opt(key: str, value: Any) -> Callable[[Mapping[str, Any]], bool]:
    return lambda o: o.get(key) == value


_SZ = _opt("wheel_type", "single_zero")
_DZ = _opt("wheel_type", "double_zero")
_D8 = _opt("decks", 8)
_D6 = _opt("decks", 6)


def _both(*tests: Callable[[Mapping[str, Any]], bool]) -> Callable[[Mapping[str, Any]], bool]:
    return lambda o: all(t(o) for t in tests)


_COMMISSION = _opt("banker_payout", "commission")

FIGURES: dict[str, tuple[Published, ...]] = {
    "roulette": (
        Published(
            "*",
            1 - 0.0270,
            f"{WOO}, Roulette: single zero, house edge 2.70%",
            True,
            "QLD s16(2): every wager loses on 0 (no la partage, no en prison), as "
            "in the published single-zero figure",
            _SZ,
        ),
        Published(
            "first_five",
            1 - 0.0789,
            f"{WOO}, Roulette: the 0-00-1-2-3 bet, house edge 7.89%",
            True,
            "",
            _DZ,
        ),
        Published(
            "*", 1 - 0.0526, f"{WOO}, Roulette: double zero, house edge 5.26%", True, "", _DZ
        ),
    ),
    "sic-bo": (
        Published("small", 1 - 0.0278, f"{WOO}, Sic Bo: small/big 2.78%", True),
        Published("big", 1 - 0.0278, f"{WOO}, Sic Bo: small/big 2.78%", True),
        Published(
            "double_*",
            1 - 0.111,
            "shared/rules/sic-bo.md SA1: 11.1% (a triple wins the double)",
            True,
        ),
        Published("any_triple", 1 - 0.111, "shared/rules/sic-bo.md SA1: 11.1%", True),
        Published("four_*", 1 - 0.111, "shared/rules/sic-bo.md SA1: 11.1%", True),
        Published(
            "single_*",
            1 - 0.0787,
            f"{WOO}, Sic Bo: single number 1/2/3 to 1, house edge 7.87%",
            False,
            "QLD Sch 8 s12 pays 12 to 1 when the number is on all three dice, not 3 to "
            "1 (digest SA3: the text's 12): 3.70%",
        ),
    ),
    "wheel-of-fortune": (
        Published(
            "[abcd]",
            0.96,
            "shared/rules/wheel-of-fortune.md WA1: 50-space a-d 96%",
            True,
            "",
            _opt("wheel_type", 50),
        ),
        Published(
            "[ef]",
            0.92,
            "shared/rules/wheel-of-fortune.md WA1: 50-space e-f 92%",
            True,
            "",
            _opt("wheel_type", 50),
        ),
        Published(
            "[gh]",
            0.90,
            "shared/rules/wheel-of-fortune.md WA1: 50-space g-h 90%",
            True,
            "",
            _opt("wheel_type", 50),
        ),
        Published(
            "*",
            0.923,
            "shared/rules/wheel-of-fortune.md WA1: 52-space all 92.3%",
            True,
            "",
            _opt("wheel_type", 52),
        ),
        Published(
            "c",
            0.972,
            "shared/rules/wheel-of-fortune.md WA1: 54-space c 97.2%",
            True,
            "",
            _opt("wheel_type", 54),
        ),
        Published(
            "[fg]",
            0.981,
            "shared/rules/wheel-of-fortune.md WA1: 54-space f-g 98.1%",
            True,
            "",
            _opt("wheel_type", 54),
        ),
        Published(
            "*",
            0.963,
            "shared/rules/wheel-of-fortune.md WA1: 54-space 96.3%",
            True,
            "",
            _opt("wheel_type", 54),
        ),
    ),
    "craps": (
        Published("win", 1 - 0.01414, f"{WOO}, Craps: pass line 1.41%", True),
        Published("come", 1 - 0.01414, f"{WOO}, Craps: come 1.41%", True),
        Published(
            "dont_win",
            1 - 0.01364,
            f"{WOO}, Craps: don't pass 1.36% (bar 12)",
            True,
            "QLD bars 2, not 12 (s4): the same probability, 1/36",
        ),
        Published(
            "dont_come",
            1 - 0.01364,
            f"{WOO}, Craps: don't come 1.36% (bar 12)",
            True,
            "QLD bars 2 (s4), same probability",
        ),
        Published("*odds*", 1.0, f"{WOO}, Craps: odds at true odds, 0%", True),
        Published("place_[68]", 1 - 0.01515, f"{WOO}, Craps: place 6/8 1.52%", True),
        Published("place_[59]", 1 - 0.04, f"{WOO}, Craps: place 5/9 4.00%", True),
        Published("place_4", 1 - 0.06667, f"{WOO}, Craps: place 4/10 6.67%", True),
        Published("place_10", 1 - 0.06667, f"{WOO}, Craps: place 4/10 6.67%", True),
        Published(
            "buy_*",
            1 - 0.05,
            f"{WOO}, Craps: buy, 5% commission paid up front: 4.76% of stake and commission, "
            "5.00% of the stake",
            True,
            "the sheet's basis is the stake alone (the published 4.76% is 5/105)",
        ),
        Published(
            "lay_4",
            1 - 0.025,
            f"{WOO}, Craps: lay 4/10: 2.44% of stake and commission, 2.50% of the stake",
            True,
            "the sheet's basis is the stake alone",
        ),
        Published(
            "lay_10",
            1 - 0.025,
            f"{WOO}, Craps: lay 4/10: 2.44% of stake and commission, 2.50% of the stake",
            True,
            "the sheet's basis is the stake alone",
        ),
        Published(
            "lay_[59]",
            1 - 0.03333,
            f"{WOO}, Craps: lay 5/9: 3.23% of stake and commission, 3.33% of the stake",
            True,
            "the sheet's basis is the stake alone",
        ),
        Published(
            "lay_[68]",
            1 - 0.04167,
            f"{WOO}, Craps: lay 6/8: 4.00% of stake and commission, 4.17% of the stake",
            True,
            "the sheet's basis is the stake alone",
        ),
        Published("big[68]", 1 - 0.09091, f"{WOO}, Craps: big 6/8 9.09%", True),
        Published(
            "field", 1 - 0.05556, f"{WOO}, Craps: field paying 2 to 1 on 2 and 12, 5.56%", True
        ),
        Published("any7", 1 - 0.16667, f"{WOO}, Craps: any seven 16.67%", True),
        Published(
            "hard_[68]",
            1 - 0.09091,
            f"{WOO}, Craps: hard 6/8 at 9 to 1, 9.09%",
            False,
            "QLD s10(1) pays 9.5 to 1 (4.55%)",
        ),
        Published(
            "hard_4",
            1 - 0.11111,
            f"{WOO}, Craps: hard 4/10 at 7 to 1, 11.11%",
            False,
            "QLD s10(1) pays 7.5 to 1 (5.56%)",
        ),
        Published(
            "hard_10",
            1 - 0.11111,
            f"{WOO}, Craps: hard 4/10 at 7 to 1, 11.11%",
            False,
            "QLD s10(1) pays 7.5 to 1 (5.56%)",
        ),
        Published(
            "any_craps",
            1 - 0.11111,
            f"{WOO}, Craps: any craps at 7 to 1, 11.11%",
            False,
            "QLD s10(1) pays 7.5 to 1 (5.56%)",
        ),
        Published(
            "craps2",
            1 - 0.13889,
            f"{WOO}, Craps: 2 or 12 at 30 to 1, 13.89%",
            False,
            "QLD s10(1) pays 33 to 1 (5.56%)",
        ),
        Published(
            "craps12",
            1 - 0.13889,
            f"{WOO}, Craps: 2 or 12 at 30 to 1, 13.89%",
            False,
            "QLD s10(1) pays 33 to 1 (5.56%)",
        ),
        Published(
            "craps3",
            1 - 0.11111,
            f"{WOO}, Craps: 3 or 11 at 15 to 1, 11.11%",
            False,
            "QLD s10(1) pays 16 to 1 (5.56%)",
        ),
        Published(
            "eleven",
            1 - 0.11111,
            f"{WOO}, Craps: 3 or 11 at 15 to 1, 11.11%",
            False,
            "QLD s10(1) pays 16 to 1 (5.56%)",
        ),
    ),
    "baccarat": (
        Published(
            "banker",
            1 - 0.010579,
            f"{WOO}, Baccarat, 8 decks: banker 1.0579%",
            True,
            "s12(4) rounds a banker win down to 50c: no effect at the sheet's $10 "
            "(it costs more on odd stakes: $1 wins 50c)",
            _both(_D8, _COMMISSION),
        ),
        Published(
            "player", 1 - 0.012351, f"{WOO}, Baccarat, 8 decks: player 1.2351%", True, "", _D8
        ),
        Published(
            "tie", 1 - 0.143596, f"{WOO}, Baccarat, 8 decks: tie 8 to 1, 14.3596%", True, "", _D8
        ),
        Published(
            "banker",
            1 - 0.010558,
            f"{WOO}, Baccarat, 6 decks: banker 1.0558%",
            True,
            "",
            _both(_D6, _COMMISSION),
        ),
        Published(
            "player", 1 - 0.012374, f"{WOO}, Baccarat, 6 decks: player 1.2374%", True, "", _D6
        ),
        Published(
            "tie", 1 - 0.144382, f"{WOO}, Baccarat, 6 decks: tie 8 to 1, 14.4382%", True, "", _D6
        ),
        Published(
            "*_pair",
            1 - 0.1036,
            f"{WOO}, Baccarat side bets: player/banker pair 11 to 1, 8 decks, 10.36%",
            True,
            "",
            _D8,
        ),
        Published(
            "*_pair",
            1 - 0.1125,
            f"{WOO}, Baccarat side bets: player/banker pair 11 to 1, 6 decks, 11.25%",
            True,
            "",
            _D6,
        ),
        Published(
            "dragon_bonus_player",
            1 - 0.0265,
            f"{WOO}, Dragon Bonus, 8 decks: player 2.65%",
            True,
            "",
            _D8,
        ),
        Published(
            "dragon_bonus_banker",
            1 - 0.0937,
            f"{WOO}, Dragon Bonus, 8 decks: banker 9.37%",
            True,
            "",
            _D8,
        ),
    ),
    "casino-war": (
        Published(
            "per_round",
            1 - 0.0288,
            f"{WOO}, Casino War, 6 decks, going to war: 2.88%",
            False,
            "QLD s12(3)(b) pays the go to war wager 2 to 1 when the additional cards "
            "are equal (and returns the war wager); the published game pays a tie in "
            "the war less",
            _D6,
        ),
        Published(
            "tie", 1 - 0.1865, f"{WOO}, Casino War, 6 decks: tie bet 10 to 1, 18.65%", True, "", _D6
        ),
    ),
    "three-card-poker": (
        Published(
            "per_round",
            1 - 0.0337,
            f"{WOO}, Three Card Poker: ante and play 3.37% "
            "of the ante (ante bonus 1-4-5, play Q-6-4 or better)",
            True,
        ),
        Published(
            "pair_plus",
            1 - 0.0232,
            f"{WOO}, Three Card Poker: pair plus 1-4-6-30-40, 2.32%",
            False,
            "QLD Sch 13 s26 pays three of a kind 25 to 1, not 30 (5 x 52/22,100 = "
            "1.18% less): 3.49%",
        ),
    ),
    "four-card-poker": (
        Published(
            "aces_up",
            1 - 0.0389,
            "shared/rules/four-card-poker.md: table A (50/40/8/5/4/3/1), exact enumeration, 3.89%",
            True,
            "",
            _opt("pay_table", "A"),
        ),
        Published(
            "aces_up",
            1 - 0.0032,
            "shared/rules/four-card-poker.md: table B, 0.32%",
            True,
            "",
            _opt("pay_table", "B"),
        ),
        Published(
            "aces_up",
            1 - 0.0258,
            "shared/rules/four-card-poker.md: table C, 2.58%",
            True,
            "",
            _opt("pay_table", "C"),
        ),
        Published(
            "per_round",
            1 - 0.0336,
            "Wikipedia, Four Card Poker: about 3.36% of the "
            "ante with optimal play (ante bonus 2/20/25)",
            False,
            "the sheet plays the game's simple basic strategy (play 3x with tens or "
            "better, 1x with threes to nines, else fold), not the optimal one",
        ),
    ),
    "blackjack": (
        Published(
            "insurance", 1 - 0.0740, f"{WOO}, Blackjack insurance: 6 decks, 7.40%", True, "", _D6
        ),
    ),
    "blackjack-switch": (
        Published(
            "insurance", 1 - 0.0740, f"{WOO}, Blackjack insurance: 6 decks, 7.40%", True, "", _D6
        ),
    ),
    "caribbean-stud": (
        Published(
            "per_round",
            1 - 0.05224,
            f"{WOO}, Caribbean Stud Poker: 5.224% of the ante "
            "(optimal strategy; royal flush 100 to 1)",
            False,
            "QLD s22(1) pays a royal flush 250 to 1 (worth about 0.02% of the ante); "
            "the sheet plays the simple strategy (the optimal one gains about 0.01%)",
        ),
    ),
    "canberra-poker-2004": (
        Published(
            "per_round",
            1 - 0.05224,
            f"{WOO}, Caribbean Stud Poker (the same game): 5.224% of the ante",
            False,
            "r 8.1 pays a royal flush 250 to 1; r 9.6 voids equal hands (as Caribbean "
            "stud); the dealer's up card is the first card dealt (r 12.4); simple "
            "strategy",
        ),
    ),
    "canberra-poker-2017": (
        Published(
            "per_round",
            1 - 0.05224,
            f"{WOO}, Caribbean Stud Poker (the same game): 5.224% of the ante",
            False,
            "r 8.1 pays a royal flush 250 to 1; simple strategy",
        ),
    ),
    "mississippi-stud": (
        Published(
            "per_round",
            1 - 0.0491,
            f"{WOO}, Mississippi Stud: 4.91% of the ante "
            "(optimal strategy, 500/100/40/10/6/4/3/2/1/push)",
            True,
        ),
    ),
    "holdem-bonus": (
        Published(
            "per_round",
            1 - 0.02,
            "Wikipedia and casinosite.net, Texas Hold'em Bonus: "
            '"slightly over 2%" of the ante with optimal play (Las Vegas rules)',
            False,
            "QLD Sch 12 s23(2) pays the ante only on a flush or better (the Atlantic "
            "City rule, Las Vegas: a straight); the sheet bets the turn and river on an "
            "estimate of P(win) - P(lose) one board card ahead, not the exact optimal play",
        ),
    ),
    "pai-gow": (
        Published(
            "bet",
            1 - 0.023896,
            f"{WOO}, Ask the Wizard, Pai Gow Tiles: player "
            "against the house bank, both the house way, 5% commission, 2.3896%",
            False,
            "QLD s29 house way (the Queensland text's, not a Las Vegas one) sets both "
            "hands; the commission is rounded up to 50c (s19, option), no effect at "
            "$10",
        ),
    ),
}


def figures_for(game: str, options: Mapping[str, Any]) -> list[Published]:
    return [p for p in FIGURES.get(game, ()) if p.when(options)]


def match(figures: list[Published], wager: str) -> Published | None:
    """The first figure whose pattern names ``wager``."""
    return next((p for p in figures if fnmatch(wager, p.wager)), None)
