"""`python -m gameflow replay FILE`: run a game script and print its record."""

from __future__ import annotations

import sys

from gameflow.replay import ScriptError, replay_text


def main(argv: list[str] | None = None) -> int:
    from gameflow.games import register_all

    register_all()
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] != "replay":
        print(
            "usage: python -m gameflow replay FILE   (FILE may be - for standard input)",
            file=sys.stderr,
        )
        return 2
    path = args[1]
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        sys.stdout.write(replay_text(text))
    except (OSError, ScriptError) as exc:
        print(f"replay: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
