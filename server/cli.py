"""The ``croupier`` command: one entry point, a subcommand per job.

croupier serve      run the table server (default: 127.0.0.1, in-memory stores)
croupier play       terminal client: sit at a table and play
croupier loadtest   fill tables with bots over real WebSockets
croupier scenario   settle a round from a fixed outcome (SCENARIOS.md)
croupier demo       play bot hands in-process and print them
"""

from __future__ import annotations

import importlib
import sys

COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("server.app", "run the table server"),
    "play": ("clients.terminal", "terminal client: sit at a table and play"),
    "loadtest": ("loadtest.cli", "fill tables with bots over real WebSockets"),
    "scenario": ("server.scenario", "settle a round from a fixed outcome"),
    "demo": ("server.demo", "play bot hands in-process and print them"),
    "jackpot": ("server.jackpots.cli", "show, check, seed and reset jackpot pools"),
}


def usage() -> str:
    lines = ["usage: croupier COMMAND [ARGS]", "", "commands:"]
    lines += [f"  {name:<10} {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"croupier: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    return int(module.main(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
