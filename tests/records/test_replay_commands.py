"""Journal commands decode once into typed records; rows as stored on disk still decode."""

from server.games.replay import (
    Act,
    BoxTimeout,
    Decide,
    DeclineOffers,
    Result,
    SeatTimeout,
    Void,
    commands_of,
    decode,
)


def test_poker_rows_as_stored_decode_to_typed_records() -> None:
    rows = [
        {"op": "act", "seat": 3, "verb": "raise", "amount": 400},
        {"op": "act", "seat": 4, "verb": "call", "amount": None, "pre": "call"},
        {"op": "timeout", "seat": 5},
        {"op": "void", "reason": "misdeal"},
    ]
    assert decode("poker", rows) == [
        Act(3, "raise", 400),
        Act(4, "call", None),
        SeatTimeout(5),
        Void("misdeal"),
    ]


def test_banked_rows_leave_out_what_no_engine_takes() -> None:
    rows = [
        {"op": "wager", "box": 1, "wagers": {"main": 500}},
        {"op": "decide", "box": 1, "verb": "hit", "amount": None},
        {"op": "decide", "box": 1, "verb": "double", "amount": 200, "player": "P2"},
        {"op": "decline_offers", "box": 2, "player": None},
        {"op": "timeout", "box": 2},
    ]
    assert decode("banked", rows) == [
        Decide(1, "hit"),
        Decide(1, "double", 200, "P2"),
        DeclineOffers(2),
        BoxTimeout(2),
    ]


def test_commands_of_reads_the_kind_from_start_and_drops_refused() -> None:
    entries = [
        ("start", {"kind": "stadium"}),
        ("command", {"op": "place", "position": 1}),
        ("command", {"op": "result", "outcome": {"dice": [1, 2, 3]}}),
        ("command", {"op": "result", "outcome": {}, "refused": "late"}),
    ]
    assert commands_of(entries) == [Result({"dice": [1, 2, 3]})]
