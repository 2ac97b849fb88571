"""Plain HTTP on the server's port: the browser page from ``clients/web/`` and ``/health``.

websockets' ``process_request`` hook calls :func:`respond` for every request before the
WebSocket handshake: ``/ws`` goes on to the handshake (``None``), anything else is answered
here and the connection closes.
"""

from __future__ import annotations

import email.utils
import json
import mimetypes
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.datastructures import Headers
from websockets.http11 import Request, Response
from websockets.trio.server import ServerConnection


def respond(
    web_root: Path,
    health: Callable[[], dict[str, Any]],
    connection: ServerConnection,
    request: Request,
) -> Response | None:
    path = request.path.split("?", 1)[0]
    if path == "/ws":
        return None
    if path == "/health":
        return response(200, json.dumps(health()).encode(), "application/json")
    root = web_root.resolve()
    target = (root / (path.lstrip("/") or "index.html")).resolve()
    if target.is_dir():
        target = target / "index.html"
    if not target.is_relative_to(root) or not target.is_file():
        return connection.respond(404, "not found\n")
    ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    if ctype.startswith("text/") or ctype.endswith("javascript"):
        ctype += "; charset=utf-8"
    return response(200, target.read_bytes(), ctype)


def response(status: int, body: bytes, content_type: str) -> Response:
    headers = Headers(
        [
            ("Date", email.utils.formatdate(usegmt=True)),
            ("Content-Length", str(len(body))),
            ("Content-Type", content_type),
            ("Cache-Control", "no-cache"),
        ]
    )
    return Response(status, "OK" if status == 200 else "Error", headers, body)
