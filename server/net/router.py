"""Routing: where each valid client message goes.

Session and lobby messages (``hello``, ``lobby``, ``ping``) are answered here, and the
waiting lists (``wait``, ``unwait``) that span tables are kept here
(``server/room/waiting.py``); every table message goes, as it was decoded, to its table's inbox as a
:class:`~server.tables.base.TableCommand` (the one command path: the table's handler map
decides what it does with it). Nothing here blocks or touches a table's state.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

import msgspec

from protocol import errors
from protocol.codec import ProtocolError
from protocol.errors import CloseCode
from protocol.messages import (
    PROTOCOL_VERSION,
    Balance,
    BuyBack,
    Cashier,
    CashierDone,
    Error,
    Hello,
    Lobby,
    LobbyList,
    Logout,
    Operator,
    OperatorDone,
    Ping,
    Pong,
    Register,
    Reserve,
    ServerStatus,
    Staff,
    TournamentList,
    Tournaments,
    Unregister,
    Unwait,
    Wait,
    Welcome,
)
from server import logs
from server.actor import Command, Handlers
from server.config import ServerConfig
from server.money import dollars
from server.net.staff import StaffDesk
from server.room import names, operator
from server.room.accounts import CASHIER_ROLES, Accounts, BadToken
from server.room.waiting import WaitingLists
from server.store.ledger import Ledger
from server.store.model import InsufficientFunds, StoreUnavailable
from server.tables.base import Detach, Expel, TableActor, TableCommand
from server.tables.connection import Connection

log = logging.getLogger("croupier.router")

if TYPE_CHECKING:
    from server.room.accounts import Identity
    from server.room.directory import Directory


class Router:
    """Accounts, sessions and the way to every table of this server."""

    def __init__(
        self,
        config: ServerConfig,
        accounts: Accounts,
        ledger: Ledger,
        tables: dict[str, TableActor],
        seat_index: dict[str, set[str]],
        waiting: WaitingLists | None = None,
    ) -> None:
        self.config = config
        self.accounts = accounts
        self.ledger = ledger
        self.tables = tables
        self.seat_index = seat_index  # account -> ids of the tables where it holds a seat
        self.table_order = {tid: i for i, tid in enumerate(tables)}
        self.by_account: dict[str, Connection] = {}
        self.closing = False
        self.waiting = waiting if waiting is not None else WaitingLists({})
        #: a deployment (server/room/directory.py): every table's owner, for the lobby and joins
        self.directory: Directory | None = None
        #: tournament id -> its runner (server/tournaments/runner.py), set by the server
        self.tournaments: dict[str, Any] = {}
        #: the staff console's reads and its live floor (server/net/staff.py)
        self.staff = StaffDesk(self)

    def route(self, conn: Connection, message: Any) -> Awaitable[None] | None:
        """Handle one valid message: session and lobby here (:data:`ROUTES`), table messages
        to the table. A ``hello`` in a deployment returns an awaitable (its wallet is taken
        from the store first); the connection's reader awaits it before the next message."""
        handler = ROUTES.get(type(message))
        if handler is None:  # a table's message (most of them, in play)
            if conn.account is None:
                raise ProtocolError(errors.HELLO_REQUIRED, "send hello first")
            self._to_table(conn, message)
            return None
        if conn.account is None and type(message) is not Hello:
            raise ProtocolError(errors.HELLO_REQUIRED, "send hello first")
        return handler(self, Command(conn, message))

    # -- the session's and the lobby's messages (:data:`ROUTES`) ----------------------------
    def on_hello(self, cmd: Command[Hello]) -> Awaitable[None] | None:
        return self.hello(cmd.conn, cmd.message)

    def on_lobby(self, cmd: Command[Lobby]) -> Awaitable[None] | None:
        rows = [self.lobby_row(t) for t in self.tables.values()]
        if self.directory is not None:  # every table of the deployment
            rows = self.directory.lobby({r.id: r for r in rows})
        cmd.conn.send(LobbyList(rows))
        return None

    def on_ping(self, cmd: Command[Ping]) -> Awaitable[None] | None:
        cmd.conn.send(Pong(cmd.message.nonce))
        return None

    def on_cashier(self, cmd: Command[Cashier]) -> Awaitable[None] | None:
        conn, message = cmd.conn, cmd.message
        if (
            self.directory is not None
            and message.op == "withdraw"
            and conn.role == "cashier"
            and message.account not in self.ledger.wallet_tokens
        ):
            return self._cashier_elsewhere(conn, message)
        self.cashier(conn, message)
        return None

    def on_logout(self, cmd: Command[Logout]) -> Awaitable[None] | None:
        self.logout(cmd.conn)
        return None

    def on_operator(self, cmd: Command[Operator]) -> Awaitable[None] | None:
        self.operate(cmd.conn, cmd.message)
        return None

    def on_staff(self, cmd: Command[Staff]) -> Awaitable[None] | None:
        return self.staff.query(cmd.conn, cmd.message)

    def on_tournaments(self, cmd: Command[Tournaments]) -> Awaitable[None] | None:
        conn, account = cmd.conn, cmd.conn.account or ""
        conn.send(TournamentList([r.info() for r in self.tournaments.values()]))
        for runner in self.tournaments.values():  # where this player stands in each
            if runner.entered(account):
                conn.send(runner.state_for(account, []))
        return None

    def on_entry(
        self, cmd: Command[Register | Unregister | BuyBack | Reserve]
    ) -> Awaitable[None] | None:
        """A player's entry message of a tournament: to its runner."""
        self.to_tournament(cmd.conn, cmd.message, cmd.message.tournament)
        return None

    def _to_table(self, conn: Connection, message: Any) -> None:
        """A message naming a table: to the table's inbox, or why not."""
        table = self.tables.get(message.table)
        if table is None and self.directory is not None and not self.closing:
            entry = self.directory.where(message.table)
            if entry is not None:  # another process's table, or one changing owner
                self.elsewhere(conn, message, entry.url)
                return None
        if table is None or self.closing:
            code, text = (
                (errors.UNKNOWN_TABLE, f"no table {message.table!r}")
                if table is None
                else (errors.SHUTTING_DOWN, "the server is shutting down")
            )
            ref = str(type(message).__struct_config__.tag)
            conn.send(Error(code=code, message=text, ref=ref, table=message.table))
            return None
        if isinstance(message, Wait | Unwait):
            self.wait(conn, message)
            return None
        table.submit(TableCommand(conn, message))
        return None

    def elsewhere(self, conn: Connection, message: Any, url: str | None) -> None:
        """A message for a table this process does not serve: its server's URL
        (``table_elsewhere``), or ``table_moving`` while no live process owns it."""
        ref = str(type(message).__struct_config__.tag)
        if url is not None and (self.directory is None or url != self.directory.url):
            text = f"table {message.table!r} is served at {url}"
            conn.send(
                Error(
                    code=errors.TABLE_ELSEWHERE, message=text, ref=ref, table=message.table, url=url
                )
            )
            return
        text = "the table's server stopped; another server takes it over: try again shortly"
        conn.send(Error(code=errors.TABLE_MOVING, message=text, ref=ref, table=message.table))

    def lobby_row(self, table: TableActor) -> Any:
        """A table's lobby row with the length of its waiting list."""
        return msgspec.structs.replace(table.info(), waiting=self.waiting.count(table.id))

    def wait(self, conn: Connection, message: Wait | Unwait) -> None:
        """Join or leave a waiting list (poker tables; ``server/room/waiting.py``)."""
        account = conn.account or ""
        if isinstance(message, Unwait):
            self.waiting.remove(account, message.table)
            return
        ref = "wait"
        if message.table not in self.waiting.tables:
            text = "this table has no waiting list"
            conn.send(Error(code=errors.WRONG_GAME, message=text, ref=ref, table=message.table))
        elif message.table in self.seat_index.get(account, ()):
            text = "you already sit at this table"
            conn.send(
                Error(code=errors.ALREADY_AT_TABLE, message=text, ref=ref, table=message.table)
            )
        else:
            self.waiting.add(conn, message.table, message.first_available)

    def hello(self, conn: Connection, message: Hello) -> Awaitable[None] | None:
        if conn.account is not None:
            raise ProtocolError(errors.ALREADY_HELLO, "hello was already accepted")
        if message.protocol != PROTOCOL_VERSION:
            raise ProtocolError(
                errors.PROTOCOL_VERSION, f"this server speaks protocol {PROTOCOL_VERSION}"
            )
        if message.name is not None and self.accounts.dev:
            why = names.why_not(message.name)
            if why is not None:
                raise ProtocolError(errors.BAD_NAME, why)
        if message.token is not None:
            try:
                ident = self.accounts.verify(message.token)
            except BadToken as exc:
                raise ProtocolError(errors.BAD_TOKEN, str(exc)) from None
            token = message.token
        elif self.accounts.dev:
            ident, token = self.accounts.guest(message.name)
        else:
            raise ProtocolError(errors.GUESTS_DISABLED, "this server needs a session token")
        if message.name is not None and message.name != ident.name and not self.accounts.dev:
            # production: a player's name is the operator's, on its session token
            raise ProtocolError(errors.BAD_NAME, "your name comes from your account")
        if self.directory is not None:  # a deployment: the wallet comes here first
            return self._take_wallet(conn, message, ident, token)
        self.welcome(conn, message, ident, token)
        return None

    async def _take_wallet(
        self, conn: Connection, message: Hello, ident: Identity, token: str
    ) -> None:
        assert self.directory is not None
        starting = self.config.starting_balance if self.accounts.dev else None
        try:
            await self.directory.take_wallet(self.ledger, ident.account, starting)
        except StoreUnavailable:
            raise ProtocolError(errors.STORE_UNAVAILABLE, self.ledger.why_not()) from None
        self.welcome(conn, message, ident, token)

    def welcome(self, conn: Connection, message: Hello, ident: Identity, token: str) -> None:
        """The session is established: the wallet's balance, the seats, ``welcome``."""
        if self.accounts.dev:  # no server mints money in production: the cashier does
            balance = self.ledger.open(ident.account, self.config.starting_balance)
        else:
            balance = self.ledger.balance(ident.account)
        if conn.account is None:  # a session opens: counted by role (/metrics)
            self.ledger.metrics.sessions[ident.role] += 1
        else:  # a second hello on the connection: the count follows its role
            self.ledger.metrics.sessions[conn.role] -= 1
            self.ledger.metrics.sessions[ident.role] += 1
        conn.account, conn.name = ident.account, message.name or ident.name
        conn.role, conn.token_id = ident.role, ident.token_id
        logs.ACCOUNT.set(ident.account)  # the connection's task: its lines name the account
        log.info("session opened (%s)", ident.role)
        old = self.by_account.get(ident.account)
        if old is not None and old is not conn:
            old.drop(CloseCode.REPLACED, "session taken over by a newer connection")
            self.detach(old)
        self.by_account[ident.account] = conn
        conn.send(
            Welcome(
                protocol=PROTOCOL_VERSION,
                token=token,
                account=ident.account,
                name=conn.name,
                balance=balance,
                dev=self.accounts.dev,
                seated=self.seated_tables(ident.account),
                max_frame=self.config.max_frame,
                rate=self.config.rate,
                burst=self.config.burst,
            )
        )
        if not self.ledger.can_move:  # why the welcome may wait (commit, then speak)
            conn.notice(self.store_status())

    def store_status(self) -> ServerStatus:
        """The money store's state, as ``server_status`` says it."""
        ok = self.ledger.can_move
        return ServerStatus(ok=ok, status="ok" if ok else self.ledger.why_not())

    def cashier(self, conn: Connection, m: Cashier) -> None:
        """The cashier moves money in and out of a wallet: idempotent per request id,
        refused below zero; every call, done or refused, is an entry of the audit log
        (server/room/operator.py) under the cashier's own name."""
        ledger = self.ledger

        def refused(code: str, text: str, amounts: dict[str, int] | None = None) -> None:
            self.cashier_refused(conn, m, code, text, amounts)

        if conn.role not in CASHIER_ROLES:
            refused(errors.NOT_AUTHORIZED, "only a cashier session may do that")
            return
        key = f"cashier:{m.request}"
        repeated = key in ledger.meta
        if m.op != "balance" and not repeated:
            if not ledger.can_move:
                refused(errors.STORE_UNAVAILABLE, ledger.why_not())
                return
            if m.op == "deposit" and (
                m.amount > self.config.max_deposit
                or ledger.balance(m.account) + m.amount > self.config.max_wallet
            ):
                text = (
                    f"a deposit may be at most {dollars(self.config.max_deposit)} and "
                    f"may bring a wallet to at most {dollars(self.config.max_wallet)}"
                )
                amounts = {
                    "balance": ledger.balance(m.account),
                    "amount": m.amount,
                    "max_deposit": self.config.max_deposit,
                    "max_wallet": self.config.max_wallet,
                }
                refused(errors.OVER_LIMIT, text, amounts)
                return
            try:
                if m.op == "deposit":
                    ledger.deposit(m.account, m.amount)
                else:
                    ledger.withdraw(m.account, m.amount)
            except InsufficientFunds as exc:
                refused(errors.INSUFFICIENT_FUNDS, str(exc), exc.amounts())
                return
            ledger.remember(key, m.op)
            notify = self.by_account.get(m.account)
            if notify is not None:
                notify.send(Balance(ledger.balance(m.account)))
        balance = ledger.balance(m.account)
        detail = f"{m.account}'s wallet {dollars(balance)}"
        if repeated:
            detail += " (already applied: nothing moved again)"
        effect = {"balance": balance, "repeated": repeated}
        self.cashier_audit(conn, m, operator.Done(detail, effect))
        conn.send(
            CashierDone(
                request=m.request,
                op=m.op,
                account=m.account,
                amount=m.amount,
                balance=balance,
                repeated=repeated,
            )
        )

    def cashier_audit(self, conn: Connection, m: Cashier, outcome: operator.Outcome) -> None:
        """A cashier call's entry in the audit log (server/room/operator.py): the wallet's
        account is the target, the amount and request id what was asked."""
        asked = {"amount": m.amount, "request": m.request}
        operator.entry(
            self.ledger,
            operator.Staff.of(conn),
            m.op,
            reason=None,
            target={"account": m.account},
            asked=asked,
            outcome=outcome,
        )

    def cashier_refused(
        self,
        conn: Connection,
        m: Cashier,
        code: str,
        text: str,
        amounts: dict[str, int] | None = None,
    ) -> None:
        """A refused cashier call: audited, then the ``error``."""
        self.cashier_audit(conn, m, operator.Refusal(code, text))
        conn.send(Error(code=code, message=text, ref="cashier", amounts=amounts))

    async def _cashier_elsewhere(self, conn: Connection, m: Cashier) -> None:
        """A deployment: a withdrawal from a wallet this process does not hold takes the
        wallet first (a new wallet token; docs/rulings.md, "A deployment of several
        servers"), so the debit is checked against the stored balance."""
        assert self.directory is not None
        try:
            await self.directory.take_wallet(self.ledger, m.account)
        except StoreUnavailable:
            self.cashier_refused(conn, m, errors.STORE_UNAVAILABLE, self.ledger.why_not())
            return
        self.cashier(conn, m)

    def operate(self, conn: Connection, m: Operator) -> None:
        """A staff control: authorised by its class's roles, then applied through
        :data:`STAFF_CONTROLS` (account controls here, table controls by the table's own task,
        tournament controls by the tournament's runner). Whoever decides the outcome writes
        its audit entry (server/room/operator.py) in the same step: here a refusal by role, a
        missing target and every account control."""
        control = operator.control_of(m)
        if conn.role not in control.ROLES:
            text = f"a {conn.role} may not {m.action.replace('_', ' ')}"
            refusal = operator.Refusal(errors.NOT_AUTHORIZED, text)
            operator.control(self.ledger, operator.Staff.of(conn), m, refusal)
            conn.send(Error(code=errors.NOT_AUTHORIZED, message=text, ref="operator"))
            return
        STAFF_CONTROLS[type(control)](self, Command(conn, control))

    def on_account_control(self, cmd: Command[operator.Suspend | operator.Unsuspend]) -> None:
        """Suspend or lift an account, here."""
        conn, m = cmd.conn, cmd.message.message
        staff = operator.Staff.of(conn)
        if m.account is None:
            text = f"{m.action} needs an account"
            operator.control(self.ledger, staff, m, operator.Refusal(errors.BAD_MESSAGE, text))
            raise ProtocolError(errors.BAD_MESSAGE, text)
        done = self.suspend(m.account, isinstance(cmd.message, operator.Suspend), m.reason)
        operator.control(self.ledger, staff, m, done)
        effect = dict(done.effect or {}) or None
        conn.send(OperatorDone(m.action, None, m.account, done.detail, effect))

    def on_tournament_control(self, cmd: Command[operator.Control]) -> None:
        """A Tournament Director's control: to the tournament's runner."""
        m = cmd.message.message
        self.to_tournament(cmd.conn, m, m.tournament or "")

    def on_table_control(self, cmd: Command[operator.Control]) -> None:
        """A table's control: its table decides and writes the entry."""
        conn, m = cmd.conn, cmd.message.message
        table = self.tables.get(m.table or "")
        if table is None:
            text = f"no table {m.table!r}"
            refusal = operator.Refusal(errors.UNKNOWN_TABLE, text)
            operator.control(self.ledger, operator.Staff.of(conn), m, refusal)
            conn.send(Error(code=errors.UNKNOWN_TABLE, message=text, ref="operator"))
            return
        table.submit(TableCommand(conn, m))

    def to_tournament(self, conn: Connection, message: Any, tournament: str) -> None:
        """A tournament message to its runner's inbox (server/tournaments/runner.py)."""
        runner = self.tournaments.get(tournament)
        if runner is None:
            ref = str(type(message).__struct_config__.tag)
            text = f"no tournament {tournament!r}"
            if isinstance(message, Operator):  # a director's control: in the audit log
                refusal = operator.Refusal(errors.UNKNOWN_TOURNAMENT, text)
                operator.control(self.ledger, operator.Staff.of(conn), message, refusal)
            conn.send(Error(code=errors.UNKNOWN_TOURNAMENT, message=text, ref=ref))
            return
        runner.submit(TableCommand(conn, message))

    def suspend(self, account: str, on: bool, reason: str) -> operator.Done:
        """Suspend (or lift): the account's tokens are refused; its connection is closed and
        its seats vacated (stakes home after any round in play). What was done."""
        key = f"suspended:{account}"
        if not on:
            self.accounts.suspended.discard(account)
            self.ledger.remember(key, "")
            return operator.Done(f"unsuspended: {reason}", {"suspended": False})
        self.accounts.suspended.add(account)
        self.ledger.remember(key, reason)
        conn = self.by_account.get(account)
        if conn is not None:
            conn.drop(CloseCode.POLICY, "account suspended")
        tables = [t for t in sorted(self.seat_index.get(account, ())) if t in self.tables]
        for table_id in tables:
            self.tables[table_id].submit(Expel(account, "suspended"))
        effect = {"suspended": True, "disconnected": conn is not None, "seats_vacated": tables}
        return operator.Done(f"suspended: {reason}", effect)

    def logout(self, conn: Connection) -> None:
        """Revoke this connection's token (kept in the store) and close the session."""
        if conn.token_id:
            self.accounts.revoked.add(conn.token_id)
            self.ledger.remember(f"revoked:{conn.token_id}", "logout")
        conn.finish(CloseCode.NORMAL, "logged out")

    def detach(self, conn: Connection) -> None:
        """The connection is gone: every table it was at holds its seat for the grace."""
        for table_id in list(conn.tables):
            table = self.tables.get(table_id)  # gone: a deployment's table that moved
            if table is not None:
                table.submit(Detach(conn))

    def disconnected(self, conn: Connection) -> None:
        if conn.account and self.by_account.get(conn.account) is conn:
            del self.by_account[conn.account]
            if self.directory is not None:  # its wallet may be taken elsewhere now
                self.ledger.release_wallet(conn.account)
        self.waiting.forget(conn)
        self.staff.forget(conn)
        self.detach(conn)

    def seated_tables(self, account: str) -> list[str]:
        """Ids of the tables where ``account`` holds a seat, in lobby order (from the index
        the tables keep: a reconnect storm of thousands of players costs no table scan)."""
        order = self.table_order
        return sorted(self.seat_index.get(account, ()), key=lambda t: (order.get(t, len(order)), t))


#: The messages the router answers itself (server/actor.py's dispatch style: message class
#: -> handler); every other names a table (``message.table``) and goes to its inbox.
ROUTES: Handlers[Router, Awaitable[None] | None] = (
    Handlers[Router, Awaitable[None] | None]()
    .command(Hello, Router.on_hello)
    .command(Lobby, Router.on_lobby)
    .command(Ping, Router.on_ping)
    .command(Cashier, Router.on_cashier)
    .command(Logout, Router.on_logout)
    .command(Operator, Router.on_operator)
    .command(Staff, Router.on_staff)
    .command(Tournaments, Router.on_tournaments)
    .command(Register, Router.on_entry)
    .command(Unregister, Router.on_entry)
    .command(BuyBack, Router.on_entry)
    .command(Reserve, Router.on_entry)
)

#: Where each staff control goes (server/room/operator.py: one class per control).
STAFF_CONTROLS: Handlers[Router, None] = (
    Handlers[Router, None]()
    .command(operator.Suspend, Router.on_account_control)
    .command(operator.Unsuspend, Router.on_account_control)
    .command(operator.CloseTable, Router.on_table_control)
    .command(operator.OpenTable, Router.on_table_control)
    .command(operator.SetLimits, Router.on_table_control)
    .command(operator.VoidRound, Router.on_table_control)
    .command(operator.CorrectResult, Router.on_table_control)
    .command(operator.ApproveJackpot, Router.on_table_control)
    .command(operator.StartTournament, Router.on_tournament_control)
    .command(operator.PauseTournament, Router.on_tournament_control)
    .command(operator.BreakTournament, Router.on_tournament_control)
    .command(operator.ResumeTournament, Router.on_tournament_control)
    .command(operator.MovePlayer, Router.on_tournament_control)
    .command(operator.Disqualify, Router.on_tournament_control)
    .command(operator.AwardPlaces, Router.on_tournament_control)
    .command(operator.CancelTournament, Router.on_tournament_control)
)
