"""PokerStars hand history text from the journal (hold'em and Omaha), for tracking software.

The lines follow PokerStars' own format, section by section: the header (``PokerStars Hand
#N: Hold'em No Limit ($1/$2 USD) - 2026/11/27 20:00:00 UTC``), ``Table '...' 9-max Seat #B
is the button``, the seats with their stakes, the blinds, ``*** HOLE CARDS ***`` with every
player's ``Dealt to`` line (an operator's export), the actions (``raises $2 to $6``, ``and is
all-in``), ``*** FLOP ***`` / ``*** TURN ***`` / ``*** RIVER ***``, uncalled bets,
``*** SHOW DOWN ***``, who collected what from which pot, and ``*** SUMMARY ***`` with the
total pot and the rake (our commission). Amounts are dollars with two decimals.

A tournament's hand has PokerStars' tournament header, as trackers import it: ``PokerStars
Hand #N: Tournament #T, $50.00+$5.00 USD Hold'em No Limit - Level III (50/100) - DATE``
(the tournament's number, the buy-in and fee: the entry fee's prize-pool part and the
commission, ACT r 19.4; the blind level and its blinds), ``Table 'T 1' 9-max ...`` (the
tournament's number and the table's), and its amounts are tournament chips, whole numbers
without a currency sign (``Seat 1: ann (3000 in chips)``, ``ann: posts small blind 50``);
no rake (the operator's share is the commission, ACT r 19).

The "button" is PokerStars': the seat before the first blind (ACT's buck holder posts the
first blind, so the button is the seat before the buck); heads-up the first blind is the
button. Not exported: Manila (not hold'em or Omaha), a third blind (ACT r 5.3; PokerStars has
no third blind), participation fees and s23A live/dead posts, and heads-up hands with a wager
after the flop (ACT starts post-flop betting at the buck, who is PokerStars' button there,
and a PokerStars button acts last): the same hands PHH leaves out (``server/records/phh.py``).

Limit and half-pot hands are written too (``Hold'em Limit``, ``Omaha Half Pot Limit``), in
the same grammar. pokerkit's parser replays our no-limit, full-pot Omaha and limit hands
(a limit hand as its no-limit hold'em: it has no variant for ACT's choice of limit sizes);
it has no half-pot variant (docs/rulings.md, "pokerkit's replay of PokerStars text").
"""

from __future__ import annotations

import datetime
import hashlib
from decimal import Decimal

from server.records.histories import (
    blinds_of,
    button_seat,
    call_level,
    commission_parts,
    dollars_exact,
    lone_checks,
    tournament_number,
    tournament_of,
)
from server.records.phh import first_board
from server.store.journal import JournalRound

GAMES = {
    ("holdem", "no-limit"): "Hold'em No Limit",
    ("holdem", "limit"): "Hold'em Limit",
    ("holdem", "full-pot"): "Hold'em Pot Limit",
    ("omaha", "full-pot"): "Omaha Pot Limit",
    ("omaha", "half-pot"): "Omaha Half Pot Limit",
    ("omaha", "limit"): "Omaha Limit",
}
STREETS = {2: "FLOP", 3: "TURN", 4: "RIVER"}


def usd(cents: int) -> str:
    return f"${dollars_exact(cents)}"


def chips(amount: int) -> str:
    """Tournament chips as PokerStars writes them: a whole number, no currency sign."""
    return str(amount)


def roman(n: int) -> str:
    """A level number as PokerStars writes it (``Level III``)."""
    out = ""
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"),
                           (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"),
                           (4, "IV"), (1, "I")):  # fmt: skip
        count, n = divmod(n, value)
        out += letters * count
    return out


def header(rnd: JournalRound, name: str, blinds: list[int], when: str) -> list[str]:
    """The first two lines: a cash game's stakes in dollars, or a tournament's header."""
    start = rnd.start
    max_seats = int(start.get("rules", {}).get("max_seats", len(start["seats"])))
    button = button_seat(rnd)
    record = tournament_of(rnd)
    if record is None:
        return [
            f"PokerStars Hand #{hand_number(rnd.ref)}: {name} "
            f"({usd(blinds[0])}/{usd(blinds[1])} USD) - {when} UTC",
            f"Table '{rnd.table}' {max_seats}-max Seat #{button} is the button",
        ]
    number = tournament_number(record)
    fees = f"{usd(int(record['buy_in']))}+{usd(int(record['fee']))}"
    level = roman(int(record.get("level") or 1))
    return [
        f"PokerStars Hand #{hand_number(rnd.ref)}: Tournament #{number}, "
        f"{fees} {record.get('currency', 'USD')} {name} - Level {level} "
        f"({blinds[0]}/{blinds[1]}) - {when} UTC",
        f"Table '{number} {record.get('table', 1)}' {max_seats}-max Seat #{button} is the button",
    ]


def hand_number(ref: str) -> int:
    """A stable all-digit hand number for a round id (PokerStars numbers hands)."""
    return int(hashlib.sha256(ref.encode()).hexdigest()[:14], 16)


def game_name(rnd: JournalRound) -> str | None:
    """PokerStars' name of the round's game, or None when it is not exported."""
    start = rnd.start
    if start.get("kind") != "poker" or rnd.final_state != "settled":
        return None
    variant = str(start["game"]).split("-", 1)[0]
    blinds = blinds_of(rnd)
    name = GAMES.get((variant, str(start.get("options", {}).get("structure", "limit"))))
    events = rnd.of("event")
    if name is None or len(blinds) != 2 or any(e["type"] == "fee_charged" for e in events):
        return None
    if any(e["type"] == "blind_posted" and e["kind"] in ("live", "dead") for e in events):
        return None
    if len(start["seats"]) == 2 and any(
        e["type"] == "action_taken" and i > first_board(events) for i, e in enumerate(events)
    ):
        return None
    return name


def hand_text(rnd: JournalRound) -> str | None:
    """One hand as PokerStars text (None: not exported)."""
    name = game_name(rnd)
    if name is None:
        return None
    start = rnd.start
    events = rnd.of("event")
    seats = {int(n): s for n, s in start["seats"].items()}
    who = {n: str(s["name"] or s["account"]) for n, s in seats.items()}
    ring = sorted(seats)
    button = button_seat(rnd)
    blinds = blinds_of(rnd)
    when = datetime.datetime.fromtimestamp(rnd.at, datetime.UTC).strftime("%Y/%m/%d %H:%M:%S")
    money = chips if tournament_of(rnd) is not None else usd
    lines = header(rnd, name, blinds, when)
    lines += [f"Seat {n}: {who[n]} ({money(int(seats[n]['stake']))} in chips)" for n in ring]
    level = 0
    shown: dict[int, tuple[list[str], str]] = {}
    mucked: set[int] = set()
    won: dict[int, int] = {}
    board: list[str] = []
    total = rake = 0
    showdown = False
    pots = sum(e["type"] == "pot_awarded" for e in events)
    lone = lone_checks(rnd)
    for i, ev in enumerate(events):
        t = ev["type"]
        if i in lone:
            continue
        if t == "blind_posted":
            kind = "small" if ev["kind"] == "blind1" else "big"
            allin = " and is all-in" if int(ev["stack"]) == 0 else ""
            lines.append(
                f"{who[int(ev['seat'])]}: posts {kind} blind {money(int(ev['amount']))}{allin}"
            )
            level = max(level, int(ev["amount"]), call_level(blinds))
        elif t == "hole_cards_dealt":
            if not lines[-1].startswith(("Dealt to", "*** HOLE")):
                lines.append("*** HOLE CARDS ***")
            lines.append(f"Dealt to {who[int(ev['seat'])]} [{' '.join(ev['cards'])}]")
        elif t == "board_dealt":
            new = list(ev["cards"])
            label = STREETS.get(int(ev["round"]), "FLOP")
            if board:
                lines.append(f"*** {label} *** [{' '.join(board)}] [{' '.join(new)}]")
            else:
                lines.append(f"*** {label} *** [{' '.join(new)}]")
            board += new
            level = 0
        elif t == "action_taken":
            player, verb = who[int(ev["seat"])], str(ev["verb"])
            amount, to = int(ev["amount"]), int(ev["total"])
            allin = " and is all-in" if int(ev["stack"]) == 0 and verb != "fold" else ""
            if verb == "fold":
                lines.append(f"{player}: folds")
            elif verb == "check":
                lines.append(f"{player}: checks")
            elif verb == "call" or (verb == "allin" and to <= level):
                lines.append(f"{player}: calls {money(amount)}{allin}")
            elif level == 0:
                lines.append(f"{player}: bets {money(to)}{allin}")
            else:
                lines.append(f"{player}: raises {money(to - level)} to {money(to)}{allin}")
            level = max(level, to)
        elif t == "uncalled_returned":
            lines.append(
                f"Uncalled bet ({money(int(ev['amount']))}) returned to {who[int(ev['seat'])]}"
            )
        elif t in ("hand_shown", "hand_mucked"):
            if not showdown:
                lines.append("*** SHOW DOWN ***")
                showdown = True
            seat = int(ev["seat"])
            if t == "hand_shown":
                shown[seat] = (list(ev["cards"]), str(ev["category"]))
                lines.append(f"{who[seat]}: shows [{' '.join(ev['cards'])}] ({ev['category']})")
            else:
                mucked.add(seat)
                lines.append(f"{who[seat]}: mucks hand")
        elif t == "pot_awarded":
            pot = int(ev["pot"])
            where = "pot" if pots == 1 else "main pot" if pot == 0 else f"side pot-{pot}"
            total += int(ev["amount"])
            rake += int(ev["commission"])
            for s_text, share in sorted(ev["shares"].items(), key=lambda kv: int(kv[0])):
                seat = int(s_text)
                won[seat] = won.get(seat, 0) + int(share)
                lines.append(f"{who[seat]} collected {money(int(share))} from {where}")
    lines.append("*** SUMMARY ***")
    lines.append(f"Total pot {money(total)} | Rake {money(rake)}")
    if board:
        lines.append(f"Board [{' '.join(board)}]")
    for n in ring:
        role = " (button)" if n == button else ""
        if n in shown:
            cards, category = shown[n]
            result = f"won ({money(won[n])})" if n in won else "lost"
            lines.append(
                f"Seat {n}: {who[n]}{role} showed [{' '.join(cards)}] and {result} with {category}"
            )
        elif n in won:
            lines.append(f"Seat {n}: {who[n]}{role} won ({money(won[n])})")
        elif n in mucked:
            lines.append(f"Seat {n}: {who[n]}{role} mucked")
        else:
            lines.append(f"Seat {n}: {who[n]}{role} folded")
    return "\n".join(lines)


def export(rounds: list[JournalRound]) -> str:
    """Every exported hand, separated by blank lines as PokerStars writes them."""
    texts = [t for t in (hand_text(r) for r in rounds) if t is not None]
    return "".join(t + "\n\n\n" for t in texts)


def final_stacks(rnd: JournalRound) -> dict[str, Decimal]:
    """Our stacks after the hand, in dollars, by player name (for comparisons)."""
    start = rnd.start
    after = rnd.of("settlement")[-1]["after"]
    return {
        str(s["name"] or s["account"]): dollars_exact(int(after.get(n, 0)))
        for n, s in start["seats"].items()
    }


def commission_shares(rnd: JournalRound) -> dict[str, Decimal]:
    """Each player's part of the commission (:func:`server.records.histories.commission_parts`)."""
    names = {int(n): str(s["name"] or s["account"]) for n, s in rnd.start["seats"].items()}
    return {names[n]: dollars_exact(c) for n, c in commission_parts(rnd).items()}
