"""Server configuration: listening address, session secret, timers, limits and the lobby.

Everything a test may want fast (turn time, time bank, disconnect grace, pause between
rounds) is a field here. Tables come from a TOML file (``server/default_tables.toml`` by
default): a list of ``[[tables]]`` with ``id``, ``name``, ``game`` and ``options`` (the
engine's options, SCENARIOS.md, including ``max_seats`` and the buy-in limits).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol.messages import MAX_FRAME

DEFAULT_PORT = 8765
DEFAULT_LEASE = 10.0  # seconds a deployment's table lease runs (server/room/directory.py)
DEFAULT_TABLES = Path(__file__).with_name("default_tables.toml")
WEB_ROOT = Path(__file__).resolve().parent.parent / "clients" / "web"


class ConfigError(ValueError):
    """The configuration file is not valid."""


@dataclass(frozen=True)
class TableConfig:
    id: str
    game: str
    name: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None  # tests only: a SeededRandomSource instead of the system CSPRNG
    # banked tables (server/tables/banked.py)
    jackpot_pool: str | None = None  # linked progressive pool id (jackpot wagers only with one)
    betting_seconds: float = 15.0  # the betting window's countdown (Sch 19 s5(4))
    decision_seconds: float = 20.0  # time for each box's decision; then the engine's timeout
    #: after a jackpot outage: "auto" (wagers reopen when the pool answers) or "approval"
    #: (a manager approves, ACT 2017 r 14.5); None: approval for ACT 2017 tables, else auto
    jackpot_reopen: str | None = None
    # the kind of table (None: the game's default; server/games/registry.py)
    kind: str | None = None
    # stadium tables (server/tables/stadium/)
    max_terminals: int = 1000  # terminals approved for the game (Sch 19 s2(3))
    result_source: str = "rng"  # "rng" (the CSPRNG) or "dealer" (a staff ``result`` message)


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    secret: str | None = None  # None: dev mode (guest tokens, random per-process secret)
    starting_balance: int = 100_000  # cents a new (guest) account starts with
    #: the most a cashier may pay into one wallet in one deposit, and the most a deposit may
    #: bring a wallet to, in cents (winnings may take it beyond; nothing beyond 2^53 - 1)
    max_deposit: int = 100_000_000  # $1,000,000
    max_wallet: int = 1_000_000_000  # $10,000,000
    token_ttl: float = 7 * 24 * 3600.0
    tables: tuple[TableConfig, ...] = ()
    # pace
    turn_time: float = 20.0  # seconds a seat has to act before its time bank is used
    time_bank: float = 30.0  # extra seconds per seat, spent when the turn time runs out
    time_bank_add: float = 5.0  # seconds added to each seat's bank every time_bank_hands
    time_bank_hands: int = 10  # hands a seat plays between top-ups (0: never topped up)
    time_bank_max: float | None = None  # the most a bank holds (None: time_bank)
    seat_offer_time: float = 20.0  # seconds a freed seat is held for the waiting list's first
    grace: float = 60.0  # a disconnected seat is held this long
    round_pause: float = 2.0  # pause between rounds (time to buy in, sit out, read results)
    drain_grace: float = 0.0  # on SIGTERM: /ready fails, play goes on this long, then the stop
    abstain_rounds: int = 3  # ACT 18.8: rounds without wagering while full before vacating
    # limits
    max_frame: int = MAX_FRAME
    outbound_queue: int = 256  # messages queued per connection before it is dropped (4002)
    max_violations: int = 20  # refused messages before close 1008
    rate: float = 50.0  # messages per second sustained
    burst: float = 100.0  # messages allowed in a burst
    hello_timeout: float = 10.0
    #: a connection silent this long gets a ping; closed (1011) if still silent after
    #: ping_timeout more (one sweep per process: server/net/connections.py); a connection the
    #: server writes to is watched by TCP (TCP_USER_TIMEOUT: the two together)
    ping_interval: float = 20.0
    ping_timeout: float = 20.0
    close_timeout: float = 2.0
    web_root: Path = WEB_ROOT
    redis: str | None = None  # jackpot pools in Redis (--redis URL or --jackpot-redis URL)
    redis_ledger: bool = False  # the ledger and accounts there too (croupier serve --redis)
    #: the ledger's data directory (SQLite; with --redis: the witness file only); None: an
    #: in-memory store (tests only)
    data: Path | None = None
    #: browser origins allowed to open a WebSocket; None: pages from loopback only (dev)
    origins: tuple[str, ...] | None = None
    max_per_ip: int = 64  # WebSocket connections from one address (429 beyond)
    max_spectators: int = 200  # spectators per table (spectators_full beyond)
    #: tables one account may sit at (players, not spectators) at once (too_many_tables)
    max_tables: int = 6
    #: seconds a poker seat may be held without a stake before it is released (no_stake)
    unstaked_seat_time: float = 60.0
    allow_volatile_redis: bool = False  # --redis without AOF persistence (tests only)
    dev_redis: bool = False  # a dev-mode server on a Redis (tests only)
    #: an empty Redis may become a new ledger store (--new-store); otherwise a server refuses
    #: it (a flushed Redis must never pass for a new one; dev_redis implies it)
    new_store: bool = False
    #: the Ed25519 key that signs checkpoints of the store's chain (--signing-key-file, or
    #: $CROUPIER_SIGNING_KEY; None: no checkpoints): server/store/checkpoints.py
    signing_key_file: Path | None = None
    redis_replicas: int = 0  # --redis-wait N: a ledger commit counts once N replicas have it
    #: a deployment (--directory, server/room/directory.py): tables under leases of ``lease``
    #: seconds; ``advertise``: this process's client URL (default ws://HOST:PORT/ws)
    directory: bool = False
    lease: float = DEFAULT_LEASE
    advertise: str | None = None
    #: tournaments (server/tournaments/conditions.py ``Conditions``), each run by its own task
    tournaments: tuple[Any, ...] = ()
    #: seconds in a minute of the tournaments' clock (levels, breaks); tests shorten it
    tournament_minute: float = 60.0

    @property
    def dev(self) -> bool:
        return self.secret is None


def load_tables(path: Path | str = DEFAULT_TABLES) -> tuple[TableConfig, ...]:
    """Read the ``[[tables]]`` of a TOML file."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    tables = []
    known = set(TableConfig.__dataclass_fields__)
    for i, raw in enumerate(data.get("tables", [])):
        if not isinstance(raw, dict) or "id" not in raw or "game" not in raw:
            raise ConfigError(f"{path}: tables[{i}] needs an id and a game")
        unknown = set(raw) - known
        if unknown:
            raise ConfigError(f"{path}: tables[{i}] unknown keys {sorted(unknown)}")
        tables.append(TableConfig(**raw))
    ids = [t.id for t in tables]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"{path}: duplicate table ids")
    return tuple(tables)
