"""What the metrics cost (issue 28): one scrape of ``/metrics``, and the hot paths' counting,
against the CPU of an action, measured in this process.

A server (:class:`server.net.app.Croupier`, no socket) gets ``--tables`` nine-seat hold'em tables
(the capacity benchmark's lobby) and ``--tables`` x 9 connections with accounts, one in
twenty with a queue in its writer. Printed:

* one scrape's CPU (``time.process_time``, the median of ``--scrapes``): the exposition
  ``prometheus_client`` writes from :class:`server.metrics.Collector`;
* the hot paths' additions per action (a command's time stamp, the per-kind count and the
  latency histogram) measured against an empty loop of the same length;
* both as shares of a server's CPU at ``--actions`` actions per second and ``--cost`` us per
  action (the capacity benchmark's steady figures at 300 tables, docs/perf.md), for a
  scrape every ``--every`` seconds (Prometheus's default is 15 s; 1 s is a stress).

Run: ``.venv/bin/python benchmarks/metrics_bench.py [--tables 300]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from loadtest.server_proc import tables_toml
from server.config import ServerConfig, load_tables
from server.metrics import Metrics
from server.net.app import Croupier
from server.tables.connection import Connection


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=300)
    p.add_argument("--scrapes", type=int, default=50)
    p.add_argument("--actions", type=float, default=165.0, help="actions per second")
    p.add_argument("--cost", type=float, default=550.0, help="server CPU us per action")
    p.add_argument("--every", type=float, nargs="+", default=[15.0, 1.0])
    args = p.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        toml = Path(tmp) / "tables.toml"
        toml.write_text(tables_toml(args.tables, 9))
        croupier = Croupier(ServerConfig(port=0, tables=load_tables(toml)))
        for i in range(args.tables * 9):
            conn = Connection(256)
            conn.account = f"bot-{i}"
            if i % 20 == 0:  # a writer with a queue: its depth is read
                conn.backlog = True
                conn._send.send_nowait({"type": "pong"})
            croupier.connections.add(conn)
        scrape = croupier.probes.metrics
        size = len(scrape())
        times = []
        for _ in range(args.scrapes):
            t0 = time.process_time()
            scrape()
            times.append(time.process_time() - t0)
        per_scrape = statistics.median(times)

    n = 200_000
    m = Metrics()
    t0 = time.perf_counter()
    for _ in range(n):
        at = time.perf_counter()
    empty = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(n):
        at = time.perf_counter()  # TableCommand.at
        m.actions["poker"] += 1
        m.action_seconds.observe(time.perf_counter() - at)
    hot = (time.perf_counter() - t0 - empty) / n + empty / n  # the stamp counts too

    print(
        f"{args.tables} tables, {args.tables * 9} connections: one scrape "
        f"{per_scrape * 1000:.2f} ms CPU ({size / 1024:.0f} KiB); hot paths "
        f"{hot * 1e6:.2f} us an action"
    )
    for every in args.every:
        scrape_share = per_scrape / every  # CPU seconds a second
        server = args.actions * args.cost / 1e6
        hot_share = args.actions * hot
        print(
            f"  a scrape every {every:g} s at {args.actions:g} actions/s x {args.cost:g} us: "
            f"metrics on / off = {(server + scrape_share + hot_share) / server:.4f} "
            f"(scrape {scrape_share / server:.2%}, hot paths {hot_share / server:.2%})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
