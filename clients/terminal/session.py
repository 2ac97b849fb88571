"""What a poker and a banked table session share: output, typed commands, the message loop.

A session is one seat (or spectator) at one table. Subclasses say how to parse a line, draw
the table, fold the table's messages and apply the commands that are not quit, help or table.

Theory of operation (the display). On a terminal the session owns the whole screen (rich's
``Live`` on the alternate screen): the table panel at the top, the log below it filling the
rest, then the prompt and the line being typed. Every refresh repaints the screen from its
top-left corner, so nothing is ever drawn twice. The terminal is put in cbreak mode (no
echo): keystrokes go through :class:`LineEditor`, which the screen shows on its last line;
a typed newline hands the line to the command loop. Without a terminal (pipes, ``--plain``,
``--bot``) every log line is printed once, in order, so the client can be scripted.
"""

from __future__ import annotations

import codecs
import contextlib
import math
import os
import random
import secrets
import sys
import termios
import tty
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import trio
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.text import Text
from websockets.exceptions import ConnectionClosed

from clients.client import Client, TableView
from clients.terminal.commands import BadCommand
from clients.terminal.deployment import rejoin_moved
from clients.terminal.history import history_lines
from protocol.messages import SeedText


class Session:
    """State, rendering and message handling common to every kind of table."""

    #: printed by the ``h`` command
    HELP = ""
    #: printed once after the table when the display is not live
    HINT = ""
    #: what the bot summary counts
    ROUNDS = "rounds"

    def __init__(
        self,
        client: Client,
        table: TableView,
        console: Console,
        *,
        live: bool,
        bot: random.Random | None = None,
        hands: int = 0,
    ) -> None:
        self.client = client
        self.tv = table
        self.console = console
        self.live_mode = live
        self.live: Live | None = None
        self.bot = bot
        self.hands_wanted = hands
        self.hands_played = 0
        self.log: deque[Text] = deque(maxlen=500)
        self.editor: LineEditor | None = None  # the line being typed (live display only)
        self.pending: deque[Any] = deque()  # typed commands waiting for their moment
        self.queued = 0  # typed commands not yet applied (command_loop's queue)
        self.backlog = False  # a line said the queue formed; another says when it is sent
        self.quitting = False  # ``q`` typed: what is still queued is dropped
        self.dropped = 0  # queued commands dropped by ``q``
        self.said = 0  # lines said so far
        self.quit_said: int | None = None  # :attr:`said` when ``q`` was typed
        self.flushing = trio.Lock()  # one flush at a time (the typed commands', the pump's)
        self.done = trio.Event()
        self.closed = False  # the server closed the connection
        self.returned: int | None = None
        #: the player's own seed for every deal (``seed TEXT``); None: a fresh random one
        #: for each deal (server/fair.py: the deal mixes it with the server's secret)
        self.seed: str | None = None

    def help_text(self) -> str:
        """What ``h`` shows."""
        return self.HELP

    # to be provided by each kind of table
    @staticmethod
    def parse(line: str) -> Any:
        raise NotImplementedError

    def table_panel(self) -> Panel:
        raise NotImplementedError

    def prompt_text(self) -> Text:
        raise NotImplementedError

    def left_text(self, msg: dict[str, Any]) -> str:
        """The log line for the ``left`` message."""
        raise NotImplementedError

    def refusal_text(self, msg: dict[str, Any]) -> str:
        """An ``error``'s words as the player reads them (the server's ``message``)."""
        return str(msg.get("message"))

    async def on_refused(self, msg: dict[str, Any]) -> None:
        """An ``error`` message arrived (already logged)."""

    async def on_table_message(self, msg: dict[str, Any]) -> None:
        """A message about this table other than ``left``."""

    async def on_play_command(self, cmd: Any) -> None:
        """A typed command other than quit, help and table."""

    def moment(self, cmd: Any) -> dict[str, Any] | bool:
        """Whether a command in :attr:`pending` can go now: the message that sends it, True
        to keep it waiting, False to drop it (having said why)."""
        return True

    async def flush(self) -> None:
        """Send every waiting command whose moment has come (:meth:`moment`), in the order
        typed; the others keep waiting without holding up the ones behind them."""
        async with self.flushing:
            i = 0
            while i < len(self.pending):
                verdict = self.moment(self.pending[i])
                if verdict is True:
                    i += 1
                    continue
                del self.pending[i]
                if verdict:
                    await self.client.send(verdict)

    # output
    def say(self, line: str | Text, style: str = "") -> None:
        text = Text(line, style=style) if isinstance(line, str) else line
        self.log.append(text)
        self.said += 1
        if self.live is not None:
            self.refresh()
        else:
            self.console.print(text)

    def refresh(self) -> None:
        if self.live is not None:
            # the terminal's size now (it follows a resize; $COLUMNS/$LINES may be stale)
            with contextlib.suppress(OSError):
                self.console.size = os.get_terminal_size(sys.stdout.fileno())
            self.live.update(self.render(), refresh=True)

    def render(self) -> Group:
        """The table and the prompt; on the live screen also the log, sized to fill it."""
        panel = self.table_panel()
        prompt = self.prompt_text()
        if self.live is None:
            return Group(panel, prompt)
        width, height = self.console.size
        options = self.console.options.update(width=width)
        top = len(self.console.render_lines(panel, options, pad=False))
        room = max(height - top - 4, 1)  # the log's borders, the prompt, the typed line
        # a long line (a refusal and what to do) wraps inside the log rather than being cut
        inner = max(width - 4, 10)  # the log panel's borders and padding
        wrapped: list[Text] = []
        for entry in list(self.log)[-room:]:
            wrapped.extend(entry.wrap(self.console, inner))
        shown = wrapped[-room:]
        for line in shown:
            line.no_wrap, line.overflow = True, "ellipsis"
        typed = Text.assemble(("> ", "bold"), self.editor.buffer if self.editor else "", "_")
        if self.queued:
            typed.append(f"   ({self.queued} queued)", style="dim")
        prompt.no_wrap, prompt.overflow = True, "ellipsis"
        log = Panel(Group(*shown), title="log", border_style="dim", height=room + 2)
        return Group(panel, log, prompt, typed)

    def show_table(self) -> None:
        if self.live is None:
            self.console.print(self.table_panel())

    # the message loop
    async def on_message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "error":
            self.say(f"refused: {self.refusal_text(msg)} ({msg.get('code')})", "red")
            await self.on_refused(msg)
            return
        if kind == "balance":
            self.refresh()
            return
        if kind == "server_status":  # the money store went out or came back
            if msg.get("ok"):
                self.say("play resumed: the server's store is back", "green")
            else:
                self.say(f"play paused: {msg.get('status')}", "yellow")
            return
        event = msg.get("event") if kind == "event" else None
        if event is not None and event.get("type") == "secret_committed":
            await self.give_seed(str(msg.get("table")))  # the next deal's hash: our seed
        if msg.get("table") != self.tv.table:
            return
        if kind == "history":  # clients/terminal/history.py
            for line in history_lines(msg):
                self.say(line, "cyan")
            return
        if kind == "left":
            if await rejoin_moved(self, msg):  # a deployment: the table moved (deployment.py)
                return
            self.returned = msg.get("returned")
            self.say(self.left_text(msg))
            self.done.set()
            return
        await self.on_table_message(msg)

    async def leave(self) -> None:
        await self.client.send({"type": "leave", "table": self.tv.table})

    async def give_seed(self, table: str | None = None) -> None:
        """Our seed for the table's next deal (a player's only): the one set with ``seed
        TEXT``, or one this client makes at random for each deal."""
        view = self.client.tables.get(table or self.tv.table)
        if view is None or view.role != "player" or view.left:
            return
        seed = self.own_seed() or secrets.token_hex(16)
        await self.client.send({"type": "seed", "table": view.table, "seed": seed})

    def own_seed(self) -> str | None:
        """The seed the player set (``seed TEXT``), or None."""
        return self.seed

    async def on_seed_line(self, line: str) -> bool:
        """``seed TEXT`` sets our seed for the deals to come, ``seed`` alone goes back to a
        random one for each deal; whether the line was one."""
        word, _, rest = line.strip().partition(" ")
        if word.lower() != "seed":
            return False
        text = rest.strip()
        try:
            msgspec.convert(text or "-", SeedText)  # the protocol's form of a seed
        except msgspec.ValidationError:
            self.say("a seed is 1 to 64 printable ASCII characters", "red")
            return True
        self.seed = text or None
        self.say(f"your seed: {text!r} for every deal" if text else "your seed: random per deal")
        await self.give_seed()
        return True

    async def on_command(self, cmd: Any) -> bool:
        """Apply one typed command; False when the client should stop reading commands."""
        if cmd.kind == "quit":
            return False
        if cmd.kind == "help":
            if self.live is None:
                self.console.print(self.help_text())
            else:
                for line in self.help_text().splitlines():
                    self.say(line, "cyan")
        elif cmd.kind == "history":
            await self.client.send({"type": "history", "table": self.tv.table})
        elif cmd.kind == "table":
            if self.live is None:  # the live screen always shows it
                self.show_table()
                self.console.print(self.prompt_text())
        else:
            await self.on_play_command(cmd)
        return True


# -- stdin -------------------------------------------------------------------------------------
class LineEditor:
    """Keystrokes (cbreak terminal, no echo) -> typed lines; :attr:`buffer` is shown on screen.

    Enter ends a line, Backspace deletes, Ctrl-U clears, Ctrl-D on an empty line ends the
    input; escape sequences (arrow keys) are ignored. In cooked mode (before the live screen
    starts) the terminal hands over whole lines, which pass through unchanged.
    """

    def __init__(self) -> None:
        self.buffer = ""
        self.on_change: Callable[[], None] = lambda: None
        self._escape = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes) -> list[str | None]:
        """The lines completed by ``data`` (None: end of input)."""
        out: list[str | None] = []
        for ch in self._decoder.decode(data):
            if self._escape:
                self._escape = not (ch.isalpha() or ch == "~")
            elif ch == "\x1b":
                self._escape = True
            elif ch in "\r\n":
                out.append(self.buffer)
                self.buffer = ""
            elif ch in "\x7f\x08":
                self.buffer = self.buffer[:-1]
            elif ch == "\x15":
                self.buffer = ""
            elif ch == "\x04":
                if not self.buffer:
                    out.append(None)
            elif ch.isprintable():
                self.buffer += ch
        return out


async def read_keys(send: trio.MemorySendChannel[str | None], editor: LineEditor) -> None:
    """Feed the lines typed on the terminal into ``send`` through ``editor`` (None at the end)."""
    fd = sys.stdin.fileno()
    async with send:
        while True:
            data = await trio.to_thread.run_sync(os.read, fd, 1024, abandon_on_cancel=True)
            lines = editor.feed(data) if data else [None]
            for line in lines:
                await send.send(line)
                if line is None:
                    return
            editor.on_change()


@contextlib.contextmanager
def cbreak(fd: int) -> Iterator[None]:
    """The terminal without line buffering and echo (the screen shows what is typed)."""
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


async def read_lines(send: trio.MemorySendChannel[str | None]) -> None:
    """Feed stdin lines into ``send`` (None at end of input); a thread does the blocking read."""
    async with send:
        while True:
            line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
            if not line:
                await send.send(None)
                return
            await send.send(line)


async def next_line(lines: trio.MemoryReceiveChannel[str | None]) -> str | None:
    try:
        return await lines.receive()
    except trio.EndOfChannel:
        return None


# -- the event loop ----------------------------------------------------------------------------
async def pump_messages(client: Client, player: Session) -> None:
    try:
        async for msg in client:
            await player.on_message(msg)
    except ConnectionClosed:
        pass
    if not player.done.is_set():
        code = getattr(client.ws, "close_code", None)
        if code == 1001:  # protocol/README.md: the server is shutting down, stakes cashed out
            player.say("the server shut down (1001): stakes go back to the wallets", "yellow")
        else:
            player.closed = True
            player.say(f"the server closed the connection ({code})", "red")
        player.done.set()


async def play_session(
    player: Session, lines: trio.MemoryReceiveChannel[str | None], *, bot: bool
) -> None:
    """Play at the table: the table drawn and the hint first (unless a live screen draws
    them), then the server's messages in and the typed commands (or the bot) out."""
    if player.editor is None:
        player.show_table()
        if not bot:
            player.console.print(player.HINT, style="dim")
    await player.give_seed()  # our seed for the deal whose hash the snapshot showed
    async with trio.open_nursery() as nursery:
        nursery.start_soon(pump_messages, player.client, player)
        if bot:
            await player.done.wait()
        else:
            await read_commands(player, lines, nursery)
        nursery.cancel_scope.cancel()


async def read_commands(
    player: Session, lines: trio.MemoryReceiveChannel[str | None], nursery: trio.Nursery
) -> None:
    """Run the command loop, on the live screen when the session has one."""
    ticker = None
    with contextlib.ExitStack() as stack:
        if player.live_mode:
            stack.enter_context(cbreak(sys.stdin.fileno()))
            player.live = Live(console=player.console, auto_refresh=False, screen=True)
            player.live.start()
            player.refresh()
            if player.editor is not None:
                player.editor.on_change = player.refresh
            ticker = trio.CancelScope()
            nursery.start_soon(tick, player, ticker)
        try:
            await command_loop(player, lines)
        finally:
            if ticker is not None:
                ticker.cancel()
            if player.live is not None:
                player.live.stop()
                player.live = None
                # how it ended, on the normal screen: what was said since q (at least 3 lines)
                quit_said = player.quit_said
                since = 3 if quit_said is None else min(max(3, player.said - quit_said), 20)
                for line in list(player.log)[-since:]:
                    player.console.print(line)


async def command_loop(player: Session, lines: trio.MemoryReceiveChannel[str | None]) -> None:
    """Apply typed lines until ``q``, end of input or the seat is gone; then leave.

    Theory of operation (typed commands; issue 27, point 1). Two tasks share the work. The
    reader takes each line as it is typed: a line that is not a command is refused at once
    with one line saying why, ``q`` is acted on at once, and every other command goes into an
    unbounded queue. The sender applies the queued commands one at a time, in order, each to
    its end: a send waits for its turn under the server's message limit (clients/client.py,
    :class:`~clients.client.Pace`) and is never cancelled (a cancelled send would break the
    connection; STACK.md). So nothing typed is lost: a burst is paced, and a backlog says so
    (a line when it forms, the count on the typed line of the live screen, a line when it
    is sent). A command whose moment has not come (a wager outside the betting window, a
    decision not owed yet) waits in :attr:`Session.pending`, said with a line, without
    holding up the commands typed after it.

    ``q`` is read at once, whatever the backlog: the commands typed before it still go while
    the message limit lets them go at once, the rest of the queue (and what waits for its
    moment) is dropped with a line saying how many, and the client leaves. The end of the
    input instead sends everything queued and gives the commands waiting for their moment up
    to a turn to be played (:func:`wait_for_pending`): a script's piped commands all count.
    """
    put, take = trio.open_memory_channel[Any](math.inf)
    sent = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_stop_when_done, player, nursery.cancel_scope)
        nursery.start_soon(_send_commands, player, take, sent)
        quitting = await _read_commands(player, lines, put)
        player.quitting = quitting
        await put.aclose()
        await sent.wait()
        if quitting:
            dropped = player.dropped + len(player.pending)
            player.pending.clear()
            if dropped:
                player.say(f"q: {dropped} queued command{'s' * (dropped != 1)} dropped", "yellow")
        else:
            await wait_for_pending(player)
        nursery.cancel_scope.cancel()
    if not player.done.is_set():
        await player.leave()
        with trio.move_on_after(10):
            await player.done.wait()


async def _stop_when_done(player: Session, scope: trio.CancelScope) -> None:
    """The seat is gone (left, moved out, the connection closed): typing ends with it."""
    await player.done.wait()
    if player.queued:
        player.say(f"{player.queued} typed command(s) not sent: you are no longer at the table")
    scope.cancel()


async def _read_commands(
    player: Session, lines: trio.MemoryReceiveChannel[str | None], put: trio.MemorySendChannel[Any]
) -> bool:
    """Read typed lines into the sender's queue; True when ``q`` ended them, False at the end
    of the input."""
    while True:
        line = await next_line(lines)
        if line is None:
            return False
        text = line.strip()
        if not text:
            continue
        if text.split()[0].lower() == "seed":  # Session.on_seed_line, in its turn
            cmd: Any = text
        else:
            try:
                cmd = player.parse(line)
            except BadCommand as exc:
                if player.live is not None:
                    player.say(f"> {text}", "dim")
                player.say(str(exc), "red")
                continue
            if cmd is None:
                continue
            if cmd.kind == "quit":
                player.quit_said = player.said
                if player.live is not None:
                    player.say(f"> {text}", "dim")
                return True
        ahead = player.queued
        player.queued += 1
        if player.live is not None:
            player.say(f"> {text}" + (f"  (queued, {ahead} ahead)" if ahead else ""), "dim")
        if ahead == 1 and not player.backlog:  # one in hand, one waiting: a backlog forms
            player.backlog = True
            rate = player.client.pace.rate
            player.say(f"commands queued: sent in order at the server's pace ({rate:.0f}/s)", "dim")
        put.send_nowait(cmd)


async def _send_commands(
    player: Session, take: trio.MemoryReceiveChannel[Any], sent: trio.Event
) -> None:
    """Apply the queued commands in order, each to its end (never cancelled mid-send)."""
    dropping = False
    try:
        async with take:
            async for cmd in take:
                player.queued -= 1
                # after q, what the message limit would hold back is dropped (and all after
                # it, in order); what can go at once still goes, as typed before the q
                dropping = dropping or (player.quitting and not player.client.pace.ready())
                if dropping:
                    player.dropped += 1
                    continue
                if isinstance(cmd, str):
                    await player.on_seed_line(cmd)
                elif not await player.on_command(cmd):
                    player.quitting = True
                if player.backlog and not player.queued:
                    player.backlog = False
                    player.say("queued commands sent", "dim")
    finally:
        sent.set()


async def wait_for_pending(player: Session) -> None:
    """Input ended: give queued betting commands up to one turn to be played."""
    with trio.move_on_after(60):
        while player.pending and not player.done.is_set():
            await trio.sleep(0.05)


async def tick(player: Session, scope: trio.CancelScope) -> None:
    with scope:
        while True:
            await trio.sleep(0.5)
            player.refresh()
