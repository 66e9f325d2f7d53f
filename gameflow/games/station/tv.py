"""Station's TV screens: mission, result and discussion, vote, and the end reveal.

Values come from `view["station"]` only (see gameflow/games/station/views.py):
the plans' guard counts appear once the core publishes them (after the
mission), teams and secret actions only in the final view.
"""

from __future__ import annotations

from typing import Any, Final

from gameflow.core.definition import NameOf as Names
from gameflow.core.definition import Translator as Tr
from gameflow.core.definition import TvContext as Context
from gameflow.core.definition import end_headline
from gameflow.core.text import N_
from gameflow.core.views import track_state
from gameflow.games.station.texts import JOB_NAMES

# The header's name of each of the game's phases (`phase_<name>`; the page
# names the lobby and the end), which a calendar event names too, and the end's headline
# by the winning side;
# its definition's Words.tv_texts hold them beside words.py's TV labels.
SCREEN_TEXTS: Final = {
    "phase_mission": N_("Mission"),
    "phase_discussion": N_("Result and discussion"),
    "phase_vote": N_("Vote"),
    "loyal_won": N_("The loyal crew won"),
    "infiltrators_won": N_("The infiltrators won"),
}


def build(view: dict[str, Any], tr: Tr, name_of: Names) -> Context:
    st = view["station"]
    phase = view["phase"]
    history = st.get("history", [])
    current = view["round"]
    playing = None if view["over"] else current
    track = []
    for r in range(1, st["rounds"] + 1):
        done = next((h for h in history if h["round"] == r), None)
        track.append({"n": r, "state": track_state(done, r == current and not view["over"])})
    out: Context = {
        "st": st,
        "track": track,
        "round_text": tr.t("round_of", round=current, rounds=st["rounds"]),
        "mission": tr.core(st["mission"]),
        "parts_pct": _pct(st["parts"], st["target"]),
        "damage_cells": [i < st["damage"] for i in range(st["limit"])],
        "plans": _plans(st, tr),
        "crew": _crew(st, tr),
        "ready": None,
        "result": None,
        "who": [],
        "previous": _previous(history[-1], st["rounds"], tr, name_of, now=playing)
        if history
        else None,
        "end": None,
        "question": None,
    }
    if "ready" in st and not view["over"]:
        out["ready"] = tr.t("ready_of", ready=st["ready"], active=st["active"])
    if st.get("result") is not None and phase in ("discussion", "vote"):
        out["result"] = _result(st["result"], tr)
        out["who"] = _who(st.get("choices", []), st["result"]["plan"], tr, name_of)
        # The round's own summary would repeat the previous round: hide it.
        out["previous"] = None
    if phase == "vote":
        out["question"] = tr.t("check_question" if st["last_round"] else "vote_question")
    if view["over"]:
        out["end"] = _end(view, st, tr, name_of)
        teams = st.get("teams", {})
        for row, p in zip(out["crew"], st["table"], strict=True):
            row["team"] = teams.get(p["id"])
    return out


def _pct(value: int, whole: int) -> int:
    return 0 if whole <= 0 else max(0, min(100, round(100 * value / whole)))


def _plans(st: dict[str, Any], tr: Tr) -> list[Context]:
    chosen = st["result"]["plan"] if st.get("result") else None
    plans = []
    for p in st["plans"]:
        plans.append(
            {
                "label": tr.t("plan_n", n=p["plan"]),
                "reward": tr.n("parts_reward", p["reward"]),
                "outside": p["outside"],
                "radio": p["radio"],
                "guards": p.get("guards"),
                "chosen": chosen == p["plan"],
            }
        )
    return plans


def _crew(st: dict[str, Any], tr: Tr) -> list[Context]:
    crew = []
    for p in st["table"]:
        tags = []
        if p["status"] == "dead":
            tags.append(tr.t("dead"))
        elif p["status"] == "sitting_out":
            tags.append(tr.t("sitting_out"))
        if p.get("injured"):
            tags.append(tr.t("injured"))
        crew.append(
            {
                "name": p["name"],
                "profession": tr.core(p["profession"]),
                "status": p["status"],
                "tags": tags,
                "team": None,
            }
        )
    return crew


def _result(res: dict[str, Any], tr: Tr) -> Context:
    def line(key: str, covered: int, needed: int) -> Context:
        ok = covered >= needed
        return {
            "label": tr.t(key),
            "value": tr.t("covered_of", covered=covered, needed=needed),
            "ok": ok,
            "note": tr.t("enough") if ok else tr.t("short"),
        }

    return {
        "success": res["success"],
        "headline": tr.t("mission_succeeded" if res["success"] else "mission_failed"),
        "plan": tr.t("plan_n", n=res["plan"]),
        # A plan that needs no radio gets no radio line ("Radio: 2 of 0").
        "lines": [
            line("outside", res["outside"], res["outside_needed"]),
            *([line("radio", res["radio"], res["radio_needed"])] if res["radio_needed"] else []),
        ],
        "guards": {
            "ok": res["guards_ok"],
            "label": tr.t("guards_enough" if res["guards_ok"] else "guards_short"),
        },
    }


def _job(job: str, tr: Tr) -> str:
    return tr.core(JOB_NAMES.get(job, job))


def _who(choices: list[dict[str, Any]], chosen: int, tr: Tr, name_of: Names) -> list[Context]:
    """Everyone's plan, job and partner (never a secret action), chosen plan first."""
    rows = [
        {
            "plan": c["plan"],
            "chosen": c["plan"] == chosen,
            "name": name_of(c["player"]),
            "job": _job(c["job"], tr),
            "partner": name_of(c["partner"]) if c.get("partner") else tr.t("no_partner"),
        }
        for c in choices
    ]
    rows.sort(key=lambda r: (not r["chosen"], r["plan"]))
    return rows


def _previous(
    rec: dict[str, Any], rounds: int, tr: Tr, name_of: Names, now: int | None = None
) -> Context:
    """The last finished round: its vote and what the trap did. Who was voted
    out sits out round `now` when that is the next one (never "the next round"
    while it is being played); in the end's summary, they were voted out."""
    lines = []
    if rec.get("checked") is not None:
        lines.append(tr.t("checked", name=name_of(rec["checked"])))
    elif rec.get("out") is not None:
        key = "sits_out_now" if now == rec["round"] + 1 else "voted_out"
        lines.append(tr.t(key, name=name_of(rec["out"])))
    elif rec["round"] == rounds:
        lines.append(tr.t("nobody_checked"))
    else:
        lines.append(tr.t("nobody_out"))
    hit = rec.get("hit")
    if hit is not None:
        key = "hit_killed" if hit["effect"] == "killed" else "hit_injured"
        lines.append(tr.t(key, name=name_of(hit["player"])))
    tally = _tally(rec.get("votes"), tr, name_of)
    blank = rec.get("out") is None and rec.get("checked") is None and bool(tally)
    return {
        "title": tr.t("previous_round", round=rec["round"]),
        "note": tr.t("blank_votes") if blank else None,
        "success": rec["success"],
        "mark": tr.t("success_mark" if rec["success"] else "failure_mark"),
        "lines": lines,
        "tally": tally,
    }


def _tally(votes: dict[str, str | None] | None, tr: Tr, name_of: Names) -> list[Context]:
    if not votes:
        return []
    by_target: dict[str | None, list[str]] = {}
    for voter, target in votes.items():
        by_target.setdefault(target, []).append(name_of(voter))
    rows: list[Context] = [
        {"target": name_of(t), "count": tr.n("votes", len(v)), "n": len(v), "voters": sorted(v)}
        for t, v in by_target.items()
    ]
    rows.sort(key=lambda r: (-int(r["n"]), str(r["target"])))
    return rows


def _end(view: dict[str, Any], st: dict[str, Any], tr: Tr, name_of: Names) -> Context:
    winner = view.get("winner")
    headline = end_headline(tr, winner, {"loyal": "loyal_won", "infiltrators": "infiltrators_won"})
    teams = st.get("teams", {})
    loyal = [name_of(p) for p, team in teams.items() if team == "loyal"]
    bad = [name_of(p) for p, team in teams.items() if team != "loyal"]
    rounds = []
    for rec in st.get("history", []):
        acts = []
        for c in rec.get("choices", []):
            if c.get("secret") == "sabotage":
                acts.append(f"{name_of(c['player'])}: {tr.t('sabotaged')}")
            elif c.get("secret") == "trap":
                acts.append(f"{name_of(c['player'])}: {tr.t('set_trap')}")
        trap = rec.get("trap")
        if trap is not None:
            acts.append(tr.t("trap_on", by=name_of(trap["by"]), victim=name_of(trap["victim"])))
        prev = _previous(rec, st["rounds"], tr, name_of)
        rounds.append(
            {
                "n": rec["round"],
                "success": rec["success"],
                "mark": prev["mark"],
                "plan": tr.t("plan_n", n=rec["plan"]),
                "acts": acts,
                "lines": prev["lines"],
            }
        )
    return {
        "winner": winner,
        "headline": headline,
        "loyal": loyal,
        "infiltrators": bad,
        "rounds": rounds,
        "seed": view.get("seed"),
    }
