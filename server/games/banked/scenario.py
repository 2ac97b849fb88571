"""The scenario adapter for every banked game (SCENARIOS.md "Banked games").

``describe(game)`` and ``run(game, scenario)`` for the ids in :data:`MODULES` and
:data:`SCENARIO_ONLY`. Each game module
exposes ``ROUNDS: dict[str, type[BankedRound]]`` (game id -> round class). The adapter
validates the file (unknown option, card not in the deck, card used twice, box out of range,
unknown wager name, negative or non-integer amounts -> :class:`ScenarioError`), then drives the
real engine: fixed cards from ``cards.boxes`` / ``cards.dealer`` / ``cards.board``, the rest
from ``SeededRandomSource(seed)``, the ``decisions`` in order. An :class:`IllegalAction` stops
the run (``state: rejected``, ``error {at, code, message}``); decisions that end early leave
the round ``waiting`` with the ``pending`` decisions listed.

Ruling (docs/rulings.md, banked framework): a wager the table would refuse before the deal
(below the minimum, above the maximum, a jackpot wager of the wrong denomination, a side
wager without its ante) makes the scenario invalid (exit 2): no round could have started.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from server.cards import CardError, SeededRandomSource, card
from server.errors import IllegalAction, ScenarioError
from server.games.banked.base import BankedRound, Forced, InvalidRound, JackpotState

#: game id -> module under server.games.banked exposing ROUNDS.
MODULES: dict[str, str] = {
    "caribbean-stud": "caribbean_stud",
    "holdem-bonus": "holdem_bonus",
    "three-card-poker": "three_card_poker",
    "mississippi-stud": "mississippi_stud",
    "canberra-poker-2004": "canberra_poker",
    "canberra-poker-2017": "canberra_poker",
    "four-card-poker": "four_card_poker",
    "casino-war": "casino_war",
    "baccarat": "baccarat",
    "lucky-draw-baccarat": "lucky_draw_baccarat",
}

#: Shared-outcome games (roulette, sic-bo, wheel of fortune): engines with scenario support
#: but no server table yet (a betting-window table is future work), so they are kept out of
#: MODULES, the games the server offers as tables (``server.tables.banked.BANKED_GAMES``).
SCENARIO_ONLY: dict[str, str] = {
    "roulette": "roulette",
    "sic-bo": "sic_bo",
    "wheel-of-fortune": "wheel_of_fortune",
    # Blackjack family: one decision per hand in turn and optional offers (insurance, others'
    # choices); the current banked table (one street of concurrent decisions) cannot seat
    # them, so they wait for the new table layer.
    "blackjack": "blackjack",
    "spanish-blackjack": "blackjack",
    "blackjack-switch": "blackjack",
    "blackjack-challenge": "blackjack",
}


def round_class(game: str) -> type[BankedRound]:
    name = MODULES.get(game) or SCENARIO_ONLY.get(game)
    if name is None:
        raise ScenarioError(f"unknown banked game: {game!r}")
    module = importlib.import_module(f"server.games.banked.{name}")
    return module.ROUNDS[game]


def describe(game: str) -> dict:
    return round_class(game).spec.describe()


def _cards(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        raise ScenarioError(f"{where}: cards must be a list")
    try:
        return [card(c) for c in value]
    except CardError as e:
        raise ScenarioError(f"{where}: {e}") from None


def _forced(raw: Any, num_boxes: int, outcome: Any = None) -> Forced | None:
    if outcome is not None and not isinstance(outcome, Mapping):
        raise ScenarioError("outcome must be an object")
    if raw is None:
        return Forced(outcome=outcome) if outcome is not None else None
    if not isinstance(raw, Mapping):
        raise ScenarioError("cards must be an object")
    unknown = set(raw) - {"boxes", "dealer", "board", "shoe"}
    if unknown:
        raise ScenarioError(f"unknown cards field: {', '.join(sorted(unknown))}")
    boxes: dict[int, list[int]] = {}
    raw_boxes = raw.get("boxes", {})
    if not isinstance(raw_boxes, Mapping):
        raise ScenarioError("cards.boxes must be an object")
    for key, cs in raw_boxes.items():
        box = _box(key, num_boxes)
        boxes[box] = _cards(cs, f"cards.boxes.{key}")
    return Forced(
        boxes=boxes,
        dealer=_cards(raw.get("dealer", []), "cards.dealer"),
        board=_cards(raw.get("board", []), "cards.board"),
        shoe=_cards(raw.get("shoe", []), "cards.shoe"),
        outcome=outcome,
    )


def _box(key: Any, num_boxes: int) -> int:
    try:
        box = int(key)
    except (TypeError, ValueError):
        raise ScenarioError(f"not a box number: {key!r}") from None
    if isinstance(key, bool) or str(box) != str(key).strip() or not 1 <= box <= num_boxes:
        raise ScenarioError(f"box {key!r} out of range 1..{num_boxes}")
    return box


def _jackpot(cls: type[BankedRound], raw: Any) -> JackpotState | None:
    if raw is None:
        return None
    if not cls.spec.pooled_jackpot:
        raise ScenarioError(f"{cls.spec.id} has no jackpot pool")
    if not isinstance(raw, Mapping) or set(raw) - {"pool", "reserve"} or "pool" not in raw:
        raise ScenarioError('jackpot must be {"pool": cents, "reserve": cents}')
    for k, v in raw.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ScenarioError(f"jackpot.{k} must be a non-negative integer")
    return JackpotState(raw["pool"], raw.get("reserve", 0))


def _decisions(raw: Any, num_boxes: int) -> list[tuple[int, str, Any, dict]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ScenarioError("decisions must be a list")
    out = []
    for i, d in enumerate(raw):
        if not isinstance(d, list) or not 2 <= len(d) <= 4 or not isinstance(d[1], str):
            raise ScenarioError(f"decision {i}: expected [box, verb] or [box, verb, amount]")
        amount = d[2] if len(d) >= 3 else None
        if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int)):
            if not isinstance(amount, Mapping):
                raise ScenarioError(f"decision {i}: amount must be integer cents")
        if isinstance(amount, int) and amount < 0:
            raise ScenarioError(f"decision {i}: amount must not be negative")
        quals = d[3] if len(d) == 4 else {}
        if not isinstance(quals, Mapping):
            raise ScenarioError(f"decision {i}: qualifiers must be an object")
        out.append((_box(d[0], num_boxes), d[1], amount, dict(quals)))
    return out


def run(game: str, scenario: Mapping[str, Any]) -> dict:
    cls = round_class(game)
    try:
        options = cls.spec.validate_options(scenario.get("options"))
    except InvalidRound as e:
        raise ScenarioError(str(e)) from None
    seed = scenario.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ScenarioError("seed must be an integer")
    num_boxes = options["num_boxes"]
    forced = _forced(scenario.get("cards"), num_boxes, scenario.get("outcome"))
    jackpot = _jackpot(cls, scenario.get("jackpot"))
    decisions = _decisions(scenario.get("decisions"), num_boxes)
    try:
        rnd = cls(
            scenario.get("options"),
            scenario.get("boxes"),
            SeededRandomSource(seed),
            forced=forced,
            jackpot=jackpot,
        )
        rnd.start()
    except InvalidRound as e:
        raise ScenarioError(str(e)) from None
    except IllegalAction as e:
        raise ScenarioError(f"{e.code}: {e.message}") from None
    error = None
    for i, (box, verb, amount, quals) in enumerate(decisions):
        try:
            rnd.decide(box, verb, amount, quals or None)
        except IllegalAction as e:
            error = {"at": i, "code": e.code, "message": e.message}
            break
    close_offers = getattr(rnd, "close_offers", None)
    if error is None and close_offers is not None:
        close_offers()  # optional offers not listed are declined (blackjack insurance, ...)
    return result_json(rnd, error)


def result_json(rnd: BankedRound, error: dict | None = None) -> dict:
    """The SCENARIOS.md result object for a round (also used by tests and replays)."""
    res = rnd.result
    state = "rejected" if error else res.state
    boxes = {}
    for box, nets in res.boxes.items():
        boxes[str(box)] = {**nets, "net": sum(nets.values())}
    out: dict[str, Any] = {
        "state": state,
        "boxes": boxes,
        "dealer": res.dealer,
        "jackpot": (
            None
            if res.jackpot is None
            else {"pool": res.jackpot.pool, "reserve": res.jackpot.reserve}
        ),
        "house": res.house,
        "error": error,
    }
    if res.state == "waiting":
        out["pending"] = [d.to_wire() for d in rnd.pending()]
    out.update(res.detail.get("scenario_extra", {}))
    return out
