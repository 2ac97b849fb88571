"""The wire protocol: strict schemas, stable error codes, and a README that documents all."""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest

from protocol import errors
from protocol.codec import ProtocolError, decode_client, encode
from protocol.messages import CLIENT_TYPES, MAX_AMOUNT, Act, Hello, ServerMessage

README = (Path(__file__).resolve().parents[2] / "protocol" / "README.md").read_text()


def frame(**fields) -> bytes:
    return msgpack.packb(fields)


def code_of(data: bytes | str) -> str:
    with pytest.raises(ProtocolError) as info:
        decode_client(data)
    return info.value.code


def test_valid_messages_decode_to_typed_structs():
    assert decode_client(frame(type="hello", protocol=1)) == Hello(protocol=1)
    msg = decode_client(frame(type="act", table="t1", verb="raise", amount=800))
    assert msg == Act(table="t1", verb="raise", amount=800)


@pytest.mark.parametrize("amount", [2.0, 2.5, -1, MAX_AMOUNT + 1, "100", True, None, [1]])
def test_amounts_must_be_integer_cents_in_range(amount):
    """Money is integer cents: floats, negatives, strings, bools and huge values are refused."""
    data = frame(type="buy_in", table="t1", amount=amount)
    assert code_of(data) == errors.BAD_MESSAGE


def test_huge_integer_beyond_msgpack_range_is_a_bad_frame_or_message():
    data = b"\x84\xa4type\xa6buy_in\xa5table\xa2t1\xa6amount\xcf\xff\xff\xff\xff\xff\xff\xff\xff"
    assert code_of(data) in (errors.BAD_MESSAGE, errors.BAD_FRAME)


@pytest.mark.parametrize(
    "data,code",
    [
        (b"\xc1", errors.BAD_FRAME),
        (b"", errors.BAD_FRAME),
        (msgpack.packb([1, 2]), errors.BAD_FRAME),
        (msgpack.packb(7), errors.BAD_FRAME),
        ('{"type": "lobby"}', errors.BAD_FRAME),
        (frame(type="lobby") + b"\x00", errors.BAD_FRAME),
        (frame(type="nope"), errors.UNKNOWN_TYPE),
        (frame(kind="lobby"), errors.UNKNOWN_TYPE),
        (frame(type=3), errors.UNKNOWN_TYPE),
        (frame(type="lobby", extra=1), errors.BAD_MESSAGE),
        (frame(type="act", table="t1"), errors.BAD_MESSAGE),
        (frame(type="act", table="x" * 33, verb="call"), errors.BAD_MESSAGE),
        (frame(type="act", table="t 1", verb="call"), errors.BAD_MESSAGE),
        (frame(type="act", table="t1", verb="CALL"), errors.BAD_MESSAGE),
        (frame(type="join", table="t1", role="dealer"), errors.BAD_MESSAGE),
        (frame(type="join", table="t1", seat=-1), errors.BAD_MESSAGE),
        (frame(type="hello", protocol=1, name="x" * 25), errors.BAD_MESSAGE),
        (frame(type="hello", protocol=1, name="bad\nname"), errors.BAD_MESSAGE),
        (frame(type="hello", protocol=1.0), errors.BAD_MESSAGE),
    ],
)
def test_malformed_frames_get_a_stable_code(data, code):
    assert code_of(data) == code


def test_every_error_code_and_close_code_is_documented():
    for code in errors.ERROR_CODES:
        assert f"`{code}`" in README, code
    for close in errors.CloseCode:
        assert f"| {int(close)} |" in README, close


def test_every_message_type_is_documented_with_an_example():
    for kind in CLIENT_TYPES:
        assert f'{{"type": "{kind}"' in README, kind
    for cls in ServerMessage.__args__:
        tag = cls.__struct_config__.tag
        assert f'{{"type": "{tag}"' in README, tag


def test_server_messages_are_plain_msgpack_maps():
    from protocol.messages import Error

    data = encode(Error(code=errors.NOT_YOUR_TURN, message="seat 5 to act", ref="act"))
    decoded = msgpack.unpackb(data)
    assert decoded["type"] == "error" and decoded["code"] == "not_your_turn"
