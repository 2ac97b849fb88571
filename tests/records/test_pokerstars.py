"""PokerStars text export (issue 10 item 3): pokerkit's ``PokerStarsParser`` parses every
exported no-limit hold'em hand and replays it to our final stacks, commission accounted
for; every exported hand of every structure (limit hold'em, pot-limit Omaha) follows the
format's grammar line for line."""

from __future__ import annotations

import re
import warnings
from collections import Counter
from decimal import Decimal
from pathlib import Path

from pokerkit.notation import PokerStarsParser

from server.records import pokerstars
from server.records.history_cli import read_rounds

AMOUNT = r"\$\d+\.\d\d"
CARDS = r"\[(?:[2-9TJQKA][shdc] ?)+\]"
NAME = r"[^:]+?"
#: the grammar, section by section: each section's lines in order (``+``: one or more)
HEADER = [
    r"PokerStars Hand #\d+: "
    r"(Hold'em No Limit|Hold'em Limit|Hold'em Pot Limit|Omaha Pot Limit|Omaha Half Pot Limit|"
    r"Omaha Limit) "
    rf"\({AMOUNT}/{AMOUNT} USD\) - \d{{4}}/\d\d/\d\d \d\d:\d\d:\d\d UTC",
    r"Table '[^']+' \d+-max Seat #\d+ is the button",
]
LINES = {
    "seat": rf"Seat \d+: {NAME} \({AMOUNT} in chips\)",
    "blind": rf"{NAME}: posts (small|big) blind {AMOUNT}( and is all-in)?",
    "hole": r"\*\*\* HOLE CARDS \*\*\*",
    "dealt": rf"Dealt to {NAME} {CARDS}",
    "action": rf"{NAME}: (folds|checks|calls {AMOUNT}|bets {AMOUNT}|raises {AMOUNT} to {AMOUNT})"
    r"( and is all-in)?",
    "street": rf"\*\*\* (FLOP \*\*\* {CARDS}|(TURN|RIVER) \*\*\* {CARDS} {CARDS})",
    "uncalled": rf"Uncalled bet \({AMOUNT}\) returned to {NAME}",
    "showdown": r"\*\*\* SHOW DOWN \*\*\*",
    "shows": rf"{NAME}: (shows {CARDS} \([a-z ]+\)|mucks hand)",
    "collected": rf"{NAME} collected {AMOUNT} from (pot|main pot|side pot-\d+)",
    "summary": r"\*\*\* SUMMARY \*\*\*",
    "total": rf"Total pot {AMOUNT} \| Rake {AMOUNT}",
    "board": rf"Board {CARDS}",
    "result": rf"Seat \d+: {NAME}( \(button\))? (folded|mucked|won \({AMOUNT}\)|"
    rf"showed {CARDS} and (won \({AMOUNT}\)|lost) with [a-z ]+)",
}
ORDER = ["seat", "blind", "hole", "dealt", "action|street|uncalled", "showdown", "shows",
         "collected", "summary", "total", "board", "result"]  # fmt: skip


def kind_of(line: str) -> str:
    found = [k for k, pattern in LINES.items() if re.fullmatch(pattern, line)]
    assert found, f"not in the grammar: {line!r}"
    return found[0]


def check_grammar(text: str) -> None:
    lines = text.split("\n")
    for pattern, line in zip(HEADER, lines, strict=False):
        assert re.fullmatch(pattern, line), line
    position = 0
    for line in lines[2:]:
        kind = kind_of(line)
        while kind not in ORDER[position].split("|"):
            position += 1
            assert position < len(ORDER), f"{line!r} out of order"


def cents(text: str) -> int:
    return int(Decimal(text.replace(",", "")) * 100)


def test_pokerkit_parses_every_no_limit_hand_to_our_stacks(recorded: Path) -> None:
    rounds = read_rounds(recorded, None, None)
    exported = [r for r in rounds if pokerstars.hand_text(r) is not None]
    names = Counter(pokerstars.game_name(r) for r in exported)
    assert names["Hold'em No Limit"] >= 200 and names["Omaha Pot Limit"] >= 200, names
    assert names["Hold'em Limit"] >= 20, names
    text = pokerstars.export(exported)
    for hand in text.strip("\n").split("\n\n\n"):
        check_grammar(hand)
    nl = [r for r in exported if pokerstars.game_name(r) == "Hold'em No Limit"]
    nl_text = pokerstars.export(nl)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pokerkit names unexpected fields in warnings
        parsed = list(PokerStarsParser()(nl_text, parse_value=cents, error_status=True))
    assert len(parsed) == len(nl)
    exact = split = 0
    for rnd, hh in zip(nl, parsed, strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            final = list(list(hh)[-1].stacks)
        ours = pokerstars.final_stacks(rnd)
        parts = pokerstars.commission_shares(rnd)
        want = [int((ours[p] + parts[p]) * 100) for p in hh.players]
        assert sum(final) == sum(want)
        if final == want:
            exact += 1
            continue
        # a split pot divided in cents (pokerkit) or in the chip unit less commission (us)
        sharers = {
            str(rnd.start["seats"][s]["name"])
            for e in rnd.of("event")
            if e["type"] == "pot_awarded" and len(e["shares"]) > 1
            for s in e["shares"]
        }
        differ = {p for p, a, b in zip(hh.players, final, want, strict=True) if a != b}
        assert differ <= sharers, (final, want)
        split += 1
    assert exact >= 200 and split < len(nl) // 10


def test_the_grammar_refuses_what_pokerstars_does_not_write() -> None:
    for bad in ("bot1: raises $2 to", "Seat 1: bot1 ($5 in chips)", "*** FLOP *** [Ts Kc]x"):
        try:
            kind_of(bad)
        except AssertionError:
            continue
        raise AssertionError(bad)
