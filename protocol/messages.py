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
    """Play again from the next round.

    ``wait_for_blind`` (QLD hold'em/Omaha, Sch 11 s23A(1)-(2)): a returning or new player
    who owes the second blind waits until the second blind reaches its seat instead of
    posting it now; ``false`` (the default) posts now. A seat that is not sitting out may
    send it to change that choice."""

    table: TableId
    wait_for_blind: bool = False


PreVerb = Literal["check_fold", "check", "call", "call_any", "fold_any"]


class PreAction(_Client, tag="pre_action", frozen=True):
    """Queue (or, with ``verb`` null, clear) a poker seat's action before its turn.

    ``call`` calls at most ``amount`` cents (the call the player saw); the table applies a
    pre-action at the turn only if it still fits (server/tables/preactions.py)."""

    table: TableId
    verb: PreVerb | None = None
    amount: Amount | None = None


class Wait(_Client, tag="wait", frozen=True):
    """Join ``table``'s waiting list; ``first_available``: every table with the same game
    and stakes too (the first seat offered at any of them)."""

    table: TableId
    first_available: bool = False


class Unwait(_Client, tag="unwait", frozen=True):
    """Leave the waiting list of ``table`` (and of the tables joined with it), declining any
    seat offered there."""

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
#: a shoe's first cards in dealing order (blackjack's dev_force)
ShoeCards = Annotated[list[CardText], msgspec.Meta(max_length=64)]


class Wager(_Client, tag="wager", frozen=True):
    """Make, change (``amount``) or withdraw (``amount`` 0) a wager on a box while betting is
    open (QLD Sch 19 s5(2)); the first wager on a free box takes that box for this player.
    ``behind``: a wager as another player on a box someone else holds (a backer, blackjack
    BJ s29)."""

    table: TableId
    box: Box
    wager: WagerName
    amount: Amount
    behind: bool = False


#: a tile of pai gow (QLD Sch 6 s6): its pips, low first ("1-2", "6-6")
Tile = Annotated[str, msgspec.Meta(pattern=r"^[1-6]-[1-6]$")]
TwoTiles = Annotated[list[Tile], msgspec.Meta(min_length=2, max_length=2)]


class HandSetting(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Four tiles set into a high hand and a low hand (pai gow, QLD Sch 6 s2, s27)."""

    high: TwoTiles
    low: TwoTiles

    def to_engine(self) -> dict[str, list[str]]:
        return {"high": list(self.high), "low": list(self.low)}


class Decide(_Client, tag="decide", frozen=True):
    """A box's decision on the current street (``bet``, ``fold``, ``raise``, ...).

    ``setting``: the hands a ``set`` decision makes of the box's tiles (pai gow)."""

    table: TableId
    box: Box
    verb: Verb
    amount: Amount | None = None
    setting: HandSetting | None = None


class Recall(_Client, tag="recall", frozen=True):
    """Ask for this player's previous round at the table: bet, result, win (Sch 19 s3(2))."""

    table: TableId


class History(_Client, tag="history", frozen=True):
    """Game recall: this player's last rounds at ``table`` (up to 10), each as the player was
    allowed to see it, from the journal (so they survive a restart)."""

    table: TableId


#: a player's seed for the next deal: 1 to 64 printable ASCII characters (server/fair.py)
SeedText = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[ -~]+$")]


class Seed(_Client, tag="seed", frozen=True):
    """A seated player's seed for the table's next deal (the next round; at blackjack the
    next shoe), mixed with the server's secret committed before it (``server/fair.py``)."""

    table: TableId
    seed: SeedText


class DevForce(_Client, tag="dev_force", frozen=True):
    """Dev mode only: fix the next round's cards (the scenario "forced outcome")."""

    table: TableId
    boxes: dict[str, Cards] = {}
    dealer: Cards = []
    board: Cards = []
    shoe: ShoeCards = []


RequestId = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
Account = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$")]


class Cashier(_Client, tag="cashier", frozen=True):
    """Cashier role only: ``deposit`` to or ``withdraw`` from ``account``'s wallet, or ask
    its ``balance``. ``request`` makes a call idempotent: the same id is applied once."""

    op: Literal["deposit", "withdraw", "balance"]
    account: Account
    request: RequestId
    amount: Amount = 0


OperatorAction = Literal[
    "open_table",
    "close_table",
    "set_limits",
    "void_round",
    "correct_result",
    "approve_jackpot",
    "suspend",
    "unsuspend",
    # the Tournament Director's controls (``tournament``; server/tournaments/runner.py)
    "start_tournament",
    "pause_tournament",
    "break_tournament",
    "resume_tournament",
    "move_player",
    "disqualify",
    "award_places",
    "cancel_tournament",
]
Reason = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]


class Operator(_Client, tag="operator", frozen=True):
    """Staff only (roles by control: server/room/operator.py; protocol/README.md, "Operator
    channel"): a control of a table (``table``) or an account (``account``), with the reason
    that goes into the audit log. ``limits``: new table limits for ``set_limits`` (cents),
    in force from the next round (stadium tables: after the notice of Part 2 s12, and
    ``terminal``: one terminal's limits); ``result``: a corrected result for
    ``correct_result`` (stadium tables: the outcome as in ``result`` plus ``round``, the
    kept round to re-settle)."""

    action: OperatorAction
    reason: Reason
    table: TableId | None = None
    account: Account | None = None
    limits: dict[Annotated[str, msgspec.Meta(max_length=24)], Amount] = {}
    result: dict[Annotated[str, msgspec.Meta(max_length=24)], Any] = {}
    #: the tournament a Tournament Director's control is for (``*_tournament``,
    #: ``move_player`` with ``account`` and ``limits`` ``{table, seat}``, ``disqualify``,
    #: ``award_places``; ``break_tournament`` with ``limits`` ``{minutes}``)
    tournament: TableId | None = None


StaffQueryName = Literal["controls", "floor", "audit", "account", "ledger_check", "resettlement"]
Filter = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$")]
Time = Annotated[float, msgspec.Meta(ge=0, le=1e11)]


class Staff(_Client, tag="staff", frozen=True):
    """Staff only, a read (roles by query: server/net/staff.py; protocol/README.md, "The staff
    console"): ``controls`` (what the asker's role may use), ``floor`` (every table;
    ``watch`` true: pushed again on every change),
    ``audit`` (the audit log, newest first, filtered by ``who``, ``action``, ``table``,
    ``outcome``, ``since``, ``until``; at most ``limit``), ``account`` (``account``: an
    exact account's balance, suspension, recent rounds and cashier movements, and the
    accounts whose id or name contains it), ``ledger_check`` (the books' check),
    ``resettlement`` (at ``table``, what a ``correct_result`` of ``result`` would do)."""

    query: StaffQueryName
    watch: bool = False
    who: Filter | None = None
    action: Filter | None = None
    table: TableId | None = None
    outcome: Literal["done", "refused"] | None = None
    since: Time | None = None
    until: Time | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=500)] = 100
    account: Account | None = None
    #: ``resettlement``: a correction as ``correct_result`` would take it (``round`` and
    #: the outcome), shown before it is confirmed, not applied
    result: dict[Annotated[str, msgspec.Meta(max_length=24)], Any] = {}


class Logout(_Client, tag="logout", frozen=True):
    """End the session: this connection's token is revoked (refused from now on, before its
    expiry), every seat is left as on a disconnect, and the server closes with 1000."""


# -- stadium tables (electronic player terminals on one shared outcome, QLD Sch 19) -----------
Position = Annotated[str, msgspec.Meta(min_length=1, max_length=48, pattern=r"^[a-z0-9_]+$")]
DeviceRef = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
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
    """Staff (a session whose token has the role dealer, stickperson, boxperson or
    supervisor): the live result of the round, or ``{"invalid": reason}`` (a no spin / no
    roll). Corrections of a settled round go through ``operator`` (``correct_result``)."""

    table: TableId
    outcome: Outcome


class CloseBetting(_Client, tag="close_betting", frozen=True):
    """Staff (the roles of ``result``): call "no more bets" now (the physical process sets
    the close)."""

    table: TableId


# -- tournaments (server/tournaments/; protocol/README.md, "Tournaments") --------------------


class Tournaments(_Client, tag="tournaments", frozen=True):
    """List the tournaments with their published conditions (answered by ``tournaments``)."""


class Register(_Client, tag="register", frozen=True):
    """Enter ``tournament`` (one entry per player, r 17.6): the entry fee leaves the wallet;
    answered by a ``tournament`` state message."""

    tournament: TableId


class Unregister(_Client, tag="unregister", frozen=True):
    """Withdraw this player's entry before seating where the rules allow it (ACT poker: the
    fee less the commission back, ACT r 19.4; Canberra Poker entries are non-refundable)."""

    tournament: TableId


class Reserve(_Client, tag="reserve", frozen=True):
    """Go on ``tournament``'s reserve list (r 17.10): nothing is paid now; at the start a
    reserve here takes the seat of an entrant who is not, paying the entry fee then."""

    tournament: TableId


class BuyBack(_Client, tag="buy_back", frozen=True):
    """Re-enter ``tournament`` after being eliminated, as its conditions allow (2017
    r 17.3(a)(ii)(F)): the entry fee again, the entry's chips, a seat at the shortest table."""

    tournament: TableId


ClientMessage = (
    Hello
    | Lobby
    | Join
    | BuyIn
    | Act
    | SitOut
    | SitIn
    | PreAction
    | Wait
    | Unwait
    | Leave
    | Ping
    | Wager
    | Decide
    | Recall
    | DevForce
    | Cashier
    | Operator
    | Staff
    | Logout
    | History
    | Seed
    | Place
    | Marker
    | Collect
    | CreditIn
    | CashOut
    | EnterResult
    | CloseBetting
    | Tournaments
    | Register
    | Unregister
    | BuyBack
    | Reserve
)
CLIENT_TYPES: tuple[str, ...] = (
    "hello",
    "lobby",
    "join",
    "buy_in",
    "act",
    "sit_out",
    "sit_in",
    "pre_action",
    "wait",
    "unwait",
    "leave",
    "ping",
    "wager",
    "decide",
    "recall",
    "dev_force",
    "cashier",
    "operator",
    "staff",
    "logout",
    "history",
    "seed",
    "place",
    "marker",
    "collect",
    "credit_in",
    "cash_out",
    "result",
    "close_betting",
    "tournaments",
    "register",
    "unregister",
    "buy_back",
    "reserve",
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
    #: the connection's message limit: ``rate`` per second sustained, bursts of ``burst``
    #: (a client that keeps within it is never refused ``rate_limited``)
    rate: float = 50.0
    burst: float = 100.0


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
    #: players on this table's waiting list (``wait``)
    waiting: int = 0
    #: what a new player posts before being dealt in (QLD Sch 11 s23A(1)); 0: nothing
    entry_post: int = 0
    #: a deployment of several servers (server/room/directory.py): the client URL of the server
    #: that serves this table now (None: this server, or no server until one takes it over)
    url: str | None = None
    #: a banked table whose bank sits on a box (pai gow, QLD Sch 6 s18(13)): that box, which
    #: nobody takes or wagers on (``seats`` leaves it out)
    bank_box: int | None = None


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
    #: the amounts the refusal is about, in cents (``min``, ``max``, ``balance``,
    #: ``amount``...): a client formats them itself; ``message`` writes them in dollars
    amounts: dict[str, int] | None = None
    #: the rule the refusal applies (``"s4"``, ``"s14-s17(2)-(3)"``), for staff views and
    #: logs; ``message`` says what to do, without it (issue 27)
    rule: str | None = None
    #: ``table_elsewhere``: the client URL of the server that serves the table (reconnect
    #: there with the same token and send the message again)
    url: str | None = None


class Waiting(_Server, tag="waiting"):
    """This account's waiting lists changed: ``positions`` maps each table it waits for to
    its place on that table's list (1 = next offered)."""

    positions: dict[str, int]


class SeatOffer(_Server, tag="seat_offer"):
    """A seat freed at ``table`` and is held for this account for ``expires_ms``: take it
    with ``join {table}`` (the held seat is given), or ``unwait`` to pass. ``expires_ms`` 0:
    the offer lapsed (it passed to the next on the list)."""

    table: str
    seat: int
    expires_ms: int


class Pong(_Server, tag="pong"):
    nonce: int


class ServerStatus(_Server, tag="server_status"):
    """The server's money store went out (``ok`` false) or came back: while it is out no
    round starts and no money moves, and frames that report a result or a balance wait for
    it (commit, then speak). Not numbered, and sent ahead of the frames that wait."""

    ok: bool
    status: str


class RoundRecall(_Server, tag="recall"):
    """Reply to ``recall``: this player's previous round at ``table`` (``null``: none yet)."""

    table: str
    last_round: dict[str, Any] | None


class OperatorDone(_Server, tag="operator"):
    """Reply to ``operator``: the control was applied (``detail`` says how, e.g. when new
    limits take effect); it is in the audit log."""

    action: str
    table: str | None
    account: str | None
    detail: str
    #: what was done in figures, as the audit entry's ``effect`` (what a void returned...)
    effect: dict[str, Any] | None = None


class StaffAnswer(_Server, tag="staff"):
    """Reply to ``staff``: the ``query`` asked and its ``data`` (protocol/README.md, "The
    staff console"); a watched ``floor`` is sent again whenever it changes."""

    query: str
    data: Any


class HistoryRounds(_Server, tag="history"):
    """Reply to ``history``: the player's last rounds at ``table``, oldest first."""

    table: str
    rounds: list[dict[str, Any]]


class CashierDone(_Server, tag="cashier"):
    """Reply to ``cashier``: the account's wallet ``balance`` after the call (cents);
    ``repeated``: this ``request`` id had been applied before (nothing moved again)."""

    request: str
    op: str
    account: str
    amount: int
    balance: int
    repeated: bool


class TournamentInfo(msgspec.Struct):
    """One tournament in the lobby: its published conditions (the TOML file's fields, money
    in cents, chips in tournament chips; 2017 r 17.2(b)) and where it stands."""

    id: str
    name: str
    game: str
    phase: str
    entries: int
    players_left: int
    pool: int
    conditions: dict[str, Any]


class TournamentList(_Server, tag="tournaments"):
    """Reply to ``tournaments``."""

    tournaments: list[TournamentInfo]


class TournamentState(_Server, tag="tournament"):
    """Where ``tournament`` stands, for this player: sent on ``register``/``unregister``,
    to every entrant when the phase, level or players left change, and to a player whose
    table, seat or place changed. ``level`` is 1-based (0: not started); ``level_ms``: time
    left in the level (the clock; null: no clock running), ``break_ms``: time left in a
    break; ``table``/``seat``: where this player plays now (join that table: the seat is
    taken for you); ``place``/``prize``: this player's finish (cents); ``events``: the
    tournament events of this step (``tournament_seated`` ``how: moved``,
    ``tournament_eliminated``, ``tournament_place``...)."""

    tournament: str
    phase: str
    level: int
    blinds: list[int]
    level_ms: int | None
    break_ms: int | None
    players_left: int
    entries: int
    pool: int
    registered: bool
    table: str | None
    seat: int | None
    place: int | None
    prize: int | None
    events: list[dict[str, Any]]


ServerMessage = (
    Welcome
    | LobbyList
    | Snapshot
    | Events
    | Left
    | Balance
    | Error
    | Pong
    | ServerStatus
    | Waiting
    | SeatOffer
    | RoundRecall
    | CashierDone
    | OperatorDone
    | StaffAnswer
    | HistoryRounds
    | TournamentList
    | TournamentState
)
