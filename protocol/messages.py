"""Wire messages: every frame is one MessagePack map whose ``type`` names the message.

Client -> server messages form the tagged union :data:`ClientMessage`; the server decodes
every incoming frame with ``msgspec.msgpack.Decoder(type=ClientMessage)`` (strict mode), so a
float where an integer is expected, a negative or huge amount, an over-long string, a missing
or unknown field or an unknown ``type`` are all rejected before any table sees them.

Server -> client messages are Structs too (encoded by msgspec); thin clients decode them with
any MessagePack library into plain maps. Every message a table sends to a connection carries
``table`` and ``seq``, a sequence number counting that recipient's table messages; the events
of one table step travel together in one :class:`Events` frame (one number per event).

Money is always an integer number of cents; ``Amount`` rejects floats, negatives and values
above 2**53 - 1 (so browsers decode them exactly). See ``protocol/README.md`` for examples.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

#: The protocol version agreed in ``hello``/``welcome``.
PROTOCOL_VERSION = 1
#: Frames larger than this are refused by the WebSocket layer (close 1009).
MAX_FRAME = 4096
#: Largest amount of money in cents on the wire (browsers' exact integer range).
MAX_AMOUNT = 2**53 - 1

Amount = Annotated[int, msgspec.Meta(ge=0, le=MAX_AMOUNT)]
TableId = Annotated[str, msgspec.Meta(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_.-]+$")]
Seat = Annotated[int, msgspec.Meta(ge=0, le=63)]
Seq = Annotated[int, msgspec.Meta(ge=0, le=MAX_AMOUNT)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=24, pattern=r"^[^\x00-\x1f\x7f]+$")]
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=512)]
Verb = Annotated[str, msgspec.Meta(min_length=1, max_length=16, pattern=r"^[a-z_]+$")]
Nonce = Annotated[int, msgspec.Meta(ge=0, le=MAX_AMOUNT)]
Role = Literal["player", "spectator"]


class _Client(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, frozen=True):
    """Base of client -> server messages.

    Every subclass repeats ``frozen=True``: msgspec would inherit it, but type checkers read
    each class's own arguments (``dataclass_transform``).
    """


class Hello(_Client, tag="hello", frozen=True):
    """First message on a connection. ``token`` resumes an account; none = a dev-mode guest."""

    protocol: Annotated[int, msgspec.Meta(ge=0, le=1000)]
    token: Token | None = None
    name: Name | None = None


class Lobby(_Client, tag="lobby", frozen=True):
    """Ask for the list of tables."""


class Join(_Client, tag="join", frozen=True):
    """Watch a table (``spectator``) or take a seat (``player``; ``seat`` optional).

    Joining a table where this account already holds a seat resumes it (reconnect): the reply
    is a full snapshot. ``last_seq`` is the last ``seq`` the client saw from that table.
    """

    table: TableId
    role: Role = "player"
    seat: Seat | None = None
    last_seq: Seq | None = None


class BuyIn(_Client, tag="buy_in", frozen=True):
    """Move ``amount`` cents from the wallet to this seat's table stake (between rounds only)."""

    table: TableId
    amount: Amount


class Act(_Client, tag="act", frozen=True):
    """A betting action by the seat to act: ``fold``, ``check``, ``call``, ``bet``, ``raise``.

    ``amount`` is the total the seat's wager in this betting round reaches (bet and raise).
    """

    table: TableId
    verb: Verb
    amount: Amount | None = None


class SitOut(_Client, tag="sit_out", frozen=True):
    """Stop playing from the next round on but keep the seat (see docs/rulings.md)."""

    table: TableId


class SitIn(_Client, tag="sit_in", frozen=True):
    """Play again from the next round."""

    table: TableId


class Leave(_Client, tag="leave", frozen=True):
    """Give up the seat (or stop watching). The stake returns to the wallet after the round."""

    table: TableId


class Ping(_Client, tag="ping", frozen=True):
    """Application-level liveness check; answered by ``pong`` with the same nonce."""

    nonce: Nonce = 0


# -- banked tables (player vs house: boxes, a betting window, decisions) -----------------------
Box = Annotated[int, msgspec.Meta(ge=1, le=63)]
WagerName = Annotated[str, msgspec.Meta(min_length=1, max_length=24, pattern=r"^[a-z_]+$")]
CardText = Annotated[str, msgspec.Meta(pattern=r"^[2-9TJQKA][shdc]$")]
Cards = Annotated[list[CardText], msgspec.Meta(max_length=12)]


class Wager(_Client, tag="wager", frozen=True):
    """Make, change (``amount``) or withdraw (``amount`` 0) a wager on a box while betting is
    open (QLD Sch 19 s5(2)); the first wager on a free box takes that box for this player."""

    table: TableId
    box: Box
    wager: WagerName
    amount: Amount


class Decide(_Client, tag="decide", frozen=True):
    """A box's decision on the current street (``bet``, ``fold``, ``raise``, ...)."""

    table: TableId
    box: Box
    verb: Verb
    amount: Amount | None = None


class Recall(_Client, tag="recall", frozen=True):
    """Ask for this player's previous round at the table: bet, result, win (Sch 19 s3(2))."""

    table: TableId


class DevForce(_Client, tag="dev_force", frozen=True):
    """Dev mode only: fix the next round's cards (the scenario "forced outcome")."""

    table: TableId
    boxes: dict[str, Cards] = {}
    dealer: Cards = []
    board: Cards = []


# -- stadium tables (electronic player terminals on one shared outcome, QLD Sch 19) -----------
Position = Annotated[str, msgspec.Meta(min_length=1, max_length=48, pattern=r"^[a-z0-9_]+$")]
DeviceRef = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
StaffRole = Literal["dealer", "stickperson", "boxperson", "supervisor", "manager"]
#: a result as the game's scenario shape (``{"number": 17}``, ``{"dice": [1, 4, 4]}``,
#: ``{"segment": "b"}``, ``{"dice": [3, 4]}``, ``{"cards": [...]}``) or ``{"invalid": reason}``
Outcome = Annotated[dict[str, Any], msgspec.Meta(max_length=2)]


class Place(_Client, tag="place", frozen=True):
    """A terminal makes, changes (``amount`` is the wager's new total) or withdraws
    (``amount`` 0) a wager on a layout position while betting is open (Sch 19 s5(2))."""

    table: TableId
    position: Position
    amount: Amount


class Marker(_Client, tag="marker", frozen=True):
    """Craps: the on (``True``) / off marker on a place, buy, hardway or come-odds wager (s7)."""

    table: TableId
    position: Position
    on: bool


class Collect(_Client, tag="collect", frozen=True):
    """Move every wager left riding on this terminal's layout to its credit meter (s7(4))."""

    table: TableId


class CreditIn(_Client, tag="credit_in", frozen=True):
    """Buy credits from the wallet onto the terminal's credit meter (Sch 19 s4(2));
    idempotent on ``device_ref``."""

    table: TableId
    amount: Amount
    device_ref: DeviceRef | None = None


class CashOut(_Client, tag="cash_out", frozen=True):
    """Pay the credit meter (after collecting the layout) to the player's account (s9(3))."""

    table: TableId


class EnterResult(_Client, tag="result", frozen=True):
    """Staff (dealer or supervisor): the live result of the round, or ``{"invalid": reason}``
    (a no spin / no roll)."""

    table: TableId
    outcome: Outcome


class CloseBetting(_Client, tag="close_betting", frozen=True):
    """Staff: call "no more bets" now (the physical process sets the close)."""

    table: TableId


class CorrectResult(_Client, tag="correct_result", frozen=True):
    """Staff: the result of ``round`` was wrong; re-settle it on ``outcome`` (Sch 19 s10(2))."""

    table: TableId
    round: Seq
    outcome: Outcome


class SetLimits(_Client, tag="set_limits", frozen=True):
    """Supervisor or manager: new wager limits for the table or one ``terminal``, after the
    notice of Part 2 s12(1)."""

    table: TableId
    minimum: Amount
    maximum: Amount
    terminal: Annotated[int, msgspec.Meta(ge=1, le=100_000)] | None = None


ClientMessage = (
    Hello
    | Lobby
    | Join
    | BuyIn
    | Act
    | SitOut
    | SitIn
    | Leave
    | Ping
    | Wager
    | Decide
    | Recall
    | DevForce
    | Place
    | Marker
    | Collect
    | CreditIn
    | CashOut
    | EnterResult
    | CloseBetting
    | CorrectResult
    | SetLimits
)
CLIENT_TYPES: tuple[str, ...] = (
    "hello",
    "lobby",
    "join",
    "buy_in",
    "act",
    "sit_out",
    "sit_in",
    "leave",
    "ping",
    "wager",
    "decide",
    "recall",
    "dev_force",
    "place",
    "marker",
    "collect",
    "credit_in",
    "cash_out",
    "result",
    "close_betting",
    "correct_result",
    "set_limits",
)


# -- server -> client ------------------------------------------------------------------------


class _Server(msgspec.Struct, tag_field="type", omit_defaults=False):
    """Base of server -> client messages."""


class Welcome(_Server, tag="welcome"):
    """Reply to ``hello``: the session. Keep ``token`` to reconnect and resume seats."""

    protocol: int
    token: str
    account: str
    name: str
    balance: int
    dev: bool
    seated: list[str]
    max_frame: int


class TableInfo(msgspec.Struct):
    """One lobby row."""

    id: str
    name: str
    game: str
    description: str
    stakes: dict[str, int]
    min_buy_in: int
    max_buy_in: int | None
    seats: int
    taken: int
    spectators: int


class LobbyList(_Server, tag="lobby"):
    tables: list[TableInfo]


class Snapshot(_Server, tag="snapshot"):
    """The complete table view for this recipient; replaces anything the client kept."""

    table: str
    seq: int
    role: str
    seat: int | None
    view: dict[str, Any]


class Events(_Server, tag="events"):
    """Everything one table step produced for this recipient, in order, in one frame.

    A table step is one command (a player's action, a join, a buy-in...) or one timer. Each
    event in ``events`` is a map with its own ``type`` (a table event, an engine event, or
    ``turn``) and consumes one sequence number: ``seq`` is the number of the LAST event, so
    event ``i`` (0-based) of ``n`` has ``seq - n + 1 + i``. Events are never sent alone.
    """

    table: str
    seq: int
    events: list[dict[str, Any]]


class Left(_Server, tag="left"):
    """This connection no longer sits at / watches ``table``; ``returned`` cents went home."""

    table: str
    seq: int
    returned: int
    reason: str


class Balance(_Server, tag="balance"):
    """The wallet balance changed (buy-in, cash-out)."""

    balance: int


class Error(_Server, tag="error"):
    """A message was refused; nothing changed. ``code`` is stable (protocol/errors.py)."""

    code: str
    message: str
    ref: str | None = None
    reason: str | None = None
    table: str | None = None


class Pong(_Server, tag="pong"):
    nonce: int


class RoundRecall(_Server, tag="recall"):
    """Reply to ``recall``: this player's previous round at ``table`` (``null``: none yet)."""

    table: str
    last_round: dict[str, Any] | None


ServerMessage = (
    Welcome | LobbyList | Snapshot | Events | Left | Balance | Error | Pong | RoundRecall
)
