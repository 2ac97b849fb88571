"""A separate OS process using the jackpot service (for the linked-tables tests).

python -m tests.jackpots.worker contribute URL POOL TABLE N
    coin in N wagers of table TABLE (every 7th sent twice, as a retry would) and
    N shared wagers every worker also sends; prints a JSON count of the statuses.
python -m tests.jackpots.worker award URL POOL ROUND CENTS
    award CENTS from the meter; prints the wall-clock time the commit returned.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter

import trio

from server.jackpots.service import open_jackpot_service


async def contribute(url: str, pool: str, table: str, n: int) -> None:
    statuses: Counter[str] = Counter()
    async with open_jackpot_service(url) as service:
        for k in range(n):
            statuses[(await service.contribute(pool, f"{table}-r{k}", "box1", 100)).status] += 1
            if k % 7 == 0:
                result = await service.contribute(pool, f"{table}-r{k}", "box1", 100)
                statuses[result.status] += 1
            result = await service.contribute(pool, f"shared-r{k}", "box1", 100)
            statuses[result.status] += 1
    print(json.dumps(statuses))


async def award(url: str, pool: str, round_id: str, cents: int) -> None:
    async with open_jackpot_service(url) as service:
        await service.award(pool, round_id, "settle", cents)
        print(json.dumps({"committed_at": time.time()}))


def main(argv: list[str]) -> None:
    mode, url, pool, name, number = argv
    job = contribute if mode == "contribute" else award
    trio.run(job, url, pool, name, int(number))


if __name__ == "__main__":
    main(sys.argv[1:])
