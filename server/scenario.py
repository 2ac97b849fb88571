"""The scenario command (``../shared/SCENARIOS.md``): settle one round from a fixed outcome.

    croupier scenario FILE.json          # or: python -m server.scenario FILE.json
    croupier scenario --describe GAME

FILE may also be a test vector (``../shared/vectors/<family>/<ID>.json``): its ``scenario``
is run (SCENARIOS.md, "Test vectors as data").

Each game id maps to a module that exposes

* ``describe(game: str) -> dict``: options with defaults, wager names and verbs (JSON);
* ``run(game: str, scenario: dict) -> dict``: the result object. It raises
  :class:`server.errors.ScenarioError` when the file is not a valid scenario; an illegal
  action is *not* an error of the file: it is reported in the result (``state: rejected``).

The modules drive the real engines, the same code the server runs.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any, Protocol, cast

from server.errors import ScenarioError
from server.games.registry import GAMES as REGISTRY
from server.games.registry import POKER

#: game id -> module implementing ``describe`` and ``run`` for it (ids: ``server.games.registry``).
GAMES: dict[str, str] = {
    game: "server.games.poker.scenario" if game in POKER else "server.games.banked.scenario"
    for game in REGISTRY
}


class GameModule(Protocol):
    """What each module named in :data:`GAMES` provides (see above)."""

    def describe(self, game: str) -> dict[str, Any]: ...

    def run(self, game: str, scenario: dict[str, Any]) -> dict[str, Any]: ...


def _game(game: object) -> str:
    if not isinstance(game, str) or game not in GAMES:
        raise ScenarioError(f"unknown game: {game!r}")
    return game


def _module(game: str) -> GameModule:
    # import_module is typed ModuleType; the modules in GAMES implement GameModule.
    return cast(GameModule, importlib.import_module(GAMES[game]))


def run_scenario(scenario: Any) -> dict[str, Any]:
    """Run one parsed scenario and return its result (raises ScenarioError if invalid)."""
    if not isinstance(scenario, dict):
        raise ScenarioError("a scenario must be a JSON object")
    game = scenario.get("game")
    if game is None:
        raise ScenarioError('the scenario names no "game" (croupier scenario --help lists them)')
    game = _game(game)
    return _module(game).run(game, scenario)


def describe(game: str) -> dict[str, Any]:
    return _module(_game(game)).describe(game)


def load(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise ScenarioError(f"cannot read {path}: {e.strerror}") from e
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ScenarioError(f"not valid JSON: {e}") from e


def scenario_of(document: Any) -> Any:
    """The scenario in a file: the document itself, or a test vector's ``scenario``."""
    if isinstance(document, dict) and "game" not in document:
        inner = document.get("scenario")
        if isinstance(inner, dict):
            return inner
    return document


def usage() -> str:
    """``croupier scenario --help``: the forms, the game ids and an example."""
    ids = sorted(GAMES)
    rows = [", ".join(ids[i : i + 4]) for i in range(0, len(ids), 4)]
    return "\n".join(
        [
            "usage: croupier scenario FILE.json",
            "       croupier scenario --describe GAME",
            "",
            "Settle one round from a fixed outcome (../shared/SCENARIOS.md) and print the",
            "result as JSON. FILE is a scenario, or a test vector whose 'scenario' key is run.",
            "Amounts in scenario files are integer cents. Exit 0 with a result, 2 when the",
            "file is not a valid scenario (one line on stderr).",
            "",
            'games (GAME, and the scenario\'s "game"):',
            *(f"  {row}" for row in rows),
            "",
            "example:",
            "  croupier scenario --describe three-card-poker   # options, wagers and verbs",
            '  echo \'{"game": "three-card-poker", "boxes": {"1": {"ante": 500}},',
            '        "cards": {"boxes": {"1": ["As", "Ks", "Qs"]}},',
            '        "decisions": [[1, "bet"]]}\' > tcp.json',
            "  croupier scenario tcp.json",
            "  croupier scenario ../shared/vectors/banked/CP-01.json",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help"):
        print(usage())
        return 0
    try:
        if len(args) == 2 and args[0] == "--describe":
            result = describe(args[1])
        elif len(args) == 1 and not args[0].startswith("--"):
            result = run_scenario(scenario_of(load(args[0])))
        else:
            raise ScenarioError(
                "usage: croupier scenario FILE.json | --describe GAME (--help lists the games)"
            )
    except ScenarioError as e:
        print(
            f"croupier scenario: {str(e).splitlines()[0] if str(e) else 'invalid'}", file=sys.stderr
        )
        return 2
    json.dump(result, sys.stdout, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
