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

The round's state and its flow live here (set-up, the deal, the public commands, whose turn);
each other job is a module of functions of the round: :mod:`.boxes` (boxes, hands, stakes,
offers), :mod:`.play` (the hand's choices and play decisions), :mod:`.offers` (offers and an
absent player), :mod:`.sides` (side wagers) and :mod:`.settlement` (hands paid at once, the
dealer, every stake left, the result figures).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from server.cards import Card, RandomSource, card, card_str, rank_of
from server.errors import IllegalAction
from server.games.banked.base import (
    Argument,
    BankedRound,
    CardsDealt,
    Choice,
    Decision,
    Event,
    Forced,
    GameSpec,
    InvalidRound,
    JackpotState,
    OptionSpec,
    WagerSettled,
    WagerSpec,
    others_on_box,
    split_others,
    validate_wagers,
)
from server.games.banked.blackjack import offers, play, rules, settlement, sides
from server.games.banked.blackjack.boxes import (
    BoxPlay,
    Hand,
    Offer,
    Player,
    RangeChoice,
    Stake,
    party,
)
from server.games.banked.blackjack.rules import Variant
from server.games.banked.blackjack.shoe import BlackjackShoe

__all__ = ["ROUNDS", "BlackjackRound", "Player", "RangeChoice", "party", "spec_for"]


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
        own, others_raw = split_others(wagers)
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

        def check(pid: str, ws: Any) -> dict[str, int]:
            return self.check_other_wagers(self.options, box, pid, ws)

        return {pid: ws for pid, ws in others_on_box(box, raw, 2, "s29", check).items()}

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
        out += sides.settle_first_cards(self)
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

    def _money(self, bp: BoxPlay, player: Player, name: str, net: int, why: str) -> WagerSettled:
        """Record a player's net on a wager figure and move the money (house <-> player)."""
        self._figures_version += 1
        fig = bp.figures.setdefault(player, {})
        fig[name] = fig.get(name, 0) + net
        self._transfer("house", party(bp.box, player), net)
        outcome = "win" if net > 0 else "lose" if net < 0 else "push"
        label = name if player is None else f"{player} {name}"
        return WagerSettled(box=bp.box, wager=label, net=net, outcome=outcome, detail=why)

    # ------------------------------------------------------------------ hand arithmetic
    def _total(self, hand: Hand) -> tuple[int, bool]:
        return rules.total(hand.cards, hand.fixed_aces)

    # ------------------------------------------------------------------ public API
    def pending(self) -> list[Decision]:
        """The hand to act (one at a time, in box order) and the open offers."""
        if self.complete or not self._started:
            return []
        out: list[Decision] = []
        if self.acting is not None:
            h = self.acting
            out.append(Decision(h.box, self._label(h), play.choices_for(self, h)))
        for o in self.offers:
            street = o.kind if o.player is None else f"{o.kind} {o.player}"
            out.append(Decision(o.box, street, offers.offer_choices(self, o)))
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
            return offers.absent(self, box, player, verb)
        offer = offers.find_offer(self, box, player, verb)
        if offer is not None:
            return self._emit(offers.answer(self, offer, verb, amount))
        if player is not None:
            raise IllegalAction(
                "not_awaiting_decision", f"{player} on box {box} has no {verb!r} to decide now"
            )
        return self._emit(play.play(self, box, verb, amount, "player"))

    def timeout(self, box: int) -> list[Event]:
        return self.decide(box, "timeout")

    def insufficient(self, box: int) -> list[Event]:
        return self.decide(box, "insufficient")

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
                    play.after_split_card(self, hand)
                if play.needs_decision(self, hand):
                    self.acting = hand
                    return out + settlement.settle_ready(self)
        out += settlement.settle_ready(self)
        if self.offers or self.complete:
            return out
        return out + self._finish()

    def _settle_stake(self, hand: Hand, st: Stake, net: int, why: str) -> WagerSettled:
        st.net = net
        return self._money(
            self.box_play[hand.box], st.player, "main", net, f"{self._label(hand)}: {why}"
        )

    # ------------------------------------------------------------------ the dealer
    def _emit(self, events: list[Event]) -> list[Event]:
        """Every step refreshes the result figures, so a waiting round shows what has been
        settled so far (side wagers at the deal, busts, 21s paid at once)."""
        super()._emit(events)
        settlement.figures(self)
        return events

    def _street_closed(self) -> list[Event]:
        raise AssertionError("blackjack opens no street: one hand at a time")

    def _choices(self, box: int) -> tuple[Choice, ...]:
        if self.acting is not None and self.acting.box == box:
            return play.choices_for(self, self.acting)
        return ()

    def _choices_for(self, hand: Hand) -> tuple[Choice, ...]:
        """The play decisions open to ``hand`` (:func:`.play.choices_for`; the blackjack
        solver, ``server/par/blackjack.py``, plays rounds with it)."""
        return play.choices_for(self, hand)

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
        """The dealer's hand and every stake left (:func:`.settlement.settle_round`)."""
        return settlement.settle_round(self)


ROUNDS: dict[str, type[BankedRound]] = {}


def _round_class(v: Variant) -> type[BlackjackRound]:
    """``Blackjack``, ``SpanishBlackjack``, ``BlackjackSwitch``, ``BlackjackChallenge``."""
    name = "".join(part.capitalize() for part in v.id.split("-"))
    attrs = {"variant": v, "spec": spec_for(v), "__doc__": f"{v.title}: {v.schedule}."}
    return type(name, (BlackjackRound,), {**attrs, "__module__": __name__})


for _v in rules.VARIANTS.values():
    ROUNDS[_v.id] = _round_class(_v)
