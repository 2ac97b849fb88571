"""Settling the blackjack round: hands paid at once, the dealer's hand, every stake left.

Busts lose and 21s and five card tricks are paid as soon as no offer on their box is open
(:func:`settle_ready`; SP s8(1) bonuses, CH s25(5)-(6)); blackjacks are paid at once where
the schedule says so (BJ s22(1), SP s22, CH s22(1)). After the last hand, the dealer's second
card (s17(5)) settles insurance (BJ s23(5),(6)) and surrenders (SP s23(3),(4)); a dealer
blackjack takes each player's original wager and voids the rest (:func:`dealer_blackjack`:
BJ s6(3), s24(5), s25(5); SW s6(4),(5); CH s6(3)); otherwise the dealer draws by the
schedule's rule while a hand is live (BJ s27) and every stake left settles against the
dealer's total (:func:`against_dealer`). :func:`figures` keeps the result figures
(SCENARIOS.md) current.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from server.cards import card_str, rank_of
from server.games.banked.base import (
    CardsDealt,
    Event,
    HandShown,
    pay,
)
from server.games.banked.blackjack import rules, sides
from server.games.banked.blackjack.boxes import Hand, Player, Stake

if TYPE_CHECKING:
    from server.games.banked.blackjack.engine import BlackjackRound


def settle_ready(rnd: BlackjackRound) -> list[Event]:
    """Settle what is final before the dealer plays: busts, 21s and five card tricks
    paid at once, blackjacks paid at once -- once no offer on the box is open (other
    players' doubles, covers and surrenders join the hand first)."""
    busy = {o.box for o in rnd.offers if o.kind != "insurance"}
    out: list[Event] = []
    for bp in rnd.box_play.values():
        if bp.box in busy:
            continue
        for hand in bp.hands:
            if hand.status in ("bust", "paid"):
                for st in hand.stake_list():
                    if st.net is None:
                        out.append(rnd._settle_stake(hand, st, *final_net(rnd, hand, st)))
            elif hand.status == "blackjack" and hand.early:
                out += pay_blackjack(rnd, hand, False)
    return out


def final_net(rnd: BlackjackRound, hand: Hand, st: Stake) -> tuple[int, str]:
    """The net of a stake on a hand settled before the dealer: a bust loses (s6(2)(f)); a 21
    paid at once (SP s8(1) bonuses, s8(3) super bonus; CH s25(5)); a five card trick
    (CH s25(6))."""
    v = rnd.variant
    t, _ = rnd._total(hand)
    if hand.status == "bust":
        return -(st.main + st.double), f"bust {t}"
    if t == 21 and v.twenty_one_at_once == "spanish" and not hand.doubled:
        bonus = rules.spanish_bonus(hand.cards, hand.split)
        if bonus and bonus.startswith("7-7-7 ") and super_bonus(rnd, hand):
            rnd.super_bonus.append((id(hand), hand.box, st.player, st.main))
            if rnd.options["super_bonus_replaces_odds"]:
                return st.main, "21 1:1, super bonus instead of the odds (s8(3))"
        if bonus:
            return pay(st.main, rules.SPANISH_BONUS[bonus]), f"{bonus} (SP s8(1))"
    if t == 21:
        return st.main + st.double, "21 paid at once 1:1"
    return st.main + st.double, "five card trick 1:1 (CH s25(6))"


def super_bonus(rnd: BlackjackRound, hand: Hand) -> bool:
    """SP s8(3), s26(6): three suited 7s against a dealer 7, not doubled, not from a
    split of two suited 7s."""
    return rank_of(rnd.dealer[0]) == 5 and not hand.suited_sevens_split


def pay_blackjack(rnd: BlackjackRound, hand: Hand, dealer_bj: bool) -> list[Event]:
    """BJ s8(2), s6(2)(e); SP s6(2)(c); SW s8(1), s6(3)(j); CH s22(1), s27(1)."""
    v = rnd.variant
    out: list[Event] = []
    for st in hand.stake_list():
        if st.net is not None:
            continue
        if dealer_bj and v.blackjack_v_blackjack == "push":
            out.append(rnd._settle_stake(hand, st, 0, "blackjack v dealer blackjack: void"))
        elif dealer_bj and v.blackjack_v_blackjack == "rank":
            mine, theirs = rules.ten_rank(hand.cards), rules.ten_rank(rnd.dealer)
            key = "higher" if mine > theirs else "same" if mine == theirs else "lower"
            win = pay(st.main, rules.CHALLENGE_BJ_V_BJ[key])
            out.append(rnd._settle_stake(hand, st, win, f"blackjack v blackjack, {key} ten"))
        else:
            win = pay(st.main, v.blackjack_odds)
            out.append(rnd._settle_stake(hand, st, win, "blackjack"))
    return out


def settle_round(rnd: BlackjackRound) -> list[Event]:
    """The dealer's second card and hand, then every stake left (module docstring)."""
    v = rnd.variant
    out: list[Event] = []
    rnd.dealer.append(rnd._card())  # s17(5): always dealt (digest A4)
    out.append(CardsDealt(to="dealer", box=None, cards=(card_str(rnd.dealer[1]),)))
    dealer_bj = rules.natural(rnd.dealer)
    for bp in rnd.box_play.values():  # BJ s23(5),(6): insurance on the second card
        for p, amount in bp.insurance.items():
            net = pay(amount, rules.INSURANCE) if dealer_bj else -amount
            out.append(rnd._money(bp, p, "insurance", net, "insurance"))
    for h in rnd._hands():  # SP s23(3),(4): surrender loses all or half
        for st in h.stake_list():
            if st.surrendered and st.net is None:
                lost = st.main if dealer_bj else st.main - st.main // 2
                out.append(rnd._settle_stake(h, st, -lost, "surrender"))
    for h in rnd._hands():
        if h.status == "blackjack":
            out += pay_blackjack(rnd, h, dealer_bj)
    if dealer_bj:
        rnd.dealer_status = "blackjack"
        out += dealer_blackjack(rnd)
    else:
        if rnd._live():
            while rules.dealer_draws(rnd.dealer, v):  # BJ s27(1), SP s28(1), SW s27(1)
                c = rnd._card()
                rnd.dealer.append(c)
                out.append(CardsDealt(to="dealer", box=None, cards=(card_str(c),)))
        d, _ = rules.total(rnd.dealer)
        rnd.dealer_status = f"bust {d}" if d > v.dealer_bust_above else str(d)
        for h in rnd._hands():
            for st in h.stake_list():
                if st.net is None:
                    out.append(rnd._settle_stake(h, st, *against_dealer(rnd, h, st, d)))
    out.append(HandShown(box=None, cards=tuple(map(card_str, rnd.dealer)), hand=rnd.dealer_status))
    out += sides.settle_late_side_wagers(rnd)
    out += sides.settle_super_bonus(rnd)
    figures(rnd)
    rnd.detail["reshuffled"] = rnd.shoe.end_round()  # s19: after the round
    return out


def against_dealer(rnd: BlackjackRound, hand: Hand, st: Stake, d: int) -> tuple[int, str]:
    """BJ s6(2); SW s6(3) (a dealer 22 pushes, digest A1: a bust already lost); CH
    s6(2)(h), s27(4): ties lose."""
    v = rnd.variant
    t, _ = rnd._total(hand)
    stake = st.main + st.double
    if d > v.dealer_bust_above:
        return stake, f"dealer bust {d}"
    if v.dealer_22_pushes and d == 22:
        return 0, "dealer 22: void (SW s6(3)(i))"
    if t > d:
        return stake, f"{t} v {d}"
    if t == d and not v.ties_lose:
        return 0, f"{t} v {d}: void"
    return -stake, f"{t} v {d}"


def dealer_blackjack(rnd: BlackjackRound) -> list[Event]:
    """A dealer blackjack after doubles and splits: per player (SW: per area), the
    original wager loses and every other stake still on the table is void (BJ s6(3),
    s24(5), s25(5), digest A3; SW s6(4),(5); CH s6(3), s23(5), s24(7), digest A5). The
    original wager is the first hand formed; it passes to the next hand formed when the
    first was already won (SP s26(7)(b), CH A5) or rescued (SP s26(7)(c))."""
    passes = rnd.variant.original_passes
    out: list[Event] = []
    for bp in rnd.box_play.values():
        for area in range(rnd.variant.areas):
            group = sorted((h for h in bp.hands if h.area == area), key=lambda h: h.formed)
            for p in bp.wagers:
                mine = [(h, h.stakes[p]) for h in group if p in h.stakes]
                original: Stake | None = None
                for h, st in mine:
                    if st.net is None:
                        original = st
                        break
                    won = h.status in ("paid", "blackjack") and "won" in passes
                    if not (won or (st.rescued and "rescued" in passes)):
                        break
                for h, st in mine:
                    if st.net is not None:
                        continue
                    if st is original:
                        why = "dealer blackjack: original wager lost"
                        out.append(rnd._settle_stake(h, st, -st.main, why))
                    else:
                        why = "dealer blackjack: additional wager void"
                        out.append(rnd._settle_stake(h, st, 0, why))
    return out


def figures(rnd: BlackjackRound) -> None:
    """Result figures (SCENARIOS.md): per player ``main`` (all main, split and double
    money), ``hands`` (each hand's net in play order, when the box has several), the
    other wagers; ``others`` per box. Rebuilt only when something they show changed
    (money settled, hands formed or backed, dealer cards, a void)."""
    key = (rnd._figures_version, len(rnd.dealer), id(rnd.nets), rnd.voided)
    if key == rnd._figures_key:
        return
    rnd._figures_key = key
    boxes: dict[str, Any] = {}
    for bp in rnd.box_play.values():
        several = len(bp.hands) > 1
        per: dict[Player, dict[str, Any]] = {}
        for p in bp.wagers:
            fig: dict[str, Any] = dict(bp.figures.get(p, {}))
            if several and "main" in bp.wagers[p]:
                fig["hands"] = [(h.stakes[p].net or 0) if p in h.stakes else 0 for h in bp.hands]
            fig["net"] = sum(v for k, v in bp.figures.get(p, {}).items())
            per[p] = fig
        rnd.nets[bp.box] = dict(bp.figures.get(None, {}))
        entry = per[None]
        others = {p: f for p, f in per.items() if p is not None}
        if others:
            entry["others"] = others
        boxes[str(bp.box)] = entry
    rnd.detail["scenario_extra"] = {
        "boxes": boxes,
        "dealer_cards": [card_str(c) for c in rnd.dealer],
    }
