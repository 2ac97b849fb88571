"""One blackjack-family round on the banked framework (seed 004, Schedules 2, 9, 15, 17).

Game ids ``blackjack``, ``spanish-blackjack``, ``blackjack-switch``, ``blackjack-challenge``.
Digests: ``../shared/rules/blackjack-family.md`` and the four per-schedule digests. The
variants differ only in data (:class:`~.rules.Variant`); docs/rulings.md, "Blackjack
family", lists every reading chosen.

Theory of operation
-------------------
1. **Wagers** per box: ``main`` (SW: the stake on each of the box's two areas, s6(1),(2)),
   the variant's side wagers, and ``others``: other players on the box (BJ s29, SP s30,
   CH s29; SW s28 admits others for super match only), each with his own wagers.
2. **Deal** (BJ s17(1), SW s17(1)): one card to each hand from the dealer's left, one to the
   dealer, a second card to each hand, all face up from a :class:`~.shoe.BlackjackShoe`.
   There is no hole card: the dealer's second card comes after every player (s17(5)).
   Perfect pairs, any pair and super match settle now (BJ s48, CH s36, SW s17(2)); a
   blackjack is paid now where the schedule says so (BJ s22(1), SP s22, CH s22(1)).
3. **Play**: one hand at a time, boxes in order, a box's hands in play order (split hands in
   the order formed, CH digest A6: a resplit hand straight after the hand split; SW digest
   A3: area 1, then area 2). :meth:`pending` gives that hand's decision (hit, stand, double,
   split, surrender, switch) and any open **offers**: insurance and even money (one phase
   before the first play, BJ digest A2), and the choices others on a box make after the
   controller acts (double, surrender, cover or follow after a split, BJ s30(6),(7)) or a
   player makes after his double card (Spanish rescue, SP s25(7),(8)). Offers are optional:
   the next play decision closes every open offer unanswered (SCENARIOS.md: declined offers
   are not listed), and so does :meth:`close_offers` (the table's timer, or the scenario
   command at the end of its decisions).
4. **Dealer** (after the last hand and the last offer): the second card (s17(5)); insurance
   settles on it (BJ s23(6)); with a dealer blackjack, each player's original wager loses
   (the schedule's rule after a double or a split, :meth:`_dealer_blackjack`); otherwise the
   dealer draws by the schedule's rule only while a hand is live (BJ s27(2)), and every hand
   left settles against the dealer's total.

Money moves only through the framework's ledger (:meth:`BankedRound._transfer`): parties
``box:N`` (the controller), ``box:N:P2`` (another player on box N) and ``house``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from server.cards import Card, RandomSource, card, card_str, rank_of
from server.errors import IllegalAction
from server.games.banked.base import (
    Argument,
    BankedRound,
    CardsDealt,
    Choice,
    Decision,
    DecisionMade,
    Event,
    Forced,
    GameSpec,
    HandShown,
    InvalidRound,
    JackpotState,
    OptionSpec,
    WagerSettled,
    WagerSpec,
    pay,
    validate_wagers,
)
from server.games.banked.blackjack import rules
from server.games.banked.blackjack.rules import Variant
from server.games.banked.blackjack.shoe import BlackjackShoe

Player = str | None  # None: the box's controller; "P2": another player on the box


@dataclass(frozen=True)
class RangeChoice(Choice):
    """A verb taking any amount from ``lo`` to ``hi`` cents (double for less, insurance), or
    any of ``allowed`` (a hand number to follow)."""

    lo: int = 0
    hi: int = 0
    check: str = ""

    def resolve(self, amount: int | None) -> int | None:
        if isinstance(amount, bool) or not isinstance(amount, int):
            if amount is None and self.lo == self.hi:
                return self.lo
            raise IllegalAction("amount_required", f"{self.verb} needs an amount")
        if not self.lo <= amount <= self.hi:
            raise IllegalAction(
                "bad_amount", f"{self.verb} {amount}: allowed {self.lo} to {self.hi}"
            )
        if self.check:  # BJ s23(4), digest A8: over half only for a whole-dollar win
            wager = int(self.check)
            if 2 * amount > wager and (2 * amount) % 100:
                raise IllegalAction(
                    "bad_amount",
                    f"insurance {amount}: over half the wager only for a whole-dollar win",
                )
        return amount

    def to_wire(self) -> dict[str, Any]:
        return {"verb": self.verb, "min": self.lo, "max": self.hi}


@dataclass
class Stake:
    """One player's money on one hand."""

    player: Player
    main: int
    double: int = 0
    net: int | None = None  # settled: the player's net on main + double
    rescued: bool = False
    surrendered: bool = False


@dataclass(eq=False)
class Hand:
    box: int
    area: int
    cards: list[Card]
    formed: int  # formation order within the area (0: the original hand)
    stakes: dict[Player, Stake]
    split: bool = False
    split_aces: bool = False
    doubled: bool = False
    fixed_aces: int = 0
    switched: bool = False
    acted: bool = False
    stood: bool = False
    #: SP s26(6): a hand formed by splitting two 7s of one suit earns no super bonus
    suited_sevens_split: bool = False
    #: "play" (in play or standing), "bust", "blackjack", "paid" (a 21 or five card trick
    #: paid at once); a blackjack is paid before the dealer's second card when ``early``
    status: str = "play"
    early: bool = False

    def stake_list(self) -> list[Stake]:
        return list(self.stakes.values())


@dataclass(eq=False)
class Offer:
    box: int
    player: Player
    kind: str  # insurance, double, surrender, rescue, split
    hand: Hand | None = None
    new_hand: Hand | None = None


@dataclass
class BoxPlay:
    box: int
    wagers: dict[Player, dict[str, int]]
    hands: list[Hand] = field(default_factory=list)
    acted: bool = False  # any play decision on the box (SW: switch only before, s17(5))
    insurance: dict[Player, int] = field(default_factory=dict)
    first_cards: list[Card] = field(default_factory=list)
    figures: dict[Player, dict[str, int]] = field(default_factory=dict)


def party(box: int, player: Player) -> str:
    return f"box:{box}" if player is None else f"box:{box}:{player}"


def spec_for(v: Variant) -> GameSpec:
    side_docs = {
        "super_sevens": "BJ s32-s37: 7s among the first three cards, 3:1 to 5000:1",
        "bonus_blackjack": "BJ s38-s42: exactly $1, controller only, 6 or 8 decks",
        "perfect_pairs": "the box's first 2 cards a pair (BJ s43-s48, SP s33-s38)",
        "super_match": "SW s8(3): pairs among the box's first 4 cards",
        "any_pair": "CH s32-s36: the box's first 2 cards a pair, 11:1",
    }
    wagers = [
        WagerSpec(
            "main",
            required=True,
            doc="the blackjack wager"
            + (" on each of the two areas (s6(1),(2))" if v.switch else ""),
        ),
        *(
            WagerSpec(w, limits="decision" if w == "bonus_blackjack" else "table", doc=side_docs[w])
            for w in v.side_wagers
        ),
    ]
    if v.insurance:
        wagers.append(
            WagerSpec("insurance", initial=False, limits="decision", doc="dealer ace; 2:1")
        )
    verbs = ["hit", "stand", "double", "split"]
    if v.insurance:
        verbs.append("insurance")
    if v.even_money:
        verbs.append("even_money")
    if v.surrender:
        verbs.append("surrender")
    if v.rescue:
        verbs.append("rescue")
    if v.switch:
        verbs.append("switch")
    if v.backers:
        verbs += ["cover", "follow"]
    options = [
        OptionSpec("decks", v.default_decks, choices=v.decks, doc="decks in the shoe (s4)"),
        OptionSpec(
            "cut_card",
            None,
            nullable=True,
            minimum=10,
            doc="cards behind the second cutting card (s13; null: one deck)",
        ),
        OptionSpec(
            "side_wagers",
            list(v.side_wagers),
            list,
            doc="side wagers the layout provides (default: every one the schedule has)",
        ),
    ]
    if v.switch:  # SW digest section 10: the layout recommended has 5 boxes
        options.append(OptionSpec("num_boxes", 5, minimum=1, doc="boxes on the layout (s3)"))
    if "perfect_pairs" in v.side_wagers:
        options.append(
            OptionSpec(
                "perfect_pairs_schedule",
                1,
                choices=(1, 2),
                doc="the approved perfect pairs schedule (BJ s46-s47, SP s36-s37)",
            )
        )
    if "bonus_blackjack" in v.side_wagers:
        options.append(
            OptionSpec(
                "nominated_blackjack",
                ["Ah", "Kh"],
                list,
                doc="the round's nominated blackjack (BJ s40(3); digest's PROPOSED A-K hearts)",
            )
        )
    if v.id == "spanish-blackjack":
        options.append(
            OptionSpec(
                "super_bonus_replaces_odds",
                False,
                bool,
                doc="SP s8(3), digest A2(i): the super bonus instead of the 7-7-7 odds",
            )
        )
    pay_tables: dict[str, Any] = {"blackjack": {"blackjack": v.blackjack_odds}}
    if v.id in rules.PERFECT_PAIRS:
        for n, table in rules.PERFECT_PAIRS[v.id].items():
            pay_tables[f"perfect_pairs_{n}"] = table
    if "super_sevens" in v.side_wagers:
        pay_tables["super_sevens"] = rules.SUPER_SEVENS
    if "super_match" in v.side_wagers:
        pay_tables["super_match"] = rules.SUPER_MATCH
    if "any_pair" in v.side_wagers:
        pay_tables["any_pair"] = {"pair": rules.ANY_PAIR}
    if v.id == "spanish-blackjack":
        pay_tables["bonus"] = rules.SPANISH_BONUS
    if v.blackjack_v_blackjack == "rank":
        pay_tables["blackjack_v_blackjack"] = rules.CHALLENGE_BJ_V_BJ
    return GameSpec(
        id=v.id,
        title=v.title,
        rules=v.schedule,
        wagers=tuple(wagers),
        verbs=tuple(verbs),
        options=tuple(options),
        pay_tables={"schedule": pay_tables},
        deck=v.deck,
        backer_places=("P2", "P3"),  # table facts (banked): up to 3 players a box (s29(1))
        layout_stakes={"main": v.areas} if v.areas > 1 else {},  # SW s6(1),(2)
    )


class BlackjackRound(BankedRound):
    """One round of a blackjack-family game (see the module docstring)."""

    variant: ClassVar[Variant]

    @classmethod
    def new_shoe(
        cls, options: Mapping[str, Any], rng: RandomSource, forced: Sequence[Card] = ()
    ) -> BlackjackShoe:
        """A freshly shuffled shoe for ``options`` (validated: ``decks``, ``cut_card``):
        a table keeps it across rounds, shuffled from its own secret (server/fair.py)."""
        return BlackjackShoe(cls.variant.deck, options["decks"], rng, options["cut_card"], forced)

    def __init__(
        self,
        options: Mapping[str, Any] | None,
        wagers: Mapping[Any, Mapping[str, Any]],
        rng: RandomSource,
        forced: Forced | None = None,
        jackpot: JackpotState | None = None,
        shoe: BlackjackShoe | None = None,
    ) -> None:
        if not isinstance(wagers, Mapping):
            raise InvalidRound("boxes must be a non-empty object of box -> wagers")
        own: dict[Any, Any] = {}
        others_raw: dict[Any, Any] = {}
        for key, ws in wagers.items():
            if isinstance(ws, Mapping) and "others" in ws:
                others_raw[key] = ws["others"]
                own[key] = {k: a for k, a in ws.items() if k != "others"}
            else:
                own[key] = ws
        super().__init__(options, own, rng, forced, jackpot)
        v = self.variant
        offered = self.options["side_wagers"]
        if not all(isinstance(w, str) and w in v.side_wagers for w in offered):
            raise InvalidRound(f"option side_wagers: each must be one of {list(v.side_wagers)}")
        if v.areas > 1:  # SW s6(1),(2): the main wager stands on each of the box's areas
            for ws in self.stakes.values():
                if "main" in ws:
                    ws["main"] *= v.areas
        self.box_play: dict[int, BoxPlay] = {}
        key_of = {int(k): k for k in own}  # validate_wagers has checked the box numbers
        for box, ws in self.wagers.items():
            players: dict[Player, dict[str, int]] = {None: ws}
            raw = others_raw.get(key_of[box])
            if raw is not None:
                players.update(self._others(box, raw))
            for p, pws in players.items():
                self.check_side_wagers(self.options, box, p, pws)
            self.box_play[box] = BoxPlay(box, players)
        if forced is not None and (forced.boxes or forced.dealer or forced.board or forced.outcome):
            raise InvalidRound(f"{v.id} is dealt from a shoe: give cards.shoe in dealing order")
        if shoe is None:
            shoe = self.new_shoe(self.options, rng, forced.shoe if forced else ())
        elif forced is not None and forced.shoe:
            raise InvalidRound("a table shoe and a forced shoe together")
        cut = self.options["cut_card"]
        if cut is not None and cut > (2 * shoe.size) // 3:
            raise InvalidRound("option cut_card: at most about two-thirds of the shoe (s13(8))")
        self.shoe = shoe
        self.nominated: tuple[Card, Card] = self._nominated()
        self.dealer: list[Card] = []
        self.acting: Hand | None = None
        self.offers: list[Offer] = []
        self._figures_version = 0
        self._figures_key: tuple[Any, ...] | None = None
        #: the stakes on hands that won the super bonus: (the hand, box, player, main)
        self.super_bonus: list[tuple[int, int, Player, int]] = []
        #: who each player on a box is, across the boxes (SP s8(3)(c): "all other players"
        #: are persons, not places): (box, player) -> a person's id; set by a table from its
        #: accounts. Unset: a box's controller is a person of its own, and a backer is the
        #: person its id names (the same id on two boxes is one person: SCENARIOS.md)
        self.persons: dict[tuple[int, Player], str] = {}

    # ------------------------------------------------------------------ set-up
    def _nominated(self) -> tuple[Card, Card]:
        raw = self.options.get("nominated_blackjack", ["Ah", "Kh"])
        try:
            a, b = (card(x) for x in raw)
        except (ValueError, TypeError):
            raise InvalidRound('option nominated_blackjack: two cards, e.g. ["Ah", "Kh"]') from None
        if {rank_of(a) == rules.ACE, rules.is_ten(b)} != {True} or (a & 3) != (b & 3):
            raise InvalidRound(
                "option nominated_blackjack: an ace and a ten-value card of one suit"
            )
        return a, b

    def _others(self, box: int, raw: Any) -> dict[Player, dict[str, int]]:
        """SCENARIOS.md ``others``: other players on a box (BJ s29(1): up to 3 a box)."""
        if not isinstance(raw, Mapping) or not raw:
            raise InvalidRound(f"box {box}: others must be an object of player -> wagers")
        if len(raw) > 2:
            raise IllegalAction("too_many_players", f"box {box}: at most 3 players on a box (s29)")
        out: dict[Player, dict[str, int]] = {}
        for pid, ws in raw.items():
            if not isinstance(pid, str) or not pid:
                raise InvalidRound(f"box {box}: a player id must be a non-empty string")
            out[pid] = self.check_other_wagers(self.options, box, pid, ws)
        return out

    @classmethod
    def check_other_wagers(
        cls, options: Mapping[str, Any], box: int, pid: str, ws: Any
    ) -> dict[str, int]:
        """One other player's wagers on a box (BJ s29, SW s28), checked against the table
        limits and the variant's rules for others; ``options`` validated. A table checks a
        backer's wagers with it while betting is open."""
        checked = validate_wagers(cls._others_spec(), options, {box: ws})[box]
        if not cls.variant.backers and set(checked) != {"super_match"}:
            raise IllegalAction(
                "one_player_per_box",
                f"box {box}: one player per box; others bet only super match (s28, s7(3))",
            )
        if cls.variant.backers and "main" not in checked:
            raise IllegalAction("needs_main", f"box {box}: {pid} needs a main wager")
        return checked

    @classmethod
    def _others_spec(cls) -> GameSpec:
        """Other players' wagers: the table limits apply, no wager is compulsory (SW s7(3):
        others may hold super match alone)."""
        loose = tuple(dataclasses.replace(w, required=False) for w in cls.spec.wagers)
        return dataclasses.replace(cls.spec, wagers=loose)

    @classmethod
    def check_side_wagers(
        cls, options: Mapping[str, Any], box: int, player: Player, ws: Mapping[str, int]
    ) -> None:
        """The side wagers a layout offers (option ``side_wagers``) and bonus blackjack's
        conditions (BJ s38(2), s39): ``options`` validated."""
        offered = options["side_wagers"]
        for name in ws:
            if name in cls.variant.side_wagers and name not in offered:
                raise IllegalAction("wager_not_offered", f"box {box}: no {name} wager here")
        if "bonus_blackjack" in ws:
            if player is not None:
                raise IllegalAction(
                    "controller_only", f"box {box}: bonus blackjack is the controller's (s39)"
                )
            if options["decks"] not in (6, 8):
                raise IllegalAction(
                    "wager_not_offered", "bonus blackjack needs 6 or 8 decks (s38(2))"
                )
            if ws["bonus_blackjack"] != rules.BONUS_BLACKJACK_STAKE:
                raise IllegalAction("bad_amount", f"box {box}: bonus blackjack is exactly $1")

    # ------------------------------------------------------------------ dealing
    def _card(self) -> Card:
        return self.shoe.deal()

    def _give(self, hand: Hand) -> list[Event]:
        c = self._card()
        hand.cards.append(c)
        return [CardsDealt(to="box", box=hand.box, cards=(card_str(c),), street=self._label(hand))]

    def _label(self, hand: Hand) -> str:
        hands = self.box_play[hand.box].hands
        return f"hand {next(i for i, h in enumerate(hands) if h is hand) + 1}"

    def _deal(self) -> list[Event]:
        v = self.variant
        self.shoe.begin_round(v.reshuffle_before_round)
        out: list[Event] = []
        for bp in self.box_play.values():
            for area in range(v.areas):
                stakes = {p: Stake(p, ws["main"]) for p, ws in bp.wagers.items() if "main" in ws}
                bp.hands.append(Hand(bp.box, area, [], 0, stakes))
        order = [h for bp in self.box_play.values() for h in bp.hands]
        for h in order:  # s17(1): one card to each hand, one to the dealer, a second each
            out += self._give(h)
        self.dealer.append(self._card())
        out.append(CardsDealt(to="dealer", box=None, cards=(card_str(self.dealer[0]),)))
        for h in order:
            out += self._give(h)
        for bp in self.box_play.values():
            bp.first_cards = [c for h in bp.hands for c in h.cards]
        out += self._settle_first_cards()
        for h in order:
            if rules.natural(h.cards):
                h.status = "blackjack"
                # SP s22: at once, always; BJ s22(1), CH s22(1): at once against a dealer
                # 2-9; SW s22(2),(3): at the box's turn (settled with the dealer here)
                h.early = v.blackjack_paid_at_once_always or (
                    not v.switch and not self._dealer_may_blackjack()
                )
        if v.insurance and rank_of(self.dealer[0]) == rules.ACE:
            for bp in self.box_play.values():  # BJ s23, SP s24: each player; SW s23: a box
                for p in [None] if v.insurance == "box" else list(bp.wagers):
                    if "main" in bp.wagers[p]:
                        self.offers.append(Offer(bp.box, p, "insurance"))
        return out + self._advance()

    def _dealer_may_blackjack(self) -> bool:
        up = self.dealer[0]
        return rank_of(up) == rules.ACE or rules.is_ten(up)

    # ------------------------------------------------------------------ side wagers
    def _settle_first_cards(self) -> list[Event]:
        """Perfect pairs (BJ s48, SP s38) and any pair (CH s36) on the box's first 2 cards;
        super match (SW s17(2), s8(3)) on the box's first 4 cards, before any switch."""
        out: list[Event] = []
        for bp in self.box_play.values():
            first = bp.first_cards
            for p, ws in bp.wagers.items():
                for name, stake in ws.items():
                    if name == "perfect_pairs":
                        kind = rules.pair_kind(first[0], first[1])
                        sched = self.options["perfect_pairs_schedule"]
                        table = rules.PERFECT_PAIRS[self.variant.id][sched]
                        odds = table[kind] if kind else None
                        out.append(self._side(bp, p, name, stake, odds, kind))
                    elif name == "any_pair":
                        odds = rules.ANY_PAIR if rules.any_pair(first[0], first[1]) else None
                        out.append(self._side(bp, p, name, stake, odds, "pair 11:1"))
                    elif name == "super_match":
                        kind = rules.super_match(first)
                        odds = rules.SUPER_MATCH[kind] if kind else None
                        out.append(self._side(bp, p, name, stake, odds, kind))
        return out

    def _side(
        self,
        bp: BoxPlay,
        player: Player,
        name: str,
        stake: int,
        odds: tuple[int, int] | None,
        why: str | None,
        fixed: int | None = None,
    ) -> WagerSettled:
        if odds is None and fixed is None:
            return self._money(bp, player, name, -stake, f"{name}: no win")
        win = fixed if fixed is not None else pay(stake, odds or (0, 1))
        return self._money(bp, player, name, win, f"{name}: {why}")

    def _money(self, bp: BoxPlay, player: Player, name: str, net: int, why: str) -> WagerSettled:
        """Record a player's net on a wager figure and move the money (house <-> player)."""
        self._figures_version += 1
        fig = bp.figures.setdefault(player, {})
        fig[name] = fig.get(name, 0) + net
        self._transfer("house", party(bp.box, player), net)
        outcome = "win" if net > 0 else "lose" if net < 0 else "push"
        label = name if player is None else f"{player} {name}"
        return WagerSettled(box=bp.box, wager=label, net=net, outcome=outcome, detail=why)

    def _first_formed(self, bp: BoxPlay) -> Hand:
        return next(h for h in bp.hands if h.area == 0 and h.formed == 0)

    def _settle_late_side_wagers(self) -> list[Event]:
        """Super sevens (BJ s34-s37) and bonus blackjack (BJ s40-s42) on the cards dealt to
        the player; after a split the first split hand decides (s36, s42; digest A6)."""
        out: list[Event] = []
        for bp in self.box_play.values():
            first = self._first_formed(bp)
            split = len(bp.hands) > 1
            for p, ws in bp.wagers.items():
                for name, stake in ws.items():
                    if name == "super_sevens":
                        seq = [*bp.first_cards, *first.cards[1:2]] if split else first.cards
                        kind = rules.super_sevens(seq)
                        odds = rules.SUPER_SEVENS[kind] if kind else None
                        out.append(self._side(bp, p, name, stake, odds, kind))
                    elif name == "bonus_blackjack":
                        kind = rules.bonus_blackjack(
                            first.cards, self.options["decks"], self.nominated
                        )
                        if kind == "nominated blackjack" and split:
                            kind = None  # no blackjack after a split (s25(4)(c))
                        fixed = rules.BONUS_BLACKJACK[kind] if kind else None
                        out.append(self._side(bp, p, name, stake, None, kind, fixed))
        return out

    # ------------------------------------------------------------------ hand arithmetic
    def _total(self, hand: Hand) -> tuple[int, bool]:
        return rules.total(hand.cards, hand.fixed_aces)

    def _needs_decision(self, hand: Hand) -> bool:
        v = self.variant
        if hand.status != "play" or hand.stood or hand.doubled or len(hand.cards) < 2:
            return False
        if any(st.surrendered for st in hand.stakes.values()):
            return False
        if hand.split_aces and v.split_aces_one_card:
            return False  # BJ s25(4)(b): one card to each split ace
        if v.five_card_trick and len(hand.cards) >= 5:
            return False
        return self._total(hand)[0] < 21

    def _choices_for(self, hand: Hand) -> tuple[Choice, ...]:
        v = self.variant
        bp = self.box_play[hand.box]
        own = hand.stakes[None].main
        out: list[Choice] = [Choice("hit"), Choice("stand")]
        if self._may_double(hand):
            out.append(RangeChoice("double", lo=1, hi=own))
        if self._may_split(hand):
            out.append(Choice("split", (own,)))
        if v.surrender and self._may_surrender(hand):
            out.append(Choice("surrender"))
        if v.switch and not bp.acted:
            out.append(Choice("switch"))
        return tuple(out)

    def _may_double(self, hand: Hand) -> bool:
        """BJ s24(1),(4) and SW s24 (digest A1/A10): the first 2 cards total 9-11 with aces
        as 1, never a 21; SP s25(1): 2 or more cards, not 21; CH s23(1): 2 or 3 cards."""
        v = self.variant
        n = len(hand.cards)
        if hand.doubled or self._total(hand)[0] >= 21:
            return False
        if v.double_window == "9-11":
            return n == 2 and 9 <= sum(rules.value(c) for c in hand.cards) <= 11
        if v.double_window == "any":
            return n >= 2
        return n in (2, 3)

    def _may_split(self, hand: Hand) -> bool:
        """BJ s25(1),(4)(a): identical value, no resplit; CH s24(5): up to 3 hands a box,
        a resplit only of the original split value."""
        v = self.variant
        bp = self.box_play[hand.box]
        if len(hand.cards) != 2 or hand.doubled:
            return False
        a, b = hand.cards
        if rules.value(a) != rules.value(b):
            return False
        if v.max_hands == 2:
            return not hand.split
        group = [h for h in bp.hands if h.area == hand.area]
        if len(group) >= v.max_hands:
            return False
        origin = min(group, key=lambda h: h.formed)
        return not hand.split or rules.value(a) == rules.value(origin.cards[0])

    def _may_surrender(self, hand: Hand) -> bool:
        """SP s23(1), digest A3: dealer J/Q/K/A; the first decision on the 2-card hand."""
        up = self.dealer[0]
        return (
            (rules.is_ten(up) or rank_of(up) == rules.ACE)
            and not hand.split
            and not hand.acted
            and len(hand.cards) == 2
            and self._total(hand)[0] < 21
        )

    # ------------------------------------------------------------------ public API
    def pending(self) -> list[Decision]:
        """The hand to act (one at a time, in box order) and the open offers."""
        if self.complete or not self._started:
            return []
        out: list[Decision] = []
        if self.acting is not None:
            h = self.acting
            out.append(Decision(h.box, self._label(h), self._choices_for(h)))
        for o in self.offers:
            street = o.kind if o.player is None else f"{o.kind} {o.player}"
            out.append(Decision(o.box, street, self._offer_choices(o)))
        return out

    def decline_offers(self, box: int, player: Player = None) -> list[Event]:
        """One player's open offers on ``box`` are declined (a table's clock ran out on
        them); his hands, if he acts, are not played for him."""
        if self.complete:
            return []
        return self._emit(self._decline(box, player))

    def _decline(self, box: int, player: Player) -> list[Event]:
        mine = [o for o in self.offers if o.box == box and o.player == player]
        if not mine:
            return []
        self.offers = [o for o in self.offers if o not in mine]
        return self._advance()

    def stakes_of(self, box: int, player: Player = None) -> dict[str, int]:
        """What ``player`` (``None``: the controller) has on ``box`` now, by wager: main
        (every hand's wager, split, cover and double money), insurance, side wagers."""
        bp = self.box_play[box]
        out = dict(bp.wagers[player])
        main = sum(
            st.main + st.double for h in bp.hands for p, st in h.stakes.items() if p == player
        )
        if main or "main" in out:
            out["main"] = main
        if player in bp.insurance:
            out["insurance"] = bp.insurance[player]
        return out

    def nets_of(self, box: int, player: Player = None) -> dict[str, int]:
        """``player``'s net figure per wager on ``box`` so far (settled parts only)."""
        return dict(self.box_play[box].figures.get(player, {}))

    def end_of_decisions(self) -> list[Event]:
        """A scenario's decisions ran out: the offers not taken are declined (SCENARIOS.md:
        declined offers are not listed)."""
        return self.close_offers()

    def close_offers(self) -> list[Event]:
        """Every open offer is declined (the next play decision, a timer, or the end of a
        scenario's decisions, SCENARIOS.md); the round then goes on as far as it can."""
        if self.complete or not self.offers:
            return []
        self.offers = []
        return self._emit(self._advance())

    def decide(
        self,
        box: int,
        verb: str,
        amount: Argument = None,
        qualifiers: Mapping[str, Any] | None = None,
    ) -> list[Event]:
        if isinstance(amount, Mapping):
            raise IllegalAction("unexpected_setting", f"{verb} takes no setting of the cards")
        if not self._started:
            raise IllegalAction("not_started", "the round has not started")
        if self.complete:
            raise IllegalAction("round_complete", "the round is complete")
        if box not in self.box_play:
            raise IllegalAction("no_such_box", f"box {box} has no wager in this round")
        player: Player = None
        if qualifiers:
            unknown = set(qualifiers) - {"player"}
            if unknown:
                raise IllegalAction(
                    "unexpected_qualifiers", f"unknown qualifiers {sorted(unknown)}"
                )
            player = qualifiers.get("player")
            if player is None or player not in self.box_play[box].wagers:
                raise IllegalAction("no_such_player", f"box {box} has no player {player!r}")
        if verb in ("timeout", "insufficient"):
            if amount is not None:
                raise IllegalAction("unexpected_amount", f"{verb} takes no amount")
            return self._absent(box, player, verb)
        offer = self._find_offer(box, player, verb)
        if offer is not None:
            return self._emit(self._answer(offer, verb, amount))
        if player is not None:
            raise IllegalAction(
                "not_awaiting_decision", f"{player} on box {box} has no {verb!r} to decide now"
            )
        return self._emit(self._play(box, verb, amount, "player"))

    def timeout(self, box: int) -> list[Event]:
        return self.decide(box, "timeout")

    def insufficient(self, box: int) -> list[Event]:
        return self.decide(box, "insufficient")

    # ------------------------------------------------------------------ play decisions
    def _play(self, box: int, verb: str, amount: int | None, cause: str) -> list[Event]:
        hand = self.acting
        if hand is None or hand.box != box:
            raise IllegalAction("not_awaiting_decision", f"box {box} owes no decision now")
        choices = {c.verb: c for c in self._choices_for(hand)}
        if verb not in choices:
            raise IllegalAction(
                "illegal_verb", f"box {box} may {', '.join(choices)} now, not {verb!r}"
            )
        resolved = choices[verb].resolve(amount)
        self.offers = []  # the next play decision declines every open offer
        out: list[Event] = [
            DecisionMade(box=box, street=self._label(hand), verb=verb, amount=resolved, cause=cause)
        ]
        bp = self.box_play[box]
        if self.variant.switch and verb != "switch" and not self._dealer_may_blackjack():
            for h in bp.hands:  # SW s22(2): an unswitched blackjack is paid at the box's turn
                h.early = h.early or h.status == "blackjack"
        bp.acted = True
        if verb != "switch":
            hand.acted = True
        if verb == "hit":
            out += self._give(hand)
            self._after_card(hand)
        elif verb == "stand":
            hand.stood = True
        elif verb == "double":
            assert resolved is not None
            out += self._double(hand, None, resolved)
            for p, st in hand.stakes.items():
                if p is not None and st.net is None:
                    self.offers.append(Offer(box, p, "double", hand))
        elif verb == "split":
            out += self._split(hand)
        elif verb == "surrender":
            for p, st in hand.stakes.items():  # SP s31(5): others only if the controller does
                if p is None:
                    st.surrendered = True
                else:
                    self.offers.append(Offer(box, p, "surrender", hand))
        elif verb == "switch":
            out += self._switch(bp)
        return out + self._advance()

    def _after_card(self, hand: Hand) -> None:
        """A card reached the hand: a bust loses (s6(2)(f)); a 21 (SP s22, CH s25(5)) or a
        five card trick (CH s25(6)) is paid at once. Money moves in :meth:`_settle_ready`."""
        v = self.variant
        t, _ = self._total(hand)
        if t > 21:
            hand.status = "bust"
        elif t == 21 and v.twenty_one_at_once:
            hand.status = "paid"
        elif v.five_card_trick and len(hand.cards) >= 5:
            hand.status = "paid"

    def _double(self, hand: Hand, player: Player, amount: int) -> list[Event]:
        v = self.variant
        st = hand.stakes[player]
        st.double = amount
        out: list[Event] = []
        if player is None:
            self._stake(hand.box, "main", amount)
            hand.doubled = True
            if v.double_aces == "first 2":
                hand.fixed_aces = 2  # BJ s24(4)
            elif v.double_aces == "all held":
                hand.fixed_aces = len(hand.cards)  # SP s25(4)
            out += self._give(hand)
            self._after_card(hand)
        if v.rescue and hand.status == "play":
            self.offers.append(Offer(hand.box, player, "rescue", hand))  # SP s25(7),(8)
        return out

    def _split(self, hand: Hand) -> list[Event]:
        self._figures_version += 1
        bp = self.box_play[hand.box]
        group = [h for h in bp.hands if h.area == hand.area]
        first, second = hand.cards
        new = Hand(
            hand.box,
            hand.area,
            [second],
            max(h.formed for h in group) + 1,
            {None: Stake(None, hand.stakes[None].main)},
            split=True,
        )
        self._stake(hand.box, "main", hand.stakes[None].main)
        suited_sevens = rank_of(first) == rank_of(second) == 5 and first & 3 == second & 3
        hand.cards = [first]
        hand.split = True
        hand.split_aces = new.split_aces = rank_of(first) == rules.ACE
        hand.suited_sevens_split = new.suited_sevens_split = suited_sevens
        bp.hands.insert(bp.hands.index(hand) + 1, new)  # CH digest A6: played next
        for p in hand.stakes:
            if p is not None:  # BJ s30(7): cover each split hand or choose one
                self.offers.append(Offer(hand.box, p, "split", hand, new))
        out = self._give(hand)  # s25(3): the first split hand is completed first
        self._after_split_card(hand)
        return out

    def _after_split_card(self, hand: Hand) -> None:
        v = self.variant
        if v.blackjack_after_split and rules.natural(hand.cards):
            hand.status = "blackjack"  # CH s24(4)(a)
            hand.early = not self._dealer_may_blackjack()
        else:
            self._after_card(hand)

    def _switch(self, bp: BoxPlay) -> list[Event]:
        """SW s17(3)-(7): swap the second cards; an A + ten-value after a switch is a switched
        blackjack, a 21 (s22(5))."""
        h1, h2 = bp.hands
        h1.cards[1], h2.cards[1] = h2.cards[1], h1.cards[1]
        for h in (h1, h2):
            h.switched = True
            h.status = "play"
            h.early = False
        return [
            HandShown(box=bp.box, cards=tuple(map(card_str, h.cards)), hand=f"area {h.area + 1}")
            for h in (h1, h2)
        ]

    # ------------------------------------------------------------------ offers
    _OFFER_OF: ClassVar[dict[str, str]] = {
        "insurance": "insurance",
        "even_money": "insurance",
        "double": "double",
        "surrender": "surrender",
        "rescue": "rescue",
        "cover": "split",
        "follow": "split",
    }

    def _find_offer(self, box: int, player: Player, verb: str) -> Offer | None:
        kind = self._OFFER_OF.get(verb)
        return next(
            (o for o in self.offers if o.box == box and o.player == player and o.kind == kind),
            None,
        )

    def _offer_choices(self, o: Offer) -> tuple[Choice, ...]:
        bp = self.box_play[o.box]
        if o.kind == "insurance":
            main = bp.wagers[o.player]["main"]
            out: list[Choice]
            if self.variant.insurance == "box":  # SW s23(3), digest A2: half of one area
                out = [RangeChoice("insurance", lo=1, hi=main // 2)]
            else:  # BJ s23(4), digest A8: half, or up to 25c more for a whole-dollar win
                out = [RangeChoice("insurance", lo=1, hi=(main + 50) // 2, check=str(main))]
            st = bp.hands[0].stakes.get(o.player)
            if (
                self.variant.even_money
                and bp.hands[0].status == "blackjack"
                and st is not None
                and st.net is None
            ):
                out.append(Choice("even_money"))
            return tuple(out)
        assert o.hand is not None
        st = o.hand.stakes[o.player]
        if o.kind == "double":
            return (RangeChoice("double", lo=1, hi=st.main),)
        if o.kind == "split":
            return (Choice("cover", (st.main,)), RangeChoice("follow", lo=1, hi=2))
        return (Choice(o.kind),)

    def _answer(self, o: Offer, verb: str, amount: int | None) -> list[Event]:
        self._figures_version += 1
        choices = {c.verb: c for c in self._offer_choices(o)}
        if verb not in choices:
            raise IllegalAction("illegal_verb", f"{verb!r} is not open to this player now")
        resolved = choices[verb].resolve(amount)
        bp = self.box_play[o.box]
        label = verb if o.player is None else f"{verb} {o.player}"
        out: list[Event] = [
            DecisionMade(box=o.box, street=o.kind, verb=label, amount=resolved, cause="player")
        ]
        self.offers.remove(o)
        if verb == "insurance":
            assert resolved is not None
            bp.insurance[o.player] = resolved
            if o.player is None:
                self._stake(o.box, "insurance", resolved)
        elif verb == "even_money":  # BJ s22(4): paid 1:1 at once in full settlement
            hand = bp.hands[0]
            st = hand.stakes[o.player]
            out.append(self._settle_stake(hand, st, st.main, "even money 1:1 (s22(4))"))
        elif verb == "double":
            assert o.hand is not None and resolved is not None
            out += self._double(o.hand, o.player, resolved)
        elif verb == "rescue":  # SP s25(7): the double withdrawn, the main wager forfeited
            assert o.hand is not None
            st = o.hand.stakes[o.player]
            st.rescued = True
            out.append(self._settle_stake(o.hand, st, -st.main, "rescue (s25(7))"))
        elif verb == "surrender":
            assert o.hand is not None
            o.hand.stakes[o.player].surrendered = True
        else:  # cover / follow after a split (BJ s30(7), SP s31(9), CH s30(6))
            assert o.hand is not None and o.new_hand is not None and resolved is not None
            st = o.hand.stakes[o.player]
            if verb == "cover":
                o.new_hand.stakes[o.player] = Stake(o.player, resolved)
            elif resolved == 2:
                del o.hand.stakes[o.player]
                o.new_hand.stakes[o.player] = st
        return out + self._advance()

    def _absent(self, box: int, player: Player, verb: str) -> list[Event]:
        """A player who does not act (``timeout``) or cannot fund a wager (``insufficient``):
        his open offers are declined; otherwise the controller's hands are played out by the
        schedule's automatic play (BJ s61, SP s51, SW s42: no switch, CH s49)."""
        mine = [o for o in self.offers if o.box == box and o.player == player]
        acting = player is None and self.acting is not None and self.acting.box == box
        if not mine and not acting:
            raise IllegalAction("not_awaiting_decision", f"box {box} owes no decision now")
        out: list[Event] = []
        if mine:
            out += self._decline(box, player)
        while self.acting is not None and self.acting.box == box:
            t, soft = self._total(self.acting)
            limit = self.variant.timeout_soft_limit if soft else 11
            out += self._play(box, "hit" if t <= limit else "stand", None, verb)
        return self._emit(out)

    # ------------------------------------------------------------------ flow
    def _advance(self) -> list[Event]:
        """The next hand to decide, box by box (s17(2)); then, with no offer open, the
        dealer. A split hand gets its second card when play reaches it (s25(3))."""
        out: list[Event] = []
        self.acting = None
        for bp in self.box_play.values():
            for hand in bp.hands:
                if len(hand.cards) == 1:
                    out += self._give(hand)
                    self._after_split_card(hand)
                if self._needs_decision(hand):
                    self.acting = hand
                    return out + self._settle_ready()
        out += self._settle_ready()
        if self.offers or self.complete:
            return out
        return out + self._finish()

    def _settle_ready(self) -> list[Event]:
        """Settle what is final before the dealer plays: busts, 21s and five card tricks
        paid at once, blackjacks paid at once -- once no offer on the box is open (other
        players' doubles, covers and surrenders join the hand first)."""
        busy = {o.box for o in self.offers if o.kind != "insurance"}
        out: list[Event] = []
        for bp in self.box_play.values():
            if bp.box in busy:
                continue
            for hand in bp.hands:
                if hand.status in ("bust", "paid"):
                    for st in hand.stake_list():
                        if st.net is None:
                            out.append(self._settle_stake(hand, st, *self._final_net(hand, st)))
                elif hand.status == "blackjack" and hand.early:
                    out += self._pay_blackjack(hand, False)
        return out

    def _final_net(self, hand: Hand, st: Stake) -> tuple[int, str]:
        v = self.variant
        t, _ = self._total(hand)
        if hand.status == "bust":
            return -(st.main + st.double), f"bust {t}"
        if t == 21 and v.twenty_one_at_once == "spanish" and not hand.doubled:
            bonus = rules.spanish_bonus(hand.cards, hand.split)
            if bonus and bonus.startswith("7-7-7 ") and self._super_bonus(hand):
                self.super_bonus.append((id(hand), hand.box, st.player, st.main))
                if self.options["super_bonus_replaces_odds"]:
                    return st.main, "21 1:1, super bonus instead of the odds (s8(3))"
            if bonus:
                return pay(st.main, rules.SPANISH_BONUS[bonus]), f"{bonus} (SP s8(1))"
        if t == 21:
            return st.main + st.double, "21 paid at once 1:1"
        return st.main + st.double, "five card trick 1:1 (CH s25(6))"

    def _super_bonus(self, hand: Hand) -> bool:
        """SP s8(3), s26(6): three suited 7s against a dealer 7, not doubled, not from a
        split of two suited 7s."""
        return rank_of(self.dealer[0]) == 5 and not hand.suited_sevens_split

    def _settle_stake(self, hand: Hand, st: Stake, net: int, why: str) -> WagerSettled:
        st.net = net
        return self._money(
            self.box_play[hand.box], st.player, "main", net, f"{self._label(hand)}: {why}"
        )

    def _pay_blackjack(self, hand: Hand, dealer_bj: bool) -> list[Event]:
        """BJ s8(2), s6(2)(e); SP s6(2)(c); SW s8(1), s6(3)(j); CH s22(1), s27(1)."""
        v = self.variant
        out: list[Event] = []
        for st in hand.stake_list():
            if st.net is not None:
                continue
            if dealer_bj and v.blackjack_v_blackjack == "push":
                out.append(self._settle_stake(hand, st, 0, "blackjack v dealer blackjack: void"))
            elif dealer_bj and v.blackjack_v_blackjack == "rank":
                mine, theirs = rules.ten_rank(hand.cards), rules.ten_rank(self.dealer)
                key = "higher" if mine > theirs else "same" if mine == theirs else "lower"
                win = pay(st.main, rules.CHALLENGE_BJ_V_BJ[key])
                out.append(self._settle_stake(hand, st, win, f"blackjack v blackjack, {key} ten"))
            else:
                win = pay(st.main, v.blackjack_odds)
                out.append(self._settle_stake(hand, st, win, "blackjack"))
        return out

    # ------------------------------------------------------------------ the dealer
    def _emit(self, events: list[Event]) -> list[Event]:
        """Every step refreshes the result figures, so a waiting round shows what has been
        settled so far (side wagers at the deal, busts, 21s paid at once)."""
        super()._emit(events)
        self._figures()
        return events

    def _street_closed(self) -> list[Event]:
        raise AssertionError("blackjack opens no street: one hand at a time")

    def _choices(self, box: int) -> tuple[Choice, ...]:
        if self.acting is not None and self.acting.box == box:
            return self._choices_for(self.acting)
        return ()

    def _apply(self, box: int, verb: str, amount: int | None) -> list[Event]:
        raise AssertionError("blackjack decisions go through decide()")

    def _timeout_decision(self, box: int) -> tuple[str, int | None]:
        raise AssertionError("blackjack overrides timeout()")

    def _hands(self) -> list[Hand]:
        return [h for bp in self.box_play.values() for h in bp.hands]

    def _live(self) -> bool:
        """BJ s27(2) (digest A4): a hand still needs the dealer's total."""
        return any(
            h.status == "play"
            and any(st.net is None and not st.surrendered for st in h.stakes.values())
            for h in self._hands()
        )

    def _settle(self) -> list[Event]:
        v = self.variant
        out: list[Event] = []
        self.dealer.append(self._card())  # s17(5): always dealt (digest A4)
        out.append(CardsDealt(to="dealer", box=None, cards=(card_str(self.dealer[1]),)))
        dealer_bj = rules.natural(self.dealer)
        for bp in self.box_play.values():  # BJ s23(5),(6): insurance on the second card
            for p, amount in bp.insurance.items():
                net = pay(amount, rules.INSURANCE) if dealer_bj else -amount
                out.append(self._money(bp, p, "insurance", net, "insurance"))
        for h in self._hands():  # SP s23(3),(4): surrender loses all or half
            for st in h.stake_list():
                if st.surrendered and st.net is None:
                    lost = st.main if dealer_bj else st.main - st.main // 2
                    out.append(self._settle_stake(h, st, -lost, "surrender"))
        for h in self._hands():
            if h.status == "blackjack":
                out += self._pay_blackjack(h, dealer_bj)
        if dealer_bj:
            self.dealer_status = "blackjack"
            out += self._dealer_blackjack()
        else:
            if self._live():
                while rules.dealer_draws(self.dealer, v):  # BJ s27(1), SP s28(1), SW s27(1)
                    c = self._card()
                    self.dealer.append(c)
                    out.append(CardsDealt(to="dealer", box=None, cards=(card_str(c),)))
            d, _ = rules.total(self.dealer)
            self.dealer_status = f"bust {d}" if d > v.dealer_bust_above else str(d)
            for h in self._hands():
                for st in h.stake_list():
                    if st.net is None:
                        out.append(self._settle_stake(h, st, *self._against_dealer(h, st, d)))
        out.append(
            HandShown(box=None, cards=tuple(map(card_str, self.dealer)), hand=self.dealer_status)
        )
        out += self._settle_late_side_wagers()
        out += self._settle_super_bonus()
        self._figures()
        self.detail["reshuffled"] = self.shoe.end_round()  # s19: after the round
        return out

    def _against_dealer(self, hand: Hand, st: Stake, d: int) -> tuple[int, str]:
        """BJ s6(2); SW s6(3) (a dealer 22 pushes, digest A1: a bust already lost); CH
        s6(2)(h), s27(4): ties lose."""
        v = self.variant
        t, _ = self._total(hand)
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

    def _dealer_blackjack(self) -> list[Event]:
        """A dealer blackjack after doubles and splits: per player (SW: per area), the
        original wager loses and every other stake still on the table is void (BJ s6(3),
        s24(5), s25(5), digest A3; SW s6(4),(5); CH s6(3), s23(5), s24(7), digest A5). The
        original wager is the first hand formed; it passes to the next hand formed when the
        first was already won (SP s26(7)(b), CH A5) or rescued (SP s26(7)(c))."""
        passes = self.variant.original_passes
        out: list[Event] = []
        for bp in self.box_play.values():
            for area in range(self.variant.areas):
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
                            out.append(self._settle_stake(h, st, -st.main, why))
                        else:
                            why = "dealer blackjack: additional wager void"
                            out.append(self._settle_stake(h, st, 0, why))
        return out

    def _person(self, box: int, player: Player) -> str:
        """Who plays ``player``'s place on ``box`` (:attr:`persons`)."""
        found = self.persons.get((box, player))
        if found is not None:
            return found
        return f"box {box}" if player is None else f"player {player}"

    def _settle_super_bonus(self) -> list[Event]:
        """SP s8(3), digest A2: once per qualifying hand, every player on it is paid $1,000
        (main up to $24) or $5,000 ($25 and over) by his own main wager (A2(v)), and every
        other player with a main wager in the round $50 (A2(vii)): a person, paid once
        whatever the boxes he plays (on the first of them), and never the players on the
        hand itself."""
        out: list[Event] = []
        others: dict[str, tuple[BoxPlay, Player]] = {}  # person -> where he is paid
        for bp in self.box_play.values():
            for p, ws in bp.wagers.items():
                if "main" in ws:
                    others.setdefault(self._person(bp.box, p), (bp, p))
        hands: dict[int, list[tuple[int, Player, int]]] = {}
        for hand, box, player, main in self.super_bonus:
            hands.setdefault(hand, []).append((box, player, main))
        for stakes in hands.values():
            on_hand = {self._person(box, player) for box, player, _ in stakes}
            for box, player, main in stakes:
                amount = (
                    rules.SUPER_BONUS_LARGE
                    if main >= rules.SUPER_BONUS_BAND
                    else rules.SUPER_BONUS_SMALL
                )
                bp = self.box_play[box]
                out.append(
                    self._money(bp, player, "super_bonus", amount, "super bonus (s8(3)(a)-(b))")
                )
            for person, (bp, p) in others.items():
                if person not in on_hand:
                    why = "super bonus to another player (s8(3)(c))"
                    out.append(self._money(bp, p, "super_bonus", rules.SUPER_BONUS_OTHERS, why))
        return out

    def _figures(self) -> None:
        """Result figures (SCENARIOS.md): per player ``main`` (all main, split and double
        money), ``hands`` (each hand's net in play order, when the box has several), the
        other wagers; ``others`` per box. Rebuilt only when something they show changed
        (money settled, hands formed or backed, dealer cards, a void)."""
        key = (self._figures_version, len(self.dealer), id(self.nets), self.voided)
        if key == self._figures_key:
            return
        self._figures_key = key
        boxes: dict[str, Any] = {}
        for bp in self.box_play.values():
            several = len(bp.hands) > 1
            per: dict[Player, dict[str, Any]] = {}
            for p in bp.wagers:
                fig: dict[str, Any] = dict(bp.figures.get(p, {}))
                if several and "main" in bp.wagers[p]:
                    fig["hands"] = [
                        (h.stakes[p].net or 0) if p in h.stakes else 0 for h in bp.hands
                    ]
                fig["net"] = sum(v for k, v in bp.figures.get(p, {}).items())
                per[p] = fig
            self.nets[bp.box] = dict(bp.figures.get(None, {}))
            entry = per[None]
            others = {p: f for p, f in per.items() if p is not None}
            if others:
                entry["others"] = others
            boxes[str(bp.box)] = entry
        self.detail["scenario_extra"] = {
            "boxes": boxes,
            "dealer_cards": [card_str(c) for c in self.dealer],
        }


ROUNDS: dict[str, type[BankedRound]] = {}


def _round_class(v: Variant) -> type[BlackjackRound]:
    """``Blackjack``, ``SpanishBlackjack``, ``BlackjackSwitch``, ``BlackjackChallenge``."""
    name = "".join(part.capitalize() for part in v.id.split("-"))
    attrs = {"variant": v, "spec": spec_for(v), "__doc__": f"{v.title}: {v.schedule}."}
    return type(name, (BlackjackRound,), {**attrs, "__module__": __name__})


for _v in rules.VARIANTS.values():
    ROUNDS[_v.id] = _round_class(_v)
