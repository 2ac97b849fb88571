"""``croupier verify ROUND.json``: see :mod:`server.history_cli`."""

from __future__ import annotations

from server.history_cli import verify_main as main

__all__ = ["main"]
