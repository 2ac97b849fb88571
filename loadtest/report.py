"""The load-test report: a terminal summary (rich), JSON, and a self-contained HTML page.

The HTML page has no external assets: two inline SVG plots side by side, action latency
over time (p50, p99 and max per second of the run, log scale) and throughput over time
(actions acknowledged per second). Money is shown in dollars.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from loadtest.runner import PAID_OUT, PLAYER_FIELDS
from loadtest.stats import Stats
from server.money import dollars


def progress_table(stats: Stats, elapsed: float) -> Table:
    """The live progress panel (cumulative figures of every worker so far)."""
    c = stats.counters
    recent = [stats.timeline[s] for s in sorted(stats.timeline)[-5:]]
    p99 = max((h.percentile(99) for h in recent), default=0.0)
    p50 = max((h.percentile(50) for h in recent), default=0.0)
    t = Table(title=f"croupier loadtest - {elapsed:5.1f} s", show_header=False)
    t.add_column(justify="left")
    t.add_column(justify="right")
    rows = [
        ("bots connected", f"{c.get('connected', 0)} / {c.get('bots', 0)}"),
        ("hands", f"{c.get('hands', 0)} ({c.get('voided', 0)} voided)"),
        ("actions", f"{c.get('actions', 0)}"),
        ("frames in / out", f"{c.get('frames_out', 0)} / {c.get('frames_in', 0)}"),
        ("latency p50 / p99 (last 5 s)", f"{p50:.1f} / {p99:.1f} ms"),
        ("errors", ", ".join(f"{k} {v}" for k, v in stats.errors.items()) or "none"),
        ("chaos drops / reconnects", f"{c.get('chaos_disconnects', 0)} / {c.get('reconnects', 0)}"),
    ]
    for k, v in rows:
        t.add_row(k, v)
    return t


def game_row(row: dict[str, Any]) -> str:
    """One game's line: latency, and at banked tables rounds and money (cents)."""
    lat = row["latency_ms"]
    text = f"latency ms p50 {lat['p50']}  p99 {lat['p99']}  (n={lat['count']})"
    if "conserved" in row:
        text += (
            f"; {row.get('rounds', 0)} rounds, {row.get('decisions', 0)} decisions; "
            f"results net {row['results_net']} = wallets net {row['wallet_net']}: "
            + ("conserved" if row["conserved"] else "NOT CONSERVED")
        )
    return text


def summary_rows(report: dict[str, Any]) -> list[tuple[str, str]]:
    lat = report["latency_ms"]
    cons = report["conservation"]
    disc = report["disconnects"]
    return [
        (
            "played",
            f"{report['played_s']} s, {report['bots']} bots, "
            f"{report['config']['tables']} tables x {report['config']['seats']} seats, "
            f"pace {report['config']['pace']}, {report['config']['procs']} procs"
            + (", chaos" if report["config"]["chaos"] else ""),
        ),
        ("hands", f"{report['hands']} ({report['hands_per_s']}/s), {report['voided']} voided"),
        (
            "actions",
            f"{report['actions']} ({report['actions_per_s']}/s), {report['timed_out']} timed out",
        ),
        (
            "frames to server",
            f"{report['frames_to_server']} ({report['frames_to_server_per_s']}/s)",
        ),
        (
            "frames from server",
            f"{report['frames_from_server']} "
            f"({report['frames_from_server_per_s']}/s), carrying "
            f"{report.get('messages_from_server', 0)} messages",
        ),
        (
            "action latency ms",
            f"p50 {lat['p50']}  p95 {lat['p95']}  p99 {lat['p99']}  "
            f"max {lat['max']}  (n={lat['count']})",
        ),
        *(
            [
                (
                    "latency after warm-up",
                    "p50 {p50}  p95 {p95}  p99 {p99}  max {max}  (after {after_s} s)".format(
                        **report["latency_ms_steady"]
                    ),
                )
            ]
            if report["config"].get("warmup")
            else []
        ),
        ("errors", ", ".join(f"{k}: {v}" for k, v in report["errors"].items()) or "none"),
        (
            "disconnects",
            f"chaos {disc['chaos']}, slow reads {disc['slow_reads']}, "
            f"server closes {disc['server_closes'] or 'none'}, "
            f"reconnects {disc['reconnects']}, seats resumed "
            f"{disc['resumed_seats']}",
        ),
        ("seats vacated", ", ".join(f"{k}: {v}" for k, v in report["vacated"].items()) or "none"),
        ("conservation", _conservation_text(cons)),
        (
            "result",
            "OK"
            if report["ok"]
            else f"FAILED ({report['unexpected']} unexpected events"
            + ("" if report["conserved"] else ", money NOT conserved")
            + ")",
        ),
    ]


def _conservation_text(cons: dict[str, Any]) -> str:
    parts = []
    for name in ("before", "after"):
        key = f"server_{name}_ok"
        if key in cons:
            parts.append(f"server {name}: {'ok' if cons[key] else 'FAIL'}")
    if cons.get("client_ok") is not None:
        parts.append(
            f"bots net {signed(cons['bots_net'])} + {house_side_text(cons)}: "
            f"{'ok' if cons['client_ok'] else 'FAIL'}"
        )
    elif cons.get("client_note"):
        parts.append(cons["client_note"])
    return "; ".join(parts) or "not checked"


def signed(cents: int) -> str:
    """``-1234`` -> ``-$12.34``, ``500`` -> ``+$5``."""
    return ("+" if cents >= 0 else "") + dollars(cents)


def house_side_text(cons: dict[str, Any]) -> str:
    """What the house side took during the run, field by field of /health's money
    (``commission +$12.50``; ``house``, jackpot fields at banked tables)."""
    before, after = cons.get("before") or {}, cons.get("after") or {}
    fields = [k for k in after if k != "issued" and k not in PLAYER_FIELDS]
    sign = {k: -1 if k in PAID_OUT else 1 for k in fields}  # a jackpot paid leaves its pool
    changes = [(k, sign[k] * (int(after[k]) - int(before.get(k, 0)))) for k in fields]
    shown = [f"{k.replace('_', ' ')} {signed(v)}" for k, v in changes if v] or [
        f"{k.replace('_', ' ')} {signed(0)}" for k in fields[:1]
    ]
    return " + ".join(shown) or f"house side {signed(cons.get('house_delta', 0))}"


def print_report(report: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    t = Table(title="croupier loadtest report", show_header=False)
    t.add_column(justify="left", style="bold")
    t.add_column(justify="left")
    for k, v in summary_rows(report):
        t.add_row(k, v)
    for game, row in (report.get("by_game") or {}).items():
        t.add_row(f"  {game}", game_row(row))
    console.print(t)
    for p in report["problems"][:10]:
        console.print(f"  [yellow]problem:[/yellow] {p}")


def write_json(report: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(report, indent=2, sort_keys=False) + "\n")


#: (key, colour) of each line of the latency plot, drawn back to front
LATENCY_LINES = (("max", "#d62728"), ("p99", "#ff7f0e"), ("p50", "#1f77b4"))


def line_svg(
    timeline: list[dict[str, Any]],
    lines: tuple[tuple[str, str], ...],
    unit: str,
    log: bool,
    width: int = 560,
    height: int = 260,
) -> str:
    """Inline SVG: the ``lines`` (timeline keys) per second of the run; ``log``: log y scale."""
    left, right, top, bottom = 56, 12, 14, 34
    pw, ph = width - left - right, height - top - bottom
    if not timeline:
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="60">'
            '<text x="10" y="30">no samples</text></svg>'
        )
    t_max = max(p["t"] for p in timeline) or 1
    values = [v for p in timeline for key, _ in lines if (v := p[key]) > 0]
    if log:
        lo = min(values, default=1.0)
        hi = max(values, default=10.0)
        lo_d = math.floor(math.log10(max(lo, 0.01)))
        hi_d = max(math.ceil(math.log10(max(hi, lo * 1.01, 0.02))), lo_d + 1)
        ticks = [10.0**d for d in range(lo_d, hi_d + 1)]

        def frac(v: float) -> float:
            return (math.log10(max(v, 10.0**lo_d)) - lo_d) / (hi_d - lo_d)
    else:
        top_value = max(values, default=1)
        step_v = 10 ** max(0, math.floor(math.log10(max(top_value, 1))))
        while top_value / step_v > 5:
            step_v *= 2
        ticks = [float(step_v * k) for k in range(0, int(top_value // step_v) + 2)]

        def frac(v: float) -> float:
            return v / ticks[-1]

    def x(t: float) -> float:
        return left + pw * t / t_max

    def y(v: float) -> float:
        return top + ph * (1 - frac(v))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="11">',
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#999"/>',
    ]
    for v in ticks:
        yy = y(v)
        out.append(
            f'<line x1="{left}" x2="{left + pw}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#ddd"/>'
        )
        out.append(f'<text x="{left - 4}" y="{yy + 4:.1f}" text-anchor="end">{v:g} {unit}</text>')
    step = max(1, round(t_max / 8))
    for t in range(0, t_max + 1, step):
        out.append(f'<text x="{x(t):.1f}" y="{top + ph + 14}" text-anchor="middle">{t}</text>')
    out.append(
        f'<text x="{left + pw / 2}" y="{height - 4}" text-anchor="middle">'
        "seconds into the run</text>"
    )
    keep: Callable[[float], bool] = (lambda v: v > 0) if log else (lambda v: True)
    for key, colour in lines:
        pts = " ".join(f"{x(p['t']):.1f},{y(p[key]):.1f}" for p in timeline if keep(p[key]))
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{pts}"/>')
    for i, (key, colour) in enumerate(reversed(lines) if log else lines):
        lx = left + 10 + i * 70
        out.append(f'<rect x="{lx}" y="{top + 6}" width="12" height="3" fill="{colour}"/>')
        out.append(f'<text x="{lx + 16}" y="{top + 11}">{key}</text>')
    out.append("</svg>")
    return "\n".join(out)


def latency_svg(timeline: list[dict[str, Any]]) -> str:
    """Action latency per second of the run: p50, p99 and max (log scale)."""
    return line_svg(timeline, LATENCY_LINES, "ms", log=True)


def throughput_svg(timeline: list[dict[str, Any]]) -> str:
    """Throughput per second of the run: actions acknowledged (the latency samples)."""
    return line_svg(
        [{"t": p["t"], "actions/s": p["count"]} for p in timeline],
        (("actions/s", "#2ca02c"),),
        "/s",
        log=False,
    )


def write_html(report: dict[str, Any], path: Path) -> None:
    rows = "\n".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
        for k, v in summary_rows(report)
    )
    problems = "".join(f"<li>{html.escape(p)}</li>" for p in report["problems"])
    doc = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>croupier loadtest report</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font-family: sans-serif; margin: 2em; color: #222; }}
@media (max-width: 600px) {{ body {{ margin: 0.5em; }} }}
svg {{ max-width: 100%; height: auto; }}
table {{ border-collapse: collapse; }}
th, td {{ text-align: left; padding: 3px 10px; border-bottom: 1px solid #eee; }}
.ok {{ color: #2a7d2a; }} .fail {{ color: #b00; }}
</style></head><body>
<h1>croupier loadtest report</h1>
<p class="{"ok" if report["ok"] else "fail"}">{"OK" if report["ok"] else "FAILED"}</p>
<table>{rows}</table>
<h2>Latency and throughput over time</h2>
<p>Left: time from sending <code>act</code> until the <code>action_taken</code> event for the
seat arrived, per second of the run. Right: actions acknowledged per second.</p>
<div style="display: flex; flex-wrap: wrap; gap: 1em">
<div>{latency_svg(report["timeline"])}</div>
<div>{throughput_svg(report["timeline"])}</div>
</div>
{"<h2>Problems</h2><ul>" + problems + "</ul>" if problems else ""}
</body></html>
"""
    path.write_text(doc)
