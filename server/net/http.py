"""Plain HTTP on the server's port: the browser page, liveness and the operator status.

websockets' ``process_request`` hook calls :func:`respond` for every request before the
WebSocket handshake:

* ``/ws`` goes on to the handshake, unless the browser's ``Origin`` is not allowed (403) or
  the caller's address already holds ``max_per_ip`` connections (429; a dev-mode server
  does not count this machine's own clients: load tests run from here). A connection is
  counted here, before its handshake completes, and released when it ends however it ends
  (:meth:`Gate.admit`): 400 simultaneous connects from one address under a cap of 8 let 8
  through, not the 223 a count taken after the handshake did (issue 25);
* ``/health`` is public liveness: ``{"status": "ok"}`` and nothing else;
* ``/ready`` is public readiness, for a load balancer or an orchestrator: 200
  ``{"status": "ready"}`` once the tables run and while the store answers, 503 with the
  reason (``starting``, ``store``, ``draining``) otherwise; a SIGTERM turns it 503 at once,
  before the graceful stop closes anything (``--drain-grace``);
* ``/metrics`` is the Prometheus exposition (``server/metrics.py``), protected as ``/status``;
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

from server import metrics

JSON = "application/json"

#: What the page may load and where it may connect: only its own origin.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)


def loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, without a port) is this machine: exactly
    ``localhost``, ``::1`` or an address of 127.0.0.0/8 (``localhost.evil.example`` is not)."""
    if host in ("localhost", "::1"):
        return True
    parts = host.split(".")
    return len(parts) == 4 and parts[0] == "127" and all(p.isdigit() for p in parts)


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
    #: a deployment (server/room/directory.py): the other servers' client URLs, which the page may
    #: connect to when a table it joins is served there (``table_elsewhere``)
    peers: Callable[[], list[str]] | None = None

    def origin_ok(self, origin: str | None) -> bool:
        if origin is None:
            return True
        if self.origins is None:  # dev mode: a page from this machine, exactly
            return loopback(_origin_host(origin))
        return origin in self.origins

    def admit(self, connection: ServerConnection, ip: str) -> bool:
        """Count ``connection`` against its address's cap now, before its handshake; False
        (not counted) if the address holds ``max_per_ip`` already. Released by
        :meth:`release` when the connection ends, handshake or not (``server/net/websocket.py``
        calls it)."""
        if self.dev and loopback(ip):
            return True
        held = self.per_ip.get(ip, 0)
        if held >= self.max_per_ip:
            return False
        self.per_ip[ip] = held + 1
        connection.released = lambda: self.release(ip)  # type: ignore[attr-defined]
        return True

    def release(self, ip: str) -> None:
        held = self.per_ip.get(ip, 0) - 1
        if held > 0:
            self.per_ip[ip] = held
        else:
            self.per_ip.pop(ip, None)

    def status_ok(self, request: Request, remote: str) -> bool:
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer ") and self.is_staff(auth[7:].strip()):
            return True
        return self.dev and loopback(remote)


def _origin_host(origin: str) -> str:
    """The host of an ``Origin`` header (``http://[::1]:8765`` -> ``::1``)."""
    authority = origin.split("://", 1)[-1].split("/", 1)[0]
    if authority.startswith("["):
        return authority[1:].split("]", 1)[0]
    return authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority


@dataclass(frozen=True)
class Probes:
    """What the operator's paths read: the status document, readiness with its reason, and
    the metrics' exposition."""

    status: Callable[[], dict[str, Any]]
    ready: Callable[[], tuple[bool, str]]
    metrics: Callable[[], bytes]


def remote_ip(connection: ServerConnection) -> str:
    address = connection.remote_address
    return str(address[0]) if address else ""


def respond(
    web_root: Path,
    gate: Gate,
    probes: Probes,
    connection: ServerConnection,
    request: Request,
) -> Response | None:
    path = request.path.split("?", 1)[0]
    if path == "/ws":
        if not gate.origin_ok(request.headers.get("Origin")):
            return response(403, b"this page's origin may not connect here\n", "text/plain")
        if not gate.admit(connection, remote_ip(connection)):
            return response(429, b"too many connections from this address\n", "text/plain")
        return None
    if path == "/health":
        live = "closing" if probes.status()["status"] == "closing" else "ok"
        return response(200, json.dumps({"status": live}).encode(), "application/json")
    if path == "/ready":
        ready, why = probes.ready()
        return response(200 if ready else 503, json.dumps({"status": why}).encode(), JSON)
    if path in ("/status", "/metrics"):
        if not gate.status_ok(request, remote_ip(connection)):
            return response(401, b"staff only: Authorization: Bearer TOKEN\n", "text/plain")
        if path == "/metrics":
            return response(200, probes.metrics(), metrics.CONTENT_TYPE)
        return response(200, json.dumps(probes.status()).encode(), JSON)
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
    reason = {
        200: "OK",
        401: "Unauthorized",
        403: "Forbidden",
        404: "Not Found",
        429: "Too Many Requests",
        503: "Service Unavailable",
    }
    return Response(status, reason.get(status, "Error"), headers, body)
