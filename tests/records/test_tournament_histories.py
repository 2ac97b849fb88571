"""Tournament hand histories as trackers read them (issue 25, point 4).

Four poker sit-and-gos (no-limit hold'em, pot-limit Omaha, limit hold'em, half-pot Omaha)
are played by the tournament bots into a data directory, with levels short enough that their
blinds rise during play; then every exported hand is checked:

* PokerStars text has the tournament header (``Tournament #N, $10.00+$1.00 USD ... - Level
  II (20/40)``) whose blinds are the level's, and chips as whole numbers without a currency
  sign, in PokerStars' grammar; pokerkit's ``PokerStarsParser`` parses every no-limit
  hold'em hand (and, with a variant named, every pot-limit Omaha and limit hold'em hand) and
  replays it to our final stacks. pokerkit has no variant for ACT's limit (a choice of sizes,
  r 10.2-10.4) or half-pot (r 10.6): a limit hand is replayed as pokerkit's no-limit hold'em,
  whose rules every limit action meets, and its sizes are checked against ACT's limit here;
  half-pot is checked for its grammar only (its replay is skipped, with the reason);
* OHH sets ``tournament`` and a ``tournament_info`` with the spec's fields, amounts in chips;
* PHH names the event and the level, and pokerkit replays every hand to our final stacks;
* a Canberra Poker sit-and-go's rounds (OHH-style) carry the tournament fields too.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any, ClassVar

import pytest
import trio
from pokerkit import HandHistory
from pokerkit.notation import PokerStarsParser

from loadtest.tournament import TournamentBot
from server.records import histories, history_cli, phh, pokerstars
from server.store.journal import JournalRound
from tests.records.test_pokerstars import AMOUNT, LINES, ORDER
from tests.support import running_server
from tests.tournaments.helpers import LEVELS, canberra_sng, poker_sng, server_config

PLAYED = [("holdem-act", "no-limit", "nlt"), ("omaha-act", "full-pot", "plo"),
          ("holdem-act", "limit", "flt"), ("omaha-act", "half-pot", "hpo")]  # fmt: skip
HEADER = re.compile(
    r"PokerStars Hand #\d+: Tournament #(\d+), \$10\.00\+\$1\.00 USD "
    r"(Hold'em No Limit|Omaha Pot Limit|Hold'em Limit|Omaha Half Pot Limit) - Level ([IVXL]+) "
    r"\((\d+)/(\d+)\) - \d{4}/\d\d/\d\d \d\d:\d\d:\d\d UTC"
)
SEATS = 9
ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50}
TOURNAMENT_INFO = {
    "tournament_number": str,
    "name": str,
    "start_date_utc": str,
    "currency": str,
    "buyin_amount": float,
    "fee_amount": float,
    "bounty_fee_amount": float,
    "initial_stack": int,
    "type": str,
    "flags": list,
    "speed": dict,
}


#: the cash grammar's lines (tests/records/test_pokerstars.py) with chips for dollars
CHIP_LINES = {kind: pattern.replace(AMOUNT, r"\d+") for kind, pattern in LINES.items()}


def check_chip_grammar(lines: list[str]) -> None:
    """Every line after the header is one of PokerStars' and comes in its section's order."""
    position = 0
    for line in lines:
        kinds = [k for k, pattern in CHIP_LINES.items() if re.fullmatch(pattern, line)]
        assert kinds, f"not in the grammar: {line!r}"
        while kinds[0] not in ORDER[position].split("|"):
            position += 1
            assert position < len(ORDER), f"{line!r} out of order"


def level_of(numeral: str) -> int:
    values = [ROMAN[c] for c in numeral]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


async def _play(data: Path) -> None:
    tournaments = [poker_sng(g, s, SEATS, id=i, name=f"Bots {i}") for g, s, i in PLAYED]
    tournaments.append(canberra_sng(id="cph", chips=300, rounds=20))
    async with running_server(server_config(*tournaments, data=data, minute=0.1)) as server:
        runners = [server.croupier.tournaments[c.id] for c in tournaments]
        bots = [
            TournamentBot(server.url, f"{i}{n}", i, seed=n)
            for _, _, i in PLAYED
            for n in range(SEATS)
        ]
        bots += [TournamentBot(server.url, f"cph{n}", "cph", seed=n) for n in range(7)]
        with trio.fail_after(90):
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    nursery.start_soon(bot.run)
                while not all(r.over for r in runners):
                    await trio.sleep(0.05)
                nursery.cancel_scope.cancel()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("tournaments")
    trio.run(_play, data)
    return data


def rounds_of(data: Path, tournament: str) -> list[JournalRound]:
    rounds = history_cli.read_rounds(data, None, None)
    return [r for r in rounds if (histories.tournament_of(r) or {}).get("id") == tournament]


class OmahaParser(PokerStarsParser):
    """pokerkit's PokerStars parser reads no-limit hold'em only; its pot-limit Omaha
    variant (``PO``) named, the same grammar reads our pot-limit Omaha hands."""

    VARIANT = re.compile(r" (?P<variant>Omaha Pot Limit) ")
    VARIANTS: ClassVar[dict[str, str]] = {"Omaha Pot Limit": "PO"}


class LimitParser(PokerStarsParser):
    """pokerkit has no variant for ACT's limit betting (r 10.2-10.4: the first round's
    wagers LB or 2LB, the second and third 2LB, the last 2LB or 4LB, digest A-2): its
    fixed-limit hold'em (``FT``) has one size a street and refuses the other. Every ACT
    limit action is a legal no-limit one (no raise under the one before, none under LB), so
    pokerkit's no-limit hold'em (``NT``) replays the hand (cards, order of play, pots and
    stacks) and :func:`check_limit_sizes` checks the sizes against ACT's limit."""

    VARIANT = re.compile(r" (?P<variant>Hold'em Limit) ")
    VARIANTS: ClassVar[dict[str, str]] = {"Hold'em Limit": "NT"}


#: PokerStars lines that wager: a bet or a raise (its increment), "and is all-in" or not
WAGER = re.compile(r".+: (?:bets (\d+)|raises (\d+) to \d+)( and is all-in)?")


def check_limit_sizes(text: str, big_blind: int) -> int:
    """Every bet and raise of a limit hand is a size ACT's limit allows on its street (LB,
    the last blind: round 1 LB or 2LB, rounds 2-3 2LB, the last 2LB or 4LB; r 10.2-10.4,
    digest A-2), or an all-in for less; returns how many were checked."""
    allowed = [{big_blind, 2 * big_blind}, {2 * big_blind}, {2 * big_blind}]
    allowed.append({2 * big_blind, 4 * big_blind})
    street, checked = 0, 0
    for line in text.split("\n"):
        if line.startswith(("*** FLOP", "*** TURN", "*** RIVER")):
            street += 1
        elif line.startswith("*** SHOW DOWN") or line.startswith("*** SUMMARY"):
            break
        elif m := WAGER.fullmatch(line):
            size = int(m.group(1) or m.group(2))
            assert size in allowed[street] or (m.group(3) and size < max(allowed[street])), line
            checked += 1
    return checked


def final_stacks(rnd: JournalRound, players: list[str]) -> list[int]:
    after = rnd.of("settlement")[-1]["after"]
    names = {str(s["name"] or s["account"]): n for n, s in rnd.start["seats"].items()}
    return [int(after.get(names[p], 0)) for p in players]


def sharers(rnd: JournalRound) -> set[str]:
    """Players who shared a pot (a split pot's odd chip may go to another sharer)."""
    seats = rnd.start["seats"]
    return {
        str(seats[s]["name"] or seats[s]["account"])
        for e in rnd.of("event")
        if e["type"] == "pot_awarded" and len(e["shares"]) > 1
        for s in e["shares"]
    }


def short_blind(rnd: JournalRound) -> bool:
    """A blind posted all-in for less than the level's: the others still call the level's
    big blind (ACT r 5.3; PokerStars too), while pokerkit's parser takes the blinds from
    what was posted, so it cannot replay such a hand (its betting differs from the deal)."""
    blinds = histories.blinds_of(rnd)
    posted = [int(e["amount"]) for e in rnd.of("event") if e["type"] == "blind_posted"]
    return posted != blinds[: len(posted)]


def replay_pokerstars(rounds: list[JournalRound], parser: PokerStarsParser) -> int:
    """Parse and replay every hand (no short blind) to our stacks (a split pot's odd chip
    may go to another of its sharers); returns how many were replayed."""
    rounds = [r for r in rounds if not short_blind(r)]
    text = pokerstars.export(rounds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pokerkit names unexpected fields in warnings
        parsed = list(parser(text, parse_value=int, error_status=True))
    assert len(parsed) == len(rounds)
    for rnd, hh in zip(rounds, parsed, strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            final = list(list(hh)[-1].stacks)
        ours = final_stacks(rnd, list(hh.players))
        assert sum(final) == sum(ours) == sum(hh.starting_stacks)
        differ = {p for p, a, b in zip(hh.players, final, ours, strict=True) if a != b}
        assert differ <= sharers(rnd), (hh.actions, final, ours)
    return len(parsed)


def test_pokerstars_tournament_hands_have_the_header_and_the_grammar(played: Path) -> None:
    seen_levels: set[int] = set()
    for _, _, ident in PLAYED:
        rounds = rounds_of(played, ident)
        exported = [r for r in rounds if pokerstars.hand_text(r) is not None]
        assert exported, (ident, len(rounds))
        for rnd in exported:
            text = pokerstars.hand_text(rnd)
            assert text is not None
            lines = text.split("\n")
            m = HEADER.fullmatch(lines[0])
            assert m, lines[0]
            level = level_of(m.group(3))
            seen_levels.add(level)
            blinds = LEVELS[level - 1]
            assert (int(m.group(4)), int(m.group(5))) == blinds  # the level's blinds
            assert lines[1].startswith(f"Table '{m.group(1)} 1' 9-max Seat #")
            assert "$" not in "\n".join(lines[1:])  # chips, never dollars
            check_chip_grammar(lines[2:])
    assert len(seen_levels) >= 2  # the blinds rose during play: each hand has its level's


#: pokerkit's parser for each structure played (half-pot: none, see the module docstring)
PARSERS: dict[str, type[PokerStarsParser] | None] = {
    "no-limit": PokerStarsParser,
    "full-pot": OmahaParser,
    "limit": LimitParser,
    "half-pot": None,
}


@pytest.mark.parametrize(("game", "structure", "ident"), PLAYED, ids=[p[2] for p in PLAYED])
def test_pokerstars_tournament_hands_parse_and_replay_in_pokerkit(
    played: Path, game: str, structure: str, ident: str
) -> None:
    parser = PARSERS[structure]
    if parser is None:
        pytest.skip(
            "pokerkit has no half-pot variant (ACT r 10.6: half the pot at most); half-pot "
            "Omaha hands are checked for PokerStars' grammar and header only"
        )
    exported = [r for r in rounds_of(played, ident) if pokerstars.hand_text(r) is not None]
    assert replay_pokerstars(exported, parser()) >= 1
    if structure == "limit":
        sizes = 0
        for rnd in exported:
            text = pokerstars.hand_text(rnd)
            assert text is not None
            sizes += check_limit_sizes(text, histories.blinds_of(rnd)[-1])
        assert sizes >= 1


def test_the_cli_writes_tournament_headers(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["export", "--format", "pokerstars", "--data", str(played), "--table", "nlt.1"]
    assert history_cli.main(args) == 0
    text = capsys.readouterr().out
    assert text.startswith("PokerStars Hand #") and ": Tournament #" in text.split("\n")[0]
    assert "USD)" not in text and "($" not in text


def check_tournament_info(info: dict[str, Any]) -> None:
    for name, kind in TOURNAMENT_INFO.items():
        assert isinstance(info[name], kind), (name, info[name])
    assert info["tournament_number"].isdigit()
    assert (info["buyin_amount"], info["fee_amount"], info["initial_stack"]) == (10.0, 1.0, 1000)
    assert info["type"] == "STT" and info["flags"] == ["SNG"]
    assert info["speed"] == {"type": "Normal", "round_time": 60}


def test_ohh_tournament_hands_have_the_tournament_fields(played: Path, capsys) -> None:
    args = ["export", "--format", "ohh", "--data", str(played)]
    assert history_cli.main(args) == 0
    docs = [json.loads(line)["ohh"] for line in capsys.readouterr().out.splitlines()]
    ours = [d for d in docs if d["table_name"].split(".")[0] in {i for _, _, i in PLAYED}]
    assert len(ours) >= 3
    for d in ours:
        assert d["tournament"] is True and d["currency"] == "USD"
        check_tournament_info(d["tournament_info"])
        assert isinstance(d["big_blind_amount"], int) and d["big_blind_amount"] > 0
        stacks = [p["starting_stack"] for p in d["players"]]
        assert all(isinstance(s, int) for s in stacks) and sum(stacks) <= SEATS * 1000
        for r in d["rounds"]:
            for a in r["actions"]:
                assert isinstance(a.get("amount", 0), int)
        for pot in d["pots"]:
            assert pot["rake"] == 0 and isinstance(pot["amount"], int)


def test_phh_tournament_hands_name_the_event_and_replay(played: Path) -> None:
    for _, structure, ident in PLAYED:
        rounds = {r.ref: r for r in rounds_of(played, ident)}
        text = phh.export(list(rounds.values()))
        hands = list(HandHistory.loads_all(text))
        if structure in ("limit", "half-pot"):
            assert hands == []  # no PHH variant plays ACT limit or half-pot (server/records/phh.py)
            continue
        assert hands
        for hh in hands:
            assert hh.event is not None and hh.event.startswith(f"Bots {ident} (tournament #")
            assert hh.level is not None and hh.level >= 1
            extra = hh.user_defined_fields
            assert (extra["_tournament"], extra["_buy_in"], extra["_fee"]) == (ident, 1000, 100)
            assert hh.blinds_or_straddles is not None
            assert sorted(hh.blinds_or_straddles)[-2:] == list(LEVELS[hh.level - 1])
            rnd = rounds[extra["_round"]]
            if short_blind(rnd):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                final = list(list(hh)[-1].stacks)
            assert hh.finishing_stacks is not None and sum(final) == sum(hh.finishing_stacks)
            assert hh.players is not None
            differ = {
                p for p, a, b in zip(hh.players, final, hh.finishing_stacks, strict=True) if a != b
            }
            assert differ <= sharers(rnd)


def test_ohh_canberra_poker_tournament_rounds_have_the_tournament_fields(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Canberra Poker tournament's rounds (OHH-style, the boxes as players) are in chips."""
    args = ["export", "--format", "ohh", "--data", str(played), "--table", "cph.1"]
    assert history_cli.main(args) == 0
    docs = [json.loads(line)["ohh"] for line in capsys.readouterr().out.splitlines()]
    assert docs
    for d in docs:
        info = d["tournament_info"]
        assert d["tournament"] is True and d["game_type"] == "canberra-poker-2017"
        assert (info["buyin_amount"], info["fee_amount"], info["initial_stack"]) == (18, 2, 300)
        assert info["type"] == "STT" and "speed" not in info  # table limits, no blind levels
        assert all(isinstance(p["starting_stack"], int) for p in d["players"])
        assert all(isinstance(p["amount"], int) for p in d["pots"])
