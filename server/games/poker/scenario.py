"""``croupier scenario`` for the six player-vs-player poker games (``shared/SCENARIOS.md``).

A scenario fixes the seats, the buck / button, any cards and the players' actions; this
module validates it, runs the real engine (:class:`~server.games.poker.engine.PokerRound`)
and reports the result. Cards the scenario does not fix are dealt from the rest of the deck
by ``SeededRandomSource(seed)``. A file that is not a valid scenario raises
:class:`~server.errors.ScenarioError`; an illegal action is a result (``state: rejected``).

Extension (optional, QLD hold'em/Omaha only): ``"posts": {"5": 300}`` - wagers made before
the deal by returning or new players under Sch 11 s23A (the part above the second blind is
dead money, s23A(4)).
"""

from __future__ import annotations

from typing import Any

from server.cards import DECKS, CardError, SeededRandomSource, card
from server.errors import IllegalAction, ScenarioError
from server.games.poker.engine import VERBS, PokerRound
from server.games.poker.rules import GAME_IDS, rules_for

_KEYS = {"game", "options", "seed", "seats", "designated", "cards", "actions", "posts"}


def describe(game: str) -> dict[str, Any]:
    """The game's options with their defaults, its verbs and shape (JSON)."""
    if game not in GAME_IDS:
        raise ScenarioError(f"unknown game: {game!r}")
    rules = rules_for(game, {})
    out = rules.describe()
    out["notes"] = {
        "amounts": "integer cents",
        "bet/raise amount": "the seat's total wager in this betting round after the action",
        "defaults": "options shows every option's default; QLD hold'em/Omaha 'maximum' "
        "defaults to twice the second blind and 'raise_cap' to 3 for limit, "
        "null otherwise; 'min_table_stake'/'min_buy_in' to 20 blinds",
        "posts": "QLD hold'em/Omaha only: {seat: amount} s23A returning/new player wagers",
    }
    out["verbs"] = sorted(VERBS)
    out["seats"] = f"1..{rules.max_seats}"
    return out


def _seat_map(game: str, name: str, raw: Any, max_seats: int) -> dict[int, Any]:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{game}: {name} must be an object keyed by seat number")
    out = {}
    for k, v in raw.items():
        try:
            s = int(k)
        except (TypeError, ValueError):
            raise ScenarioError(f"{game}: {name}: {k!r} is not a seat number") from None
        if str(s) != str(k).strip() or not 1 <= s <= max_seats:
            raise ScenarioError(f"{game}: {name}: seat {k!r} is out of range 1..{max_seats}")
        out[s] = v
    return out


def _cards(game: str, where: str, raw: Any, deck: set[int], seen: set[int]) -> list[int]:
    if not isinstance(raw, list):
        raise ScenarioError(f"{game}: {where} must be a list of cards")
    out = []
    for t in raw:
        try:
            c = card(t)
        except CardError as e:
            raise ScenarioError(f"{game}: {where}: {e}") from None
        if c not in deck:
            raise ScenarioError(f"{game}: {where}: {t} is not in this game's deck")
        if c in seen:
            raise ScenarioError(f"{game}: {where}: {t} is used twice")
        seen.add(c)
        out.append(c)
    return out


def _build(game: str, sc: dict[str, Any]) -> tuple[PokerRound, list[tuple[int, str, Any]]]:
    extra = sorted(set(sc) - _KEYS)
    if extra:
        raise ScenarioError(f"{game}: unknown field {extra[0]!r}")
    rules = rules_for(game, sc.get("options", {}))
    seed = sc.get("seed")
    if seed is not None and type(seed) is not int:
        raise ScenarioError(f"{game}: seed must be an integer")
    seats = _seat_map(game, "seats", sc.get("seats"), rules.max_seats)
    if len(seats) < 2:
        raise ScenarioError(f"{game}: a round of play needs at least two seats")
    for s, v in seats.items():
        if type(v) is not int or v <= 0:
            raise ScenarioError(f"{game}: seats: seat {s} needs a positive stake in cents")
        if rules.participation_fee and v <= rules.participation_fee:
            raise ScenarioError(f"{game}: seat {s} cannot pay the participation fee")
    d = sc.get("designated")
    if type(d) is not int:
        raise ScenarioError(f"{game}: designated must be a seat number")
    if d not in seats and not (rules.dead_button and 1 <= d <= rules.max_seats):
        raise ScenarioError(f"{game}: designated seat {d} is not occupied")
    cards = sc.get("cards", {})
    if not isinstance(cards, dict) or set(cards) - {"hole", "board"}:
        raise ScenarioError(f"{game}: cards must be an object with 'hole' and 'board'")
    deck = set(DECKS[rules.deck_size])
    seen: set[int] = set()
    hole = {}
    for s, cs in _seat_map(game, "cards.hole", cards.get("hole", {}), rules.max_seats).items():
        if s not in seats:
            raise ScenarioError(f"{game}: cards.hole: seat {s} is not occupied")
        hole[s] = _cards(game, f"cards.hole.{s}", cs, deck, seen)
        if len(hole[s]) != rules.hole_cards:
            raise ScenarioError(
                f"{game}: cards.hole.{s}: {len(hole[s])} cards, the game deals {rules.hole_cards}"
            )
    board = _cards(game, "cards.board", cards.get("board", []), deck, seen)
    if len(board) > 5:
        raise ScenarioError(f"{game}: cards.board: at most 5 communal cards")
    posts = {}
    if "posts" in sc:
        if not rules.dead_button:
            raise ScenarioError(f"{game}: posts (QLD Sch 11 s23A) do not apply to this game")
        posts = _seat_map(game, "posts", sc["posts"], rules.max_seats)
        for s, v in posts.items():
            if s not in seats or type(v) is not int or v <= 0:
                raise ScenarioError(
                    f"{game}: posts: seat {s} needs an occupied seat and a positive amount"
                )
    actions = sc.get("actions", [])
    if not isinstance(actions, list):
        raise ScenarioError(f"{game}: actions must be a list")
    parsed = []
    for i, a in enumerate(actions):
        ok = (
            isinstance(a, list)
            and len(a) in (2, 3)
            and type(a[0]) is int
            and a[1] in VERBS
            and (len(a) == 2 or type(a[2]) is int)
        )
        if not ok:
            raise ScenarioError(
                f"{game}: actions[{i}]: expected [seat, verb] or "
                f"[seat, verb, amount] with a verb in {sorted(VERBS)}, got {a!r}"
            )
        if a[0] not in seats:
            raise ScenarioError(f"{game}: actions[{i}]: seat {a[0]} is not occupied")
        parsed.append((a[0], a[1], a[2] if len(a) == 3 else None))
    try:
        rnd = PokerRound(
            rules, seats, d, SeededRandomSource(seed), hole=hole, board=board, posts=posts
        )
    except ValueError as e:
        raise ScenarioError(f"{game}: {e}") from None
    return rnd, parsed


def run(game: str, scenario: dict[str, Any]) -> dict[str, Any]:
    """Run one scenario through the engine and return the SCENARIOS.md result."""
    rnd, actions = _build(game, scenario)
    try:
        rnd.start()
    except ValueError as e:
        raise ScenarioError(f"{game}: {e}") from None
    for i, (seat, verb, amount) in enumerate(actions):
        try:
            rnd.act(seat, verb, amount)
        except IllegalAction as e:
            out = _partial(rnd, "rejected")
            out["error"] = {"at": i, "code": e.code, "message": e.message}
            return out
    if rnd.complete:
        assert rnd.result is not None
        return rnd.result.to_scenario()
    return _partial(rnd, "waiting")


def _partial(rnd: PokerRound, state: str) -> dict[str, Any]:
    la = rnd.legal_actions()
    return {
        "state": state,
        "stacks": {str(s): v for s, v in sorted(rnd.stacks.items())},
        "to_act": rnd.to_act,
        "legal": la.to_wire() if la is not None else None,
        "board": rnd.view(None)["board"],
        "error": None,
    }
