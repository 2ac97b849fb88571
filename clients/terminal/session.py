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

    async def on_refused(self, msg: dict[str, Any]) -> None:
        """An ``error`` message arrived (already logged)."""

    async def on_table_message(self, msg: dict[str, Any]) -> None:
        """A message about this table other than ``left``."""

    async def on_play_command(self, cmd: Any) -> None:
        """A typed command other than quit, help and table."""

    # output
    def say(self, line: str | Text, style: str = "") -> None:
        text = Text(line, style=style) if isinstance(line, str) else line
        self.log.append(text)
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
        shown = [line.copy() for line in list(self.log)[-room:]]
        for line in shown:
            line.no_wrap, line.overflow = True, "ellipsis"
        typed = Text.assemble(("> ", "bold"), self.editor.buffer if self.editor else "", "_")
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
            self.say(f"refused: {msg.get('message')} ({msg.get('code')})", "red")
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
                for line in list(player.log)[-3:]:  # how it ended, on the normal screen
                    player.console.print(line)


async def command_loop(player: Session, lines: trio.MemoryReceiveChannel[str | None]) -> None:
    """Apply typed lines until ``q``, end of input or the seat is gone; then leave."""
    while not player.done.is_set():
        # only the wait for a line is timed (to notice the seat going): a command is never
        # cancelled half-sent (a cancelled send loses it and leaves the stream broken)
        with trio.move_on_after(0.25) as waited:
            line = await next_line(lines)
        if waited.cancelled_caught:
            continue
        if line is None:
            break
        if player.live is not None and line.strip():
            player.say(f"> {line.strip()}", "dim")
        if await player.on_seed_line(line):
            continue
        try:
            cmd = player.parse(line)
        except BadCommand as exc:
            player.say(str(exc), "red")
            continue
        if cmd is not None and not await player.on_command(cmd):
            break
    await wait_for_pending(player)
    if not player.done.is_set():
        await player.leave()
        with trio.move_on_after(10):
            await player.done.wait()


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
