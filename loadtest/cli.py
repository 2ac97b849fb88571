"""``croupier loadtest``: fill tables with bots over real WebSockets and report.

Examples::

    croupier loadtest --serve --tables 20 --duration 30 --chaos --json out.json
    croupier loadtest --write-config lobby.toml --tables 1000
    croupier serve --tables lobby.toml &
    croupier loadtest --tables 1000 --pace human --procs 2 --duration 60 --html out.html

Bounded: every run stops after ``--duration`` seconds (and earlier when ``--games`` hands
were played at every table), then the bots leave their seats and the report is printed.
Only local targets (127.0.0.1, localhost, ::1) unless ``--allow-remote``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import trio
from rich.console import Console
from rich.live import Live

from loadtest import report as rep
from loadtest import stadium, tournament
from loadtest.runner import LoadTestError, RunSpec, lobby, money_conserved, run
from loadtest.server_proc import GAME_OPTIONS, LocalServer, fetch_health, tables_toml
from loadtest.stats import Stats
from server.cli import OneLineParser
from server.credentials import CredentialError, add_redis, redis_url
from server.tournaments.conditions import ConditionsError
from server.tournaments.conditions import load as load_conditions

DEFAULT_URL = "ws://127.0.0.1:8765/ws"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
#: seconds a stadium round may take at most (a default table: a 20 s betting window, the
#: result and the pause) before ``--stadium`` ends the play as timed out
STADIUM_ROUND_BOUND = 90


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="croupier loadtest",
        description=__doc__.split("\n\n")[0].replace("``", ""),
        epilog=__doc__.split("\n\n", 1)[1].replace("Examples::", "Examples:").replace("``", ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--url", default=DEFAULT_URL, help=f"server (default {DEFAULT_URL})")
    p.add_argument("--tables", type=int, default=10, help="tables to fill (default 10)")
    p.add_argument("--seats", type=int, default=9, help="bots per table (default 9)")
    p.add_argument(
        "--games",
        type=int,
        default=None,
        help="stop a table after this many hands (default: no limit)",
    )
    p.add_argument(
        "--duration",
        type=float,
        default=30.0,
        help="seconds of play before the bots leave (default 30)",
    )
    p.add_argument(
        "--pace",
        choices=("human", "max"),
        default="max",
        help="human: 1-3 s of thought per action; max: none (default)",
    )
    p.add_argument("--procs", type=int, default=1, help="worker processes for the bots")
    add_redis(
        p,
        "a deployment of several servers (croupier serve --directory): read its table "
        "directory from this Redis, send each table's bots to the process that serves it, "
        "and check its ledger afterwards (without it, a deployment's lobby at --url is used)",
        on_request=True,
    )
    p.add_argument(
        "--chaos", action="store_true", help="random disconnects/reconnects and slow readers"
    )
    p.add_argument("--seed", type=int, default=None, help="seed for the bots' choices")
    p.add_argument(
        "--warmup",
        type=float,
        default=0.0,
        help="seconds left out of the steady-state latency figures",
    )
    p.add_argument("--json", type=Path, help="write the report as JSON")
    p.add_argument("--html", type=Path, help="write an HTML report (inline SVG plot)")
    p.add_argument(
        "--allow-remote", action="store_true", help="allow a target other than this machine"
    )
    p.add_argument("--quiet", action="store_true", help="no live progress")
    st = p.add_argument_group("stadium mode: terminals on one stadium table (QLD Sch 19)")
    st.add_argument(
        "--stadium",
        metavar="TABLE",
        help="put --terminals terminals on this stadium table, each wagering at random "
        "every betting window, for --rounds settled rounds (then cash out and leave)",
    )
    st.add_argument("--terminals", type=int, default=100, help="terminals (default 100)")
    st.add_argument("--rounds", type=int, default=5, help="rounds per terminal (default 5)")
    tg = p.add_argument_group("tournament mode: bots register and play a tournament to the end")
    tg.add_argument(
        "--tournament",
        type=Path,
        metavar="FILE",
        help="register --players bots to the tournament of this conditions file (the server "
        "runs it: croupier serve --tournament FILE, or --serve) and play it to the end, "
        "at most --duration seconds",
    )
    tg.add_argument("--players", type=int, default=9, help="bots that register (default 9)")
    tg.add_argument(
        "--tournament-minute",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="with --serve: seconds in a minute of the tournament's clock (default 1)",
    )
    g = p.add_argument_group("a server of the load test's own (--serve)")
    g.add_argument(
        "--serve",
        action="store_true",
        help="start croupier serve on a free 127.0.0.1 port with a generated "
        "lobby of --tables tables, and stop it afterwards",
    )
    g.add_argument(
        "--game",
        action="append",
        choices=sorted(GAME_OPTIONS),
        help="game(s) of the generated lobby, cycled (default holdem-act); banked "
        "games too (e.g. --game blackjack --game baccarat: bots wager, decide and "
        "leave); without --serve: fill only tables of these games",
    )
    g.add_argument("--turn-time", type=float, default=20.0)
    g.add_argument("--grace", type=float, default=60.0)
    g.add_argument("--round-pause", type=float, default=1.0)
    g.add_argument(
        "--write-config",
        type=Path,
        metavar="FILE",
        help="only write the generated lobby TOML (for croupier serve --tables)",
    )
    return p


def is_local(url: str) -> bool:
    host = urlparse(url).hostname or ""
    return host in LOCAL_HOSTS


def main(argv: list[str] | None = None) -> int:
    options = parser()
    args = options.parse_args(argv)
    try:  # never a password in argv (server/credentials.py)
        args.redis = redis_url(args, "croupier loadtest", on_request=True)
    except CredentialError as exc:
        options.error(str(exc))
    console = Console(stderr=True)
    if args.tables < 1 or not 2 <= args.seats <= 10 or args.duration <= 0 or args.procs < 1:
        console.print(
            "croupier loadtest: need --tables >= 1, 2 <= --seats <= 10, "
            "--duration > 0, --procs >= 1"
        )
        return 2
    if args.write_config:
        args.write_config.write_text(tables_toml(args.tables, args.seats, args.game))
        console.print(
            f"wrote {args.tables} tables to {args.write_config}; "
            f"run: croupier serve --tables {args.write_config}"
        )
        return 0
    if args.stadium:
        return stadium_mode(args, console)
    if args.tournament:
        return tournament_mode(args, console)
    if not args.serve and not is_local(args.url) and not args.allow_remote:
        console.print(
            f"croupier loadtest: refusing non-local target {args.url} "
            "(pass --allow-remote if you really mean it)"
        )
        return 2
    server: LocalServer | None = None
    url = args.url
    if args.serve:
        server = LocalServer(
            args.tables,
            args.seats,
            args.game,
            turn_time=args.turn_time,
            grace=args.grace,
            round_pause=args.round_pause,
        )
        url = server.start()
        console.print(f"started croupier serve (pid {server.pid}) at {url}")
    spec = RunSpec(
        url=url,
        tables=args.tables,
        seats=args.seats,
        games=args.games,
        duration=args.duration,
        pace=args.pace,
        procs=args.procs,
        chaos=args.chaos,
        seed=args.seed,
        warmup=args.warmup,
        only_games=args.game,
        redis=args.redis,
    )
    try:
        report = _run(spec, console, live=not args.quiet)
    except LoadTestError as exc:
        console.print(f"croupier loadtest: {exc}")
        return 2
    finally:
        if server is not None:
            code = server.stop()
            if server.error_lines:
                console.print(
                    f"[yellow]the server logged {server.error_lines} error lines; "
                    "last output:[/yellow]\n" + "".join(list(server.output)[-20:])
                )
            console.print(f"stopped the server (exit {code})")
    if server is not None:
        report["server_error_lines"] = server.error_lines
        if server.error_lines:
            report["ok"] = False
    rep.print_report(report, Console())
    if args.json:
        rep.write_json(report, args.json)
    if args.html:
        rep.write_html(report, args.html)
    return 0 if report["ok"] else 1


def stadium_mode(args: argparse.Namespace, console: Console) -> int:
    """``--stadium TABLE``: terminals on one table of a running server (loadtest/stadium.py)."""
    if not is_local(args.url) and not args.allow_remote:
        console.print(f"croupier loadtest: refusing non-local target {args.url}")
        return 2
    tables = {t["id"]: t for t in trio.run(lobby, args.url)}
    table = tables.get(args.stadium)
    if table is None or "electronic terminals" not in table["description"]:
        console.print(f"croupier loadtest: no stadium table {args.stadium!r} at {args.url}")
        return 2
    console.print(
        f"{args.terminals} terminals on {args.stadium} ({table['game']}), {args.rounds} rounds"
        " (each waits for a betting window of its own: the table's pace)"
    )
    wanted, said = args.terminals * args.rounds, set()

    def on_round(number: int, stats: stadium.TerminalStats) -> None:
        """A line per round the table settled: the run is seen to move (issue 27)."""
        if number not in said:
            said.add(number)
            console.print(f"round #{number} settled: {stats.settled} of {wanted} settlements")

    stats = trio.run(
        stadium.run_terminals,
        args.url,
        args.stadium,
        table["game"],
        args.terminals,
        args.rounds,
        args.seed or 1,
        0,
        on_round,
        STADIUM_ROUND_BOUND * args.rounds + 60,
    )
    report = stadium.summary(stats)
    report["conserved"] = money_conserved(fetch_health(args.url)["money"])
    console.print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    ok = report["conserved"] and not report["refused"].get("internal")
    return 0 if ok and not report["timed_out"] else 1


def tournament_mode(args: argparse.Namespace, console: Console) -> int:
    """``--tournament FILE --players N``: bots register and play it (loadtest/tournament.py)."""
    try:
        conditions = load_conditions(args.tournament)
    except ConditionsError as exc:
        console.print(f"croupier loadtest: {args.tournament}: {exc}")
        return 2
    if not args.serve and not is_local(args.url) and not args.allow_remote:
        console.print(f"croupier loadtest: refusing non-local target {args.url}")
        return 2
    server: LocalServer | None = None
    url = args.url
    if args.serve:
        extra = ["--tournament", str(args.tournament)]
        extra += ["--tournament-minute", str(args.tournament_minute)]
        extra += ["--max-per-ip", str(args.players + 16)]  # every bot on 127.0.0.1
        server = LocalServer(
            1,
            2,
            None,
            turn_time=args.turn_time,
            grace=args.grace,
            round_pause=args.round_pause,
            extra=extra,
        )
        url = server.start()
        console.print(f"started croupier serve (pid {server.pid}) at {url}")
    console.print(f"{args.players} bots register to {conditions.id} ({conditions.name})")
    try:
        outcome = trio.run(
            tournament.run_players, url, conditions.id, args.players, args.seed or 1, args.duration
        )
        report = outcome.summary()
        money = fetch_health(url)["money"]
    finally:
        if server is not None:
            console.print(f"stopped the server (exit {server.stop()})")
    report["conserved"] = money_conserved(money)
    console.print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    ok = report["finished"] and report["conserved"] and not report["refused"].get("internal")
    return 0 if ok else 1


def _run(spec: RunSpec, console: Console, live: bool) -> dict[str, Any]:
    if not live:
        return trio.run(run, spec)
    with Live(console=console, refresh_per_second=2, transient=True) as display:

        def on_progress(stats: Stats, elapsed: float) -> None:
            display.update(rep.progress_table(stats, elapsed))

        return trio.run(run, spec, on_progress)


if __name__ == "__main__":
    sys.exit(main())
