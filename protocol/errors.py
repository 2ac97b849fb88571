"""Stable error codes and WebSocket close codes of the croupier wire protocol.

An ``error`` message carries one of :data:`ERROR_CODES` in ``code``. Codes never change
meaning once published; new ones may be added. ``protocol/README.md`` lists them all.
Whose fault it is: every code below is the client's (remote) fault except ``internal``
and ``shutting_down``.
"""

from __future__ import annotations

from enum import IntEnum

# -- error message codes (the connection stays open) -----------------------------------------
BAD_FRAME = "bad_frame"  # not a MessagePack map, or a text frame
BAD_MESSAGE = "bad_message"  # a known type with missing/extra/wrongly typed/out-of-range fields
UNKNOWN_TYPE = "unknown_type"  # "type" names no client message
PROTOCOL_VERSION = "protocol_version"  # hello asked for a version the server does not speak
HELLO_REQUIRED = "hello_required"  # anything but hello before the session is established
ALREADY_HELLO = "already_hello"  # a second hello on the same connection
BAD_TOKEN = "bad_token"  # the session token is forged, expired or for another server
GUESTS_DISABLED = "guests_disabled"  # no token given and the server is not in dev mode
UNKNOWN_TABLE = "unknown_table"
NOT_AT_TABLE = "not_at_table"  # a table command for a table this connection has not joined
ALREADY_AT_TABLE = "already_at_table"
TABLE_FULL = "table_full"
SEAT_TAKEN = "seat_taken"
BAD_SEAT = "bad_seat"  # a seat number the table does not have
NOT_SEATED = "not_seated"  # a player command from a spectator
ROUND_IN_PROGRESS = "round_in_progress"  # buy-in / top-up only between rounds (ACT 5.4, 12.3)
BUY_IN_RANGE = "buy_in_range"  # the stake would fall outside the table's buy-in limits
INSUFFICIENT_FUNDS = "insufficient_funds"  # the wallet cannot cover the buy-in
NO_ROUND = "no_round"  # an action while no round is being played
NOT_YOUR_TURN = "not_your_turn"
ILLEGAL_ACTION = "illegal_action"  # the rules refuse the action; ``reason`` has the engine code
RATE_LIMITED = "rate_limited"  # too many messages: this one was dropped
SHUTTING_DOWN = "shutting_down"  # the server is stopping; no new seats or rounds
INTERNAL = "internal"  # a server bug; the message changed nothing
# banked tables
WRONG_GAME = "wrong_game"  # a message this kind of table does not take (act at a banked table)
BETTING_CLOSED = "betting_closed"  # a wager after "no more bets" (QLD Sch 19 s3(3))
BAD_BOX = "bad_box"  # a box number the layout does not have
BOX_TAKEN = "box_taken"  # the box is another player's
WAGER_REFUSED = "wager_refused"  # the rules refuse the wager; ``reason`` has the engine code
JACKPOT_UNAVAILABLE = "jackpot_unavailable"  # jackpot wagers closed: pool unreachable (s34)
NO_DECISION = "no_decision"  # the box owes no decision now
DEV_ONLY = "dev_only"  # a dev-mode command on a server with a secret
BAD_CARDS = "bad_cards"  # dev_force cards this game cannot deal
STORE_UNAVAILABLE = "store_unavailable"  # the ledger's store is out: no money moves, no round
NOT_AUTHORIZED = "not_authorized"  # the session's role may not do this (cashier calls)
OVER_LIMIT = "over_limit"  # a deposit above the server's limit, or a wallet brought above it
TOO_MANY_TABLES = "too_many_tables"  # the account already sits at the server's limit of tables
BAD_NAME = "bad_name"  # a display name with control characters or that passes for staff
SPECTATORS_FULL = "spectators_full"  # the table has as many spectators as it takes
NOT_SUPPORTED = "not_supported"  # an operator control this table kind does not have
BAD_LIMITS = "bad_limits"  # new limits the game's rules refuse
# stadium tables (electronic player terminals, QLD Sch 19)
GAME_FULL = "game_full"  # the game has its approved maximum of terminals (Sch 19 s2(3))
BAD_RESULT = "bad_result"  # a result the game cannot have, or entered when none is awaited
NO_SUCH_ROUND = "no_such_round"  # a correction of a round the table no longer keeps
# a deployment of several servers (server/room/directory.py)
TABLE_ELSEWHERE = "table_elsewhere"  # another server serves the table: ``url`` says which
TABLE_MOVING = "table_moving"  # the table's server is gone; another takes it over shortly
# tournaments (server/tournaments/)
UNKNOWN_TOURNAMENT = "unknown_tournament"  # no tournament has this id
TOURNAMENT_REFUSED = "tournament_refused"  # the conditions or the phase refuse; ``reason`` says

ERROR_CODES: dict[str, str] = {
    BAD_FRAME: "the frame is not a MessagePack map (or is a text frame)",
    BAD_MESSAGE: "a field is missing, unknown, of the wrong type or out of range",
    UNKNOWN_TYPE: "the 'type' names no client message",
    PROTOCOL_VERSION: "the server does not speak the protocol version asked for in hello",
    HELLO_REQUIRED: "the first message on a connection must be hello",
    ALREADY_HELLO: "hello was already accepted on this connection",
    BAD_TOKEN: "the session token is not valid here (forged, expired or another server)",
    GUESTS_DISABLED: "this server needs a session token: guest sessions are dev mode only",
    UNKNOWN_TABLE: "no table has this id",
    NOT_AT_TABLE: "this connection has not joined that table",
    ALREADY_AT_TABLE: "this connection already joined that table",
    TABLE_FULL: "every seat is taken",
    SEAT_TAKEN: "that seat is taken",
    BAD_SEAT: "the table has no such seat",
    NOT_SEATED: "only a seated player may do that",
    ROUND_IN_PROGRESS: "buy-in and top-up are allowed only between rounds",
    BUY_IN_RANGE: "the resulting stake is outside the table's buy-in limits",
    INSUFFICIENT_FUNDS: "the wallet balance does not cover that amount",
    NO_ROUND: "no round is being played at this table",
    NOT_YOUR_TURN: "it is not this seat's turn to act",
    ILLEGAL_ACTION: "the rules do not allow that action now (see 'reason')",
    RATE_LIMITED: "too many messages; this one was dropped",
    SHUTTING_DOWN: "the server is shutting down",
    INTERNAL: "server error; nothing was changed",
    WRONG_GAME: "this table's game does not take that message",
    BETTING_CLOSED: "no more bets: the betting window of this round is closed",
    BAD_BOX: "the layout has no such box",
    BOX_TAKEN: "that box is another player's",
    WAGER_REFUSED: "the rules or limits refuse that wager (see 'reason')",
    JACKPOT_UNAVAILABLE: "jackpot wagers are not offered while the jackpot system is down",
    NO_DECISION: "that box owes no decision now",
    DEV_ONLY: "only a server in dev mode takes this command",
    BAD_CARDS: "those cards cannot be dealt in this game",
    STORE_UNAVAILABLE: "the ledger's store cannot be reached (or lost data): no money moves",
    NOT_AUTHORIZED: "this session's role may not do that",
    OVER_LIMIT: "the deposit is above the server's limit for one deposit or for a wallet",
    TOO_MANY_TABLES: "the account already sits at as many tables as the server allows",
    BAD_NAME: "that display name is not allowed (control characters, or it passes for staff)",
    SPECTATORS_FULL: "the table has as many spectators as it takes; try again later",
    NOT_SUPPORTED: "this kind of table has no such control",
    BAD_LIMITS: "the game's rules refuse those limits",
    GAME_FULL: "the game has its approved maximum number of terminals (QLD Sch 19 s2(3))",
    BAD_RESULT: "that result is not one of this game's, or no result is awaited now",
    TABLE_ELSEWHERE: "another server of the deployment serves this table: reconnect to 'url'",
    TABLE_MOVING: "the table's server stopped; another takes the table over: retry shortly",
    NO_SUCH_ROUND: "the table keeps no settled round with that number to correct",
    UNKNOWN_TOURNAMENT: "no tournament has this id",
    TOURNAMENT_REFUSED: "the tournament's conditions or phase refuse that (see 'reason')",
}


class CloseCode(IntEnum):
    """WebSocket close codes the server uses (RFC 6455 plus the private 4000-4999 range)."""

    NORMAL = 1000  # the client closed, or the server finished with it
    GOING_AWAY = 1001  # server shutdown
    POLICY = 1008  # repeated protocol violations, a flood, or no hello in time
    TOO_BIG = 1009  # a frame over the size limit (``max_size``)
    INTERNAL = 1011  # server bug
    REPLACED = 4001  # the same account opened a newer connection that took over the seats
    TOO_SLOW = 4002  # the client did not read fast enough: its outbound queue overflowed


CLOSE_REASONS: dict[int, str] = {
    CloseCode.NORMAL: "normal closure",
    CloseCode.GOING_AWAY: "server shutting down",
    CloseCode.POLICY: "policy violation: too many bad messages, a flood, or no hello in time",
    CloseCode.TOO_BIG: "frame too big",
    CloseCode.INTERNAL: "internal server error",
    CloseCode.REPLACED: "session taken over by a newer connection",
    CloseCode.TOO_SLOW: "client too slow: outbound queue overflowed",
}
