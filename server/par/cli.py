"""``croupier par``: a game's PAR sheet, as text, JSON or Markdown; or every sheet into a
directory (``docs/par/``).

    croupier par GAME [--option KEY=VALUE ...] [--json | --markdown] [--rounds N] [--seed S]
                      [--procs P]
    croupier par --write-docs DIR [--rounds N] [--seed S] [--procs P] [GAME ...]
    croupier par --list

``--option`` values are JSON where they parse as JSON (``wheel_type=54``,
``side_wagers=[]``, ``pair_plus_survives_fold=true``), else strings
(``wheel_type=double_zero``). Bad input (an unknown game or option, a bad value) ends in one
line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from server.cli import OneLineParser
from server.errors import ScenarioError
from server.games.banked.base import InvalidRound
from server.games.registry import POKER
from server.par import games
from server.par.markdown import index, pct, render
from server.par.model import Sheet


class BadInput(ValueError):
    """Input the user can fix: one line on stderr, exit 2."""


def parse_options(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise BadInput(f"--option takes KEY=VALUE, not {pair!r}")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out[key] = value
    return out


def parser() -> OneLineParser:
    p = OneLineParser(
        prog="croupier par",
        description="PAR sheets: every wager's probabilities, payouts, RTP, house edge, hit "
        "frequency and volatility, computed by the engines (docs/par/README.md).",
    )
    p.add_argument("games", nargs="*", metavar="GAME", help="a game id (see --list)")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a table option (repeatable), as in croupier scenario --describe",
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="the sheet as JSON")
    out.add_argument("--markdown", action="store_true", help="the sheet as Markdown")
    p.add_argument(
        "--rounds",
        type=int,
        default=games.DEFAULT_ROUNDS,
        help=f"rounds a simulated sheet plays (default {games.DEFAULT_ROUNDS:,})",
    )
    p.add_argument("--seed", type=int, default=games.DEFAULT_SEED, help="the simulation's seed")
    p.add_argument(
        "--procs",
        type=int,
        default=None,
        help="processes a simulation runs in (default: every core)",
    )
    p.add_argument(
        "--write-docs", metavar="DIR", help="write every sheet (or the GAMEs given) as DIR/GAME.md"
    )
    p.add_argument(
        "--render-docs",
        metavar="DIR",
        help="rewrite DIR/GAME.md from DIR/GAME.json (nothing recomputed)",
    )
    p.add_argument("--list", action="store_true", help="list the games and their methods")
    return p


def all_games() -> list[str]:
    return [*games.lobby(), *POKER]


def method_of(game: str) -> str:
    if game in games.EXACT:
        return "exact"
    if game in POKER:
        return "simulation (commission per hand)"
    return "simulation"


def text(sheet: Sheet) -> str:
    lines = [
        f"{sheet.game}: {sheet.method}"
        + (f", {sheet.rounds:,} rounds" if sheet.rounds else "")
        + (f"; strategy: {sheet.strategy}" if sheet.strategy else "")
    ]
    width = max((len(n) for n in sheet.wagers), default=5)
    for name, w in sheet.wagers.items():
        ci = "exact" if w.method == "exact" else f"±{pct(w.ci95)}"
        lines.append(
            f"  {name:<{width}}  RTP {pct(w.rtp)}  house edge {pct(w.house_edge)}  "
            f"{ci}  hit {pct(w.hit_frequency, 2)}  sd {w.stdev:.3f}"
        )
    if sheet.per_round is not None:
        w = sheet.per_round
        ci = "exact" if w.method == "exact" else f"±{pct(w.ci95)}"
        lines.append(
            f"  the round per {w.basis}: RTP {pct(w.rtp)}  house edge {pct(w.house_edge)}  {ci}"
        )
    if "commission" in sheet.extra:
        c = sheet.extra["commission"]
        lines.append(
            f"  commission per hand: {c['per_hand'] / 100:.4f} dollars "
            f"(±{c['ci95'] / 100:.4f}), {c['seats']} seats, {c['structure']}"
        )
    return "\n".join(lines)


def build(game: str, options: dict[str, Any], args: argparse.Namespace) -> Sheet:
    if game not in all_games():
        raise BadInput(f"unknown game {game!r} (croupier par --list lists them)")
    if args.rounds < 1:
        raise BadInput("--rounds must be at least 1")
    if args.procs is not None and args.procs < 1:
        raise BadInput("--procs must be at least 1")
    req = games.Request(game, options, args.rounds, args.seed, args.procs)
    try:
        return games.build(req)
    except (InvalidRound, ScenarioError) as e:
        raise BadInput(f"{game}: {str(e).splitlines()[0]}") from None


def write_docs(directory: str, names: list[str], args: argparse.Namespace) -> None:
    """Every sheet (or ``names``) as DIR/GAME.json (the JSON form plus ``run``: seconds,
    processes, load average) and DIR/GAME.md."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    for game in names or all_games():
        sheet = build(game, {}, args)
        data = sheet.to_json()
        data["run"] = {
            "seconds": round(sheet.elapsed or 0, 1),
            "procs": sheet.procs,
            "cpu_seconds": None if sheet.cpu is None else round(sheet.cpu, 1),
            "load_average": round(os.getloadavg()[0], 2),
        }
        (out / f"{game}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        (out / f"{game}.md").write_text(render(sheet), encoding="utf-8")
        print(f"{game}: {sheet.elapsed or 0:,.1f} s", file=sys.stderr)
    write_index(out)


def _load(path: Path) -> Sheet:
    data = json.loads(path.read_text(encoding="utf-8"))
    sheet = Sheet.from_json(data)
    sheet.extra["load_average"] = data.get("run", {}).get("load_average")
    return sheet


def write_index(directory: Path) -> None:
    """DIR/sheets.md: every sheet in DIR, in lobby order (:func:`server.par.markdown.index`)."""
    order = {g: i for i, g in enumerate(all_games())}
    paths = sorted(directory.glob("*.json"), key=lambda p: order.get(p.stem, len(order)))
    (directory / "sheets.md").write_text(index([_load(p) for p in paths]), encoding="utf-8")


def render_docs(directory: str) -> None:
    """DIR/GAME.md and DIR/sheets.md again from DIR/GAME.json (no sheet recomputed)."""
    for path in sorted(Path(directory).glob("*.json")):
        sheet = _load(path)
        sheet.extra.pop("load_average", None)
        path.with_suffix(".md").write_text(render(sheet), encoding="utf-8")
    write_index(Path(directory))


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.list:
            for g in all_games():
                print(f"{g:<22} {method_of(g)}")
            return 0
        if args.write_docs:
            write_docs(args.write_docs, args.games, args)
            return 0
        if args.render_docs:
            render_docs(args.render_docs)
            return 0
        if len(args.games) != 1:
            raise BadInput("give one GAME (croupier par --list lists them)")
        sheet = build(args.games[0], parse_options(args.option), args)
    except BadInput as e:
        print(f"croupier par: {e}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(sheet.to_json(), sys.stdout)
        sys.stdout.write("\n")
    elif args.markdown:
        sys.stdout.write(render(sheet))
    else:
        print(text(sheet))
    return 0


if __name__ == "__main__":
    sys.exit(main())
