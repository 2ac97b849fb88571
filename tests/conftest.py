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


# -- the suite in worker processes: the long tests first, each on its own ----------------------
# ``./run.sh test`` runs ``pytest -n 3 --dist loadgroup --no-loadscope-reorder``: the tests of a
# module go to one worker together (its module-scoped fixtures are built once), in the order
# collected here. A ``slow`` test is a work unit of its own (its own ``xdist_group``) and goes
# first, so the longest ones (a kill -9 loop of 2 minutes, one per store) start at once on
# different workers instead of last, on one worker, after the many short modules.
@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid))
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable
