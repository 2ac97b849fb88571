"""Prometheus metrics at ``/metrics``: what a floor's monitoring scrapes (issue 28).

Theory of operation
-------------------
The hot paths (a table's step, the ledger's commit, a connection's end) bump plain integers
on one :class:`Metrics` object per server: one trio thread, so no lock and no registry lookup
per action (a ``prometheus_client`` Counter takes a lock on every ``inc``). A scrape runs
:class:`Collector` once, which reads those integers and the live state (tables, connections,
queues, jackpot meters) and hands them to ``prometheus_client`` as metric families; the text
exposition is the library's own (:func:`prometheus_client.generate_latest`). Each server has
its own registry (tests run several servers in one process), with the library's process
collector for CPU, memory and open files of this process.

Every name is ``croupier_*``; counters end in ``_total``; seconds are seconds. The list is in
``docs/deployment.md`` ("Metrics").
"""

from __future__ import annotations

import os
import resource
import time
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    InfoMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector as _Collector

if TYPE_CHECKING:
    from server.net.app import Croupier

#: the exposition's content type (text format 0.0.4)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

#: latency buckets, seconds: a step takes tens of microseconds, a commit milliseconds
SECONDS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
#: batches in one commit
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)


@dataclass(slots=True)
class Histogram:
    """Counts per bucket (upper bounds ``bounds``, then +Inf) and the sum of what was seen."""

    bounds: tuple[float, ...]
    counts: list[int] = field(default_factory=list)
    total: float = 0.0

    def __post_init__(self) -> None:
        self.counts = [0] * (len(self.bounds) + 1)

    def observe(self, value: float) -> None:
        self.counts[bisect_left(self.bounds, value)] += 1
        self.total += value

    def family(self, name: str, doc: str, labels: dict[str, str] | None = None) -> Metric:
        """The histogram as Prometheus has it: cumulative buckets, ``+Inf`` last."""
        running, buckets = 0, []
        for bound, count in zip((*map(str, self.bounds), "+Inf"), self.counts, strict=True):
            running += count
            buckets.append((bound, float(running)))
        family = HistogramMetricFamily(name, doc, labels=list(labels or {}))
        family.add_metric(list((labels or {}).values()), buckets, self.total)
        return family


@dataclass(slots=True)
class Metrics:
    """What the hot paths count (plain integers in the server's one thread)."""

    #: (game, what) -> rounds: what is ``started``, ``settled`` or ``voided``
    rounds: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: table kind -> client commands a table handled
    actions: Counter[str] = field(default_factory=Counter)
    #: a client command's time at its table: from the router's hand-off to the step's end
    action_seconds: Histogram = field(default_factory=lambda: Histogram(SECONDS))
    #: one group commit of the ledger: its duration and how many batches it carried
    commit_seconds: Histogram = field(default_factory=lambda: Histogram(SECONDS))
    commit_batches: Histogram = field(default_factory=lambda: Histogram(BATCHES))
    #: connections dropped because their outbound queue overflowed (close code 4002)
    dropped_slow: int = 0
    #: connections accepted since start, and refused before the handshake (cap, origin)
    connections_opened: int = 0
    #: times the ledger's store went out of reach
    store_outages: int = 0
    #: sessions open by role (a connection counts from its ``hello``: the router's
    #: ``welcome``, to its end: the server's connection handler)
    sessions: Counter[str] = field(default_factory=Counter)

    def round_started(self, game: str) -> None:
        self.rounds[game, "started"] += 1

    def round_closed(self, game: str, state: str) -> None:
        self.rounds[game, state] += 1


class Collector(_Collector):
    """Reads one server's :class:`Metrics` and live state at scrape time."""

    def __init__(self, croupier: Croupier) -> None:
        self.croupier = croupier

    def collect(self) -> Iterator[Metric]:
        c = self.croupier
        m: Metrics = c.ledger.metrics
        info = InfoMetricFamily("croupier_process", "This server process.")
        info.add_metric([], {"instance": c.ledger.instance or "", "mode": _mode(c)})
        yield info

        conns = c.connections
        by_role = {role: n for role, n in m.sessions.items() if n}
        by_role["anonymous"] = len(conns) - sum(by_role.values())
        # only a connection whose writer has a queue has a depth (a channel's statistics
        # cost 2 us: 6 ms a scrape if read for each of 2,700 connections)
        depths = [x.outbox.statistics().current_buffer_used for x in conns if x.backlog]
        depth, max_depth = sum(depths), max(depths, default=0)
        yield _gauge(
            "croupier_connections",
            "Open WebSocket connections by role (anonymous: no hello yet).",
            "role",
            by_role.items(),
        )
        yield _counter("croupier_connections_opened", "Connections accepted.", m.connections_opened)
        yield _counter(
            "croupier_slow_clients_dropped",
            "Connections dropped because their outbound queue overflowed (4002).",
            m.dropped_slow,
        )
        yield _gauge(
            "croupier_outbound_queued",
            "Messages waiting in the connections' outbound queues, all together.",
            None,
            [("", depth)],
        )
        yield _gauge(
            "croupier_outbound_queued_max",
            "The longest outbound queue of one connection.",
            None,
            [("", max_depth)],
        )

        tables: Counter[tuple[str, str, str]] = Counter()
        inbox = inbox_max = 0
        for table in c.tables.values():
            tables[table.kind, table.table.game, table.phase.value] += 1
            used = table.inbox_depth
            inbox += used
            inbox_max = max(inbox_max, used)
        family = GaugeMetricFamily(
            "croupier_tables", "Tables by kind, game and state.", labels=["kind", "game", "state"]
        )
        for (kind, game, state), n in sorted(tables.items()):
            family.add_metric([kind, game, state], n)
        yield family
        yield _gauge(
            "croupier_table_inbox_queued",
            "Messages waiting in the tables' inboxes, all together.",
            None,
            [("", inbox)],
        )
        yield _gauge(
            "croupier_table_inbox_queued_max",
            "The longest inbox of one table.",
            None,
            [("", inbox_max)],
        )
        yield _gauge(
            "croupier_tournaments",
            "Tournaments this process runs.",
            None,
            [("", len(c.tournaments))],
        )

        rounds = CounterMetricFamily(
            "croupier_rounds", "Rounds by game and what became of them.", labels=["game", "state"]
        )
        for (game, state), n in sorted(m.rounds.items()):
            rounds.add_metric([game, state], n)
        yield rounds
        actions = CounterMetricFamily(
            "croupier_actions",
            "Client commands the tables handled, by table kind.",
            labels=["kind"],
        )
        for kind, n in sorted(m.actions.items()):
            actions.add_metric([kind], n)
        yield actions
        yield m.action_seconds.family(
            "croupier_action_seconds",
            "A client command's time at its table: from the router's hand-off to its step's end.",
        )

        ledger = c.ledger
        yield m.commit_seconds.family(
            "croupier_ledger_commit_seconds", "One group commit of the ledger, seconds."
        )
        yield m.commit_batches.family(
            "croupier_ledger_commit_batches", "Batches (table steps that moved money) per commit."
        )
        yield _counter("croupier_ledger_batches_committed", "Batches committed.", ledger.committed)
        yield _gauge(
            "croupier_ledger_backlog", "Batches not committed yet.", None, [("", ledger.backlog)]
        )
        yield _counter(
            "croupier_store_outages", "Times the store went out of reach.", m.store_outages
        )
        yield _gauge(
            "croupier_store_up",
            "1 while money may move (the store answers and lost nothing).",
            None,
            [("", int(ledger.can_move))],
        )

        meters = GaugeMetricFamily(
            "croupier_jackpot_meter_cents",
            "Progressive jackpot meters, cents, by pool (as the linked tables see them).",
            labels=["pool"],
        )
        for pool, amount in sorted(c.jackpot_meters().items()):
            meters.add_metric([pool], amount)
        yield meters
        yield _gauge(
            "croupier_ready",
            "1 while the server takes new players (see /ready).",
            None,
            [("", int(c.ready()[0]))],
        )


def _mode(c: Croupier) -> str:
    return "dev" if c.config.dev else "production"


def _gauge(
    name: str, doc: str, label: str | None, values: Iterable[tuple[str, float]]
) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, doc, labels=[label] if label else [])
    for key, value in sorted(values):
        family.add_metric([key] if label else [], value)
    return family


def _counter(name: str, doc: str, value: float) -> CounterMetricFamily:
    return CounterMetricFamily(name, doc, value=value)


class Process(_Collector):
    """This process: CPU seconds, resident memory, start time, the file descriptors allowed.

    Not ``prometheus_client``'s ProcessCollector: it counts the open descriptors by listing
    ``/proc/self/fd`` on every scrape, 3.4 ms at 2,700 connections (each one a socket; the
    connections are counted above). The names are the standard ones, ``croupier_`` first."""

    def __init__(self) -> None:
        self.start = _started()
        self.page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

    def collect(self) -> Iterator[Metric]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        yield _counter(
            "croupier_process_cpu_seconds",
            "Total user and system CPU time spent in seconds.",
            usage.ru_utime + usage.ru_stime,
        )
        try:
            with open("/proc/self/statm", "rb") as statm:
                rss = int(statm.read().split()[1]) * self.page
        except OSError:  # not Linux: the peak instead
            rss = usage.ru_maxrss * 1024
        yield _gauge(
            "croupier_process_resident_memory_bytes",
            "Resident memory size in bytes.",
            None,
            [("", rss)],
        )
        yield _gauge(
            "croupier_process_start_time_seconds",
            "Start time of the process since unix epoch in seconds.",
            None,
            [("", self.start)],
        )
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        yield _gauge(
            "croupier_process_max_fds",
            "Maximum number of open file descriptors.",
            None,
            [("", soft)],
        )


def _started() -> float:
    """When this process started (unix seconds)."""
    try:  # /proc/self/stat field 22: start time in clock ticks after boot
        with open("/proc/self/stat", "rb") as f:
            ticks = int(f.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        return time.time() - uptime + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.time()


def registry_for(croupier: Croupier) -> Callable[[], bytes]:
    """A registry of this server's metrics and its process's; returns the exposition."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Collector(croupier))
    registry.register(Process())
    return lambda: generate_latest(registry)
