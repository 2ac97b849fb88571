"""A sheet as Markdown (``croupier par GAME --markdown``; ``docs/par/GAME.md``): the
summary of every wager, each standard wager beside its published figure, the outcomes, the
strategy table, the jackpot and the notes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.games.registry import BANKED
from server.par.engine import spec_of
from server.par.model import Sheet, WagerSheet
from server.par.published import Published, figures_for, match


def pct(x: float, digits: int = 4) -> str:
    return f"{x * 100:.{digits}f}%"


def _fingerprint(w: WagerSheet) -> tuple[Any, ...]:
    return (round(w.rtp, 12), tuple(sorted((round(o.probability, 12), o.pays) for o in w.outcomes)))


def groups(sheet: Sheet) -> list[tuple[list[str], WagerSheet]]:
    """Wagers with identical distributions together (the 37 straights of a wheel)."""
    out: list[tuple[list[str], WagerSheet]] = []
    seen: dict[tuple[Any, ...], int] = {}
    for name, w in sheet.wagers.items():
        key = _fingerprint(w) if w.method == "exact" else (name,)
        if key in seen:
            out[seen[key]][0].append(name)
        else:
            seen[key] = len(out)
            out.append(([name], w))
    return out


def _names(names: list[str]) -> str:
    if len(names) <= 3:
        return ", ".join(f"`{n}`" for n in names)
    return f"`{names[0]}` ... `{names[-1]}` ({len(names)} wagers)"


def _decimals(p: Published) -> int:
    """The decimals the published house edge is given to, in percent (``11.1%``: 1)."""
    text = f"{(1 - p.rtp) * 100:.6f}".rstrip("0")
    return len(text.split(".")[1])


def _published(p: Published) -> str:
    return pct(p.rtp, max(2, _decimals(p)))


def _verdict(ours: WagerSheet, p: Published) -> str:
    """An exact figure matches when it rounds to the published digits; a simulated one when
    the published figure lies in its 95% interval."""
    diff = ours.rtp - p.rtp
    if ours.method == "exact":
        close = abs(diff) * 100 <= 0.5 * 10 ** -min(_decimals(p), 4) + 1e-9
    else:
        close = abs(diff) <= ours.ci95
    if close:
        return "matches" if ours.method == "exact" else "within the 95% interval"
    return f"differs by {diff * 100:+.4f} points"


def render(sheet: Sheet) -> str:
    spec = spec_of(sheet.game) if sheet.game in BANKED else None
    title = spec.title if spec is not None else _poker_title(sheet.game)
    lines: list[str] = [f"# {title} (`{sheet.game}`): PAR sheet", ""]
    if "commission" in sheet.extra:
        return _p2p(sheet, lines)
    if spec is not None:
        lines += [f"Rules: {spec.rules}.", ""]
    how = sheet.method
    if sheet.rounds:
        how += f", {sheet.rounds:,} rounds"
        if sheet.boxes:
            how += f" of {sheet.boxes} boxes"
        if sheet.seed is not None:
            how += f", seed {sheet.seed}"
    if sheet.elapsed is not None:
        how += f"; {sheet.elapsed:,.1f} s" + (f" on {sheet.procs} processes" if sheet.procs else "")
        if sheet.cpu:
            how += f" ({sheet.cpu:,.0f} s of processor time)"
    lines += [f"- Method: {how}", f"- Options: {_options(sheet.options)}"]
    if sheet.strategy:
        lines.append(f"- Strategy: {sheet.strategy}")
    vr = sheet.extra.get("variance_reduction")
    if vr:
        plain = vr.get("plain_ci95", {})
        head = "round" if "round" in plain else next(iter(plain), None)
        gain = ""
        line = sheet.per_round if head == "round" else sheet.wagers.get(head or "")
        if head is not None and line is not None and line.ci95:
            gain = (
                f"; on these rounds the plain average's interval was ±{pct(plain[head], 4)} "
                f"({head}), {(plain[head] / line.ci95) ** 2:,.0f} times the variance"
            )
        lines.append(
            f"- Estimator: every payout settled by the engine; RTP and interval by "
            f"{vr['estimator']}; controls: {vr['controls']}{gain}"
        )
    lines += [
        "",
        "Per unit staked on each wager alone, the stake returned counted in "
        "(`croupier par --json` gives the same figures unrounded).",
        "",
    ]
    figures = figures_for(sheet.game, sheet.options)
    lines += [
        "| wager | RTP | house edge | ±95% | hit freq. | stdev | published RTP | |",
        "|---|---|---|---|---|---|---|---|",
    ]
    cited: list[tuple[str, WagerSheet, Published]] = []
    for names, w in groups(sheet):
        p = match(figures, names[0])
        pub = verdict = ""
        if p is not None:
            pub = _published(p)
            verdict = _verdict(w, p)
            cited.append((_names(names), w, p))
        ci = "exact" if w.method == "exact" else pct(w.ci95, 4)
        lines.append(
            f"| {_names(names)} | {pct(w.rtp)} | {pct(w.house_edge)} | {ci} | "
            f"{pct(w.hit_frequency, 2)} | {w.stdev:.3f} | {pub} | {verdict} |"
        )
    if sheet.per_round is not None:
        w = sheet.per_round
        p = match(figures, "per_round")
        pub = verdict = ""
        if p is not None:
            pub, verdict = _published(p), _verdict(w, p)
            cited.append(("the round", w, p))
        ci = "exact" if w.method == "exact" else pct(w.ci95, 4)
        lines.append(
            f"| **the round** (per {w.basis}) | {pct(w.rtp)} | {pct(w.house_edge)} | "
            f"{ci} | {pct(w.hit_frequency, 2)} | {w.stdev:.3f} | {pub} | {verdict} |"
        )
    exact_round = sheet.extra.get("exact_per_round")
    p = match(figures, "per_round")
    if exact_round and p is not None:
        exact_line = WagerSheet(exact_round["rtp"], exact_round["house_edge"], 0, 0, 0, [])
        cited.append((f"the round, exact ({exact_round['basis']})", exact_line, p))
    if exact_round:
        lines += [
            "",
            f"Exact value of the round ({exact_round['basis']}): RTP "
            f"{pct(exact_round['rtp'])}, house edge {pct(exact_round['house_edge'])}.",
        ]
    commission = sheet.extra.get("commission")
    if commission:
        lines += _commission(commission)
    lines += ["", "## Published figures", ""]
    if cited:
        lines += [
            "| wager | ours | published | source | same rules? | difference |",
            "|---|---|---|---|---|---|",
        ]
        for label, w, p in cited:
            why = f": {p.why}" if p.why else ""
            lines.append(
                f"| {label} | {pct(w.rtp)} | {_published(p)} | {p.source} | "
                f"{'yes' if p.same_rules else 'no'} | {_verdict(w, p)}{why} |"
            )
    else:
        lines.append(
            "No published figure exists for these rules (QLD/ACT variants); the "
            "figures above are the first."
        )
    if sheet.jackpot:
        lines += _jackpot(sheet.jackpot)
    if sheet.strategy_table:
        lines += _strategy(sheet.strategy_table)
    if sheet.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in sheet.notes]
    lines += ["", "## Outcomes", ""]
    for names, w in groups(sheet):
        lines += [f"### {_names(names)}", ""]
        if w.note:
            lines += [w.note, ""]
        lines += ["| result | probability | pays |", "|---|---|---|"]
        for o in w.outcomes[:40]:
            lines.append(f"| {o.result} | {o.probability:.8g} | {o.pays:+g} |")
        if len(w.outcomes) > 40:
            lines.append(f"| ... {len(w.outcomes) - 40} more (see the JSON) | | |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _options(options: Mapping[str, Any]) -> str:
    skip = {"minimum", "maximum", "num_boxes"}
    return ", ".join(f"`{k}={v}`" for k, v in options.items() if k not in skip) or "defaults"


def _jackpot(j: Mapping[str, Any]) -> list[str]:
    c = j.get("contribution", {})
    out = [
        "",
        "## Jackpot wager",
        "",
        f"- Regime: {j.get('regime')}",
        f"- Wager {j['wager'] / 100:,.2f}; seed (the meter's floor) {j['seed'] / 100:,.2f}",
        "- Contributions per wager: " + ", ".join(f"{k} {v:.0%}" for k, v in c.items()),
        f"- RTP with the seed on the meter: {pct(j['rtp_at_seed'])}; each dollar on the "
        f"meter adds {j['rtp_per_dollar_on_meter'] * 100:.6f} points",
    ]
    if j.get("break_even_meter"):
        out.append(f"- RTP reaches 100% with {j['break_even_meter'] / 100:,.0f} on the meter")
    if j.get("rtp_long_run") is not None:
        out.append(
            f"- Long run (every contribution to the prize pool paid out, the meter "
            f"reset to the seed after each royal flush): {pct(j['rtp_long_run'])}"
        )
    out.append(f"- Fixed prizes alone return {pct(j['fixed_prizes_rtp'])}")
    return out


def _strategy(table: Mapping[str, Any]) -> list[str]:
    out = ["", "## Strategy", ""]
    rows = table.get("rows")
    if isinstance(rows, Mapping) and rows:
        cols = list(next(iter(rows.values())).keys())
        out += [
            f"Columns: {table.get('columns', '')}. "
            + ", ".join(f"{k} {v}" for k, v in table.get("legend", {}).items()),
            "",
            "| hand | " + " | ".join(cols) + " |",
            "|---" * (len(cols) + 1) + "|",
        ]
        for name, row in rows.items():
            out.append(f"| {name} | " + " | ".join(str(row.get(c, "")) for c in cols) + " |")
        return out
    for key, value in table.items():
        if isinstance(value, Mapping):
            out += [f"{key}:", "", ", ".join(f"{k} {v}" for k, v in value.items()), ""]
        else:
            out.append(f"- {key}: {value}")
    return out


def _commission(c: Mapping[str, Any]) -> list[str]:
    return [
        "",
        "## Commission",
        "",
        f"- {c['seats']} seats, {c['structure']}, blinds "
        f"{'/'.join(str(b / 100) for b in c['blinds'])} dollars, "
        f"{c['stack_big_blinds']} big blinds a seat",
        f"- Expected commission per hand: {c['per_hand'] / 100:,.4f} dollars "
        f"(±{c['ci95'] / 100:.4f}, 95%), {c['per_hand_big_blinds']:.4f} big blinds",
        f"- Share of the pots: {pct(c['share_of_pots'])}; hands without commission "
        f"{pct(c['hands_without_commission'], 2)}",
    ]


def _poker_title(game: str) -> str:
    from server.games.poker import rules_for

    return str(rules_for(game).title)


def _p2p(sheet: Sheet, lines: list[str]) -> str:
    """A p2p poker game: the house takes commission, there is no wager against it."""
    how = f"simulation, {sheet.rounds:,} hands, seed {sheet.seed}"
    if sheet.elapsed is not None:
        how += f"; {sheet.elapsed:,.1f} s" + (f" on {sheet.procs} processes" if sheet.procs else "")
        if sheet.cpu:
            how += f" ({sheet.cpu:,.0f} s of processor time)"
    lines += [
        f"- Method: {how}",
        f"- Options: {_options(sheet.options)}",
        f"- Players: {sheet.strategy}",
    ]
    lines += _commission(sheet.extra["commission"])
    lines += [
        "",
        "Players play each other: no wager is made against the house, so there is "
        "no RTP; the house's take is its commission (ACT r 11, QLD Sch 11 s30, Sch 5 "
        "s28), shown per hand for the stated table. Random players make large pots: "
        "the commission cap then binds on most hands.",
    ]
    if sheet.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in sheet.notes]
    return "\n".join(lines).rstrip() + "\n"


#: the interval a simulated sheet should reach (issue 26): 0.05% of the stake
TARGET_CI = 0.0005


def _projection(two_cores: float, ci95: float) -> str:
    """Minutes of two dedicated cores an interval of :data:`TARGET_CI` takes, from a run
    that took ``two_cores`` seconds to ``ci95`` (the interval shrinks as 1/sqrt(rounds))."""
    minutes = two_cores * (ci95 / TARGET_CI) ** 2 / 60
    text = f"{minutes:,.1f} min" if minutes < 10 else f"{minutes:,.0f} min"
    return f"{text} (reached)" if ci95 <= TARGET_CI else text


def index(sheets: list[Sheet]) -> str:
    """``docs/par/sheets.md``: every sheet's method, run and headline figure, and for the
    simulated ones how far their intervals got and the time 0.05% takes on two cores."""
    lines = [
        "# PAR sheets: the runs",
        "",
        "Generated by `croupier par --write-docs docs/par` (and `--render-docs`). Headline: "
        "the round per unit of its basis wager where a game has one, else its main wager. "
        "Seconds: wall time, with the processor time all processes used (other work shared "
        "the machine's two cores during these runs: the load average is the one-minute "
        "figure when the run ended). Two cores: the processor time over two, the wall time "
        "on two cores of its own. Time to 0.05%: that time scaled by (interval / 0.05%)^2, "
        "what an interval that narrow takes at the run's pace (the headline's, and the "
        'widest simulated wager\'s; "reached" when the run got there).',
        "",
        "| game | method | rounds | seconds (processor) | two cores | headline RTP | ±95% | "
        "wagers at 0.05% | time to 0.05% (headline, two cores) | every wager to 0.05% |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in sheets:
        head = s.per_round or next(iter(s.wagers.values()), None)
        run = f"{s.elapsed:,.0f}" if s.elapsed is not None else ""
        if s.cpu:
            run += f" ({s.cpu:,.0f})"
        load = s.extra.get("load_average")
        if load is not None:
            run += f", load {load}"
        two = s.cpu / 2 if s.cpu else None
        two_text = f"{two / 60:,.1f} min" if two else ""
        rounds = f"{s.rounds:,}" + (f" x {s.boxes} boxes" if s.boxes else "") if s.rounds else ""
        if head is None:
            c = s.extra.get("commission", {})
            lines.append(
                f"| [`{s.game}`]({s.game}.md) | commission | {rounds} | {run} | {two_text} | "
                f"{c.get('per_hand', 0) / 100:.4f} $/hand | {c.get('ci95', 0) / 100:.4f} $ | | |"
            )
            continue
        simulated = [w for w in s.wagers.values() if w.method == "simulation"]
        if s.per_round is not None and s.per_round.method == "simulation":
            simulated.append(s.per_round)
        at = sum(1 for w in simulated if w.ci95 <= TARGET_CI)
        ci = "exact" if head.method == "exact" else pct(head.ci95)
        to_target = every = ""
        if head.method == "simulation" and two:
            to_target = _projection(two, head.ci95)
        if simulated and two:
            every = _projection(two, max(w.ci95 for w in simulated))
        lines.append(
            f"| [`{s.game}`]({s.game}.md) | {s.method} | {rounds} | {run} | {two_text} | "
            f"{pct(head.rtp)} | {ci} | "
            f"{f'{at} of {len(simulated)}' if simulated else 'all exact'} | {to_target} | "
            f"{every} |"
        )
    return "\n".join(lines) + "\n"
