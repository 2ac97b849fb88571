"""A small async client library for the croupier protocol (trio + websockets + plain msgpack).

It speaks only what ``protocol/README.md`` documents, so it doubles as a worked example::

    async with Client.connect("ws://127.0.0.1:8765/ws", name="ann") as client:
        tables = await client.lobby()
        await client.join(tables[0]["id"])            # waits for the snapshot
        await client.buy_in(tables[0]["id"], tables[0]["min_buy_in"])
        async for message in client:                  # every decoded message, in order
            view = client.tables[message.get("table")]  # kept up to date for you
            if message["type"] == "turn" and message["legal"]:
                await client.act(message["table"], "check" if "check" in message["legal"]
                                 else "fold")

A deployment of several servers (``croupier serve --directory``): :meth:`Client.join` follows
a ``table_elsewhere`` answer on its own (it moves this client's one connection to the
server named, says ``hello`` there with the same token, and joins again) and waits out a
``table_moving`` answer (the table's server died; another takes it over within its lease).

Messages are plain dicts (``msgpack.unpackb``). The server sends the events of one table step
in one ``events`` frame; the client hands them out one by one (:func:`unbatch`), each with its
own ``seq``: an ``event`` message per event, and a ``turn`` message for a ``turn`` event (its
fields at the top level, as above). :class:`TableView` keeps the latest snapshot of each
joined table and applies the table-level events and turns to it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import msgpack
import trio
from websockets.trio.client import connect as ws_connect

PROTOCOL_VERSION = 1
#: ``table_elsewhere`` answers followed in a row before :meth:`Client.join` gives up
MAX_REDIRECTS = 5
#: seconds :meth:`Client.join` waits out ``table_moving`` (a lease runs 10 s by default)
MOVING_WAIT = 30.0

Message = dict[str, Any]

#: The share of the server's message limit (``welcome.rate`` and ``welcome.burst``) this
#: library keeps to: the rest absorbs the jitter of the network, which can bunch messages
#: that left evenly.
PACE_SHARE = 0.8


class Pace:
    """The client's side of the server's message limit (protocol/README.md, "Errors"): a
    token bucket that makes :meth:`Client.send` wait instead of being refused
    ``rate_limited``. It keeps to :data:`PACE_SHARE` of the sustained rate and half the
    burst, so the server's own bucket never runs dry even when messages arrive bunched."""

    def __init__(self, rate: float = 50.0, burst: float = 100.0) -> None:
        self.rate = rate * PACE_SHARE
        self.burst = max(1.0, burst / 2)
        self.tokens = self.burst
        self.at: float | None = None

    def ready(self) -> bool:
        """Whether :meth:`take` would return at once (a message may go now)."""
        tokens = self.tokens
        if self.at is not None:
            tokens = min(self.burst, tokens + (trio.current_time() - self.at) * self.rate)
        return tokens >= 1

    async def take(self) -> None:
        while True:
            now = trio.current_time()
            if self.at is not None:
                self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
            self.at = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await trio.sleep((1 - self.tokens) / self.rate)


def legal_map(legal: Any) -> dict[str, Any]:
    """Legal actions as ``{verb: bounds}`` for quick look-ups (``"check" in legal``).

    On the wire legal actions have one form, a list of ``{"verb": ..., bounds}`` (the
    ``turn`` event, the snapshot's ``round.legal``, the scenario result)."""
    if isinstance(legal, dict):
        return legal
    out: dict[str, Any] = {}
    for entry in legal or ():
        bounds = dict(entry)
        out[bounds.pop("verb")] = bounds
    return out


def unbatch(frame: Message) -> list[Message]:
    """One ``events`` frame as one message per event, in order, each with its own ``seq``.

    The frame's ``seq`` is that of its last event, so event ``i`` of ``n`` has
    ``seq - n + 1 + i`` (protocol/README.md, "Events"). A ``turn`` event becomes a ``turn``
    message ``{type, table, seq, seat, legal, time_ms, time_bank_ms}``; any other event an
    ``event`` message ``{type: "event", table, seq, event}``. Other frames are returned as is.
    A turn message's ``legal`` is given as :func:`legal_map` (``{verb: bounds}``).
    """
    if frame.get("type") != "events":
        return [frame]
    events = frame.get("events") or []
    table, first = frame.get("table"), frame.get("seq", 0) - len(events) + 1
    out: list[Message] = []
    for i, event in enumerate(events):
        if event.get("type") == "turn":
            legal = legal_map(event.get("legal"))
            out.append({**event, "legal": legal, "table": table, "seq": first + i})
        else:
            out.append({"type": "event", "table": table, "seq": first + i, "event": event})
    return out


class ServerError(Exception):
    """The server refused a request with an ``error`` message (``code`` is stable)."""

    def __init__(self, message: Message) -> None:
        super().__init__(f"{message.get('code')}: {message.get('message')}")
        self.code: str = message.get("code", "")
        self.reason: str | None = message.get("reason")
        self.message = message


class TableView:
    """The latest view of one table as this client knows it.

    ``view`` is the last snapshot's view with every later message applied: seats, stakes,
    status, turn, and ``view["round"]`` (the same keys as the snapshot's round: per seat
    ``stack``, ``bet``, ``in_pot``, ``folded``, ``allin``, ``cards`` when known; ``board``,
    ``pot``, ``to_act``, ``round``, ``complete``), rebuilt from the round events.
    ``round_events`` are the round events since the last round started or the snapshot;
    ``turn`` is the last ``turn`` (see :func:`unbatch`; ``legal`` is non-empty when it is this
    client's turn); ``seq`` is the last sequence number seen.
    """

    def __init__(self, snapshot: Message) -> None:
        self.table: str = snapshot["table"]
        self.role: str = snapshot["role"]
        self.seat: int | None = snapshot["seat"]
        self.seq: int = snapshot["seq"]
        self.view: dict[str, Any] = snapshot["view"]
        self.round_events: list[dict[str, Any]] = []
        self.turn: Message | None = None
        self.left = False

    @property
    def my_turn(self) -> bool:
        return bool(self.turn and self.turn.get("legal") and self.turn["seat"] == self.seat)

    @property
    def legal(self) -> dict[str, Any]:
        return (self.turn or {}).get("legal") or {}

    def seat_info(self, seat: int) -> dict[str, Any] | None:
        for s in self.view.get("seats", []):
            if s["seat"] == seat:
                return s
        return None

    @property
    def stake(self) -> int | None:
        info = self.seat_info(self.seat) if self.seat is not None else None
        return info["stake"] if info else None

    def apply(self, message: Message) -> None:
        """Fold one table message (already known to be for this table) into the view."""
        self.seq = message.get("seq", self.seq)
        kind = message["type"]
        if kind == "snapshot":
            self.__init__(message)  # type: ignore[misc]  # a snapshot re-initialises the view in place
            return
        if kind == "turn":
            self.turn = message
            self.view["turn"] = {k: message[k] for k in ("seat", "time_ms", "time_bank_ms")}
            if self.view.get("round"):
                self.view["round"]["to_act"] = message["seat"]
            return
        if kind == "left":
            self.left = True
            return
        if kind != "event":
            return
        event = message["event"]
        etype = event.get("type")
        seats = self.view.setdefault("seats", [])
        if etype == "seat_taken":
            seats.append(
                {
                    "seat": event["seat"],
                    "name": event.get("name", ""),
                    "stake": 0,
                    "sitting_out": False,
                    "connected": True,
                    "in_round": False,
                }
            )
            seats.sort(key=lambda s: s["seat"])
        elif etype == "seat_vacated":
            self.view["seats"] = [s for s in seats if s["seat"] != event["seat"]]
        elif etype == "stake":
            info = self.seat_info(event["seat"])
            if info is not None:
                info["stake"] = event["stake"]
        elif etype in ("sat_out", "sat_in"):
            info = self.seat_info(event["seat"])
            if info is not None:
                info["sitting_out"] = etype == "sat_out"
        elif etype == "connection":
            info = self.seat_info(event["seat"])
            if info is not None:
                info["connected"] = event["connected"]
        elif etype == "round_starting":
            self.round_events = []
            self.turn = None
            self.view["status"] = "playing"
            self.view["hand"] = event["hand"]
            self.view["designated"] = event["designated"]
            for s in seats:
                s["in_round"] = s["seat"] in event.get("seats", [])
            self.view["round"] = {
                "designated": event["designated"],
                "round": 1,
                "board": [],
                "pot": 0,
                "to_act": None,
                "complete": False,
                "seats": {
                    str(s["seat"]): {
                        "stack": s["stake"],
                        "bet": 0,
                        "in_pot": 0,
                        "folded": False,
                        "allin": False,
                    }
                    for s in seats
                    if s["in_round"]
                },
            }
        elif etype == "table_closing":
            self.view["status"] = "closing"
        else:
            self.round_events.append(event)
            self._apply_round(event)

    def _apply_round(self, event: dict[str, Any]) -> None:
        """Keep ``view["round"]`` (same keys as the snapshot's) up to date from round events."""
        rnd = self.view.get("round")
        if not isinstance(rnd, dict):  # a banked table's view.round is the round number
            rnd = None
        etype = event.get("type")
        if etype in ("round_ended", "round_voided"):
            self.turn = None
            self.view["turn"] = None
            if self.view.get("status") == "playing":
                self.view["status"] = "waiting"
            for seat, stake in (event.get("stacks") or {}).items():
                info = self.seat_info(int(seat))
                if info is not None:
                    info["stake"] = stake
                if rnd and str(seat) in rnd["seats"]:
                    rnd["seats"][str(seat)]["stack"] = stake
            if rnd:
                rnd["complete"], rnd["to_act"] = True, None
            return
        if not rnd:
            return
        seat = rnd["seats"].get(str(event.get("seat")))
        if etype == "action_taken":
            self.turn = None
        if seat is None and etype not in ("board_dealt", "betting_round_ended"):
            return
        if etype == "blind_posted":
            seat["stack"] = event["stack"]
            if event["kind"] != "dead":
                seat["bet"] += event["amount"]
                seat["in_pot"] += event["amount"]
            rnd["pot"] += event["amount"]
        elif etype == "fee_charged":
            seat["stack"] -= event["amount"]
        elif etype == "hole_cards_dealt" or etype == "hand_shown":
            seat["cards"] = list(event["cards"])
        elif etype == "board_dealt":
            rnd["board"] = list(event["board"])
            rnd["round"] = event["round"]
        elif etype == "action_taken":
            seat["stack"] = event["stack"]
            seat["bet"] = event["total"]
            seat["in_pot"] += event["amount"]
            rnd["pot"] += event["amount"]
            seat["folded"] = seat["folded"] or event["verb"] == "fold"
            seat["allin"] = event["stack"] == 0 and not seat["folded"]
            rnd["to_act"] = None
        elif etype == "betting_round_ended":
            for info in rnd["seats"].values():
                info["bet"] = 0
            rnd["pot"] = event["pot"]
            rnd["round"] = event["round"] + 1
        elif etype == "uncalled_returned":
            seat["stack"] += event["amount"]
            seat["in_pot"] -= event["amount"]
            rnd["pot"] -= event["amount"]


class Client:
    """One connection to a croupier server. Use :meth:`connect` (an async context manager)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.welcome: Message = {}
        self.tables: dict[str, TableView] = {}
        self.balance: int | None = None
        #: the last ``tournament`` state message of each tournament (protocol/README.md)
        self.tournament_state: dict[str, Message] = {}
        self._pending: deque[Message] = deque()
        self._unbatched: deque[Message] = deque()  # the rest of the last events frame
        self.url: str | None = None
        self._open: Callable[[str], Awaitable[Any]] | None = None  # a connection to a URL
        self._name: str | None = None
        self.pace = Pace()  # the server's figures replace the protocol's defaults at welcome

    # -- connection ------------------------------------------------------------------------
    @classmethod
    @asynccontextmanager
    async def connect(
        cls,
        url: str,
        *,
        token: str | None = None,
        name: str | None = None,
        hello: bool = True,
        max_size: int = 2**20,
        max_queue: int | None = None,
        close_timeout: float = 2.0,
    ) -> AsyncIterator[Client]:
        """Open a connection and (by default) say ``hello``; yields the ready client.

        ``max_queue=None`` keeps reading frames off the socket even while the caller is busy
        (the server drops clients that fall too far behind anyway), so that closing never
        waits on a paused reader.
        """

        def opener(to: str) -> Any:
            return ws_connect(
                to,
                max_size=max_size,
                max_queue=max_queue,
                compression=None,
                proxy=None,
                close_timeout=close_timeout,
            )

        first = opener(url)
        async with first as ws:
            client = cls(ws)
            client.url = url
            # a redirect's connection runs in the first one's nursery (closed before it)
            client._open = lambda to: opener(to).connect(first.nursery)
            try:
                if hello:
                    await client.hello(token=token, name=name)
                yield client
            finally:
                if client.ws is not ws:
                    await client.ws.aclose()

    async def move(self, url: str) -> None:
        """Move this client's connection to the server at ``url`` (a deployment's redirect):
        the same account (its token), no table joined there yet."""
        if self._open is None:
            raise RuntimeError("this client cannot move (not opened by Client.connect)")
        ws = await self._open(url)
        old, self.ws, self.url = self.ws, ws, url
        await old.aclose()
        self.tables.clear()
        self._pending.clear()
        self._unbatched.clear()
        await self.hello(token=self.token, name=self._name)

    @property
    def token(self) -> str | None:
        return self.welcome.get("token")

    @property
    def account(self) -> str | None:
        return self.welcome.get("account")

    async def send(self, message: Message) -> None:
        """Send one message (a dict with a ``type``), within the server's message limit
        (:class:`Pace`: it waits rather than be refused)."""
        await self.pace.take()
        await self.ws.send(msgpack.packb(message, use_bin_type=True))

    async def send_raw(self, frame: bytes | str) -> None:
        """Send an arbitrary frame (tests of bad input)."""
        await self.ws.send(frame)

    async def recv(self) -> Message:
        """The next message, buffered ones first; table messages are applied to the views."""
        if self._pending:
            return self._pending.popleft()
        return self._track(await self._recv_raw())

    async def _recv_raw(self) -> Message:
        """The next message off the socket; an ``events`` frame gives one per event."""
        while not self._unbatched:
            frame = await self.ws.recv()
            self._unbatched.extend(unbatch(msgpack.unpackb(frame, raw=False, strict_map_key=False)))
        return self._unbatched.popleft()

    def _track(self, message: Message) -> Message:
        kind = message.get("type")
        if kind == "balance":
            self.balance = message["balance"]
        elif kind == "tournament":
            self.tournament_state[message["tournament"]] = message
        elif kind == "snapshot":
            self.tables[message["table"]] = TableView(message)
        elif kind in ("event", "turn", "left"):
            view = self.tables.get(message["table"])
            if view is not None:
                view.apply(message)
        return message

    def __aiter__(self) -> AsyncIterator[Message]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Message]:
        from websockets.exceptions import ConnectionClosed

        while True:
            try:
                yield await self.recv()
            except ConnectionClosed:
                return

    async def request(self, message: Message, expect: str | tuple[str, ...]) -> Message:
        """Send ``message`` and wait for a reply of type ``expect`` (or raise ServerError).

        Other messages arriving meanwhile are kept, in order, for :meth:`recv`/iteration.
        An ``error`` whose ``ref`` names another message type is kept too.
        """
        expected = (expect,) if isinstance(expect, str) else expect
        await self.send(message)
        while True:
            reply = self._track(await self._recv_raw())
            if reply.get("type") in expected:
                return reply
            if reply.get("type") == "error" and reply.get("ref") in (message["type"], None):
                raise ServerError(reply)
            self._pending.append(reply)

    # -- protocol verbs --------------------------------------------------------------------
    async def hello(self, *, token: str | None = None, name: str | None = None) -> Message:
        msg: Message = {"type": "hello", "protocol": PROTOCOL_VERSION}
        if token:
            msg["token"] = token
        if name:
            msg["name"] = name
            self._name = name
        self.welcome = await self.request(msg, "welcome")
        self.balance = self.welcome["balance"]
        if "rate" in self.welcome:  # the server's own limit (older servers: the defaults)
            self.pace = Pace(self.welcome["rate"], self.welcome["burst"])
        return self.welcome

    async def lobby(self) -> list[Message]:
        return (await self.request({"type": "lobby"}, "lobby"))["tables"]

    async def join(
        self,
        table: str,
        *,
        role: str = "player",
        seat: int | None = None,
        last_seq: int | None = None,
    ) -> TableView:
        """Join (or resume) a table; returns its view once the snapshot arrived. In a
        deployment, a ``table_elsewhere`` answer moves the connection to the server named
        and joins there; ``table_moving`` is waited out (up to :data:`MOVING_WAIT`)."""
        msg: Message = {"type": "join", "table": table, "role": role}
        if seat is not None:
            msg["seat"] = seat
        if last_seq is not None:
            msg["last_seq"] = last_seq
        redirects = 0
        with trio.move_on_after(MOVING_WAIT) as waited:
            while True:
                try:
                    await self.request(msg, "snapshot")
                    return self.tables[table]
                except ServerError as exc:
                    url = exc.message.get("url")
                    if exc.code == "table_elsewhere" and url and redirects < MAX_REDIRECTS:
                        redirects += 1
                        await self.move(url)
                    elif exc.code == "table_moving":
                        await trio.sleep(0.25)
                    else:
                        raise
        assert waited.cancelled_caught
        raise ServerError({"code": "table_moving", "message": f"table {table} did not reopen"})

    async def buy_in(self, table: str, amount: int) -> int:
        """Buy in or top up; returns the new wallet balance."""
        return (
            await self.request({"type": "buy_in", "table": table, "amount": amount}, "balance")
        )["balance"]

    async def act(self, table: str, verb: str, amount: int | None = None) -> None:
        """Send a betting action (no reply is awaited: watch for events or an error)."""
        msg: Message = {"type": "act", "table": table, "verb": verb}
        if amount is not None:
            msg["amount"] = amount
        await self.send(msg)

    async def sit_out(self, table: str) -> None:
        await self.send({"type": "sit_out", "table": table})

    async def sit_in(self, table: str) -> None:
        await self.send({"type": "sit_in", "table": table})

    async def leave(self, table: str) -> Message:
        """Leave a table; returns the ``left`` message (its ``returned`` cents)."""
        return await self.request({"type": "leave", "table": table}, "left")

    # -- banked tables (player vs house) ---------------------------------------------------
    async def wager(
        self, table: str, box: int, wager: str, amount: int, behind: bool = False
    ) -> Message:
        """Make, change or withdraw (``amount`` 0) a wager on a box while betting is open
        (``behind``: as a backer of a box another player holds); returns the table's
        ``wager_placed`` event (raises ServerError if refused)."""
        msg: Message = {"type": "wager", "table": table, "box": box, "wager": wager}
        msg["amount"] = amount
        if behind:
            msg["behind"] = True
        await self.send(msg)
        while True:
            reply = self._track(await self._recv_raw())
            if reply.get("type") == "error" and reply.get("ref") == "wager":
                raise ServerError(reply)
            event = reply.get("event") if reply.get("type") == "event" else None
            if (
                event
                and event.get("type") == "wager_placed"
                and reply.get("table") == table
                and event.get("box") == box
                and event.get("wager") == wager
            ):
                return event
            self._pending.append(reply)

    async def decide(
        self,
        table: str,
        box: int,
        verb: str,
        amount: int | None = None,
        setting: Mapping[str, list[str]] | None = None,
    ) -> None:
        """A box's decision on the current street (no reply awaited: watch for events);
        ``setting``: a pai gow ``set``'s hands, ``{"high": [t, t], "low": [t, t]}``."""
        msg: Message = {"type": "decide", "table": table, "box": box, "verb": verb}
        if amount is not None:
            msg["amount"] = amount
        if setting is not None:
            msg["setting"] = {"high": list(setting["high"]), "low": list(setting["low"])}
        await self.send(msg)

    async def history(self, table: str) -> list[Message]:
        """Game recall: this account's last rounds at ``table`` (oldest first)."""
        rounds: list[Message] = (
            await self.request({"type": "history", "table": table}, "history")
        )["rounds"]
        return rounds

    async def recall(self, table: str) -> Message | None:
        """This player's previous round at ``table``: bet, result and win (or None)."""
        return (await self.request({"type": "recall", "table": table}, "recall"))["last_round"]

    async def dev_force(
        self,
        table: str,
        boxes: dict[str, list[str]] | None = None,
        dealer: list[str] | None = None,
        board: list[str] | None = None,
        shoe: list[str] | None = None,
    ) -> int:
        """Dev mode only: fix the cards of the table's next round (``shoe``: a shoe game's
        first cards in dealing order); returns that round."""
        msg: Message = {
            "type": "dev_force",
            "table": table,
            "boxes": boxes or {},
            "dealer": dealer or [],
            "board": board or [],
        }
        if shoe:
            msg["shoe"] = shoe
        await self.send(msg)
        while True:
            reply = self._track(await self._recv_raw())
            if reply.get("type") == "error" and reply.get("ref") == "dev_force":
                raise ServerError(reply)
            event = reply.get("event") if reply.get("type") == "event" else None
            if event and event.get("type") == "dev_forced" and reply.get("table") == table:
                return int(event["round"])
            self._pending.append(reply)

    # -- tournaments (protocol/README.md, "Tournaments") ------------------------------------
    async def tournaments(self) -> list[Message]:
        """The tournaments with their published conditions and where each stands."""
        return (await self.request({"type": "tournaments"}, "tournaments"))["tournaments"]

    async def register(self, tournament: str) -> Message:
        """Enter a tournament (the entry fee leaves the wallet); its ``tournament`` state."""
        return await self.request({"type": "register", "tournament": tournament}, "tournament")

    async def unregister(self, tournament: str) -> Message:
        """Withdraw the entry before seating (ACT r 19.4: the fee back less the commission;
        a Canberra Poker entry is not refunded, r 17.23); the ``tournament`` state."""
        msg = {"type": "unregister", "tournament": tournament}
        return await self.request(msg, "tournament")

    async def reserve(self, tournament: str) -> Message:
        """Go on the reserve list (nothing paid until given a seat); the ``tournament``
        state."""
        return await self.request({"type": "reserve", "tournament": tournament}, "tournament")

    async def buy_back(self, tournament: str) -> Message:
        """Re-enter after being eliminated, as the conditions allow; the ``tournament``
        state (the new ``table`` and ``seat``)."""
        return await self.request({"type": "buy_back", "tournament": tournament}, "tournament")

    async def ping(self, nonce: int = 0) -> Message:
        return await self.request({"type": "ping", "nonce": nonce}, "pong")

    async def aclose(self) -> None:
        await self.ws.aclose()
