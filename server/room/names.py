"""Display names a player may use: printable, and not passing for staff.

A name is refused if it holds a control, format (zero-width, bidi override), separator or
private-use character, or if, once folded (NFKC, case-folded, letters only, look-alike
digits mapped), it contains a word staff use (dealer, croupier, cashier, supervisor,
manager, floor, pit boss, admin, support, staff, security, casino, house, system). In
production a player's name is the one on its session token, given by the operator.
"""

from __future__ import annotations

import unicodedata

STAFF_WORDS = (
    "dealer",
    "croupier",
    "cashier",
    "supervisor",
    "manager",
    "floor",
    "pitboss",
    "admin",
    "support",
    "staff",
    "security",
    "casino",
    "house",
    "system",
    "moderator",
    "official",
)
_LOOKALIKE = str.maketrans(
    {"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
    # Cyrillic and Greek letters that look like Latin ones (after case folding)
    | dict(zip("аеорсухіјѕԁкмтнвᴄ", "aeopcyxijsdkmthbc", strict=True))
    | dict(zip("αεορτυνικμηβχ", "aeoptuvikmnbx", strict=True))
)
_REFUSED_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


def why_not(name: str) -> str | None:
    """Why ``name`` may not be used (None: it may)."""
    for ch in name:
        if unicodedata.category(ch) in _REFUSED_CATEGORIES:
            return "names may not hold control, zero-width or direction characters"
    folded = unicodedata.normalize("NFKC", name).casefold().translate(_LOOKALIKE)
    letters = "".join(ch for ch in folded if ch.isalpha())
    for word in STAFF_WORDS:
        if word in letters:
            return f"names that pass for staff ({word!r}) are not allowed"
    if not letters and not any(ch.isdigit() for ch in folded):
        return "a name needs a letter or a digit"
    return None
