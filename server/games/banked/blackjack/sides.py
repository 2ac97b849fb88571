"""Side wagers of the blackjack family, settled on the box's first cards or at the end.

Perfect pairs (BJ s43-s48, SP s33-s38) and any pair (CH s32-s36) settle on the box's first
two cards and super match (SW s8(3), s17(2)) on its first four, at the deal
(:func:`settle_first_cards`); super sevens (BJ s32-s37) and bonus blackjack (BJ s38-s42) on
the cards dealt to the player, after a split on the first split hand (s36, s42, digest A6),
once the dealer's hand is done (:func:`settle_late_side_wagers`); the Spanish super bonus
(SP s8(3), digest A2) is paid once per qualifying hand to its players and, once each, to
every other person with a main wager (:func:`settle_super_bonus`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.games.banked.base import (
    Event,
    WagerSettled,
    pay,
)
from server.games.banked.blackjack import rules
from server.games.banked.blackjack.boxes import BoxPlay, Hand, Player

if TYPE_CHECKING:
    from server.games.banked.blackjack.engine import BlackjackRound


def settle_first_cards(rnd: BlackjackRound) -> list[Event]:
    """Perfect pairs (BJ s48, SP s38) and any pair (CH s36) on the box's first 2 cards;
    super match (SW s17(2), s8(3)) on the box's first 4 cards, before any switch."""
    out: list[Event] = []
    for bp in rnd.box_play.values():
        first = bp.first_cards
        for p, ws in bp.wagers.items():
            for name, stake in ws.items():
                if name == "perfect_pairs":
                    kind = rules.pair_kind(first[0], first[1])
                    sched = rnd.options["perfect_pairs_schedule"]
                    table = rules.PERFECT_PAIRS[rnd.variant.id][sched]
                    odds = table[kind] if kind else None
                    out.append(side(rnd, bp, p, name, stake, odds, kind))
                elif name == "any_pair":
                    odds = rules.ANY_PAIR if rules.any_pair(first[0], first[1]) else None
                    out.append(side(rnd, bp, p, name, stake, odds, "pair 11:1"))
                elif name == "super_match":
                    kind = rules.super_match(first)
                    odds = rules.SUPER_MATCH[kind] if kind else None
                    out.append(side(rnd, bp, p, name, stake, odds, kind))
    return out


def side(
    rnd: BlackjackRound,
    bp: BoxPlay,
    player: Player,
    name: str,
    stake: int,
    odds: tuple[int, int] | None,
    why: str | None,
    fixed: int | None = None,
) -> WagerSettled:
    """Settle one side wager: lost (no odds and no fixed win), else won at ``odds`` or
    ``fixed``."""
    if odds is None and fixed is None:
        return rnd._money(bp, player, name, -stake, f"{name}: no win")
    win = fixed if fixed is not None else pay(stake, odds or (0, 1))
    return rnd._money(bp, player, name, win, f"{name}: {why}")


def first_formed(rnd: BlackjackRound, bp: BoxPlay) -> Hand:
    """The box's original hand (area 1, formed first)."""
    return next(h for h in bp.hands if h.area == 0 and h.formed == 0)


def settle_late_side_wagers(rnd: BlackjackRound) -> list[Event]:
    """Super sevens (BJ s34-s37) and bonus blackjack (BJ s40-s42) on the cards dealt to
    the player; after a split the first split hand decides (s36, s42; digest A6)."""
    out: list[Event] = []
    for bp in rnd.box_play.values():
        first = first_formed(rnd, bp)
        split = len(bp.hands) > 1
        for p, ws in bp.wagers.items():
            for name, stake in ws.items():
                if name == "super_sevens":
                    seq = [*bp.first_cards, *first.cards[1:2]] if split else first.cards
                    kind = rules.super_sevens(seq)
                    odds = rules.SUPER_SEVENS[kind] if kind else None
                    out.append(side(rnd, bp, p, name, stake, odds, kind))
                elif name == "bonus_blackjack":
                    kind = rules.bonus_blackjack(first.cards, rnd.options["decks"], rnd.nominated)
                    if kind == "nominated blackjack" and split:
                        kind = None  # no blackjack after a split (s25(4)(c))
                    fixed = rules.BONUS_BLACKJACK[kind] if kind else None
                    out.append(side(rnd, bp, p, name, stake, None, kind, fixed))
    return out


def person_of(rnd: BlackjackRound, box: int, player: Player) -> str:
    """Who plays ``player``'s place on ``box`` (:attr:`persons`)."""
    found = rnd.persons.get((box, player))
    if found is not None:
        return found
    return f"box {box}" if player is None else f"player {player}"


def settle_super_bonus(rnd: BlackjackRound) -> list[Event]:
    """SP s8(3), digest A2: once per qualifying hand, every player on it is paid $1,000
    (main up to $24) or $5,000 ($25 and over) by his own main wager (A2(v)), and every
    other player with a main wager in the round $50 (A2(vii)): a person, paid once
    whatever the boxes he plays (on the first of them), and never the players on the
    hand itself."""
    out: list[Event] = []
    others: dict[str, tuple[BoxPlay, Player]] = {}  # person -> where he is paid
    for bp in rnd.box_play.values():
        for p, ws in bp.wagers.items():
            if "main" in ws:
                others.setdefault(person_of(rnd, bp.box, p), (bp, p))
    hands: dict[int, list[tuple[int, Player, int]]] = {}
    for hand, box, player, main in rnd.super_bonus:
        hands.setdefault(hand, []).append((box, player, main))
    for stakes in hands.values():
        on_hand = {person_of(rnd, box, player) for box, player, _ in stakes}
        for box, player, main in stakes:
            amount = (
                rules.SUPER_BONUS_LARGE
                if main >= rules.SUPER_BONUS_BAND
                else rules.SUPER_BONUS_SMALL
            )
            bp = rnd.box_play[box]
            out.append(rnd._money(bp, player, "super_bonus", amount, "super bonus (s8(3)(a)-(b))"))
        for person, (bp, p) in others.items():
            if person not in on_hand:
                why = "super bonus to another player (s8(3)(c))"
                out.append(rnd._money(bp, p, "super_bonus", rules.SUPER_BONUS_OTHERS, why))
    return out
