"""Where ``../shared`` (rules, vectors, seeds) lives: beside the repository, or $CROUPIER_SHARED."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("CROUPIER_SHARED", REPO.parent / "shared"))
VECTORS = SHARED / "vectors"

if not VECTORS.is_dir():  # pragma: no cover - a broken checkout must fail loudly, not skip
    raise RuntimeError(f"shared vectors not found at {VECTORS}; set CROUPIER_SHARED")
