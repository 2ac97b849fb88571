"""Raw limit: croupier's deliveries per second against a plain websockets.trio broadcast.

Both halves run in this one invocation, on the same machine, with the same connection
count, message size and client processes:

1. **croupier**: ``croupier serve`` with a generated lobby of ``--tables`` nine-seat tables,
   played by ``croupier loadtest --pace max`` bots in ``--procs`` worker processes.
   Measured: frames delivered to clients per second, the mean frame size, and the frames
   one action causes per recipient.
2. **raw**: a plain ``websockets.trio`` server in its own process that does no game work:
   connections are grouped like seats at a table; when the client whose "turn" it is sends
   a frame, the server queues the same number of pre-encoded MessagePack frames of the same
   mean size to every member of the group (per-connection bounded queue drained by a
   writer task: the safe broadcast of STACK.md), the last one telling the next member it is
   its turn. Clients decode every frame with msgpack, like the bots.
3. **raw firehose**: the same server broadcasting to every connection as fast as the
   per-connection queues drain (no turns: the transport's ceiling here).
4. **raw coalesced**: table-shaped, but what one action causes for a recipient goes out as
   one frame (what batching several messages per frame would buy; counted in messages).

Printed: deliveries/s of each, server CPU per delivery, and the ratios croupier / raw
(goal >= 0.6). On this 2-core machine the client processes compete with the server for the
CPU, so the deliveries/s are partly client-bound; the deliveries per server CPU-second ratio
is the server-side comparison.
Run: ``.venv/bin/python benchmarks/raw_broadcast_bench.py [--tables 150]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgpack
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loadtest.runner import RunSpec, run
from loadtest.server_proc import LocalServer


# -- the raw server ----------------------------------------------------------------------------
def payload(size: int, turn: bool) -> bytes:
    """A MessagePack map of about ``size`` bytes, like a server event."""
    base = {"type": "event", "table": "raw-1", "seq": 1, "turn": turn, "pad": ""}
    pad = max(0, size - len(msgpack.packb(base)))
    base["pad"] = "x" * pad
    return msgpack.packb(base)


async def raw_server(
    port: int, group: int, per_action: int, size: int, firehose: bool, coalesce: bool
) -> None:
    """``firehose``: one task broadcasts to every connection as fast as their queues drain
    (no turns). Otherwise: table-shaped, closed-loop traffic (see the module docstring);
    ``coalesce`` sends what one action causes to a recipient as one frame instead of
    ``per_action`` frames (what batching messages per frame would buy)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.trio.server import serve

    if coalesce:
        size, per_action = size * per_action, 1
    normal, turn = payload(size, False), payload(size, True)
    groups: list[list[Any]] = [[]]
    everyone: list[Any] = []

    async def broadcaster() -> None:
        while True:
            if not everyone:
                await trio.sleep(0.01)
            for m in list(everyone):
                await m.send.send(normal)  # back-pressure: waits for a full queue to drain

    class Member:
        def __init__(self) -> None:
            self.send, self.outbox = trio.open_memory_channel[bytes](256)

    async def handler(ws: Any) -> None:
        me = Member()
        if firehose:
            everyone.append(me)
            try:
                async for frame in me.outbox:
                    await ws.send(frame)
            except ConnectionClosed:
                pass
            finally:
                everyone.remove(me)
            return
        members = groups[-1]
        members.append(me)
        if len(members) == group:
            groups.append([])
            # the group is full: give the first member its turn
            for m in members:
                m.send.send_nowait(turn if m is members[0] else normal)
        index = members.index(me)

        async def writer() -> None:
            try:
                async for frame in me.outbox:
                    await ws.send(frame)
            except ConnectionClosed:
                pass

        async with trio.open_nursery() as nursery:
            nursery.start_soon(writer)
            try:
                async for _ in ws:  # an "act": broadcast like one table action
                    nxt = members[(index + 1) % len(members)]
                    for m in members:
                        for k in range(per_action):
                            last = k == per_action - 1
                            try:
                                m.send.send_nowait(turn if (last and m is nxt) else normal)
                            except trio.WouldBlock:
                                pass  # a client that does not read: dropped frames
            except ConnectionClosed:
                pass
            nursery.cancel_scope.cancel()

    async with trio.open_nursery() as nursery:
        if firehose:
            nursery.start_soon(broadcaster)
        server = await nursery.start(
            functools.partial(
                serve, handler, port, host="127.0.0.1", compression=None, max_size=4096
            )
        )
        print(server.listeners[0].socket.getsockname()[1], flush=True)


async def raw_clients(url: str, conns: int, duration: float) -> dict[str, Any]:
    from websockets.trio.client import connect

    count = [0, 0]  # frames, bytes
    act = msgpack.packb({"type": "act", "table": "raw-1", "verb": "call"})
    ready = trio.Semaphore(64)
    start = trio.Event()
    connected = [0]

    async def client() -> None:
        await ready.acquire()
        async with connect(url, compression=None, proxy=None, open_timeout=60) as ws:
            ready.release()
            connected[0] += 1
            if connected[0] == conns:
                start.set()
            async for frame in ws:
                msg = msgpack.unpackb(frame)
                count[0] += 1
                count[1] += len(frame)
                if msg["turn"]:
                    await ws.send(act)

    measured: dict[str, Any] = {}
    async with trio.open_nursery() as nursery:
        for _ in range(conns):
            nursery.start_soon(client)
        await start.wait()
        await trio.sleep(2.0)  # warm-up
        print(json.dumps({"start": True}), flush=True)  # the orchestrator samples CPU now
        c0, t0 = count[0], trio.current_time()
        await trio.sleep(duration)
        measured = {
            "frames": count[0] - c0,
            "seconds": trio.current_time() - t0,
            "total_frames": count[0],
        }
        nursery.cancel_scope.cancel()
    return measured


# -- orchestration -----------------------------------------------------------------------------
def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_croupier(
    tables: int, procs: int, duration: float, server_dir: Path | None = None
) -> dict[str, Any]:
    prefix = ["env", "-C", str(server_dir), sys.executable] if server_dir else None
    with LocalServer(tables, 9, round_pause=0.2, prefix=prefix) as srv:
        c0, t0 = srv.cpu_seconds(), time.monotonic()
        report = trio.run(
            run,
            RunSpec(
                url=srv.url, tables=tables, duration=duration, procs=procs, pace="max", warmup=2
            ),
        )
        cpu = srv.cpu_seconds() - c0
        wall = time.monotonic() - t0
    frames = report["frames_from_server"]
    messages = report.get("messages_from_server") or frames
    return {
        "deliveries_per_s": report["frames_from_server_per_s"],
        "messages_per_frame": messages / max(frames, 1),
        "server_cpu_us_per_action": cpu / max(report["actions"], 1) * 1e6,
        "mean_size": round(report["bytes_from_server"] / max(frames, 1)),
        "per_action_per_recipient": frames / max(report["actions"], 1) / 9,
        "server_cpu_share": cpu / wall,
        "server_cpu_us_per_delivery": cpu / max(frames, 1) * 1e6,
        "actions_per_s": report["actions_per_s"],
        "hands_per_s": report["hands_per_s"],
        "latency_ms": report["latency_ms_steady"],
        "ok": report["ok"],
    }


def run_raw(
    tables: int, procs: int, duration: float, per_action: int, size: int, mode: str = "table"
) -> dict[str, Any]:
    me = str(Path(__file__).resolve())
    server = subprocess.Popen(
        [
            sys.executable,
            me,
            "--role",
            "raw-server",
            "--per-action",
            str(per_action),
            "--size",
            str(size),
            "--mode",
            mode,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        url = f"ws://127.0.0.1:{port}/ws"
        conns = tables * 9
        shares = [conns // procs + (1 if i < conns % procs else 0) for i in range(procs)]
        c0, t0 = cpu_seconds(server.pid), time.monotonic()
        clients: list[subprocess.Popen[str]] = [
            subprocess.Popen(
                [
                    sys.executable,
                    me,
                    "--role",
                    "raw-client",
                    "--url",
                    url,
                    "--conns",
                    str(n),
                    "--duration",
                    str(duration),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            for n in shares
        ]
        for c in clients:  # every client connected and warmed up: the steady window opens
            assert c.stdout is not None
            c.stdout.readline()
        s0, w0 = cpu_seconds(server.pid), time.monotonic()
        results = []
        for c in clients:
            assert c.stdout is not None
            results.append(json.loads(c.stdout.readline()))
            if len(results) == 1:  # the steady window closes with the first report
                s1, w1 = cpu_seconds(server.pid), time.monotonic()
            c.wait()
        cpu, wall = cpu_seconds(server.pid) - c0, time.monotonic() - t0
    finally:
        server.kill()
        server.wait()
    per_frame = per_action if mode == "coalesced" else 1  # messages carried by a frame
    frames = sum(r["frames"] for r in results) * per_frame
    total = sum(r["total_frames"] for r in results) * per_frame
    seconds = max(r["seconds"] for r in results)
    rate = frames / seconds
    return {
        "deliveries_per_s": rate,
        "server_cpu_share": cpu / wall,
        "server_cpu_us_per_delivery": cpu / max(total, 1) * 1e6,
        # the steady window only (connection storm and warm-up left out), per delivery
        "steady_cpu_us_per_delivery": (s1 - s0) / max(rate * (w1 - w0), 1) * 1e6,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=150)
    p.add_argument("--procs", type=int, default=2, help="client processes")
    p.add_argument("--duration", type=float, default=15.0)
    p.add_argument("--role", choices=("bench", "raw-server", "raw-client"), default="bench")
    p.add_argument("--per-action", type=int, default=4)
    p.add_argument("--size", type=int, default=120)
    p.add_argument("--mode", choices=("table", "firehose", "coalesced"), default="table")
    p.add_argument("--url")
    p.add_argument(
        "--server-dir",
        type=Path,
        default=None,
        help="run croupier from this checkout (before/after comparisons)",
    )
    p.add_argument("--skip-raw", action="store_true", help="only the croupier half")
    p.add_argument("--conns", type=int)
    args = p.parse_args()
    if args.role == "raw-server":
        trio.run(
            raw_server,
            0,
            9,
            args.per_action,
            args.size,
            args.mode == "firehose",
            args.mode == "coalesced",
        )
        return 0
    if args.role == "raw-client":
        print(json.dumps(trio.run(raw_clients, args.url, args.conns, args.duration)))
        return 0

    print(
        f"{args.tables} tables x 9 seats = {args.tables * 9} connections, "
        f"{args.procs} client processes, {args.duration:.0f} s each"
    )
    cr = run_croupier(args.tables, args.procs, args.duration, args.server_dir)
    per_action = max(1, round(cr["per_action_per_recipient"]))
    print(
        f"croupier: {cr['deliveries_per_s']:,.0f} deliveries/s "
        f"({cr['actions_per_s']} actions/s, {cr['hands_per_s']} hands/s), "
        f"mean frame {cr['mean_size']} B, {cr['per_action_per_recipient']:.2f} frames per "
        f"action per recipient, server CPU {cr['server_cpu_share']:.0%} of a core, "
        f"{cr['server_cpu_us_per_delivery']:.1f} us CPU per delivery, "
        f"{cr['messages_per_frame']:.2f} messages per frame, "
        f"{cr['server_cpu_us_per_action']:.0f} us CPU per action, "
        f"action p50/p99 {cr['latency_ms']['p50']}/{cr['latency_ms']['p99']} ms, "
        f"ok={cr['ok']}"
    )
    if args.skip_raw:
        return 0
    for label, mode in (
        ("table-shaped", "table"),
        ("firehose", "firehose"),
        ("table-shaped, one frame per action per recipient", "coalesced"),
    ):
        raw = run_raw(args.tables, args.procs, args.duration, per_action, cr["mean_size"], mode)
        print(
            f"raw websockets.trio, {label}: {raw['deliveries_per_s']:,.0f} messages/s, "
            f"server CPU {raw['server_cpu_share']:.0%} of a core, "
            f"{raw['server_cpu_us_per_delivery']:.1f} us CPU per message"
        )
        ratio = cr["deliveries_per_s"] / raw["deliveries_per_s"]
        cpu_ratio = raw["server_cpu_us_per_delivery"] / cr["server_cpu_us_per_delivery"]
        print(
            f"  ratio croupier/raw ({label}) deliveries/s: {ratio:.2f} (goal >= 0.6: "
            f"{'met' if ratio >= 0.6 else 'NOT met'}); deliveries per server CPU-second: "
            f"{cpu_ratio:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
