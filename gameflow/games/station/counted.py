"""Station's vote tally as a live game's SMS gives it: counts, not names.

SMS costs money per segment (issue #16: at most five a player-round in a
7-player game), and the tally that names every voter ("Votes: Bo (Ana, Cy,
Dag), Nobody (Eli, Fred)") is the longest text of a round; by SMS it is
counted ("Votes: Bo 3, Nobody 2") and VOTES gives it in full. The SMS channel
asks the game's words for this form (`Words.sms_counted`), so it knows no
Station text. The counts are built from the announcement's own parameters,
so they never say anything the full tally does not.
"""

from __future__ import annotations

from typing import Final

from gameflow.core.text import N_, Msg, msg

# The tally's msgids (`tally.tally_text`).
VOTES: Final = "Votes: {votes}."
GROUP: Final = "{choice} ({names})"
MISSING: Final = "no vote: {names}"
COUNT: Final = N_("{choice} {n}")
MISSING_COUNT: Final = N_("no vote {n}")


def counted(text: Msg) -> Msg:
    """The tally `text` with counts instead of the voters' names; any other
    text (or a tally of a form this does not know) as it is."""
    groups = text.param("votes")
    if text.msgid != VOTES or not isinstance(groups, tuple):
        return text
    parts: list[Msg] = []
    for group in groups:
        names = group.param("names") if isinstance(group, Msg) else None
        if not isinstance(group, Msg) or not isinstance(names, tuple):
            return text  # not a form this knows: keep it whole
        if group.msgid == GROUP:
            choice = group.param("choice")
            assert choice is not None
            parts.append(msg(COUNT, choice=choice, n=len(names)))
        elif group.msgid == MISSING:
            parts.append(msg(MISSING_COUNT, n=len(names)))
        else:
            return text
    return msg(VOTES, votes=tuple(parts))
