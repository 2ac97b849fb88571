"""Stadium fan-out: one roulette table, 1,000 terminals, against a raw websockets broadcast.

Both halves run in this one invocation, on the same machine, with the same connection count
and client processes:

1. **croupier**: ``croupier serve`` with one roulette stadium table (``max_terminals``
   1,000, the CSPRNG result source); ``--terminals`` terminals in ``--procs`` client
   processes (``loadtest/stadium.py``) buy credits and place one or two wagers every
   betting window. Measured per terminal and round: the wall-clock time from the server's
   "no more bets" (``no_more_bets.server_time``) to the arrival of the frame carrying that
   terminal's ``settlement`` (the spin, 1,000 settlements through the books, and one frame
   per terminal written out). Each terminal's first round is left out (the others are
   still connecting), so ``--rounds 6`` measures five.
2. **raw**: a plain ``websockets.trio`` server in its own process with the same number of
   connections, doing no game work: every round it stamps the wall clock and puts one
   pre-encoded MessagePack frame of the same size on every connection's bounded queue,
   drained by that connection's writer task (the safe broadcast of STACK.md). Measured: the
   time from the stamp to each client's receipt.

Printed: p50, p99 and max of both, the last terminal's time per round, and the ratios
croupier / raw (goal: <= 2x raw, p99 < 500 ms). Run:
``.venv/bin/python benchmarks/stadium_bench.py [--terminals 1000 --rounds 5]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loadtest.stadium import percentile  # noqa: E402

TABLE = "roulette-bench"


# -- the raw side ------------------------------------------------------------------------------
async def raw_server(port: int, conns: int, rounds: int, size: int) -> None:
    """Waits for ``conns`` connections, then ``rounds`` broadcasts 0.5 s apart."""
    from websockets.exceptions import ConnectionClosed
    from websockets.trio.server import serve

    members: list[trio.MemorySendChannel[bytes]] = []
    all_in = trio.Event()
    finished = trio.Event()

    async def handler(ws: Any) -> None:
        send, receive = trio.open_memory_channel[bytes](256)
        members.append(send)
        if len(members) >= conns:
            all_in.set()

        async def writer() -> None:
            async for frame in receive:
                await ws.send(frame)

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(writer)
                await finished.wait()
                nursery.cancel_scope.cancel()
        except ConnectionClosed:
            pass

    async with trio.open_nursery() as nursery:
        await nursery.start(
            lambda task_status: serve(
                handler, port, host="127.0.0.1", compression=None, task_status=task_status
            )
        )
        print("ready", flush=True)
        await all_in.wait()
        await trio.sleep(1.0)
        pad = "x" * size
        for r in range(rounds):
            stamp = time.time() * 1000
            frame = msgpack.packb({"type": "events", "round": r, "t0": stamp, "pad": pad})
            for m in members:
                m.send_nowait(frame)  # bounded queue: a full one would drop the client
            await trio.sleep(0.5)
        await trio.sleep(1.0)
        finished.set()
        nursery.cancel_scope.cancel()


async def raw_clients(url: str, conns: int, rounds: int) -> list[float]:
    from websockets.trio.client import connect

    lat: list[float] = []

    async def client() -> None:
        async with connect(url, compression=None, proxy=None, max_queue=None) as ws:
            for _ in range(rounds):
                frame = await ws.recv()
                at = time.time() * 1000
                msg = msgpack.unpackb(frame, raw=False)
                lat.append(at - msg["t0"])

    async with trio.open_nursery() as nursery:
        for i in range(conns):
            nursery.start_soon(client)
            if i % 50 == 49:
                await trio.sleep(0.05)
    return lat


# -- orchestration -------------------------------------------------------------------------------
def spawn(args: list[str]) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, *args], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT
    )


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def run_croupier(terminals: int, rounds: int, procs: int, window: float) -> dict[str, Any]:
    port = free_port()
    with tempfile.TemporaryDirectory() as d:
        toml = Path(d) / "tables.toml"
        toml.write_text(
            f'[[tables]]\nid = "{TABLE}"\ngame = "roulette"\nkind = "stadium"\n'
            f"max_terminals = {max(terminals, 1000)}\nbetting_seconds = {window}\n"
            "options = { minimum = 100, maximum = 100000 }\n"
        )
        server = spawn(
            [
                "-m",
                "server.cli",
                "serve",
                "--port",
                str(port),
                "--tables",
                str(toml),
                "--round-pause",
                "0.5",
                "--starting-balance",
                "10000000",
            ]
        )
        try:
            assert server.stdout is not None
            for _ in range(3):
                server.stdout.readline()
            url = f"ws://127.0.0.1:{port}/ws"
            clients = [
                spawn(["-m", "loadtest.stadium", url, TABLE, "roulette", str(n), str(rounds), "1"])
                for n in split(terminals, procs)
            ]
            parts = [json.loads(c.communicate(timeout=600)[0]) for c in clients]
        finally:
            server.terminate()
            server.wait(30)
    lat = [x for p in parts for x in p["latencies_ms"]]
    last: dict[str, float] = {}
    for p in parts:
        for r, v in p["round_max_ms"].items():
            last[r] = max(last.get(r, 0.0), v)
    return {
        "latencies": lat,
        "last_per_round": [last[k] for k in sorted(last, key=int)],
        "settlements": sum(p["settled"] for p in parts),
        "frame_bytes": [x for p in parts for x in p["frame_bytes"]],
        "refused": [p["refused"] for p in parts],
    }


def run_raw(conns: int, rounds: int, procs: int, size: int) -> dict[str, Any]:
    port = free_port()
    server = spawn([__file__, "--raw-server", str(port), str(conns), str(rounds), str(size)])
    try:
        assert server.stdout is not None
        server.stdout.readline()
        url = f"ws://127.0.0.1:{port}/"
        clients = [
            spawn([__file__, "--raw-clients", url, str(n), str(rounds)])
            for n in split(conns, procs)
        ]
        lat = [x for c in clients for x in json.loads(c.communicate(timeout=600)[0])]
    finally:
        server.wait(60)
    return {"latencies": lat}


def figures(lat: list[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(lat, 0.5), 1),
        "p99": round(percentile(lat, 0.99), 1),
        "max": round(max(lat, default=0.0), 1),
    }


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--raw-server":
        port, conns, rounds, size = (int(x) for x in sys.argv[2:6])
        trio.run(raw_server, port, conns, rounds, size)
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--raw-clients":
        lat = trio.run(raw_clients, sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        print(json.dumps(lat))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--terminals", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=6, help="rounds, the first is warm-up")
    p.add_argument("--procs", type=int, default=2, help="client processes (default 2)")
    p.add_argument("--window", type=float, default=4.0, help="betting seconds (default 4)")
    p.add_argument(
        "--size", type=int, default=0, help="raw frame bytes (default: croupier's mean frame)"
    )
    args = p.parse_args()
    t = time.perf_counter()
    cro = run_croupier(args.terminals, args.rounds, args.procs, args.window)
    sizes = cro["frame_bytes"]
    size = args.size or (sum(sizes) // len(sizes) if sizes else 420)
    raw = run_raw(args.terminals, args.rounds - 1, args.procs, size)
    c, r = figures(cro["latencies"]), figures(raw["latencies"])
    last = figures(cro["last_per_round"])
    print(f"stadium bench: {args.terminals} terminals, {args.rounds} rounds, {args.procs} procs")
    print(
        f"  croupier no more bets -> settlement frame: p50 {c['p50']} ms, p99 {c['p99']} ms, "
        f"max {c['max']} ms ({len(cro['latencies'])} settlements)"
    )
    print(f"  croupier last terminal per round: p50 {last['p50']} ms, max {last['max']} ms")
    print(f"  croupier frame with the settlement: {size} bytes on average (raw: the same)")
    print(
        f"  raw broadcast of one frame: p50 {r['p50']} ms, p99 {r['p99']} ms, max {r['max']} ms "
        f"({len(raw['latencies'])} deliveries)"
    )
    ratio = {k: round(c[k] / r[k], 2) if r[k] else None for k in c}
    print(
        f"  ratio croupier / raw: p50 {ratio['p50']}x, p99 {ratio['p99']}x, max {ratio['max']}x"
        f" (goal <= 2x, p99 < 500 ms); refused: {cro['refused']}"
    )
    print(f"  took {time.perf_counter() - t:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
