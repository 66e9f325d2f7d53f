"""The Traitors' TV screen, the show of the table (issue #32, item 4): the wall
of players (the banished with their revealed role, the murdered marked, the
votes each drew today), the pot, today's mission explained, the round-table
votes with their reasons, tie pleas, the published death list, a campaign's
day as clock times, and the end with the pot split and the fair-deal seed.

Values come from the public view only (gameflow/games/traitors/views.py, and
the page's campaign clock facts). The history's `converted` entry is
deliberately never shown: a recruitment is a secret until the end.
"""

from __future__ import annotations

from typing import Any, Final

from gameflow.core.definition import NameOf as Names
from gameflow.core.definition import Translator as Tr
from gameflow.core.definition import TvContext as Context
from gameflow.core.definition import end_headline
from gameflow.core.text import N_, msg
from gameflow.games.traitors.missions import CHEST_GAIN, CHEST_LOSS, RELAY_GAIN, RELAY_LOSS, TITLES

# The header's name of each of the game's phases (`phase_<name>`; the page
# names the lobby and the end), which a calendar event names too,;
# its definition's Words.tv_texts hold them beside words.py's TV labels.
SCREEN_TEXTS: Final = {
    "phase_mission": N_("Mission"),
    "phase_shield_room": N_("Shield room"),
    "phase_roundtable": N_("Round table"),
    "phase_revote": N_("Re-vote"),
    "phase_night": N_("Night"),
    "phase_answer": N_("Night"),
    "phase_end_vote": N_("End or continue?"),
}


STAKES = {"relay": (RELAY_GAIN, RELAY_LOSS), "chests": (CHEST_GAIN, CHEST_LOSS), "host": (0, 0)}
# A campaign day, in order: (phase, the clock-time option at which it opens).
DAY_PLAN = (
    ("mission", "campaign_breakfast"),
    ("shield_room", "campaign_shield_room"),
    ("roundtable", "campaign_roundtable"),
    ("night", "campaign_night"),
)
NIGHT = ("night", "answer")
TALLY_ROWS = 6  # the vote's leaders shown beside the wall


def explain(kind: str, tr: Tr) -> str:
    """The day's mission in a few sentences (its rules, as the players' prompt says)."""
    gain, loss = STAKES.get(kind, (0, 0))
    return tr.core(msg(TITLES.get(kind, TITLES["host"]), gain=gain, loss=loss))


def day_plan(view: dict[str, Any], tr: Tr) -> list[dict[str, Any]]:
    """A campaign's day as the clock times its phases open ("19:00 Round
    table"), the running one marked; empty for a game that is not a campaign."""
    clocks = (view.get("campaign") or {}).get("clocks", {})
    phase = "night" if view["phase"] in NIGHT else view["phase"]
    if phase == "revote":
        phase = "roundtable"
    return [
        {"time": clocks[opt], "label": tr.t(f"phase_{name}"), "now": name == phase}
        for name, opt in DAY_PLAN
        if opt in clocks
    ]


def build(view: dict[str, Any], tr: Tr, name_of: Names) -> Context:
    tv = view["traitors"]
    phase = view["phase"]
    alive, murdered, banished = [], [], []
    # Today's latest vote as read out: each ballot on its voter's card, and
    # the votes each player drew (a dagger's ballot counts twice).
    today = tv.get("votes", [])
    latest = today[-1] if today else []
    drawn: dict[str, int] = {}
    ballots: dict[str, dict[str, Any]] = {}
    for b in latest:
        target = name_of(b["for"])
        drawn[target] = drawn.get(target, 0) + b.get("weight", 1)
        ballots[name_of(b["voter"])] = {
            "key": f"{len(today)}-{len(ballots)}",
            "target": target,
            "double": b.get("weight", 1) > 1,
            "reason": b.get("reason") or "",
        }
    wall = []
    for seat in tv["table"]:
        row = {"name": seat["name"], "role": seat.get("role"), "status": seat["status"]}
        row["votes"] = tr.n("votes", drawn[seat["name"]]) if seat["name"] in drawn else ""
        row["ballot"] = ballots.get(seat["name"])
        wall.append(row)
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
        "wall": wall,
        "explain": "",
        "plan": day_plan(view, tr),
        "alive": alive,
        "murdered": murdered,
        "banished": banished,
        "ready": None,
        "headline": "",
        "detail": "",
        "tally": [],
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
        # the explanation names the mission itself ("Mission: three chests. ...")
        out["headline"] = tr.t("mission_host")
        out["explain"] = explain(mission["kind"], tr)
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
    # The latest vote's leaders, most votes first (ties in seat order); a
    # re-vote names its candidates instead. Every count is on the cards too.
    order = {row["name"]: i for i, row in enumerate(wall)}
    leaders = sorted(drawn.items(), key=lambda item: (-item[1], order.get(item[0], 0)))
    if phase != "revote" and not view["over"]:
        out["tally"] = [{"name": n, "votes": tr.n("votes", v)} for n, v in leaders[:TALLY_ROWS]]
    if view["over"]:
        winners = [name_of(p) for p in tv.get("winners", [])]
        winner = view.get("winner")
        out["end"] = {
            "winner": winner,
            "headline": end_headline(
                tr, winner, {"traitors": "traitors_won", "loyal": "faithful_won"}
            ),
            "split": tr.t("pot_split", pot=tv["pot"], share=tv.get("share", 0)) if winners else "",
            "winners": winners,
            "seed": view.get("seed"),
        }
    return out
