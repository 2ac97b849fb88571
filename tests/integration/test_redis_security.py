"""Redis security (issue 14, item 5) against Debian's real ``redis-server``.

* The minimal ACL of ``docs/redis.md``, read from that file (so the doc cannot drift from the
  code), runs ``croupier serve --redis`` and a round (ledger commit, journal, jackpot wager,
  recall), then ``croupier ledger check`` and ``croupier jackpot check``: on one Redis, over
  TLS (a throwaway CA made with ``openssl``, a client certificate), and on a three-master
  Redis Cluster. Redis's ``ACL LOG`` records no refusal, and the password is printed nowhere.
* A wrong password, an ACL short of a command, and a certificate that does not verify each
  stop ``croupier serve`` with one line (exit 2).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest
import trio

from clients.client import Client
from tests.integration.helpers import (
    BotStats,
    RedisCluster,
    RedisServer,
    ServerProcess,
    banked_bot,
    csp_table,
    free_port,
    write_tables,
)
from tests.shared import REPO
from tests.test_cli_errors import croupier, one_line_error, secret_file

pytestmark = pytest.mark.slow

USER = "croupier"
PASSWORD = "s3cret/p@ss:w%rd"  # characters a URL must percent-encode
CREDENTIALS = f"{USER}:{quote(PASSWORD, safe='')}"
TABLE = "csp-acl"


def documented_acl() -> list[str]:
    """The rules of the ``ACL SETUSER croupier`` block in docs/redis.md, password set."""
    text = (REPO / "docs" / "redis.md").read_text()
    block = text.split("<!-- croupier-acl -->", 1)[1].split("<!-- /croupier-acl -->", 1)[0]
    words = block.replace("```", " ").split()
    assert words[:3] == ["ACL", "SETUSER", USER], words[:3]
    assert ">CHANGE-ME" in words
    return [f">{PASSWORD}" if w == ">CHANGE-ME" else w for w in words[3:]]


def redis_cli(port: int, *args: str) -> str:
    done = subprocess.run(
        ["redis-cli", "-p", str(port), *args], capture_output=True, text=True, timeout=10
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def set_acl(nodes: list[RedisServer], rules: list[str]) -> None:
    for node in nodes:
        assert redis_cli(node.port, "ACL", "SETUSER", USER, *rules).strip() == "OK"
        redis_cli(node.port, "ACL", "LOG", "RESET")


def openssl(directory: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=directory, check=True, capture_output=True, timeout=30)


def make_certificates(directory: Path) -> None:
    """A throwaway CA, and a server (IP 127.0.0.1) and a client certificate it signed."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl(directory, "req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "1",
            "-subj", "/CN=croupier test CA")  # fmt: skip
    (directory / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    for name in ("server", "client"):
        openssl(directory, "req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr",
                "-subj", f"/CN=croupier test {name}")  # fmt: skip
        openssl(directory, "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey",
                "ca.key", "-CAcreateserial", "-days", "1", "-out", f"{name}.crt",
                "-extfile", "san.ext")  # fmt: skip


@contextmanager
def deployment(tmp_path: Path, kind: str) -> Iterator[tuple[list[RedisServer], str]]:
    """Redis as ``kind`` says ("one", "tls", "cluster"): its nodes and the croupier URL of
    the ACL user (the plain port stays open on loopback for redis-cli)."""
    where = tmp_path / "redis"
    where.mkdir()
    if kind == "cluster":
        cluster = RedisCluster(where)
        cluster.start()
        try:
            seeds = ",".join(f"127.0.0.1:{n.port}" for n in cluster.nodes)
            yield cluster.nodes, f"redis+cluster://{CREDENTIALS}@{seeds}"
        finally:
            cluster.kill()
        return
    extra: list[str] = []
    query = ""
    tls_port = free_port()
    if kind == "tls":
        make_certificates(where)
        extra = ["--tls-port", str(tls_port), "--tls-auth-clients", "yes"]
        for option, name in (("cert", "server.crt"), ("key", "server.key"), ("ca-cert", "ca.crt")):
            extra += [f"--tls-{option}-file", str(where / name)]
        query = (
            f"?ssl_ca_certs={where / 'ca.crt'}&ssl_certfile={where / 'client.crt'}"
            f"&ssl_keyfile={where / 'client.key'}"
        )
    server = RedisServer(where, *extra)
    server.start()
    try:
        if kind == "tls":
            yield [server], f"rediss://{CREDENTIALS}@127.0.0.1:{tls_port}{query}"
        else:
            yield [server], f"redis://{CREDENTIALS}@127.0.0.1:{server.port}"
    finally:
        server.kill()


@pytest.mark.parametrize("kind", ["one", "tls", "cluster"])
async def test_the_documented_acl_runs_a_server_and_a_round(tmp_path: Path, kind: str) -> None:
    data = tmp_path / "data"
    tables = write_tables(tmp_path / "t.toml", [csp_table(TABLE, f"acl-{kind}")])
    with deployment(tmp_path, kind) as (nodes, url):
        set_acl(nodes, documented_acl())
        server = ServerProcess(
            tables, url, "--directory", "--data", str(data), ledger_on_redis=True
        )
        try:
            await server.started()
            stats = BotStats()
            await banked_bot(server.url, TABLE, 1, stats, rounds=2, name="acl", seed=3)
            async with Client.connect(server.url, token=stats.token) as me:
                recalled = await me.history(TABLE)  # the journal, read back
                await me.join(TABLE)  # back to the held seat, then up: no more rounds
                await me.leave(TABLE)
            await trio.sleep(1.0)  # the last betting window closes (0.5 s): no round open
        finally:
            server.stop()
        printed = server.proc.stdout.read() + server.proc.stderr.read()  # type: ignore[union-attr]
        assert server.proc.returncode == 0, printed
        assert f"{USER}:***@" in printed
        assert stats.rounds == 2 and stats.jackpot_accepted >= 1, stats
        assert [r["state"] for r in recalled] == ["settled", "settled"], recalled

        for node in nodes:  # nothing croupier sent was refused, even where it retries
            refused = redis_cli(node.port, "ACL", "LOG")
            assert refused.strip() == "", refused
        env = {"CROUPIER_REDIS": url}  # the documented form: no password in argv
        ledger = croupier("ledger", "check", "--data", str(data), "--json", env=env)
        assert ledger.returncode == 0, ledger.stdout + ledger.stderr + printed
        report = json.loads(ledger.stdout)
        assert report["balanced"] and report["rounds_settled"] >= 2 and report["open_rounds"] == 0
        jackpot = croupier("jackpot", "--data", str(data), "check", env=env)
        assert jackpot.returncode == 0, jackpot.stdout + jackpot.stderr
        assert f"acl-{kind}: ok" in jackpot.stdout

    everything = printed + ledger.stdout + ledger.stderr + jackpot.stdout + jackpot.stderr
    everything += (data / "witness.json").read_text()
    for secret in (PASSWORD, quote(PASSWORD, safe="")):
        assert secret not in everything


def serve(url: str, data: Path) -> subprocess.CompletedProcess[str]:
    path = secret_file(url)  # as the docs say: never a password in argv
    return croupier(
        "serve", "--port", "0", "--redis-file", path, "--dev-redis", "--data", str(data)
    )


@pytest.mark.parametrize("form", ["env", "file"])
async def test_the_documented_serve_command_line_shows_no_password(
    tmp_path: Path, form: str
) -> None:
    """Issue 23: ``croupier serve`` started as the docs say (the URL in env
    ``CROUPIER_REDIS`` with ``--redis``, or in ``--redis-file PATH``): ``ps`` shows no password
    (``/proc/PID/cmdline``), and the server runs on that Redis."""
    with deployment(tmp_path, "one") as (nodes, url):
        set_acl(nodes, ["reset", "on", f">{PASSWORD}", "~*", "&*", "+@all"])  # a password only
        unset = ("CROUPIER_SECRET", "CROUPIER_REDIS")
        env = {k: v for k, v in os.environ.items() if k not in unset}
        args = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--dev-redis"]
        args += ["--data", str(tmp_path / "data")]
        if form == "env":
            args.append("--redis")
            env["CROUPIER_REDIS"] = url
        else:
            args += ["--redis-file", secret_file(url)]
        proc = subprocess.Popen(
            args, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            assert proc.stdout is not None
            with trio.fail_after(30):
                line = ""
                while "ledger:" not in line:
                    line = await trio.to_thread.run_sync(proc.stdout.readline)
                    assert line, proc.stderr.read() if proc.stderr else ""
            cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode()
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        assert f"in Redis redis://{USER}:***@127.0.0.1:{nodes[0].port}" in line
        for secret in (PASSWORD, quote(PASSWORD, safe=""), url):
            assert secret not in cmdline
        assert proc.stderr is not None
        printed = proc.stderr.read()
        assert "command line" not in printed and PASSWORD not in printed  # no warning either


def test_refusals_stop_serve_in_one_line(tmp_path: Path) -> None:
    rules = documented_acl()
    with deployment(tmp_path, "one") as (nodes, url):
        set_acl(nodes, rules)
        wrong = url.replace(quote(PASSWORD, safe=""), "wrong-password")
        line = one_line_error(serve(wrong, tmp_path / "d1"), status=2)
        assert "refused the user or password" in line and "wrong-password" not in line
        assert f"redis://{USER}:***@127.0.0.1:{nodes[0].port}" in line

        set_acl(nodes, [r for r in rules if r != "+info"])  # an ACL short of a command
        line = one_line_error(serve(url, tmp_path / "d2"), status=2)
        assert "refused a command" in line and "info" in line and PASSWORD not in line


def test_tls_verifies_the_server_certificate(tmp_path: Path) -> None:
    with deployment(tmp_path, "tls") as (nodes, url):
        set_acl(nodes, documented_acl())
        unverified = url.split("?", 1)[0]  # the system CAs do not know the throwaway CA
        line = one_line_error(serve(unverified, tmp_path / "d1"), status=2)
        assert "CERTIFICATE_VERIFY_FAILED" in line or "certificate verify failed" in line
        assert PASSWORD not in line
