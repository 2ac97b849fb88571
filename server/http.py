"""Plain HTTP on the server's port: the browser page, liveness and the operator status.

websockets' ``process_request`` hook calls :func:`respond` for every request before the
WebSocket handshake:

* ``/ws`` goes on to the handshake, unless the browser's ``Origin`` is not allowed (403) or
  the caller's address already holds ``max_per_ip`` connections (429; a dev-mode server
  does not count this machine's own clients: load tests run from here);
* ``/health`` is public liveness: ``{"status": "ok"}`` and nothing else;
* ``/status`` is the operator status (tables, connections, money, jackpots): it needs
  ``Authorization: Bearer TOKEN`` of a staff role (cashier, supervisor, manager); a dev-mode
  server also answers a caller on the loopback address without one;
* anything else is a file of ``clients/web/`` (the page), with a content security policy,
  ``X-Frame-Options: DENY`` and ``nosniff``; no response names the server's software.
"""

from __future__ import annotations

import email.utils
import json
import mimetypes
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.datastructures import Headers
from websockets.http11 import Request, Response
from websockets.trio.server import ServerConnection

#: What the page may load and where it may connect: only its own origin.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
LOOPBACK = ("127.", "::1", "localhost")


@dataclass
class Gate:
    """Who may open a WebSocket here, and who may read the operator status."""

    #: allowed browser origins (``https://casino.example``); None: dev mode, pages served
    #: from a loopback address only. A client that sends no Origin (not a browser) passes.
    origins: tuple[str, ...] | None
    max_per_ip: int
    #: a Bearer token -> whether it is staff's (verified by the server's accounts)
    is_staff: Callable[[str], bool]
    dev: bool
    per_ip: dict[str, int] = field(default_factory=dict)
    #: a deployment (server/directory.py): the other servers' client URLs, which the page may
    #: connect to when a table it joins is served there (``table_elsewhere``)
    peers: Callable[[], list[str]] | None = None

    def origin_ok(self, origin: str | None) -> bool:
        if origin is None:
            return True
        if self.origins is None:
            host = origin.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
            return host.startswith(LOOPBACK)
        return origin in self.origins

    def status_ok(self, request: Request, remote: str) -> bool:
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer ") and self.is_staff(auth[7:].strip()):
            return True
        return self.dev and remote.startswith(LOOPBACK)


def remote_ip(connection: ServerConnection) -> str:
    address = connection.remote_address
    return str(address[0]) if address else ""


def respond(
    web_root: Path,
    gate: Gate,
    status: Callable[[], dict[str, Any]],
    connection: ServerConnection,
    request: Request,
) -> Response | None:
    path = request.path.split("?", 1)[0]
    if path == "/ws":
        if not gate.origin_ok(request.headers.get("Origin")):
            return response(403, b"this page's origin may not connect here\n", "text/plain")
        ip = remote_ip(connection)
        if gate.per_ip.get(ip, 0) >= gate.max_per_ip and not (gate.dev and ip.startswith(LOOPBACK)):
            return response(429, b"too many connections from this address\n", "text/plain")
        return None
    if path == "/health":
        live = "closing" if status()["status"] == "closing" else "ok"
        return response(200, json.dumps({"status": live}).encode(), "application/json")
    if path == "/status":
        if not gate.status_ok(request, remote_ip(connection)):
            return response(401, b"staff only: Authorization: Bearer TOKEN\n", "text/plain")
        return response(200, json.dumps(status()).encode(), "application/json")
    root = web_root.resolve()
    target = (root / (path.lstrip("/") or "index.html")).resolve()
    if target.is_dir():
        target = target / "index.html"
    if not target.is_relative_to(root) or not target.is_file():
        return response(404, b"not found\n", "text/plain")
    ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if ctype.startswith("text/") or ctype.endswith("javascript"):
        ctype += "; charset=utf-8"
    answer = response(200, target.read_bytes(), ctype)
    if gate.peers is not None:  # a deployment: the page may follow a redirect to a peer
        del answer.headers["Content-Security-Policy"]
        peers = " ".join(gate.peers())
        answer.headers["Content-Security-Policy"] = CSP.replace(
            "connect-src 'self'", f"connect-src 'self' {peers}".rstrip()
        )
    return answer


def response(status: int, body: bytes, content_type: str) -> Response:
    headers = Headers(
        [
            ("Date", email.utils.formatdate(usegmt=True)),
            ("Content-Length", str(len(body))),
            ("Content-Type", content_type),
            ("Cache-Control", "no-cache"),
            ("Content-Security-Policy", CSP),
            ("X-Frame-Options", "DENY"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ]
    )
    reason = {200: "OK", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found"}
    return Response(status, reason.get(status, "Error"), headers, body)
