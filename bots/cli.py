"""The `muldvarp` command: serve, demo, replay, simulate and export.

Thin on purpose: each subcommand parses its arguments and calls one function of
the package that owns the work.
"""

from __future__ import annotations

import argparse
import os
import sys


def _replay(args: argparse.Namespace) -> int:
    from gameflow.__main__ import main as gameflow_main

    return gameflow_main(["replay", args.file])


def _simulate(args: argparse.Namespace) -> int:
    from gameflow.simulate import run

    return run(args)


def _demo(args: argparse.Namespace) -> int:
    try:
        if args.tv:
            from bots.live_demo import run_live_demo

            step = args.delay or 1.0
            return run_live_demo(args.players, args.seed, args.lang, step, args.port, args.hold)
        from bots.demo import run_demo

        return run_demo(players=args.players, seed=args.seed, lang=args.lang, delay=args.delay)
    except BrokenPipeError:
        # `muldvarp demo | head`: the reader has had enough. Point stdout at
        # /dev/null so the interpreter's last flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _export(args: argparse.Namespace) -> int:
    from bots import export

    return export.main(
        args.game,
        args.store,
        args.env_file,
        channel_ids=args.with_channel_ids,
        talk=args.with_talk,
    )


def _serve(args: argparse.Namespace) -> int:
    from bots.serve import main as serve_main

    return serve_main(host=args.host, port=args.port, env_file=args.env_file)


class _Version(argparse.Action):
    """`--version`: the package, the commit and the core's build, asked only
    when given (git is not run for every command)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kw: object) -> None:
        from bots.version import describe

        print(f"{parser.prog} {describe()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="muldvarp", description=__doc__)
    parser.add_argument("--version", action=_Version, nargs=0, help="say which build runs")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="run a game script and print its public record")
    p.add_argument("file", help="the script (JSON), or - for standard input")
    p.set_defaults(func=_replay)

    p = sub.add_parser("simulate", help="play many games with scripted bots and report win rates")
    from gameflow.simulate import add_arguments

    add_arguments(p)  # the simulator's own arguments (Traitors options, bots, progress)
    p.set_defaults(func=_simulate)

    p = sub.add_parser(
        "demo", help="play a whole game with simulated players, no credentials needed"
    )
    p.add_argument("--players", type=int, default=7, help="how many simulated players (5-15)")
    p.add_argument(
        "--seed",
        default="demo",
        help="the game's seed: the same seed and players, the same game (with or without --tv)",
    )
    p.add_argument(
        "--lang", choices=["nb", "sr", "en"], default="en", help="the language of every text"
    )
    p.add_argument(
        "--delay",
        type=float,
        default=0.0,
        help="seconds to wait between events (with --tv: between inputs, default 1)",
    )
    p.add_argument(
        "--tv",
        action="store_true",
        help="play through the real service and store and serve the TV page live on localhost",
    )
    p.add_argument(
        "--port", type=int, default=8088, help="the TV page's port with --tv (0: any free port)"
    )
    p.add_argument(
        "--hold",
        type=float,
        metavar="SECONDS",
        help="with --tv: keep the end screen up this long, then exit (default: until Ctrl-C)",
    )
    p.set_defaults(func=_demo)

    p = sub.add_parser("export", help="write a stored game as a game script (JSON) on stdout")
    p.add_argument("game", help="the game's join code (as the host was shown it) or its id")
    p.add_argument(
        "--store",
        help="redis://... or an existing SQLite file (default: the store `serve` uses, "
        "from .env, DATA_DIR, REDIS_URL and MULDVARP_PREFIX)",
    )
    p.add_argument("--env-file", help="settings file, as for serve (default .env, if it exists)")
    p.add_argument(
        "--with-channel-ids",
        action="store_true",
        help="keep the players' Telegram ids and SMS number hashes (default: anon:1, anon:2, ... "
        "instead, for bug reports)",
    )
    p.add_argument(
        "--with-talk",
        action="store_true",
        help="add the players' talk, for a game whose host kept it (the option talk_record); "
        "never by default",
    )
    p.set_defaults(func=_export)

    p = sub.add_parser(
        "serve", help="serve webhooks, TV pages, /healthz and /metrics, and run the scheduler"
    )
    p.add_argument("--host", help="listen address (default $MULDVARP_HOST or 127.0.0.1)")
    p.add_argument("--port", type=int, help="listen port (default $MULDVARP_PORT or 8000)")
    p.add_argument("--env-file", help="settings file (default .env, if it exists)")
    p.set_defaults(func=_serve)
    return parser


def main(argv: list[str] | None = None) -> int:
    from gameflow.games import register_all

    register_all()  # the composition root: the games this process plays
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
