"""Every round of every blackjack shoe verifies, over a graceful stop and a kill -9 (issue 23).

A real ``croupier serve`` process deals blackjack from short shoes (five decks, the cutting
card 170 cards from the back: a reshuffle every eight rounds or so) to three bots and a
spectator. It is stopped gracefully in the middle of a shoe, started again, killed (SIGKILL)
in the middle of a round, started again, and stopped, and started a last time. Each shoe a
stop interrupted is retired in the first round after the next start (``shoe_retired``,
``stopped``); its secret was on the record from its first round, so every settled round of
every shoe, the interrupted ones included, derives from its shoe's secret and seeds
(``croupier verify`` on the journal), and every card the spectator was shown opens against
the commitment of its stack. Only the last shoe, still in play, is "not yet verifiable".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import trio

from clients.client import Client
from server.records.history_cli import formatters
from server.records.history_cli import main as history_main
from server.records.verify import Shoes, rounds_seen, verify_round, verify_seen
from server.records.verify_cli import main as verify_main
from server.store.journal import JournalQuery, JournalRound
from server.store.sqlite import SqliteStore
from tests.integration.helpers import ServerProcess, write_tables
from tests.integration.test_blackjack_tables import Seat

GAME = "blackjack"


async def _watch(url: str, frames: list[dict[str, Any]]) -> None:
    async with Client.connect(url, name="rail") as c:
        await c.join(GAME, role="spectator")
        async for message in c:
            frames.append(message)


def _results(frames: list[dict[str, Any]]) -> int:
    return sum(1 for f in frames if f.get("event", {}).get("type") == "round_result")


def _dealt_and_open(data: Path) -> bool:
    """The journal's last round has its cards on the record and no end yet: a kill now
    interrupts a dealt round (read from the store, not from frames that may lag under
    load)."""
    store = SqliteStore(data, lock=False, readonly=True)
    try:
        rounds = store.journal_rounds(JournalQuery(table=GAME))
    finally:
        store.close()
    return bool(rounds) and not rounds[-1].of("end") and bool(rounds[-1].of("event"))


async def _phase(
    tables: Path, data: Path, rounds: int, frames: list[dict[str, Any]], *, kill: bool
) -> None:
    """One server process: the bots play until the spectator saw ``rounds`` results, then
    the process is stopped (SIGINT), or killed (SIGKILL) once the next round is dealt."""
    extra = ("--data", str(data), "--starting-balance", "100000", "--round-pause", "0.02")
    server = await ServerProcess(tables, None, *extra).started()
    try:
        seen: list[dict[str, Any]] = []
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_watch, server.url, seen)
                await trio.sleep(0.2)
                seats = [Seat(GAME, box, seed=len(frames) + box) for box in (1, 2, 3)]
                for seat in seats:
                    nursery.start_soon(seat.run, server.url, 10**6)
                while _results(seen) < rounds:
                    await trio.sleep(0.02)
                if kill:  # in the middle of a round whose deal is on the record
                    for seat in seats:  # from now on the clocks decide: the round lasts
                        seat.rng.random = lambda: 0.0  # type: ignore[method-assign]
                    while not await trio.to_thread.run_sync(_dealt_and_open, data):
                        await trio.sleep(0.01)
                    server.proc.kill()
                    server.proc.wait(10)
                else:
                    server.stop()
                nursery.cancel_scope.cancel()
        frames += seen
    finally:
        server.stop()


async def test_every_round_of_every_shoe_verifies_over_a_stop_and_a_kill_9(tmp_path: Path) -> None:
    tables = write_tables(
        tmp_path / "tables.toml",
        [
            {
                "id": GAME,
                "game": GAME,
                "betting_seconds": 0.15,
                "decision_seconds": 0.3,
                "options": {"minimum": 100, "maximum": 5000, "decks": 5, "cut_card": 170},
            }
        ],
    )
    data = tmp_path / "data"
    frames: list[dict[str, Any]] = []
    await _phase(tables, data, 12, frames, kill=False)  # a graceful stop mid-shoe
    await _phase(tables, data, 10, frames, kill=True)  # kill -9 mid-round
    await _phase(tables, data, 4, frames, kill=False)
    await _phase(tables, data, 2, frames, kill=False)  # retires the shoe the last stop left
    store = SqliteStore(data, lock=False, readonly=True)
    try:
        rounds: list[JournalRound] = store.journal_rounds(JournalQuery(table=GAME))
    finally:
        store.close()
    shoes = Shoes.of(rounds)
    used = {r.start["shoe"]["id"] for r in rounds}
    reasons = {b["id"]: b["reason"] for r in rounds for b in r.of("shoe_retired")}
    assert list(reasons.values()).count("stopped") >= 3, reasons  # each stop's shoe, retired
    assert "reshuffled" in reasons.values()  # and a shoe run out in play
    last = rounds[-1].start["shoe"]["id"]
    assert used - set(reasons) == {last}  # only the shoe in play at the end is not retired
    verified = pending = 0
    for rnd in rounds:
        verdict = verify_round(rnd, shoes)
        assert verdict.problems == [], (rnd.ref, verdict.problems)
        if rnd.start["shoe"]["id"] == last:
            assert verdict.pending and "is still in play" in verdict.pending
            pending += 1
        elif rnd.final_state == "settled":
            assert verdict.pending is None, (rnd.ref, verdict.pending)
            verified += 1
    assert verified >= 20 and pending >= 1
    interrupted = [r for r in rounds if not r.of("end")]
    assert interrupted  # the round the kill -9 cut: its cards still open, its shoe derives
    # what the spectator received: every card opened against its stack's commitment
    cards = 0
    for seen in rounds_seen(frames):
        assert verify_seen(seen).problems == [], seen["round"]
        cards += sum(len(e.get("open", ())) for e in seen["events"])
    assert cards > 100
    export = tmp_path / "rounds.json"
    export.write_text(json.dumps([r.to_json() for r in rounds]))
    assert verify_main([str(export)]) == 0  # croupier verify on the journal export
    for form in sorted(formatters()):  # history export keeps working in every format
        out = tmp_path / f"export.{form}"
        assert (
            history_main(["export", "--format", form, "--data", str(data), "--out", str(out)]) == 0
        )
    assert json.loads((tmp_path / "export.journal").read_text()) == json.loads(export.read_text())
    assert len((tmp_path / "export.ohh").read_text().splitlines()) == len(rounds)
