"""Shared fixtures. Servers started by tests listen on 127.0.0.1 only."""

import os
import tempfile

# A ``croupier serve`` a test starts without ``--data`` keeps its ledger in a directory of
# the test run, never in the checkout's ./var (tests that run two servers at once give each
# its own directory).
os.environ.setdefault("CROUPIER_DATA", tempfile.mkdtemp(prefix="croupier-tests-"))
