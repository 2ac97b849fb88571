"""Accounts and HMAC-signed session tokens.

A token is ``base64url(json payload) "." base64url(HMAC-SHA256(secret, payload))`` with the
payload ``{"a": account, "n": name, "e": expiry (unix seconds), "r": role}``; the role is
``player`` (the default, also for tokens without ``r``) or ``cashier``. The server keeps no
session table: any token it signed, unexpired, names the account. With no secret (dev mode)
the server uses a random secret kept in its store (so a dev guest's token still works after
a restart) and hands out guest accounts with a starting balance.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass


class BadToken(Exception):
    """The token is malformed, forged, or expired."""


#: stadium tables (QLD Sch 19 s6; general.md §4) add the table staff who enter results:
#: ``dealer``, ``stickperson`` and ``boxperson`` (craps, Sch 4 s24)
ROLES = (
    "player",
    "cashier",
    "dealer",
    "stickperson",
    "boxperson",
    "supervisor",
    "manager",
    "tournament_director",
)
#: roles that may move money in and out of wallets (``cashier``: server/net/router.py)
CASHIER_ROLES = frozenset({"cashier"})
#: roles that may read the operator status (``/status``)
STAFF = frozenset({"cashier", "supervisor", "manager"})


@dataclass(frozen=True)
class Identity:
    account: str
    name: str
    role: str = "player"
    token_id: str = ""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Accounts:
    """Issues and verifies session tokens."""

    def __init__(
        self, secret: str | None, *, ttl: float = 7 * 24 * 3600.0, dev_secret: str | None = None
    ) -> None:
        self.dev = secret is None
        self._key = (secret or dev_secret or secrets.token_hex(32)).encode()
        self.ttl = ttl
        #: ids of tokens revoked before their expiry (logout)
        self.revoked: set[str] = set()
        #: accounts an operator suspended: every token of theirs is refused
        self.suspended: set[str] = set()

    def issue(
        self, account: str, name: str, *, now: float | None = None, role: str = "player"
    ) -> str:
        """A signed token for ``account`` (operators call this to log real accounts in)."""
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}")
        expiry = int((time.time() if now is None else now) + self.ttl)
        body_json = {"a": account, "n": name, "e": expiry, "r": role, "j": secrets.token_hex(8)}
        payload = json.dumps(body_json, separators=(",", ":"))
        body = _b64(payload.encode())
        return body + "." + _b64(self._sign(body))

    def guest(self, name: str | None = None) -> tuple[Identity, str]:
        """A new guest account (dev mode) and its token."""
        account = "guest-" + secrets.token_hex(5)
        ident = Identity(account, name or account)
        return ident, self.issue(ident.account, ident.name)

    def verify(self, token: str, *, now: float | None = None) -> Identity:
        """The identity a token names; :class:`BadToken` if it is not ours or expired."""
        try:
            body, sig = token.split(".")
            good = hmac.compare_digest(_unb64(sig), self._sign(body))
            payload = json.loads(_unb64(body)) if good else None
        except (ValueError, UnicodeDecodeError):
            raise BadToken("malformed token") from None
        if payload is None:
            raise BadToken("bad signature")
        if not isinstance(payload, dict) or not isinstance(payload.get("a"), str):
            raise BadToken("malformed token")
        if not isinstance(payload.get("e"), int) or payload["e"] < (now or time.time()):
            raise BadToken("expired token")
        role = payload.get("r", "player")
        if role not in ROLES:
            raise BadToken("unknown role")
        token_id = str(payload.get("j", ""))
        if token_id and token_id in self.revoked:
            raise BadToken("revoked token: log in again")
        if payload["a"] in self.suspended:
            raise BadToken("this account is suspended: see the cashier")
        return Identity(payload["a"], str(payload.get("n") or payload["a"])[:24], role, token_id)

    def is_staff(self, token: str) -> bool:
        """Whether ``token`` is a valid token of a staff role (the operator status)."""
        try:
            return self.verify(token).role in STAFF
        except BadToken:
            return False

    def _sign(self, body: str) -> bytes:
        return hmac.new(self._key, body.encode(), hashlib.sha256).digest()
