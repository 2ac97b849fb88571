"""The systemd unit and environment file of ``docs/deployment.md`` work as written (issue 28,
point 5): the unit's ``ExecStart`` line, with ``/opt/croupier`` the checkout and the
``/etc/croupier`` and ``/var/lib/croupier`` paths moved to a temporary directory (and a free
port), runs with the environment file's variables; the server answers ``/ready``, serves
``/metrics`` to a staff token only, and stops gracefully on SIGTERM. Then ``croupier ledger
check`` passes with the file's variables (its ``CROUPIER_VERIFY_KEY`` among them)."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from tests.integration.helpers import REPO, croupier, free_port

DOC = REPO / "docs" / "deployment.md"


def _block(lang: str, first: str) -> str:
    """The fenced ``lang`` block of the deployment doc whose text contains ``first``."""
    for body in re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), re.S):
        if first in body:
            return str(body)
    raise AssertionError(f"no {lang} block with {first!r} in {DOC}")


def _get(url: str, token: str | None = None) -> tuple[int, bytes]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(urllib.request.Request(url, headers=headers), timeout=5) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_the_unit_runs_as_written(tmp_path: Path) -> None:
    unit = _block("ini", "ExecStart=")
    env_text = _block("sh", "CROUPIER_VERIFY_KEY=")
    etc, var = tmp_path / "etc", tmp_path / "var"
    etc.mkdir()
    (etc / "secret").write_text(os.urandom(32).hex() + "\n")
    made = croupier("ledger", "keygen", "--out", str(etc / "signing.key"))
    assert made.returncode == 0, made.stderr
    public = made.stdout.split("verify key:")[1].split()[0]
    port = free_port()

    def moved(text: str) -> str:
        text = text.replace("/opt/croupier/.venv/bin/croupier", f"{sys.executable} -m server.cli")
        text = text.replace("/etc/croupier", str(etc)).replace("/var/lib/croupier", str(var))
        return text.replace("--port 8765", f"--port {port}")

    (exec_start,) = [line for line in unit.splitlines() if line.startswith("ExecStart=")]
    argv = shlex.split(moved(exec_start.removeprefix("ExecStart=")))
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
    for line in moved(env_text).splitlines():  # systemd's EnvironmentFile: KEY=VALUE lines
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            env[key.strip()] = value.strip().replace("PUBLIC_KEY_HEX", public)
    assert env["CROUPIER_DATA"] == str(var)

    server = subprocess.Popen(
        argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        for line in server.stdout:  # the banner: it serves
            if "clients:" in line:
                break
        else:
            raise AssertionError("the unit's command did not start: " + server.stderr.read())
        base = f"http://127.0.0.1:{port}/"
        status, body = _get(base + "ready")
        assert (status, json.loads(body)) == (200, {"status": "ready"})
        assert _get(base + "metrics")[0] == 401  # production: a staff token, even from here
        issued = croupier(
            "admin", "token", "issue", "--account", "prom", "--name", "Prometheus",
            "--role", "supervisor", "--secret-file", str(etc / "secret"),
        )  # fmt: skip
        assert issued.returncode == 0, issued.stderr
        token = issued.stdout.strip().splitlines()[-1]
        status, body = _get(base + "metrics", token)
        assert status == 200 and b"croupier_ready 1.0" in body
        server.send_signal(signal.SIGTERM)  # with --drain-grace 5: a second one stops now
        while _get(base + "ready")[0] == 200:
            pass
        server.send_signal(signal.SIGTERM)
        assert server.wait(60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    lines = [json.loads(line) for line in server.stderr.read().splitlines() if line.strip()]
    assert all({"time", "level", "event"} <= line.keys() for line in lines)
    checked = croupier("ledger", "check", "--data", str(var), env={**env})
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "balanced" in checked.stdout
