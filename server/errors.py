"""Errors shared across engines and the scenario command."""

from __future__ import annotations


class ScenarioError(ValueError):
    """The scenario file is not a valid scenario (SCENARIOS.md: exit 2, one-line message)."""


class IllegalAction(Exception):
    """A command the rules do not allow now. ``code`` is stable and documented.

    The fault is the remote party's (the player's); the engine's state is unchanged.
    """

    def __init__(self, code: str, message: str, amounts: dict[str, int] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        #: the cents the refusal is about (``min``, ``max``...), for clients to format
        self.amounts = amounts
