"""The host's warning of a lopsided table, as every game words it (issue #30).

A game measures by simulation how often a side wins at each table size
(docs/balance.md) and warns the host when one side wins more than `LOPSIDED`
per cent at the default settings. The game knows its measured table and its
words; the rule for when to warn, and of which side, is this one. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from gameflow.core.text import Msg, msg

LOPSIDED: Final = 65.0  # a side that wins more than this share is warned of


def warning(
    players: int,
    options: Mapping[str, Any],
    measured: Mapping[str, Any],
    share: float | None,
    ahead: tuple[str, str],
) -> Msg | None:
    """The warning for a table of `players` with `options`, `share` being the
    first side's win % there by the game's table: `ahead[0]` when it wins more
    than `LOPSIDED` %, `ahead[1]` when the second side does. None when neither
    does, when the table has no figure (`share` None), or when `options` leave
    any of the `measured` settings (name -> the value measured at)."""
    if any(options.get(name, default) != default for name, default in measured.items()):
        return None
    if share is None:
        return None
    if share > LOPSIDED:
        return msg(ahead[0], pct=round(share), players=players)
    if 100.0 - share > LOPSIDED:
        return msg(ahead[1], pct=round(100.0 - share), players=players)
    return None
