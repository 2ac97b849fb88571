"""Stadium layout positions in the player's words (issue 27, point 2: ``Pass line``, not ``win``).

The names are declared once, in ``clients/web/labels.json``: the page fetches that file with
itself (``clients/web/stadium.js``) and the terminal reads it here. An id the file names in
``positions`` has its own name (``any7`` -> ``Any seven``); an id ``PREFIX_NUMBERS`` is named
by its prefix and the numbers joined with ``-`` (``split_17_20`` -> ``Split 17-20``); any other
id is itself, capitalised, with spaces for ``_``. The wire keeps the ids.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

LABELS_FILE = Path(__file__).resolve().parent / "web" / "labels.json"

_NUMBERS = re.compile(r"[0-9_]+")


@functools.cache
def _names() -> tuple[dict[str, str], dict[str, str]]:
    data = json.loads(LABELS_FILE.read_text(encoding="utf-8"))
    return data["positions"], data["prefixes"]


def label(position: str) -> str:
    """``position``'s name as players know it (the rule of ``labels.json``)."""
    own, prefixes = _names()
    if position in own:
        return own[position]
    for prefix, name in prefixes.items():
        rest = position[len(prefix) + 1 :] if position.startswith(prefix + "_") else ""
        if _NUMBERS.fullmatch(rest):
            return f"{name} {rest.replace('_', '-')}"
    text = position.replace("_", " ")
    return text[:1].upper() + text[1:]
