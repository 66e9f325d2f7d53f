"""The Traitors' TV screen: day and phase, the pot, the table (alive, murdered,
banished with revealed role), the round-table votes with their reasons, tie
pleas, the published death list, and the end with the pot split.

Values come from `view["traitors"]` only (gameflow/games/traitors/views.py). The
history's `converted` entry is deliberately never shown: a recruitment is a
secret until the end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gameflow.core.definition import Translator as Tr

Context = dict[str, Any]
Names = Callable[[str | None], str]

MISSION_NAMES = {"relay": "mission_relay", "chests": "mission_chests", "host": "mission_host"}


def build(view: dict[str, Any], tr: Tr, name_of: Names) -> Context:
    tv = view["traitors"]
    phase = view["phase"]
    alive, murdered, banished = [], [], []
    for seat in tv["table"]:
        row = {"name": seat["name"], "role": seat.get("role")}
        if seat["status"] == "murdered":
            murdered.append(row)
        elif seat["status"] == "banished":
            banished.append(row)
        else:
            alive.append(row)
    day = view["round"]
    out: Context = {
        "tv": tv,
        "day_text": tr.t("day_final", day=day)
        if tv["final"]
        else tr.t("day_of", day=day, days=tv["final_day"]),
        "pot": tr.t("silver", n=tv["pot"]),
        "alive": alive,
        "murdered": murdered,
        "banished": banished,
        "ready": None,
        "headline": "",
        "detail": "",
        "readings": [],
        "pleas": [],
        "candidates": [],
        "death_list": [name_of(p) for p in tv.get("death_list", [])],
        "access": [name_of(p) for p in tv.get("access", [])],
        "end": None,
        "role_label": {"traitor": tr.t("traitor"), "loyal": tr.t("faithful")},
    }
    if "ready" in tv and not view["over"]:
        out["ready"] = tr.t("ready_of", ready=tv["ready"], active=tv["expected"])
    mission = tv.get("mission")
    if phase == "mission" and mission is not None:
        out["headline"] = tr.t(MISSION_NAMES.get(mission["kind"], "mission_host"))
    elif phase == "shield_room":
        out["headline"] = tr.t("shield_room")
        if mission is not None and "silver" in mission:
            out["detail"] = tr.t("mission_earned", n=mission["silver"])
    elif phase in ("roundtable", "revote"):
        vote = tv.get("vote", {})
        out["headline"] = tr.t("roundtable" if phase == "roundtable" else "revote")
        if not vote.get("number") and phase == "roundtable":
            out["detail"] = tr.t("roundtable_hint")
        out["candidates"] = [name_of(p) for p in vote.get("candidates", [])]
        out["pleas"] = [
            {"name": name_of(p), "text": text} for p, text in vote.get("pleas", {}).items()
        ]
    elif phase in ("night", "answer"):
        out["headline"] = tr.t("night")
    elif phase == "end_vote":
        out["headline"] = tr.t("end_vote")
    # Today's votes as read out, newest round last, one line per ballot.
    for number, ballots in enumerate(tv.get("votes", [])):
        for b in ballots:
            out["readings"].append(
                {
                    "round": number,
                    "voter": name_of(b["voter"]),
                    "target": name_of(b["for"]),
                    "double": b.get("weight", 1) > 1,
                    "reason": b.get("reason") or "",
                }
            )
    if view["over"]:
        winners = [name_of(p) for p in tv.get("winners", [])]
        winner = view.get("winner")
        out["end"] = {
            "winner": winner,
            "headline": tr.t("traitors_won")
            if winner == "traitors"
            else tr.t("faithful_won")
            if winner == "loyal"
            else tr.t("host_ended"),
            "split": tr.t("pot_split", pot=tv["pot"], share=tv.get("share", 0)) if winners else "",
            "winners": winners,
        }
    return out
