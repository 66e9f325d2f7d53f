"""Werewolf's texts that more than one module says (msgids, gameflow.core.text)."""

from __future__ import annotations

from typing import Final

from gameflow.core.text import N_

ROLE_NAMES: Final = {
    "villager": N_("villager"),
    "wolf": N_("werewolf"),
    "seer": N_("seer"),
    "doctor": N_("doctor"),
}

SIDE_NAMES: Final = {"village": N_("the village"), "wolves": N_("the werewolves")}

NIGHT_FALLS: Final = N_("Night {night} falls. The village sleeps.")
FOUND_DEAD: Final = N_("{name} was killed in the night.")
FOUND_DEAD_ROLE: Final = N_("{name} was killed in the night. They were a {role}.")
QUIET_NIGHT: Final = N_("Nobody died in the night.")
LYNCHED: Final = N_("The village lynched {name}. They were a {role}.")
NOBODY_LYNCHED: Final = N_("Nobody was lynched.")
REVOTE: Final = N_("A tie: vote again between {names}.")
VILLAGE_WINS: Final = N_("The village wins: no werewolf is left. The werewolves were: {names}.")
WOLVES_WIN: Final = N_("The werewolves win: they are as many as the rest. They were: {names}.")
