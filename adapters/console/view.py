"""What the console shows of a game: the live part of its page.

Two kinds of console, as the game's `game_master` option chose them at
creation (adapters/console/tokens.py): a game master who plays no role gets the game's secret view (`GameDefinition.gm_view`) besides what the
table sees; a host who may play gets only what the table sees (the public
view's phase, clock and who is still to answer, as the TV shows them) and the
controls, so their own game is not spoiled. Players appear by name only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters.console.controls import Control, controls
from adapters.console.texts import ROLE_WORDS, TEXTS
from adapters.console.tokens import GM, mode, shows_secrets
from adapters.tv.texts import TEXTS as TV_TEXTS
from gameflow.core import registry
from gameflow.core.engine import view
from gameflow.core.state import Game
from gameflow.core.text import msg
from gameflow.i18n import render


class Lines:
    """The console's texts in one language."""

    def __init__(self, game: Game) -> None:
        self.lang = game.lang
        self.game = game

    def t(self, key: str, **params: Any) -> str:
        return render(msg(TEXTS[key], **params), self.lang)

    def name(self, pid: Any) -> str:
        if not isinstance(pid, str):
            return render(TEXTS["nothing"], self.lang)
        return self.game.name_of(pid) if self.game.seat(pid) >= 0 else "?"

    def names(self, pids: Any) -> str:
        listed = [self.name(p) for p in pids or ()]
        return ", ".join(listed) if listed else render(TEXTS["nothing"], self.lang)

    def role(self, role: str) -> str:
        words = registry.get(self.game.kind).words
        own = words.tv_texts.get(role) or words.value_labels.get(role) or ROLE_WORDS.get(role)
        return render(own, self.lang) if own else "?"

    def word(self, value: str) -> str:
        words = registry.get(self.game.kind).words
        own = words.kind_labels.get(value) or words.value_labels.get(value)
        return render(own, self.lang) if own else "?"


def phase_label(game: Game) -> str:
    key = f"phase_{game.phase.name}"
    return render(TV_TEXTS[key], game.lang) if key in TV_TEXTS else ""


def public_status(game: Game, lines: Lines) -> list[str]:
    """Who has answered and who is still to, as the table sees it."""
    public = view(game, None)
    own = public.get(game.kind, {}) if isinstance(public.get(game.kind), dict) else {}
    out = []
    expected = own.get("expected", own.get("active"))  # the games name it either way
    if "ready" in own and isinstance(expected, int):
        out.append(lines.t("ready", ready=own["ready"], expected=expected))
    if own.get("awaiting"):
        out.append(lines.t("awaiting", names=lines.names(own["awaiting"])))
    return out


def secret_lines(game: Game, lines: Lines, gm_view: Callable[[Game], dict[str, Any]]) -> Any:
    """The game master's secrets as (heading, [lines]) sections."""
    s = gm_view(game).get("secrets", {})
    sections: list[tuple[str, list[str]]] = []
    roles = s.get("roles") or {}
    sections.append(
        (lines.t("roles"), [f"{lines.name(p)}: {lines.role(r)}" for p, r in roles.items()])
    )
    facts = []
    if "shield" in s:
        facts.append(lines.t("shield", name=lines.name(s["shield"])))
    if "dagger" in s:
        facts.append(lines.t("dagger", name=lines.name(s["dagger"])))
    if "recruit" in s:
        facts.append(lines.t("recruit_on" if s["recruit"] else "recruit_off"))
    if s.get("forbid_murder"):
        facts.append(lines.t("forbid_on"))
    if s.get("may_tempt"):
        facts.append(lines.t("may_tempt"))
    if s.get("must_force"):
        facts.append(lines.t("must_force"))
    if s.get("death_list_draft"):
        facts.append(lines.t("death_list", names=lines.names(s["death_list_draft"])))
    pending = s.get("pending")
    if pending:
        facts.append(lines.t("pending", what=lines.word(pending["kind"])))
        if pending.get("target"):
            facts.append(lines.t("pending_target", name=lines.name(pending["target"])))
        if pending.get("murder"):
            facts.append(lines.t("pending_murder", name=lines.name(pending["murder"])))
        if pending.get("declined"):
            facts.append(lines.t("declined", names=lines.names(pending["declined"])))
    if s.get("waiting"):
        facts.append(lines.t("owes", names=lines.names(s["waiting"])))
    if s.get("tempted"):
        facts.append(lines.t("tempted", days=", ".join(str(d) for d in s["tempted"])))
    sections.append((lines.t("secrets"), facts))
    votes = [
        lines.t(
            "vote_line",
            voter=lines.name(p),
            what=lines.word(v["kind"]),
            target=lines.name(v["target"]),
        )
        for p, v in (s.get("night_votes") or {}).items()
    ]
    if votes:
        sections.append((lines.t("night_votes"), votes))
    forced = [f"{lines.name(p)}: {lines.name(t)}" for p, t in (s.get("force_votes") or {}).items()]
    if forced:
        sections.append((lines.t("force_votes"), forced))
    mission = s.get("mission") or {}
    replies = []
    for p, reply in (mission.get("replies") or {}).items():
        shown = [lines.name(x) if isinstance(x, str) else str(x) for x in reply]
        replies.append(f"{lines.name(p)}: {', '.join(shown)}")
    if replies:
        sections.append((lines.t("replies"), replies))
    return sections


def mode_key(game: Game) -> str:
    """The line saying which console this is, and why."""
    if shows_secrets(game):
        return "mode_gm"
    if mode(game) != GM:
        return "mode_host"
    if game.seat(game.host) >= 0:
        return "mode_seated"  # the invariant: a seated host never sees secrets
    return "mode_blind"  # watching a game with no secret view


def live(game: Game, now: float) -> dict[str, Any]:
    """Everything the live part's template uses."""
    secrets = shows_secrets(game)
    lines = Lines(game)
    definition = registry.get(game.kind)
    phase = game.phase
    status: list[str] = []
    if game.phase.name == "lobby":
        status.append(lines.t("lobby", n=len(game.players)))
    elif game.over:
        status.append(lines.t("over"))
    else:
        status.extend(public_status(game, lines))
        if not status:
            status.append(lines.t("nobody_owes"))
    offered: tuple[Control, ...] = controls(game, now, game.lang)
    return {
        "t": lines.t,
        "game_name": render(definition.words.name, game.lang),
        "phase": phase_label(game),
        "round": phase.round if game.running else 0,
        "paused": phase.paused,
        "deadline": phase.deadline if game.running and not phase.paused else None,
        "mode": lines.t(mode_key(game)),
        "mode_change": lines.t("mode_change") if phase.name == "lobby" else "",
        "secret_mode": secrets,
        "status": status,
        "players": list(game.names),
        "sections": secret_lines(game, lines, definition.gm_view)
        if secrets and definition.gm_view is not None and game.rules is not None
        else [],
        "controls": offered,
    }
