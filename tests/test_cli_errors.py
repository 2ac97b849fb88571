"""Every ``croupier`` failure a user can cause ends in one line saying what to do.

Each case runs the real command (a subprocess): a non-zero exit status, exactly one line on
stderr, no traceback. ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_redis import factories

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100")
ENV.pop("CROUPIER_REDIS", None)
ENV.pop("CROUPIER_DEBUG", None)

redis_with_password = factories.redis_proc(password="sekrit")


def fresh_env() -> dict[str, str]:
    """The environment with a ledger directory of its own (one server per --data)."""
    return dict(ENV, CROUPIER_DATA=tempfile.mkdtemp(prefix="croupier-cli-"))


def croupier(
    *args: str, timeout: float = 60, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**fresh_env(), **(env or {})},
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )


def secret_file(text: str) -> str:
    """A file holding ``text`` (a token, a Redis URL): how a secret stays out of argv."""
    fd, path = tempfile.mkstemp(prefix="croupier-secret-")
    with os.fdopen(fd, "w") as f:
        f.write(text + "\n")
    return path


def one_line_error(proc: subprocess.CompletedProcess[str], status: int | None = None) -> str:
    """The single stderr line of a failed command (asserting the shape)."""
    assert proc.returncode != 0, proc.stdout
    if status is not None:
        assert proc.returncode == status, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, int]]:
    """A real ``croupier serve`` on 127.0.0.1 (its default tables): (ws URL, port)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=fresh_env(),
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        url = None
        for _ in range(20):
            line = proc.stdout.readline()
            if m := re.search(r"clients: (ws://127\.0\.0\.1:(\d+)/ws)", line):
                url, port = m.group(1), int(m.group(2))
                break
        assert url, "the server did not start"
        yield url, port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_web_address_instead_of_the_websocket_one(server: tuple[str, int]) -> None:
    _, port = server
    line = one_line_error(croupier("play", "--url", f"http://127.0.0.1:{port}/"))
    assert f"try --url ws://127.0.0.1:{port}/ws" in line


def test_a_url_without_the_ws_path(server: tuple[str, int]) -> None:
    _, port = server
    line = one_line_error(croupier("play", "--url", f"ws://127.0.0.1:{port}"))
    assert "/ws" in line and f"try --url ws://127.0.0.1:{port}/ws" in line


def test_a_wrong_path(server: tuple[str, int]) -> None:
    _, port = server
    line = one_line_error(croupier("play", "--url", f"ws://127.0.0.1:{port}/nope"))
    assert "HTTP 404" in line and "/ws" in line


def test_no_server_running() -> None:
    url = f"ws://127.0.0.1:{free_port()}/ws"
    line = one_line_error(croupier("play", "--url", url))
    assert "no server is listening" in line and "croupier serve" in line


def test_a_second_server_on_a_port_in_use(server: tuple[str, int]) -> None:
    _, port = server
    line = one_line_error(croupier("serve", "--port", str(port)))
    assert f"port {port} on 127.0.0.1 is already in use" in line and "--port" in line


@pytest.mark.parametrize(
    ("port", "said"),
    [("99999", "port 99999 is not between 0 and 65535"), ("-1", "not between"), ("x", "'x'")],
)
def test_a_port_out_of_range_is_refused_not_served_elsewhere(port: str, said: str) -> None:
    line = one_line_error(croupier("serve", "--port", port), status=2)  # issue 27, point 7
    assert "--port" in line and said in line


def test_debug_shows_the_traceback(server: tuple[str, int]) -> None:
    _, port = server
    proc = croupier("--debug", "serve", "--port", str(port))
    assert proc.returncode != 0 and "Traceback" in proc.stderr


def test_a_buy_in_with_a_third_decimal() -> None:
    line = one_line_error(croupier("play", "--buy-in", "6.555"), status=2)
    assert "at most two decimals" in line


def test_a_buy_in_below_the_table_minimum_is_refused_not_adjusted(
    server: tuple[str, int],
) -> None:
    url, _ = server
    proc = croupier("play", "--url", url, "--table", "holdem-act-1", "--buy-in", "10")
    line = one_line_error(proc)
    assert "--buy-in $10.00 is below this table's minimum buy-in of $40.00" in line


def test_an_unknown_command_suggests_the_nearest() -> None:
    line = one_line_error(croupier("plya"), status=2)
    assert "did you mean 'croupier play'?" in line


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "cannot read"),
        ("{not json", "not valid JSON"),
        ("{}", 'names no "game"'),
        ('{"game": "blackjack-9"}', "unknown game: 'blackjack-9'"),
    ],
)
def test_a_bad_scenario_file(tmp_path: Path, content: str | None, expected: str) -> None:
    path = tmp_path / "s.json"
    if content is not None:
        path.write_text(content)
    line = one_line_error(croupier("scenario", str(path)), status=2)
    assert expected in line


def test_scenario_runs_a_vector_file_and_lists_the_games() -> None:
    vectors = sorted((ROOT.parent / "shared" / "vectors").glob("banked/*.json"))
    assert vectors, "../shared/vectors holds the test vectors"
    proc = croupier("scenario", str(vectors[0]))
    assert proc.returncode == 0, proc.stderr
    assert '"state"' in proc.stdout
    helped = croupier("scenario", "--help")
    assert helped.returncode == 0
    assert "three-card-poker" in helped.stdout and "holdem-act" in helped.stdout
    assert "example:" in helped.stdout


def test_jackpot_with_a_wrong_redis_password(redis_with_password) -> None:  # type: ignore[no-untyped-def]
    host, port = redis_with_password.host, redis_with_password.port
    for url in (f"redis://{host}:{port}", f"redis://:wrong@{host}:{port}"):
        line = one_line_error(
            croupier("jackpot", "--redis-file", secret_file(url), "show"), status=3
        )
        assert "refused the user or password" in line and "wrong" not in line
    ok = croupier("jackpot", "show", env={"CROUPIER_REDIS": f"redis://:sekrit@{host}:{port}"})
    assert ok.returncode == 0 and "no jackpot pools in the Redis at" in ok.stdout
    assert ok.stderr == ""


def test_a_password_or_token_on_the_command_line_is_warned_about_never_echoed(
    redis_with_password,  # type: ignore[no-untyped-def]
) -> None:
    """Issue 23: ps shows argv to every user: the old forms still work, with one line."""
    url = f"redis://:sekrit@{redis_with_password.host}:{redis_with_password.port}"
    ok = croupier("jackpot", "--redis", url, "show")
    assert ok.returncode == 0 and "no jackpot pools in the Redis at" in ok.stdout
    (warning,) = ok.stderr.splitlines()
    assert "--redis-file PATH or env CROUPIER_REDIS" in warning and "sekrit" not in warning
    both = croupier("ledger", "check", "--redis", url, "--redis-file", secret_file(url))
    assert "give --redis or --redis-file, not both" in one_line_error(both, status=2)
    unset = croupier("serve", "--port", "0", "--redis", "--dev-redis")
    assert "env CROUPIER_REDIS, which is not set" in one_line_error(unset, status=2)


def test_jackpot_with_an_unreachable_redis() -> None:
    url = f"redis://127.0.0.1:{free_port()}"
    line = one_line_error(croupier("jackpot", "--redis", url, "show"), status=3)
    assert "cannot reach the Redis at" in line


def test_jackpot_show_says_where_it_looked() -> None:
    proc = croupier("jackpot", "show")
    assert proc.returncode == 0
    assert "data directory" in proc.stdout and "--redis" in proc.stdout


def test_a_starting_balance_with_a_secret_is_refused() -> None:
    """Issue 22: production accounts start at $0; the option was ignored without a word."""
    env = dict(fresh_env(), CROUPIER_SECRET="s" * 32)
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "server.cli", "serve", "--port", "0"),
            *("--origin", "https://casino.example", "--starting-balance", "500"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    line = one_line_error(proc, status=2)
    assert "--starting-balance is for dev mode only" in line and "cashier" in line


def test_limits_that_contradict_each_other_are_refused() -> None:
    line = one_line_error(
        croupier("serve", "--port", "0", "--max-deposit", "100", "--max-wallet", "50"), status=2
    )
    assert "--max-deposit is above --max-wallet" in line
    line = one_line_error(croupier("serve", "--port", "0", "--new-store"), status=2)
    assert "--new-store is for --redis" in line


def test_a_seat_the_table_does_not_have(server: tuple[str, int]) -> None:
    url, _ = server
    line = one_line_error(croupier("play", "--url", url, "--table", "holdem-act-1", "--seat", "99"))
    assert "--seat 99" in line and "seats 1 to 9" in line


def test_a_bad_token(server: tuple[str, int]) -> None:
    url, _ = server
    line = one_line_error(croupier("play", "--url", url, "--token-file", secret_file("garbage")))
    assert "the server refused" in line and "token" in line
    empty = croupier("play", "--url", url, "--token-file", secret_file(""))
    assert "holds no session token" in one_line_error(empty, status=2)
    argv = croupier("play", "--url", url, "--token", "garbage")  # the old form: warned
    warning, line = argv.stderr.splitlines()
    assert "--token put a session token on the command line" in warning
    assert "garbage" not in warning and "the server refused" in line
