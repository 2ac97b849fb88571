"""The server's log lines: plain text for a person, or one JSON object a line for a log
shipper (``croupier serve --log-format json``, issue 28).

Each line says when, how bad, which part (``logger``), what happened (``event``) and, where
there is one, the table, the round and the account it concerns. Those three come from
context variables: a table's task sets :data:`TABLE` once when it starts and :data:`ROUND`
when a round opens and closes (``server/tables/base.py``); a connection's task sets
:data:`ACCOUNT` at its ``hello``. Trio gives every task its own copy of the context, so a
line logged by table 7's task names table 7 and its round, without any call passing them.
A call may also pass them itself (``extra={"account": ...}``). The two formats carry the same
events; JSON adds nothing a text line lacks but its shape.
"""

from __future__ import annotations

import datetime
import json
import logging
import sys
from contextvars import ContextVar
from typing import Final

TABLE: ContextVar[str | None] = ContextVar("croupier_table", default=None)
ROUND: ContextVar[str | None] = ContextVar("croupier_round", default=None)
ACCOUNT: ContextVar[str | None] = ContextVar("croupier_account", default=None)

FORMATS: Final = ("text", "json")
LEVELS: Final = ("debug", "info", "warning", "error")
_FIELDS: Final = (("table", TABLE), ("round", ROUND), ("account", ACCOUNT))


class Context(logging.Filter):
    """Puts the table, round and account of the running task on each record (a value the
    call passed in ``extra`` wins)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, var in _FIELDS:
            if getattr(record, name, None) is None:
                setattr(record, name, var.get())
        return True


class Json(logging.Formatter):
    """One JSON object a line: ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``event``,
    then ``table``, ``round``, ``account`` where known, and ``error`` with the traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        for name, _ in _FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


class Text(logging.Formatter):
    """Today's text line, the table, round and account appended where known."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        where = " ".join(
            f"{name}={value}"
            for name, _ in _FIELDS
            if (value := getattr(record, name, None)) is not None
        )
        if not where:
            return text
        head, sep, rest = text.partition("\n")  # a traceback stays below the line
        return f"{head} [{where}]{sep}{rest}"


def configure(form: str = "text", level: str = "warning") -> None:
    """Send the server's log lines to stderr in ``form`` from ``level`` up."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(Context())
    handler.setFormatter(Json() if form == "json" else Text())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
