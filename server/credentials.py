"""Secrets a command takes (a Redis URL with a password, a session token), never in argv.

Every user of a machine can read every process's command line (``ps``,
``/proc/PID/cmdline``), so every secret an option takes also comes from a file or from the
environment (``/proc/PID/environ`` is readable by the process's own user only):

=============================  =============================  ===========================
secret                         from a file                    from the environment
=============================  =============================  ===========================
Redis URL (``--redis``)        ``--redis-file PATH``          ``CROUPIER_REDIS``
the pools' Redis (serve)       ``--jackpot-redis-file PATH``  ``CROUPIER_REDIS``
a session token (``--token``)  ``--token-file PATH``          ``CROUPIER_TOKEN``
the server's HMAC secret       ``--secret-file PATH``         ``CROUPIER_SECRET``
=============================  =============================  ===========================

A file's first line is the secret. The commands that only read a store (``ledger check``,
``jackpot``, ``admin audit``, ``history export``, ``cashier``) take ``CROUPIER_REDIS`` when no
option names a Redis; the commands for which a Redis changes what they do (``croupier
serve``, ``croupier loadtest``) take it only when asked: ``--redis`` without a URL (a server
never joins a Redis because the shell happened to export one). The old forms, ``--redis URL``
with a password and ``--token TOKEN``, still work, with a one-line warning on stderr that
never repeats the secret.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

REDIS_ENV: Final = "CROUPIER_REDIS"
TOKEN_ENV: Final = "CROUPIER_TOKEN"
#: ``--redis`` given without a URL (serve, loadtest): the URL is in :data:`REDIS_ENV`
FROM_ENV: Final = "\0env"


class CredentialError(ValueError):
    """A secret that cannot be had as asked (one line, for the command's error)."""


def read_secret(path: Path, what: str) -> str:
    """The first line of ``path`` (a token, a URL, a key), stripped; never empty."""
    try:
        text = path.read_text().strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise CredentialError(f"cannot read {what} from {path}: {exc.__class__.__name__}") from None
    first = text.splitlines()[0].strip() if text else ""
    if not first:
        raise CredentialError(f"{path} holds no {what}: its first line should")
    return first


def warn_in_argv(prog: str, flag: str, what: str, instead: str) -> None:
    """One line on stderr: a secret was given on the command line (never repeated here)."""
    print(
        f"{prog}: warning: {flag} put {what} on the command line, where ps shows it to every "
        f"user of this machine: use {instead}",
        file=sys.stderr,
    )


def has_password(url: str) -> bool:
    """Whether a Redis URL carries a password (``redis://[USER]:PASSWORD@...``)."""
    try:
        return urlsplit(url).password is not None
    except ValueError:
        return "@" in url


def add_redis(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    help_: str,
    *,
    flag: str = "--redis",
    on_request: bool = False,
) -> None:
    """``flag URL`` and ``flag-file PATH``. ``on_request``: ``flag`` alone takes the URL from
    ``CROUPIER_REDIS`` (serve, loadtest); otherwise that variable is the default."""
    env = (
        f"; {flag} alone: the URL in env {REDIS_ENV}"
        if on_request
        else f"; default: env {REDIS_ENV}"
    )
    kwargs: dict[str, object] = {"nargs": "?", "const": FROM_ENV} if on_request else {}
    parser.add_argument(
        flag,
        metavar="URL",
        default=None,
        help=f"{help_} (a URL with a password: give it by {flag}-file or env{env})",
        **kwargs,  # type: ignore[arg-type]
    )
    parser.add_argument(
        f"{flag}-file",
        type=Path,
        default=None,
        metavar="PATH",
        help=f"a file whose first line is the {flag} URL (keeps a password out of ps)",
    )


def redis_url(
    args: argparse.Namespace, prog: str, *, flag: str = "--redis", on_request: bool = False
) -> str | None:
    """The Redis URL :func:`add_redis` options give (None: no Redis); warns (one line)
    when a password was given on the command line; :class:`CredentialError` if it cannot
    be had."""
    dest = flag.lstrip("-").replace("-", "_")
    given: str | None = getattr(args, dest)
    path: Path | None = getattr(args, f"{dest}_file")
    if given is not None and path is not None:
        raise CredentialError(f"give {flag} or {flag}-file, not both")
    if path is not None:
        return read_secret(path, "Redis URL")
    if given == FROM_ENV or (given is None and not on_request):
        url = os.environ.get(REDIS_ENV) or None
        if url is None and given == FROM_ENV:
            raise CredentialError(
                f"{flag} without a URL takes it from env {REDIS_ENV}, which is not set "
                f"(or give {flag}-file PATH)"
            )
        return url
    if given is not None and has_password(given):
        warn_in_argv(prog, flag, "a Redis password", f"{flag}-file PATH or env {REDIS_ENV}")
    return given


def add_token(parser: argparse.ArgumentParser, help_: str, *, env: str | None = TOKEN_ENV) -> None:
    """``--token-file PATH`` (and the old ``--token TOKEN``, which ps shows)."""
    where = f" (or env {env})" if env else ""
    parser.add_argument(
        "--token-file",
        type=Path,
        default=None,
        metavar="PATH",
        help=f"a file whose first line is {help_}{where}",
    )
    parser.add_argument(
        "--token",
        default=None,
        metavar="TOKEN",
        help="the token itself: shown by ps to every user of the machine, use --token-file",
    )


def session_token(
    args: argparse.Namespace, prog: str, *, env: str | None = TOKEN_ENV, also: tuple[str, ...] = ()
) -> str | None:
    """The token :func:`add_token` options give, else env ``env`` (then ``also``, older
    names); None: none given. Warns (one line) when it was given on the command line."""
    if args.token is not None and args.token_file is not None:
        raise CredentialError("give --token-file or --token, not both")
    if args.token_file is not None:
        return read_secret(args.token_file, "session token")
    if args.token is not None:
        instead = f"--token-file PATH or env {env}" if env else "--token-file PATH"
        warn_in_argv(prog, "--token", "a session token", instead)
        return str(args.token)
    for name in (env, *also) if env else also:
        if os.environ.get(name):
            return os.environ[name].strip()
    return None
