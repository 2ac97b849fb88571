"""The actor: one trio task owns some state; everything reaches it through its inbox.

Theory of operation
-------------------
A table (``server/tables/base.py``) and a tournament (``server/tournaments/runner.py``) are
each an :class:`Actor`: state that exactly one trio task touches.

1. **The inbox.** Anyone (a connection's task through the router, another actor, a job)
   hands the actor an item with :meth:`Actor.submit`, which never blocks (the inbox is an
   unbounded memory channel). An item is a :class:`Command` (a client's decoded protocol
   message with the connection it came on) or a typed inbox item (a frozen dataclass: a
   detach, a shutdown, a job's result, a report of another actor).
2. **One dispatch style.** The actor's class declares its :class:`Handlers`: an explicit
   map from a message type to the method that handles it, written with :meth:`Handlers.command`
   (a protocol message type ``M``: the handler takes ``Command[M]``) and
   :meth:`Handlers.item` (an inbox item type ``I``: the handler takes ``I``), so mypy
   checks every entry: a handler registered for the wrong type is a type error. A kind
   extends its base's map (``Handlers(Base.handlers)``); the map is an immutable
   ``Mapping`` (the older ``{**BASE, Type: handler}`` form still reads it). The router
   (``server/net/router.py``) and the operator controls (``server/room/operator.py``) dispatch
   through the same maps.
3. **A step.** The task takes one item at a time and runs its handler synchronously
   (:meth:`Actor.handle`): no await while the state is inconsistent, so nothing ever sees it
   half-changed. Each step is a step of the commit gate (``server/store/gate.py``: commit,
   then speak): what the step sends leaves at its end, after the writes it reports. A
   handler that raises is logged and the step's sender told (:meth:`Actor.failed`); the
   actor goes on.
4. **The deadline loop.** After every step, and when :meth:`Actor.next_deadline` passes,
   the actor runs its timers (:meth:`Actor.on_time`) in a step of their own. One cancel
   scope serves until a deadline passes: its deadline follows :meth:`next_deadline` after
   every step (a scope per item cost a sizeable share of a table's CPU, docs/perf.md).
   The loop ends when :attr:`Actor.finished` says so.
5. **Jobs.** Background work (a store read, a jackpot call) runs in :meth:`Actor.spawn`
   jobs. A job never touches the actor's state: it returns a typed result (an inbox item,
   or None), which comes back through the inbox as :class:`JobDone` and is handled like any
   item. When the loop ends, the jobs still running are drained for at most
   :data:`DRAIN_SECONDS` (their results applied), then cancelled.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import trio

if TYPE_CHECKING:
    from server.store.gate import CommitGate
    from server.tables.connection import Connection

__all__ = ["DRAIN_SECONDS", "Actor", "Command", "Handlers", "JobDone"]

log = logging.getLogger("croupier.actor")

#: how long a stopping actor waits for its jobs' results (a void's reversal, a held award)
DRAIN_SECONDS = 5.0

M = TypeVar("M")
M_co = TypeVar("M_co", covariant=True)  # a command of a message type is one of its bases
I = TypeVar("I")  # noqa: E741 (an inbox item's type)
A = TypeVar("A")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Command(Generic[M_co]):
    """A client's decoded protocol message for an actor, with the connection it came on."""

    conn: Connection
    message: M_co
    #: when the router handed it over (``time.perf_counter``): its time at a table is in
    #: the metrics (``croupier_action_seconds``, server/metrics.py)
    at: float = field(default_factory=time.perf_counter)


@dataclass(frozen=True, slots=True)
class JobDone:
    """A background job finished; ``result`` (an inbox item, or None) is applied next."""

    result: object


class Handlers(Mapping[type, Callable[[Any, Any], R]], Generic[A, R]):
    """A dispatch map: message type -> handler of an ``A`` returning ``R`` (see the module's
    docstring). Built by chained registrations, each checked by mypy::

        HANDLERS = Handlers[Table, None]().command(wire.Join, Table.on_join).item(
            Detach, Table.on_detach
        )

    ``base``: the map of a base class (or a plain mapping) this one extends; a later
    registration of a type replaces the base's."""

    __slots__ = ("_map",)

    def __init__(self, base: Mapping[type, Callable[[Any, Any], R]] | None = None) -> None:
        self._map: dict[type, Callable[[Any, Any], R]] = dict(base or {})

    def command(self, message: type[M], handler: Callable[[A, Command[M]], R]) -> Handlers[A, R]:
        """Handle ``Command``\\ s carrying a ``message``."""
        return self._with(message, handler)

    def item(self, kind: type[I], handler: Callable[[A, I], R]) -> Handlers[A, R]:
        """Handle inbox items (or router messages) of type ``kind`` themselves."""
        return self._with(kind, handler)

    def _with(self, key: type, handler: Callable[[Any, Any], R]) -> Handlers[A, R]:
        out: Handlers[A, R] = Handlers(self._map)
        out._map[key] = handler
        return out

    def __getitem__(self, key: type) -> Callable[[Any, Any], R]:
        return self._map[key]

    def __iter__(self) -> Iterator[type]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)


class Actor:
    """Inbox, dispatch, the deadline loop and jobs (see the module's docstring). A subclass
    sets :attr:`handlers` and writes the hooks it needs: :meth:`start_services`,
    :meth:`next_deadline`, :meth:`on_time`, :meth:`end_step`, :meth:`failed`,
    :meth:`on_unhandled`, :meth:`refuse_closed`, :attr:`finished`."""

    #: message or inbox item type -> handler (a :class:`Handlers`, or the older dict form)
    handlers: ClassVar[Mapping[type, Callable[[Any, Any], None]]] = {}

    def __init__(self, gate: CommitGate, speaker: str) -> None:
        self.gate = gate
        #: the actor as a speaker of the commit gate (a table's id, ``tournament:ID``)
        self.speaker = speaker
        self._inbox_send, self._inbox = trio.open_memory_channel[object](math.inf)
        self._work: trio.Nursery | None = None
        self._jobs = 0

    @property
    def inbox_depth(self) -> int:
        """Items waiting in the inbox (``/metrics``)."""
        return self._inbox.statistics().current_buffer_used

    # -- called by connection tasks, other actors and jobs (sync, never blocks) --------------
    def submit(self, item: object) -> None:
        try:
            self._inbox_send.send_nowait(item)
        except trio.ClosedResourceError:
            self.refuse_closed(item)

    def spawn(self, job: Callable[..., Awaitable[object]], *args: Any) -> None:
        """Run ``job(*args)`` in the background; its return value (an inbox item, or None)
        is applied by the actor's task. A job never touches the actor's state."""
        assert self._work is not None, "jobs run only while the actor runs"
        self._jobs += 1

        async def run_job() -> None:
            result: object = None
            try:
                result = await job(*args)
            finally:
                self.submit(JobDone(result))

        self._work.start_soon(run_job)

    # -- the task -----------------------------------------------------------------------------
    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as work:
            self._work = work
            async with trio.open_nursery() as services:
                await self.start_services(services)
                task_status.started()
                await self._serve()
                services.cancel_scope.cancel()
            with trio.move_on_after(DRAIN_SECONDS):  # jobs still running report to the inbox
                while self._jobs:
                    self.handle(await self._inbox.receive())
            work.cancel_scope.cancel()
        self._inbox_send.close()

    async def _serve(self) -> None:
        """Every inbox item in turn, and the timers after each item and at the deadline."""
        while not self.finished:
            with trio.CancelScope(deadline=self.next_deadline()) as timer:
                while not self.finished:
                    self.handle(await self._inbox.receive())
                    self.run_timers()
                    timer.deadline = self.next_deadline()
            if timer.cancelled_caught:  # a deadline passed
                self.run_timers()

    def run_timers(self) -> None:
        """A step of the timers that are due (:meth:`on_time`)."""
        gate = self.gate
        gate.begin(self.speaker)  # commit, then speak: the step's frames leave at its end
        try:
            self.on_time(trio.current_time())
        except Exception:  # a bug must not take the server down
            log.exception("%s: timer handling failed", self.speaker)
        try:
            self.end_step()
        finally:
            gate.end()

    def handle(self, item: object) -> None:
        """One step: the item's handler, then :meth:`end_step`, in one step of the gate."""
        gate = self.gate
        gate.begin(self.speaker)  # commit, then speak: the step's frames leave at its end
        try:
            if type(item) is JobDone:
                self._jobs -= 1
                if item.result is None:
                    return
                item = item.result
            try:
                self.dispatch(item)
            except Exception:  # a bug must not take the actor (or the server) down
                log.exception("%s: %r failed", self.speaker, item)
                self.failed(item)
        finally:
            try:
                self.end_step()
            finally:
                gate.end()
        self.stepped(item)

    def dispatch(self, item: object) -> None:
        """Run the handler of one inbox item (a client's message, or a typed item)."""
        if isinstance(item, Command):
            handler = self.handlers.get(type(item.message))
            if handler is None:
                self.on_unhandled(item)
                return
        else:
            handler = self.handlers[type(item)]
        handler(self, item)

    # -- hooks ----------------------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        """Whether the loop ends (default: never; the server's nursery cancels it)."""
        return False

    async def start_services(self, nursery: trio.Nursery) -> None:
        """Start the actor's long-lived helper tasks (they only ever :meth:`submit`)."""
        return None

    def next_deadline(self) -> float:
        """When :meth:`on_time` is due next (``math.inf``: no timer)."""
        return math.inf

    def on_time(self, now: float) -> None:
        """Run the timers that are due."""
        return None

    def end_step(self) -> None:
        """The end of every step (an item's or the timers'), before its frames leave."""
        return None

    def stepped(self, item: object) -> None:
        """After a step, its frames said (metrics)."""
        return None

    def failed(self, item: object) -> None:
        """A handler raised on ``item`` (logged): tell whoever is waiting."""
        return None

    def on_unhandled(self, cmd: Command[Any]) -> None:
        """A command with no handler here."""
        return None

    def refuse_closed(self, item: object) -> None:
        """An item submitted after the actor's task ended."""
        return None
