"""Encode server messages and decode client frames into typed messages or a coded error.

One message per WebSocket binary frame. :func:`decode_client` never raises anything but
:class:`ProtocolError`, whose ``code`` is one of ``protocol.errors.ERROR_CODES``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from protocol import errors
from protocol.messages import ClientMessage, ServerMessage

# Annotated: a decoder for a union of Structs is typed Decoder[Any] otherwise.
_decoder: msgspec.msgpack.Decoder[ClientMessage] = msgspec.msgpack.Decoder(type=ClientMessage)
_server_decoder: msgspec.msgpack.Decoder[ServerMessage] = msgspec.msgpack.Decoder(
    type=ServerMessage
)
_encoder = msgspec.msgpack.Encoder()


class ProtocolError(Exception):
    """An incoming frame the protocol refuses. The fault is the client's."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def decode_client(frame: bytes | str) -> ClientMessage:
    """Decode and validate one client frame (strict: no floats for ints, bounded strings)."""
    if isinstance(frame, str):
        raise ProtocolError(errors.BAD_FRAME, "text frames are not accepted; send binary")
    try:
        return _decoder.decode(frame)
    except msgspec.ValidationError as exc:
        text = str(exc)
        if text.startswith("Expected `object`"):
            raise ProtocolError(errors.BAD_FRAME, "a message must be a map with a 'type'") from None
        if text.startswith("Object missing required field `type`") or text.endswith("`$.type`"):
            raise ProtocolError(errors.UNKNOWN_TYPE, f"unknown message type: {text}") from None
        raise ProtocolError(errors.BAD_MESSAGE, text) from None
    except msgspec.DecodeError as exc:  # after its subclass ValidationError
        raise ProtocolError(errors.BAD_FRAME, f"not MessagePack: {exc}") from None
    except (ValueError, OverflowError, RecursionError) as exc:  # pragma: no cover - defensive
        raise ProtocolError(errors.BAD_FRAME, f"undecodable frame: {exc}") from None


#: Encode one message (client or server Struct) to a binary frame (the encoder's own
#: method: this runs once per frame sent).
encode: Callable[[msgspec.Struct], bytes] = _encoder.encode


def decode_server(frame: bytes) -> ServerMessage:
    """Typed decoding of a server frame (for Python tools; thin clients use plain msgpack)."""
    return _server_decoder.decode(frame)


def to_builtins(message: msgspec.Struct) -> dict[str, Any]:
    """The message as the plain map a thin client sees."""
    out = msgspec.to_builtins(message)
    assert isinstance(out, dict)
    return out
