"""Werewolf's TV screen: the village (the living, the dead with their roles
as shown), the phase and what it asks, the latest morning and lynch, the
day's open votes, and the end with the winners.

Values come from the public view only (views.public_view): a role shows on
the screen exactly when the rules show it, and the night never shows who
is awake.
"""

from __future__ import annotations

from typing import Any, Final

from gameflow.core.definition import NameOf as Names
from gameflow.core.definition import Translator as Tr
from gameflow.core.definition import TvContext as Context
from gameflow.core.definition import end_headline
from gameflow.core.text import N_
from gameflow.games.werewolf.texts import ROLE_NAMES

# The header's name of each phase, and the screen's own labels (Words.tv_texts).
SCREEN_TEXTS: Final = {
    "phase_night": N_("Night"),
    "phase_day": N_("Day"),
    "phase_vote": N_("Lynch vote"),
    "phase_revote": N_("Re-vote"),
    "ww_night": N_("The village sleeps. The werewolves, the seer and the doctor are at work."),
    "ww_day": N_("Talk: who among you is a werewolf?"),
    "ww_vote": N_("Vote now: whom does the village lynch?"),
    "ww_revote": N_("A tie: vote again among the tied."),
    "ww_round": N_("Night and day {n}"),
    "ww_died": N_("{name} was killed in the night."),
    "ww_quiet": N_("Nobody died in the night."),
    "ww_lynched": N_("The village lynched {name}."),
    "ww_nobody_lynched": N_("Nobody was lynched."),
    "ww_village": N_("The village"),
    "ww_dead": N_("dead"),
    "ww_village_won": N_("The village wins"),
    "ww_wolves_won": N_("The werewolves win"),
}


def build(view: dict[str, Any], tr: Tr, name_of: Names) -> Context:
    ww = view.get("werewolf") or {}
    phase = view["phase"]
    table = ww.get("table", [])
    history = ww.get("history", [])
    votes = history[-1].get("votes", {}) if history and phase in ("night",) else {}
    drawn: dict[str, int] = {}
    for target in votes.values():
        drawn[target] = drawn.get(target, 0) + 1
    wall = [
        {
            "name": p["name"],
            "alive": p["alive"],
            "role": tr.core(ROLE_NAMES[p["role"]]) if p.get("role") else "",
            "wolf": p.get("role") == "wolf",
            "votes": tr.n("votes", drawn[p["id"]]) if p["id"] in drawn else "",
        }
        for p in table
    ]
    news = []
    if history:
        last = history[-1]
        died = last.get("died")
        news.append(tr.t("ww_died", name=name_of(died)) if died else tr.t("ww_quiet"))
        if phase == "night" and len(history) >= 1 and last.get("votes") is not None:
            lynched = last.get("lynched")
            if last.get("votes"):
                news.append(
                    tr.t("ww_lynched", name=name_of(lynched))
                    if lynched
                    else tr.t("ww_nobody_lynched")
                )
    out: Context = {
        "round_text": tr.t("ww_round", n=view.get("round", 0)),
        "headline": tr.t(f"ww_{phase}") if phase in ("night", "day", "vote", "revote") else "",
        "news": news,
        "tied": [name_of(p) for p in ww.get("tied", [])],
        "wall": wall,
        "alive": sum(1 for p in table if p["alive"]),
        "end": None,
    }
    if view.get("over"):
        winner = view.get("winner")
        out["end"] = {
            "headline": end_headline(
                tr, winner, {"village": "ww_village_won", "wolves": "ww_wolves_won"}
            ),
            "winner": winner or "none",
            "wolves": [p["name"] for p in table if p.get("role") == "wolf"],
            "seed": view.get("seed", ""),
        }
    return out
