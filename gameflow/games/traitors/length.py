"""How many days a Traitors game lasts when the host leaves `final_day` unset.

The digest's twelve days fit the seed's 22-24 players: each day usually costs
the loyal two players (a banishment and a murder), so a small table playing
twelve days runs out of loyal players long before the final round table, where
the end votes give the loyal their chance. The length therefore follows the
table size; the numbers come from the balance runs in docs/balance.md (the
reasoning bots of `gameflow.games.traitors.bots`, each side winning 35-65%).
"""

from __future__ import annotations

from typing import Final

SEED_DAYS: Final = 12  # the digest's campaign, kept at 22-24 players
MIN_PLAYERS: Final = 6
MAX_PLAYERS: Final = 24

# players -> final day; measured, see docs/balance.md ("Traitors: how long").
DAYS: Final[dict[int, int]] = {
    n: max(2, min(SEED_DAYS, n // 2 - 2)) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
}
DAYS.update({22: SEED_DAYS, 23: SEED_DAYS, 24: SEED_DAYS})


def default_final_day(players: int) -> int:
    """The final day for a table of `players` (clamped to the 6-24 range)."""
    return DAYS[max(MIN_PLAYERS, min(MAX_PLAYERS, players))]


__all__ = ["DAYS", "SEED_DAYS", "default_final_day"]
