"""Shared fixtures. Servers started by tests listen on 127.0.0.1 only."""

import os
import re
import tempfile

import pytest
from hypothesis import settings

# A ``croupier serve`` a test starts without ``--data`` keeps its ledger in a directory of
# the test run, never in the checkout's ./var (tests that run two servers at once give each
# its own directory).
os.environ.setdefault("CROUPIER_DATA", tempfile.mkdtemp(prefix="croupier-tests-"))


# -- property tests: CI runs the same examples every time ---------------------------------------
# A red CI must mean a change broke something, not that hypothesis drew a new example: under
# ``.ci/run`` (HYPOTHESIS_PROFILE=ci) every property test is derandomized. A developer's run
# explores new examples each time (the default profile); a failure it finds is a new test.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# -- people read dollars: no refusal a table sends writes an amount as bare cents -------------
#: a figure of 3+ digits not written as dollars ($4,000.00) nor part of a rule number
_BARE = re.compile(r"(?<![$\d,.(])\d{3,}(?![\d,.)])|\bcents?\b")


@pytest.fixture(autouse=True)
def _refusals_read_in_dollars(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Every test: each ``error`` a table sends reads its amounts in dollars (issue 13)."""
    from server.tables.base import TableActor

    sent: list[str] = []
    original = TableActor.error

    def error(self, conn, code, message, ref, reason=None, amounts=None):  # type: ignore[no-untyped-def]
        sent.append(message)
        original(self, conn, code, message, ref, reason, amounts)

    monkeypatch.setattr(TableActor, "error", error)
    yield
    bare = [m for m in sent if _BARE.search(m)]
    assert not bare, f"refusals with amounts not in dollars: {bare}"


# -- the suite in worker processes: the long tests first --------------------------------------
# ``./run.sh test`` runs ``pytest -n 3 --dist loadfile --no-loadscope-reorder``: the tests of a
# file go to one worker together (its module-scoped fixtures are built once), the files in the
# order collected here: those with a ``slow`` test first, so the longest (the kill -9 loops of
# several minutes) start at once instead of last (xdist's own order puts the files with the
# most tests first: a file of two long tests came at the end of the run, on one worker).
# The tests of a few files of long, independent tests are spread one by one (:data:`SPREAD`;
# ``--dist loadgroup`` cannot do it: xdist 3.8 cannot group under pytest 9).
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable


#: files of long, independent tests (each parameter a kill -9 loop of a minute or more, each
#: with its own server, store and temporary directory): their tests are spread over the workers
#: one by one instead of running one after another on one worker
SPREAD = frozenset(
    {
        "tests/integration/test_confirmed_durable.py",
        "tests/integration/test_crash_recovery.py",
        "tests/integration/test_jackpot_durable.py",
        "tests/integration/test_tournament_kills.py",
    }
)


#: files that share a session fixture costly to build (a worker builds it once, for all)
TOGETHER = {  # tests/records/conftest.py ``recorded``: 220 hands played by bots, ~30 s
    "tests/records/test_export.py": "recorded",
    "tests/records/test_phh.py": "recorded",
    "tests/records/test_pokerstars.py": "recorded",
}


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """``--dist loadfile``, but each test of a :data:`SPREAD` file is a work unit of its own,
    and the files of :data:`TOGETHER` are one."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SpreadLongFiles(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return nodeid if path in SPREAD else TOGETHER.get(path, path)

    return SpreadLongFiles(config, log)
