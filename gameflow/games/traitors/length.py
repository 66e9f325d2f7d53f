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

# players -> final day, from `muldvarp simulate traitors --final-day N` runs of
# the reasoning bots (docs/balance.md): for each size, the length whose traitor
# win rate came closest to half. The lengths rise with the table size within
# each traitor count (1 at 6 players, 2 at 7-9, 3 at 10-17, 4 at 18-24) and
# drop where a traitor is added; twelve days stay the seed's at 22-24.
DAYS: Final[dict[int, int]] = {
    6: 3, 7: 2, 8: 3, 9: 4, 10: 3, 11: 4, 12: 5, 13: 6, 14: 6, 15: 7,
    16: 7, 17: 8, 18: 7, 19: 8, 20: 9, 21: 10, 22: SEED_DAYS, 23: SEED_DAYS, 24: SEED_DAYS,
}  # fmt: skip


def default_final_day(players: int) -> int:
    """The final day for a table of `players` (clamped to the 6-24 range)."""
    return DAYS[max(MIN_PLAYERS, min(MAX_PLAYERS, players))]


__all__ = ["DAYS", "SEED_DAYS", "default_final_day"]
