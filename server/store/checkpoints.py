"""Signed checkpoints: the head of a store's chain, signed with a key the store never holds.

A chain (:mod:`server.store.chain`) shows that no row changed *unless every hash after it was
recomputed*; anyone who can write the store can recompute them. So the server signs, every
:data:`EVERY` seconds while the chain grows and when it stops, a **checkpoint**: the store's
id and epoch, the chain's length ``n``, its head hash and the time, as canonical JSON, signed
with Ed25519 (RFC 8032, pyca/cryptography). The private key stays with the operator: a file
(``croupier serve --signing-key-file PATH``, mode 600) or the environment
(``CROUPIER_SIGNING_KEY``), never the store and never the command line.
``croupier ledger keygen --out PATH`` makes one and prints its public key;
``croupier ledger check`` verifies with the public key (``--verify-key-file`` or
``CROUPIER_VERIFY_KEY``): a rewritten chain no longer has the signed head at ``n``, a cut
chain is shorter than a signed ``n``, a forged checkpoint does not verify.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

#: seconds between two checkpoints while the chain grows
EVERY = 10.0
SIGNING_ENV = "CROUPIER_SIGNING_KEY"
VERIFY_ENV = "CROUPIER_VERIFY_KEY"


class BadKey(ValueError):
    """A key that cannot be read (one line for the command line)."""


def _raw(text: str, what: str) -> bytes:
    text = text.strip()
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise BadKey(f"{what} must be 64 hex digits (croupier ledger keygen)") from None
    if len(raw) != 32:
        raise BadKey(f"{what} must be 64 hex digits (croupier ledger keygen)")
    return raw


def _key_text(path: Path | None, env: str, what: str) -> bytes | None:
    """The 32 raw bytes of a key in ``path`` or in ``$env`` (None: neither)."""
    if path is not None:
        try:
            text = path.read_text()
        except OSError as exc:
            raise BadKey(f"cannot read the {what} {path}: {exc.strerror}") from None
    else:
        text = os.environ.get(env, "")
    return _raw(text, f"a {what}") if text.strip() else None


def signing_key(path: Path | None = None) -> Ed25519PrivateKey | None:
    """The signing key of ``path`` or of ``$CROUPIER_SIGNING_KEY`` (None: neither)."""
    raw = _key_text(path, SIGNING_ENV, "signing key")
    return None if raw is None else Ed25519PrivateKey.from_private_bytes(raw)


def verify_key(path: Path | None = None) -> Ed25519PublicKey | None:
    """The public key of ``path`` or of ``$CROUPIER_VERIFY_KEY`` (None: neither)."""
    raw = _key_text(path, VERIFY_ENV, "verify key")
    return None if raw is None else Ed25519PublicKey.from_public_bytes(raw)


def new_key() -> tuple[str, str]:
    """A new key pair: (private hex, public hex)."""
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    )
    return private.hex(), public_hex(key)


def public_hex(key: Ed25519PrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        .hex()
    )


@dataclass(frozen=True)
class Checkpoint:
    """One signed checkpoint as kept: its canonical text and the signature (hex)."""

    text: str
    signature: str

    @property
    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = json.loads(self.text)
        return body


def make(
    key: Ed25519PrivateKey, store: str, epoch: str, n: int, head: str, at: float | None = None
) -> Checkpoint:
    """Sign the chain's head ``head`` at length ``n``."""
    body = {
        "store": store,
        "epoch": epoch,
        "n": n,
        "head": head,
        "at": round(time.time() if at is None else at, 3),
        "key": public_hex(key),
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return Checkpoint(text, key.sign(text.encode()).hex())


def verify(
    key: Ed25519PublicKey | None,
    checkpoints: Iterable[Checkpoint],
    hashes: Mapping[int, str],
    length: int,
    epoch: str,
) -> list[str]:
    """The problems of a store's checkpoints against its chain (``hashes``: entry -> hash,
    ``length``: entries). Without a key only the heads are compared (what the store says of
    itself); with one, every signature too, and a chain without any checkpoint is named."""
    problems: list[str] = []
    count = 0
    for point in checkpoints:
        count += 1
        try:
            body = point.body
            n, head = int(body["n"]), str(body["head"])
        except (ValueError, KeyError, TypeError):
            problems.append("a checkpoint cannot be read")
            continue
        if key is not None:
            try:
                key.verify(bytes.fromhex(point.signature), point.text.encode())
            except (InvalidSignature, ValueError):
                problems.append(
                    f"the checkpoint at entry {n} is not signed by the verify key (forged?)"
                )
                continue
        if body.get("epoch") != epoch:
            problems.append(f"the checkpoint at entry {n} is of another store (epoch)")
        elif n > length:
            problems.append(
                f"a checkpoint signed entry {n} but the chain ends at entry {length}: "
                "entries were cut"
            )
        elif hashes.get(n) != head:
            problems.append(
                f"the chain's entry {n} is not the one signed at it: the chain was rewritten"
            )
    if key is not None and count == 0 and length:
        problems.append("no signed checkpoint: the server ran without its signing key")
    return problems
