"""A pre-loaded ``croupier``: imports the server once, then forks a real process per command.

The kill-on-reply tests restart a server hundreds of times. Each child is an ordinary OS
process running ``croupier ARGS`` (``server.cli.main``), killed for real with SIGKILL by
the test; forking it from a parent that has imported the server already only saves the
imports (about half a second each time).

Protocol, one JSON object per line: the test writes ``{"args": [...], "out": PATH,
"env": {...}}`` on stdin; the zygote forks, answers ``{"pid": N}`` on stdout, and the child
writes its output (stdout and stderr) to ``out``. Children are reaped by the kernel
(SIGCHLD ignored); the zygote ends when its stdin closes.
"""

from __future__ import annotations

import json
import os
import signal
import sys

import server.cli
import server.net.app  # the imports every child inherits


def child(request: dict[str, object]) -> None:
    """In the forked child: become ``croupier ARGS`` with its output in ``out``."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.setpgid(0, 0)  # a process group of its own: a kill of the test's group spares it
    fd = os.open(str(request["out"]), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    env = request.get("env") or {}
    assert isinstance(env, dict)
    for name, value in env.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = str(value)
    args = request["args"]
    assert isinstance(args, list)
    code = 1
    try:
        code = server.cli.main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def main() -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the children
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            child(request)
        sys.stdout.write(json.dumps({"pid": pid}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
