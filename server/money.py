"""Integer-cent money helpers: commission arithmetic and splits in the chip unit.

Every amount is an ``int`` number of cents; nothing here ever touches a float.
"""

from __future__ import annotations

import re


def commission(pot: int, percent: int, step: int, cap_base: int, unit: int = 1) -> int:
    """Commission on a pot, the formula shared by the poker rulebooks.

    Nothing on a pot of $19 or less; otherwise ``percent`` of the largest multiple of
    ``step`` not exceeding ``min(pot, cap_base)``, rounded down to the chip ``unit``:

    * ACT Hold-em/Omaha and 3 Card Manila r 11.1: 5%, step $20, cap base 100 x table minimum;
    * QLD Sch 11 s30(1)-(2): up to 10%, step $10, cap base 100 x minimum wager;
    * QLD Sch 5 s28(1)-(2): 5%, step $20, cap base 100 x minimum permissible wager.
    """
    if pot <= 1900:
        return 0
    base = min(pot, cap_base) // step * step
    c = base * percent // 100
    return c // unit * unit


def split(amount: int, n: int, unit: int) -> tuple[int, int]:
    """Divide ``amount`` among ``n`` sharers in whole chip units: ``(share, remainder)``.

    The remainder (possibly more than one unit) goes, as one amount, to the sharer the
    rulebook names (ACT r 9.4, QLD Sch 11 s27(16), Sch 5 s25(7)).
    """
    share = amount // n // unit * unit
    return share, amount - share * n


def dollars(cents: int) -> str:
    """``123456`` -> ``"$1,234.56"``, ``500`` -> ``"$5.00"``: dollars and cents, for humans
    only (the wire carries the integer cents)."""
    sign = "-" if cents < 0 else ""
    d, c = divmod(abs(cents), 100)
    return f"{sign}${d:,}.{c:02d}"


class AmountError(ValueError):
    """A typed amount that is not dollars and cents; the message says what to type."""


#: ``6``, ``6.5``, ``$6.50``, ``$1,234.05`` (thousands commas only in their places)
_AMOUNT = re.compile(r"\$?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?")


def parse_dollars(text: str) -> int:
    """What a person types -> integer cents: ``6``, ``6.5``, ``$6.50``, ``$1,234.05``.

    Every typed amount is dollars (``6`` is six dollars, never six cents). A third decimal,
    a sign or anything else raises :class:`AmountError` with a message for people.
    """
    raw = text.strip()
    m = _AMOUNT.fullmatch(raw)
    if not m:
        raise AmountError(f"not an amount: {raw!r} (type dollars, e.g. 6, 6.50 or $6.50)")
    whole, frac = m.group(1).replace(",", ""), m.group(2) or ""
    if len(frac) > 2:
        raise AmountError(f"{raw}: at most two decimals (cents), e.g. ${whole}.{frac[:2]}")
    return int(whole) * 100 + int(frac.ljust(2, "0"))
