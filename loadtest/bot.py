"""One load-test bot: a seat at one table, played over a real WebSocket (protocol/README.md).

The bot connects, says ``hello`` (a dev-mode guest the first time, its session token after a
reconnect), takes its seat, buys in, and answers every ``turn`` addressed to it with a random
legal action within the bounds the server sent (after 1-3 s of "thought" at human pace, at
once at max pace). Between rounds it tops its stake up to its buy-in when it fell below the
table minimum. A reader task timestamps every frame, so the action latency is the time from
sending ``act`` until the ``action_taken`` event for its seat (or the ``error``) arrives.

With chaos on, a bot now and then drops its connection and comes back with its token
(``join {table, last_seq}`` resumes the held seat), or stops reading for a few seconds (a
slow reader; if the server's outbound queue for it overflows it is closed with 4002 and comes
back the same way). When the run stops the bot leaves its seat and records its final wallet
balance for the conservation check.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

import msgpack
import trio
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.trio.client import connect

from clients.client import unbatch
from loadtest.stats import Stats

#: Error codes a correct bot can still meet through honest races; everything else is
#: unexpected. A top-up sent just as the next round starts is refused with
#: ``round_in_progress``; the bot retries after that round.
BENIGN_ERRORS = frozenset({"round_in_progress"})
#: the names the load test's bots play under (``bot7``); any other is a person
BOT_NAME = re.compile(r"bot\d+")

#: Relative weights of the verbs a bot picks from the legal ones.
VERB_WEIGHTS = {"check": 5.0, "call": 5.0, "fold": 1.5, "bet": 2.0, "raise": 1.5, "allin": 0.1}


@dataclass
class TablePlan:
    """A table the run fills: its id, seats to fill and buy-in limits (from the lobby)."""

    id: str
    seats: int
    min_buy_in: int
    max_buy_in: int | None
    game: str = ""
    banked: bool = False  # a table against the house: loadtest/banked_bot.py plays it
    url: str | None = None  # a deployment: the process that serves it (else the run's URL)
    #: people sit at the table: a bot takes any free seat (the server picks), not its own
    any_seat: bool = False
    bank_box: int | None = None  # a box the house's bank sits on (pai gow): nobody takes it

    def boxes(self) -> list[int]:
        """The seats (boxes) the run fills, 1 up, passing over the bank's box."""
        return [b for b in range(1, self.seats + 2) if b != self.bank_box][: self.seats]

    @property
    def buy_in(self) -> int:
        """What a bot brings: ten minimum buy-ins, within the table's limits."""
        amount = self.min_buy_in * 10
        return min(amount, self.max_buy_in) if self.max_buy_in else amount


@dataclass
class RunContext:
    """What every bot of one worker shares."""

    url: str
    pace: str  # "human" or "max"
    chaos: bool
    stats: Stats
    rng: random.Random
    t0: float
    games: int | None  # hands per table, None = no limit
    stop: trio.Event = field(default_factory=trio.Event)
    connect_limit: trio.Semaphore = field(default_factory=lambda: trio.Semaphore(64))
    ended: dict[str, set[int]] = field(default_factory=dict)  # table -> hands ended
    voided: dict[str, set[int]] = field(default_factory=dict)
    table_done: dict[str, trio.Event] = field(default_factory=dict)

    def second(self) -> int:
        return int(trio.current_time() - self.t0)

    def done_event(self, table: str) -> trio.Event:
        ev = self.table_done.get(table)
        if ev is None:
            ev = self.table_done[table] = trio.Event()
        return ev

    def round_ended(self, table: str, hand: int) -> None:
        seen = self.ended.setdefault(table, set())
        if hand not in seen:
            seen.add(hand)
            self.stats.count("hands")
            if self.games is not None and len(seen) >= self.games:
                self.done_event(table).set()

    def round_voided(self, table: str, hand: int) -> None:
        seen = self.voided.setdefault(table, set())
        if hand not in seen:
            seen.add(hand)
            self.stats.count("voided")


class Bot:
    """A seat's worth of client: reconnects until the run stops, then leaves and settles."""

    def __init__(self, ctx: RunContext, index: int, table: TablePlan, seat: int) -> None:
        self.ctx = ctx
        self.index = index
        self.plan = table
        self.want_seat = seat
        self.rng = random.Random(ctx.rng.getrandbits(64))
        self.name = f"bot{index}"  # BOT_NAME
        self.token: str | None = None
        self.start_balance: int | None = None
        self.balance: int | None = None
        self.seat: int | None = None
        self.stake = 0
        self.hand = 0
        self.seq = 0
        self.seated = False
        self.retired = False  # busted or refused a seat: plays no more
        self.settled = False
        self.left_reason: str | None = None
        self.awaiting_balance = False
        self.turn_id = 0  # bumps on every turn/action: stale thinking is dropped
        self.pending_act: float | None = None
        self.topup_pending = False
        self.buyin_sent = False
        self.paused_until = 0.0
        self.leaving = False
        self.ws: Any = None
        self.chaos_closed = False

    # -- the bot's life ---------------------------------------------------------------------
    async def run(self) -> None:
        stats = self.ctx.stats
        stats.count("bots")
        attempts = 0
        while not self.settled and not self.retired:
            try:
                await self._session()
                attempts = 0
            except ConnectionClosed as exc:
                self._closed(exc)
            except (OSError, InvalidHandshake, TimeoutError) as exc:
                attempts += 1
                stats.errors["connect_failed"] += 1
                stats.problem(f"{self.name}: connect failed: {exc!r}")
                if attempts >= 5:
                    self.retired = True
                    break
                await trio.sleep(0.5 * attempts)
            if not self.settled and not self.retired:
                stats.count("reconnects")
                await trio.sleep(self.rng.uniform(0.2, 1.5) if self.chaos_closed else 0.2)

    def _closed(self, exc: ConnectionClosed) -> None:
        """Classify a closed connection: ours (chaos), expected, or unexpected."""
        stats = self.ctx.stats
        if self.chaos_closed:
            return
        code = exc.rcvd.code if exc.rcvd is not None else 1006
        stats.closes[str(code)] += 1
        stats.count("server_closes")
        if code == 4002 and self.ctx.chaos:
            return  # a chaos slow reader overflowed its outbound queue: expected
        stats.count("unexpected_closes")
        stats.problem(f"{self.name}: connection closed by the server with {code}")

    async def _session(self) -> None:
        """One connection: hello, sit (or resume), play until stop or a chaos drop."""
        self.chaos_closed = False
        self.pending_act = None
        self.paused_until = 0.0
        self.awaiting_balance = False
        limit = self.ctx.connect_limit
        await limit.acquire()  # bounded concurrent handshakes: released once connected
        held = True
        try:
            async with connect(
                self.plan.url or self.ctx.url,
                compression=None,
                max_size=2**16,
                proxy=None,
                open_timeout=60,
                ping_interval=None,
                close_timeout=2,
            ) as ws:
                limit.release()
                held = False
                self.ctx.stats.count("connected")
                try:
                    self.ws = ws
                    await self._play(ws)
                finally:
                    self.ctx.stats.count("connected", -1)
                    self.ws = None
        finally:
            if held:
                limit.release()

    async def _play(self, ws: Any) -> None:
        stats = self.ctx.stats
        hello: dict[str, Any] = {"type": "hello", "protocol": 1, "name": self.name}
        if self.token:
            hello["token"] = self.token
        await self._send(hello)
        welcome = await self._expect(ws, "welcome")
        self.token = welcome["token"]
        self.balance = welcome["balance"]
        if self.start_balance is None:
            self.start_balance = welcome["balance"]
            stats.balances_start += welcome["balance"]
            stats.count("welcomed")
        held = self.plan.id in welcome.get("seated", [])
        if self.seated and not held:
            self.seated = False  # the grace period ran out while we were away
        stopping = self.ctx.stop.is_set() or self.ctx.done_event(self.plan.id).is_set()
        if stopping and not held:
            self._settle(self.balance)
            return
        join: dict[str, Any] = {"type": "join", "table": self.plan.id, "role": "player"}
        if held:
            join["last_seq"] = self.seq
            stats.count("resumed")
        else:
            if not self.plan.any_seat:
                join["seat"] = self.want_seat
            self.seq = 0
        await self._send(join)
        self.seated = True
        closed: ConnectionClosed | None = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._watch_stop, ws, nursery)
            if self.ctx.chaos and not stopping:
                nursery.start_soon(self._chaos, ws, nursery)
            try:
                await self._reader(ws, nursery)
            except ConnectionClosed as exc:
                closed = exc
            nursery.cancel_scope.cancel()
        if closed is not None:
            raise closed

    async def _expect(self, ws: Any, kind: str) -> dict[str, Any]:
        while True:
            msg = await self._recv(ws)
            if msg.get("type") == kind:
                return msg
            if msg.get("type") == "error":
                self._error(msg)

    async def _send(self, message: dict[str, Any]) -> None:
        frame = msgpack.packb(message, use_bin_type=True)
        await self.ws.send(frame)
        self.ctx.stats.count("frames_out")
        self.ctx.stats.count("bytes_out", len(frame))

    async def _send_quiet(self, message: dict[str, Any]) -> None:
        """Send from a background task: a closed connection is the reader's to report."""
        try:
            await self._send(message)
        except ConnectionClosed:
            pass

    async def _recv(self, ws: Any) -> dict[str, Any]:
        frame = await ws.recv()
        stats = self.ctx.stats
        stats.count("frames_in")
        stats.count("bytes_in", len(frame))
        return msgpack.unpackb(frame, raw=False, strict_map_key=False)

    # -- reading ------------------------------------------------------------------------------
    async def _reader(self, ws: Any, nursery: trio.Nursery) -> None:
        while True:
            if self.paused_until:
                await trio.sleep_until(self.paused_until)
                self.paused_until = 0.0
            frame = await self._recv(ws)
            if frame.get("type") == "events":
                self.ctx.stats.kinds["frame:events"] += 1
            messages = unbatch(frame)  # one table step's events, one by one (own seq each)
            self.ctx.stats.count("messages_in", len(messages))
            for msg in messages:
                if self._handle(msg, nursery):
                    return

    def _handle(self, msg: dict[str, Any], nursery: trio.Nursery) -> bool:
        """Apply one message; True when the session is over (left and settled)."""
        kind = str(msg.get("type"))  # counted by name, as event types are below
        stats = self.ctx.stats
        stats.kinds[kind if kind != "event" else "event:" + str(msg["event"].get("type"))] += 1
        if kind in ("event", "turn", "left", "snapshot"):
            if msg.get("table") != self.plan.id:
                return False
            seq = msg.get("seq", 0)
            if kind != "snapshot" and seq != self.seq + 1:
                stats.count("gap_frames")
                stats.problem(f"{self.name}: seq {seq} after {self.seq}")
            self.seq = seq
        if kind in ("event", "snapshot"):
            self._spot_others(msg)
        if kind == "event":
            self._event(msg["event"], nursery)
        elif kind == "turn":
            self.turn_id += 1
            if msg.get("seat") == self.seat and msg.get("legal"):
                nursery.start_soon(self._act, msg["legal"], self.turn_id)
        elif kind == "snapshot":
            self._snapshot(msg, nursery)
        elif kind == "balance":
            self.balance = msg["balance"]
            self.buyin_sent = False
            if self.awaiting_balance:
                self.awaiting_balance = False
                return self._after_left(nursery)
        elif kind == "left":
            self.seated = False
            reason = msg.get("reason", "")
            self.left_reason = reason
            if reason != "left":
                stats.count("vacated")
                stats.vacated_reasons[reason] += 1
            self.awaiting_balance = True
        elif kind == "error":
            self._error(msg)
            if msg.get("ref") == "join":  # refused a seat: this bot cannot play
                self.retired = True
                self.seated = False
                self._settle(self.balance)
                return True
        return False

    def _spot_others(self, msg: dict[str, Any]) -> None:
        """Count a player who is not one of the load test's bots (a person at a bot table):
        the conservation check then knows the bots' net is not the house's alone."""
        body = msg.get("event") if msg["type"] == "event" else msg.get("view")
        body = body or {}
        names = [body.get("name")]
        names += [s.get("name") for s in body.get("seats") or [] if isinstance(s, dict)]
        names += [b.get("player") for b in body.get("boxes") or [] if isinstance(b, dict)]
        rows = body.get("boxes")
        if isinstance(rows, dict):  # a round_result's boxes
            names += [r.get("player") for r in rows.values() if isinstance(r, dict)]
        if any(isinstance(n, str) and n and not BOT_NAME.fullmatch(n) for n in names):
            self.ctx.stats.count("others_seen")

    def _after_left(self, nursery: trio.Nursery) -> bool:
        if self.leaving or self.left_reason in ("shutdown",):
            self._settle(self.balance)
            return True
        if self.left_reason == "busted" or (self.balance or 0) < self.plan.min_buy_in:
            self.retired = True
            self._settle(self.balance)
            return True
        # vacated for another reason (e.g. abstained): sit down again
        self.stake = 0
        join: dict[str, Any] = {"type": "join", "table": self.plan.id, "role": "player"}
        if not self.plan.any_seat:
            join["seat"] = self.want_seat
        nursery.start_soon(self._send_quiet, join)
        self.seated = True
        return False

    def _settle(self, balance: int | None) -> None:
        if not self.settled and balance is not None:
            self.settled = True
            self.ctx.stats.balances_end += balance
            self.ctx.stats.bots_settled += 1

    def _snapshot(self, msg: dict[str, Any], nursery: trio.Nursery) -> None:
        self.seat = msg.get("seat")
        view = msg.get("view") or {}
        self.hand = view.get("hand", self.hand)
        self.stake = 0
        for row in view.get("seats", []):
            if row.get("seat") == self.seat:
                self.stake = row.get("stake", 0)
        rnd = view.get("round") or {}
        in_round = any(
            r.get("seat") == self.seat and r.get("in_round") for r in view.get("seats", [])
        )
        if rnd.get("legal") and rnd.get("to_act") == self.seat:
            self.turn_id += 1
            legal = {e["verb"]: {k: v for k, v in e.items() if k != "verb"} for e in rnd["legal"]}
            nursery.start_soon(self._act, legal, self.turn_id)
        if not in_round and self.stake < self.plan.min_buy_in:
            self._top_up(nursery)

    def _event(self, ev: dict[str, Any], nursery: trio.Nursery) -> None:
        etype = ev.get("type")
        if etype in ("action_taken", "action"):  # README calls it "action"
            if ev.get("seat") == self.seat:
                self.turn_id += 1
                if self.pending_act is not None:
                    now = trio.current_time()
                    self.ctx.stats.latency_sample(
                        self.ctx.second(), (now - self.pending_act) * 1000.0, self.plan.game
                    )
                    self.pending_act = None
        elif etype == "round_starting":
            self.hand = ev.get("hand", self.hand)
        elif etype in ("round_ended", "round_voided"):
            stacks = ev.get("stacks") or {}
            mine = stacks.get(str(self.seat), stacks.get(self.seat))
            if mine is not None:
                self.stake = mine
            if etype == "round_ended":
                self.ctx.round_ended(self.plan.id, self.hand)
            else:
                self.ctx.round_voided(self.plan.id, self.hand)
            if self.stake < self.plan.min_buy_in or self.topup_pending:
                self._top_up(nursery)
        elif etype == "stake" and ev.get("seat") == self.seat:
            self.stake = ev.get("stake", self.stake)
        elif etype == "timed_out":
            if ev.get("seat") == self.seat:
                self.ctx.stats.count("timed_out")
                self.turn_id += 1
                self.pending_act = None

    def _error(self, msg: dict[str, Any]) -> None:
        code = msg.get("code", "?")
        stats = self.ctx.stats
        stats.errors[code] += 1
        if msg.get("ref") == "act":
            self.pending_act = None
        if msg.get("ref") == "buy_in":
            self.buyin_sent = False
            if code == "round_in_progress":
                self.topup_pending = True
        if code not in BENIGN_ERRORS:
            stats.problem(
                f"{self.name} at {self.plan.id}: {code} ({msg.get('ref')}): {msg.get('message')}"
            )

    def _top_up(self, nursery: trio.Nursery) -> None:
        if self.leaving or self.buyin_sent:
            return
        amount = self.plan.buy_in - self.stake
        if self.balance is not None:
            amount = min(amount, self.balance)
        if amount <= 0 or self.stake + amount < self.plan.min_buy_in:
            return
        self.topup_pending = False
        self.buyin_sent = True
        self.ctx.stats.count("buy_ins")
        nursery.start_soon(self._send_buy_in, amount)

    async def _send_buy_in(self, amount: int) -> None:
        """The buy-in, unless the seat went meanwhile: a ``left`` (abstained, say) in the
        same frame as the round's end that asked for it; the next seat's snapshot asks
        again (sent anyway, the table refused it: not_at_table)."""
        if not self.seated:
            self.buyin_sent = False
            return
        await self._send_quiet({"type": "buy_in", "table": self.plan.id, "amount": amount})

    # -- acting -------------------------------------------------------------------------------
    async def _act(self, legal: dict[str, Any], turn_id: int) -> None:
        if self.ctx.pace == "human":
            await trio.sleep(self.rng.uniform(1.0, 3.0))
        if turn_id != self.turn_id or self.leaving:
            return
        verb, amount = choose_action(legal, self.rng)
        msg: dict[str, Any] = {"type": "act", "table": self.plan.id, "verb": verb}
        if amount is not None:
            msg["amount"] = amount
        self.pending_act = trio.current_time()
        self.ctx.stats.count("actions")
        await self._send_quiet(msg)

    # -- stopping and chaos -------------------------------------------------------------------
    async def _watch_stop(self, ws: Any, nursery: trio.Nursery) -> None:
        table_done = self.ctx.done_event(self.plan.id)
        async with trio.open_nursery() as inner:

            async def wait(ev: trio.Event) -> None:
                await ev.wait()
                inner.cancel_scope.cancel()

            inner.start_soon(wait, self.ctx.stop)
            inner.start_soon(wait, table_done)
        self.leaving = True
        self.paused_until = 0.0
        if self.seated:
            await self._send_quiet({"type": "leave", "table": self.plan.id})

    async def _chaos(self, ws: Any, nursery: trio.Nursery) -> None:
        """Random disconnects (then reconnect with the token) and slow reading."""
        while True:
            await trio.sleep(self.rng.expovariate(1 / 12.0))
            if self.leaving:
                return
            if self.rng.random() < 0.5:
                self.ctx.stats.count("chaos_disconnects")
                self.chaos_closed = True
                await ws.aclose()
                return
            self.ctx.stats.count("chaos_slow_reads")
            self.paused_until = trio.current_time() + self.rng.uniform(1.0, 4.0)


def choose_action(legal: dict[str, Any], rng: random.Random) -> tuple[str, int | None]:
    """A random legal verb (weighted towards check/call) and, for bet/raise, a legal total."""
    verbs = [v for v in legal if v in VERB_WEIGHTS]
    if not verbs:
        return "fold", None
    verb = rng.choices(verbs, weights=[VERB_WEIGHTS[v] for v in verbs])[0]
    if verb not in ("bet", "raise"):
        return verb, None
    bounds = legal[verb]
    sizes = bounds.get("sizes")
    if sizes:
        return verb, int(rng.choice(sizes))
    low, high = int(bounds["min"]), int(bounds["max"])
    return verb, low + int((high - low) * rng.random() ** 4)
