"""protocol/README.md, the wire spec vendors write clients from, documents everything the server
really sends and takes. Every list checked here is derived from the code (introspection and an
AST scan of ``server/``), never written out by hand, so a new message, event, error code or
close code fails this test until the README documents it."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import msgspec

import server.tables.poker  # noqa: F401  (declares the poker table's events)
from protocol import errors, messages
from server.games.banked import base as banked_base
from server.games.poker import events as poker_events
from server.games.registry import BANKED, GAMES, tabled
from server.games.visibility import NOBODY
from server.tables import banked as banked_table
from server.tables import stadium as _stadium  # noqa: F401  (its typed events, declared)
from server.tables.events import all_table_events

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "protocol" / "README.md").read_text()
SERVER_SOURCES = sorted((ROOT / "server").rglob("*.py"))
TABLE_SOURCES = sorted((ROOT / "server" / "tables").rglob("*.py"))


def _trees(paths: list[Path]) -> list[ast.Module]:
    return [ast.parse(p.read_text(), str(p)) for p in paths]


def _documented(name: str) -> bool:
    """Named in backticks (a table row or the prose) or shown in an example."""
    return f"`{name}`" in README or _example(name)


def _example(kind: str) -> bool:
    """Shown in a JSON example: a map whose first key is ``"type": kind``."""
    return f'{{"type": "{kind}"' in README


def _subclasses(cls: type) -> set[type]:
    out: set[type] = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _subclasses(sub)
    return out


def _tag(cls: type[msgspec.Struct]) -> str:
    return str(cls.__struct_config__.tag)


# -- (a) error codes ----------------------------------------------------------------------------
def test_every_error_code_has_a_row_in_the_error_table() -> None:
    codes = {v for k, v in vars(errors).items() if k.isupper() and isinstance(v, str)}
    assert codes == set(errors.ERROR_CODES)  # every constant is registered with its meaning
    section = README.split("## Error codes", 1)[1].split("\n## ", 1)[0]
    missing = [c for c in sorted(codes) if f"| `{c}` |" not in section]
    assert not missing, f"error codes not in the README's error table: {missing}"


# -- (b) messages -------------------------------------------------------------------------------
def test_every_client_message_type_has_a_row_and_an_example() -> None:
    tags = {_tag(c) for c in _subclasses(messages._Client)}
    assert tags == set(messages.CLIENT_TYPES)
    missing = [t for t in sorted(tags) if not (f"| `{t}` |" in README and _example(t))]
    assert not missing, f"client messages without a row and an example: {missing}"


def _constructed_server_messages() -> set[str]:
    """Tags of the server message Structs that ``server/`` code builds (calls by class name)."""
    by_name = {c.__name__: _tag(c) for c in _subclasses(messages._Server)}
    found: set[str] = set()
    for tree in _trees(SERVER_SOURCES):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                name = (
                    f.id
                    if isinstance(f, ast.Name)
                    else f.attr
                    if isinstance(f, ast.Attribute)
                    else None
                )
                if name in by_name:
                    found.add(by_name[name])
    return found


def test_every_server_message_the_server_sends_has_a_row_and_an_example() -> None:
    sent = _constructed_server_messages()
    assert {"welcome", "snapshot", "error", "left", "balance", "recall"} <= sent  # scan works
    sent.add("events")  # built by Connection.add_event (server/tables/connection.py)
    declared = {_tag(c) for c in messages.ServerMessage.__args__}
    assert sent <= declared, f"sent but not in ServerMessage: {sent - declared}"
    missing = [t for t in sorted(sent) if not (f"| `{t}` |" in README and _example(t))]
    assert not missing, f"server messages without a row and an example: {missing}"


# -- (c) events ---------------------------------------------------------------------------------
def _poker_event_classes() -> list[type]:
    return sorted(_subclasses(poker_events.Event), key=lambda c: c.TYPE)


def _banked_event_classes() -> dict[str, set[str]]:
    """Event type -> the game modules that can emit it (every module, tabled or not)."""
    for game in BANKED:
        importlib.import_module(GAMES[game].module)
    out: dict[str, set[str]] = {}
    for cls in _subclasses(banked_base.Event):
        out.setdefault(cls.TYPE, set()).add(cls.__module__.rsplit(".", 1)[-1])
    return out


def _table_event_types() -> set[str]:
    """``"type"`` of every event the table actors build: the typed table events
    (:class:`~server.tables.events.TableEvent`), and dict literals left in server/tables."""
    found = {cls.TYPE for cls in all_table_events() if "TYPE" in vars(cls)}  # not a base
    for tree in _trees(TABLE_SOURCES):
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values, strict=True):
                    if (
                        isinstance(k, ast.Constant)
                        and k.value == "type"
                        and isinstance(v, ast.Constant)
                        and isinstance(v.value, str)
                    ):
                        found.add(v.value)
    return found


def test_every_poker_engine_event_is_documented() -> None:
    classes = _poker_event_classes()
    assert len(classes) >= 10
    for cls in classes:
        assert _documented(cls.TYPE), cls.TYPE
        default = {f.name: f.default for f in msgspec.structs.fields(cls)}["visible_to"]
        # burn cards reach nobody; the table sends the engine's turn as its ``turn`` event
        never_sent = default == NOBODY or cls is poker_events.TurnToAct
        assert never_sent or _example(cls.TYPE), f"no example of {cls.TYPE}"


def test_every_banked_engine_event_is_documented() -> None:
    kinds = _banked_event_classes()
    assert {"round_started", "cards_dealt", "wager_settled", "outcome_declared"} <= set(kinds)
    on_tables = {"base", *(GAMES[g].module.rsplit(".", 1)[-1] for g in tabled("banked"))}
    for kind, modules in sorted(kinds.items()):
        assert _documented(kind), kind
        sent = kind not in banked_table._TABLE_SETTLED and modules & on_tables
        assert not sent or _example(kind), f"no example of {kind}"


def test_every_event_a_table_builds_is_documented_with_an_example() -> None:
    kinds = _table_event_types()
    assert {"turn", "seat_taken", "betting_open", "round_result", "meter"} <= kinds
    missing = [k for k in sorted(kinds) if not _example(k)]
    assert not missing, f"table events without an example: {missing}"


# -- (d) close codes ----------------------------------------------------------------------------
def _close_codes_used() -> set[int]:
    """``CloseCode.X`` referenced in server/ (plus 1009: websockets' own ``max_size`` close)."""
    used: set[int] = set()
    for tree in _trees(SERVER_SOURCES):
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "CloseCode"
            ):
                used.add(int(errors.CloseCode[node.attr]))
    return used | {int(errors.CloseCode.TOO_BIG)}


def test_every_close_code_has_a_row_in_the_close_table() -> None:
    used = _close_codes_used()
    assert {1000, 1001, 1008, 4001, 4002} <= used
    section = README.split("## Close codes", 1)[1].split("\n## ", 1)[0]
    rows = {int(m) for m in re.findall(r"^\| (\d{4}) \|", section, re.MULTILINE)}
    assert used | {int(c) for c in errors.CloseCode} <= rows


def test_one_shape_per_table_event_name() -> None:
    """A wire name has one shape: the classes that carry it (a subclass may change only the
    audience) declare the same fields (server/tables/events.py)."""
    shapes: dict[str, set[tuple[str, ...]]] = {}
    for cls in all_table_events():
        shapes.setdefault(cls.TYPE, set()).add(tuple(cls.__struct_fields__))
    assert {name: s for name, s in shapes.items() if len(s) > 1} == {}
