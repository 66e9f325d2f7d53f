"""Resistance's TV screen: the five missions, the vote track, the leader and the
proposed team, the approve/reject reveal, and the plot cards in play.

Values come from `view["resistance"]` only (gameflow/games/resistance/views.py):
mission results carry only their number of fails, team votes appear once all
are in, roles only in the final view.
"""

from __future__ import annotations

from typing import Any, Final

from gameflow.core.definition import NameOf as Names
from gameflow.core.definition import Translator as Tr
from gameflow.core.definition import TvContext as Context
from gameflow.core.definition import end_headline
from gameflow.core.text import N_
from gameflow.core.views import track_state
from gameflow.games.resistance.cards import CARDS
from gameflow.games.resistance.texts import CARD_TEXT

# The header's name of each of the game's phases (`phase_<name>`; the page
# names the lobby and the end), which a calendar event names too,;
# its definition's Words.tv_texts hold them beside words.py's TV labels.
SCREEN_TEXTS: Final = {
    "phase_proposal": N_("Team proposal"),
    "phase_team_vote": N_("Team vote"),
    "phase_mission": N_("Mission"),
}


def build(view: dict[str, Any], tr: Tr, name_of: Names) -> Context:
    rs = view["resistance"]
    phase = view["phase"]
    done = {m["mission"]: m for m in rs["missions"]}
    missions = []
    for i, size in enumerate(rs["teams"], start=1):
        rec = done.get(i)
        missions.append(
            {
                "n": i,
                "label": tr.t("mission_n", n=i),
                "size": tr.n("players", size),
                "two_fails": rs.get("double_fail") == i,
                "state": track_state(rec, i == rs["mission"] and not view["over"]),
                "fails": tr.n("fails", rec["fails"]) if rec is not None else "",
            }
        )
    out: Context = {
        "rs": rs,
        "missions": missions,
        "track": [i < rs["rejections"] for i in range(rs["max_rejections"])],
        "leader": name_of(rs["leader"]),
        "team": [name_of(p) for p in rs["team"]],
        "task": "",
        "ready": None,
        "reveal": _reveal(rs["proposals"][-1], tr, name_of) if rs["proposals"] else None,
        "last_mission": _last_mission(rs["missions"][-1], tr, name_of) if rs["missions"] else None,
        "opinion": [],
        "plot": _plot(rs.get("plot"), tr, name_of),
        "end": None,
    }
    if phase == "proposal":
        out["task"] = tr.t("leader_picks", leader=out["leader"], size=rs["team_size"])
        out["team"] = []
    elif phase == "team_vote":
        out["task"] = tr.t("vote_on_team")
        out["reveal"] = None  # the previous reveal would mislead during a new vote
    elif phase == "mission":
        out["task"] = tr.t("team_on_mission")
    if "ready" in rs and not view["over"]:
        out["ready"] = tr.t("ready_of", ready=rs["ready"], active=rs["active"])
    for pid, approve in (rs.get("opinion_votes") or {}).items():
        out["opinion"].append({"name": name_of(pid), "approve": approve})
    if view["over"]:
        roles = rs.get("roles", {})
        winner = view.get("winner")
        out["end"] = {
            "winner": winner,
            "headline": end_headline(
                tr, winner, {"resistance": "resistance_won", "spies": "spies_won"}
            ),
            "resistance": [name_of(p) for p, r in roles.items() if r != "spy"],
            "spies": [name_of(p) for p, r in roles.items() if r == "spy"],
        }
    return out


def _reveal(p: dict[str, Any], tr: Tr, name_of: Names) -> Context:
    yes = sum(1 for v in p["votes"].values() if v)
    count = len(p["votes"])
    key = "team_approved" if p["approved"] else "team_rejected"
    return {
        "approved": p["approved"],
        "headline": tr.t(key, yes=yes, count=count),
        "team": [name_of(x) for x in p["team"]],
        "leader": name_of(p["leader"]),
        "votes": [{"name": name_of(v), "approve": a} for v, a in p["votes"].items()],
        "veto": tr.t("vetoed_by", name=name_of(p["vetoed_by"])) if p.get("vetoed_by") else None,
    }


def _last_mission(m: dict[str, Any], tr: Tr, name_of: Names) -> Context:
    shown = [
        f"{name_of(pid)}: {tr.core(CARD_TEXT.get(card, card))}"
        for pid, card in (m.get("shown") or {}).items()
    ]
    return {
        "success": m["success"],
        "headline": tr.t("mission_n_ok" if m["success"] else "mission_n_failed", n=m["mission"]),
        "fails": tr.n("fails", m["fails"]),
        "team": [name_of(p) for p in m["team"]],
        "shown": shown,
    }


def _card(card: str, tr: Tr) -> str:
    spec = CARDS.get(card)
    return tr.core(spec.name) if spec is not None else card


def _plot(plot: dict[str, Any] | None, tr: Tr, name_of: Names) -> Context | None:
    if plot is None:
        return None
    return {
        "held": [
            {"name": name_of(h["player"]), "card": _card(h["card"], tr)} for h in plot["held"]
        ],
        "hand": [_card(c, tr) for c in plot["hand"]],
        "deck": plot["deck"],
        "spotlight": [name_of(p) for p in plot.get("spotlight", [])],
    }
