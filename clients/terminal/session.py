"""What a poker and a banked table session share: output, typed commands, the message loop.

A session is one seat (or spectator) at one table. Subclasses say how to parse a line, draw
the table, fold the table's messages and apply the commands that are not quit, help or table.
"""

from __future__ import annotations

import random
import sys
from collections import deque
from typing import Any

import trio
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.text import Text
from websockets.exceptions import ConnectionClosed

from clients.client import Client, TableView
from clients.terminal.commands import BadCommand


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
        self.log: deque[str] = deque(maxlen=14)
        self.pending: deque[Any] = deque()  # typed commands waiting for their moment
        self.done = trio.Event()
        self.closed = False  # the server closed the connection
        self.returned: int | None = None

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
    def say(self, line: str, style: str = "") -> None:
        self.log.append(line)
        if self.live is not None:
            self.refresh()
        else:
            self.console.print(Text(line, style=style))

    def refresh(self) -> None:
        if self.live is not None:
            self.live.update(self.render(), refresh=True)

    def render(self) -> Group:
        parts: list[Any] = [self.table_panel()]
        if self.live is not None:
            parts.append(Panel(Text("\n".join(self.log)), title="log", border_style="dim"))
        parts.append(self.prompt_text())
        return Group(*parts)

    def show_table(self) -> None:
        if self.live is None:
            self.console.print(self.table_panel())

    # the message loop
    async def on_message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "error":
            self.say(f"refused: {msg.get('code')}: {msg.get('message')}", "red")
            await self.on_refused(msg)
            return
        if kind == "balance":
            self.refresh()
            return
        if msg.get("table") != self.tv.table:
            return
        if kind == "left":
            self.returned = msg.get("returned")
            self.say(self.left_text(msg))
            self.done.set()
            return
        await self.on_table_message(msg)

    async def leave(self) -> None:
        await self.client.send({"type": "leave", "table": self.tv.table})

    async def on_command(self, cmd: Any) -> bool:
        """Apply one typed command; False when the client should stop reading commands."""
        if cmd.kind == "quit":
            return False
        if cmd.kind == "help":
            self.console.print(self.HELP)
        elif cmd.kind == "table":
            self.show_table()
            self.console.print(self.prompt_text())
        else:
            await self.on_play_command(cmd)
        return True


# -- stdin -------------------------------------------------------------------------------------
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


async def read_commands(
    player: Session, lines: trio.MemoryReceiveChannel[str | None], nursery: trio.Nursery
) -> None:
    """Read and apply commands until ``q``, end of input or the seat is gone; then leave."""
    ticker = None
    if player.live_mode:
        player.live = Live(
            player.render(), console=player.console, auto_refresh=False, transient=False
        )
        player.live.start()
        ticker = trio.CancelScope()
        nursery.start_soon(tick, player, ticker)
    try:
        while not player.done.is_set():
            with trio.move_on_after(0.25):
                line = await next_line(lines)
                if line is None:
                    break
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
    finally:
        if ticker is not None:
            ticker.cancel()
        if player.live is not None:
            player.live.stop()
            player.live = None


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
