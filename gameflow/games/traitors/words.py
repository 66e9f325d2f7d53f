"""The Traitors' words: what the channels and the TV page say of it besides
what its rules say (its definition, `GAME` in __init__.py: gameflow/core/definition.py).

Its words: the titles and headings of its questions on Telegram (the silver
relay, the round table, the night).
"""

from __future__ import annotations

from typing import Final

from gameflow.core.definition import Words
from gameflow.core.legal import ActionSpec
from gameflow.core.state import Game
from gameflow.core.text import N_, Msg


def _title(game: Game, spec: ActionSpec) -> Msg | None:
    """The mission's second question, the three chests, has a title of its own."""
    if spec.kind == "mission" and spec.field("chest") is not None:
        return Msg(N_("Three chests: open one."))
    return None


WORDS: Final = Words(
    name=N_("Traitors"),
    aliases=("traitors", "forraedere", "forraederne", "izdajnici"),
    send_labels={
        "mission": N_("Hand over the bag"),
        "tempt": N_("Send the letter"),
        "force": N_("Force this player"),
    },
    titles={
        "mission": N_("The silver relay: hand your bag of silver to another player."),
        "vote": N_("Round table: vote to banish a player."),
        "plea": N_("You are tied: the table hears your plea before the re-vote."),
        "murder": N_("Night: choose whom the traitors murder."),
        "tempt": N_("Night: tempt a loyal player to join the traitors."),
        "force": N_("Night: force a loyal player to join you."),
        "death_list": N_("Night: write the death list."),
        "answer": N_("The traitors want you on their side."),
        "end_vote": N_("The final: do you trust everyone left?"),
    },
    title_of=_title,
    headings={
        ("mission", "to"): N_("Hand your bag to:"),
        ("mission", "drop"): N_("Drop the bag instead? (costs the pot 10 silver)"),
        ("mission", "chest"): N_("Choose a chest:"),
        ("vote", "for"): N_("Banish:"),
        ("vote", "dagger"): N_("Lay down the dagger? (this vote counts twice)"),
        ("murder", "target"): N_("Murder:"),
        ("tempt", "target"): N_("Tempt:"),
        ("force", "target"): N_("Force:"),
        ("answer", "accept"): N_("Do you accept?"),
        ("end_vote", "end"): N_("End the game now? Yes: you believe no traitor is left."),
    },
    sms_kind_names={"mission": N_("Hand over the bag")},
)
