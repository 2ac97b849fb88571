"""Memory of the server: RSS per idle connection, per empty table, per table being played.

All figures are deltas of the resident set size (``/proc/PID/status`` VmRSS) of a
``croupier serve`` subprocess, measured in this one run:

* **per idle connection**: a server with one table; RSS before and after ``--conns``
  WebSocket connections (from a separate client process) that said ``hello`` (a guest
  account each) and then stay idle.
* **per empty table**: a server with 10 tables against one with ``10 + --tables`` tables.
* **per played table**: a server with ``--tables`` tables, RSS before and while nine bots per
  table play at human pace (``croupier loadtest --pace human``); the nine connections'
  idle cost is subtracted, so what is left is the seats, the round and the queues.

Run: ``.venv/bin/python benchmarks/memory_bench.py [--conns 2000 --tables 1000]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loadtest.runner import RunSpec, run
from loadtest.server_proc import LocalServer


async def idle_clients(url: str, n: int) -> None:
    """Open ``n`` connections, say hello on each, print "ready", wait for stdin to close."""
    from websockets.trio.client import connect

    ready = [0]
    done = trio.Event()
    gate = trio.Semaphore(64)

    async def one() -> None:
        await gate.acquire()
        async with connect(url, compression=None, proxy=None, open_timeout=60) as ws:
            await ws.send(msgpack.packb({"type": "hello", "protocol": 1}))
            await ws.recv()  # welcome
            gate.release()
            ready[0] += 1
            if ready[0] == n:
                done.set()
            await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        for _ in range(n):
            nursery.start_soon(one)
        await done.wait()
        print("ready", flush=True)
        await trio.to_thread.run_sync(sys.stdin.read)
        nursery.cancel_scope.cancel()


def settle_rss(server: LocalServer, seconds: float = 1.5) -> int:
    time.sleep(seconds)
    return server.rss_bytes()


def per_connection(conns: int) -> float:
    with LocalServer(1, 9) as srv:
        before = settle_rss(srv)
        client = subprocess.Popen(
            [sys.executable, __file__, "--role", "idle", "--url", srv.url, "--conns", str(conns)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert client.stdout is not None and client.stdin is not None
        client.stdout.readline()
        after = settle_rss(srv)
        client.stdin.close()
        client.wait(60)
    return (after - before) / conns


def per_empty_table(tables: int) -> float:
    with LocalServer(10, 9) as small:
        a = settle_rss(small)
    with LocalServer(10 + tables, 9) as big:
        b = settle_rss(big)
    return (b - a) / tables


def per_played_table(tables: int, conn_cost: float, duration: float) -> tuple[float, dict]:
    with LocalServer(tables, 9) as srv:
        empty = settle_rss(srv)
        peak = [0]

        async def measured() -> dict:
            async with trio.open_nursery() as nursery:

                async def sample() -> None:
                    await trio.sleep(duration * 0.6)
                    while True:
                        peak[0] = max(peak[0], srv.rss_bytes())
                        await trio.sleep(1.0)

                nursery.start_soon(sample)
                report = await run(
                    RunSpec(url=srv.url, tables=tables, duration=duration, pace="human", procs=2)
                )
                nursery.cancel_scope.cancel()
            return report

        report = trio.run(measured)
    return (peak[0] - empty - 9 * tables * conn_cost) / tables, report


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--conns", type=int, default=2000)
    p.add_argument("--tables", type=int, default=1000)
    p.add_argument("--played-tables", type=int, default=200)
    p.add_argument("--duration", type=float, default=25.0)
    p.add_argument("--role", choices=("bench", "idle"), default="bench")
    p.add_argument("--url")
    args = p.parse_args()
    if args.role == "idle":
        trio.run(idle_clients, args.url, args.conns)
        return 0
    conn = per_connection(args.conns)
    print(f"per idle connection (hello'd guest, {args.conns} connections): {conn / 1024:.1f} KiB")
    table = per_empty_table(args.tables)
    print(f"per empty 9-seat table ({args.tables} tables): {table / 1024:.1f} KiB")
    played, report = per_played_table(args.played_tables, conn, args.duration)
    print(
        f"per table being played at human pace ({args.played_tables} tables, 9 bots each, "
        f"connections' idle cost subtracted): {played / 1024:.1f} KiB "
        f"(run ok={report['ok']}, {report['hands']} hands)"
    )
    total = table + played + 9 * conn
    print(f"so 1,000 full tables need about {1000 * total / 2**20:.0f} MiB of server RSS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
