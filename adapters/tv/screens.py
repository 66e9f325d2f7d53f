"""Turning the core's public view into the TV's HTML.

The renderer sees exactly `engine.view(game, None)` plus the lobby's public join
details: it cannot show a secret the core did not publish. Player ids never
reach the HTML (an SMS player's id may be a phone number); players appear by
name only. Each game's definition names its screen (gameflow/core/definition.py
`TvScreen`): a template in the game's package (which may include this page's
own) and a function that turns its part of the view into template values;
its styles are the `tv.css` beside the template, inlined in the page's head. The
lobby is shared by all games; a game without a screen gets a plain generic one.
A campaign's view carries its clock facts (adapters/tv/schedule.py): its timer
reads "until 17:00", not a countdown.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

import phonenumbers
import segno
from jinja2 import (
    ChoiceLoader,
    Environment,
    FunctionLoader,
    PackageLoader,
    StrictUndefined,
    select_autoescape,
)
from markupsafe import Markup

from adapters.tv.source import JoinInfo
from adapters.tv.texts import PLURALS, TEXTS
from gameflow.core import registry
from gameflow.core.text import Msg, msg
from gameflow.i18n import render

HTML_LANG = {"nb": "nb", "sr": "sr-Latn", "en": "en"}
REFRESH_SECONDS = 5  # the no-JavaScript fallback reloads this often


class Tr:
    """Texts in one language: page labels by key, core msgids as they come."""

    def __init__(self, lang: str, texts: Mapping[str, str] = {}) -> None:
        self.lang = lang
        self.texts = texts  # the game's own labels (its definition's tv_texts)

    def t(self, key: str, **params: Any) -> str:
        return render(msg(TEXTS.get(key) or self.texts[key], **params), self.lang)

    def n(self, key: str, n: int) -> str:
        return render(PLURALS[key](n), self.lang)

    def core(self, text: Msg | str) -> str:
        return render(text, self.lang)


Context = dict[str, Any]


def game_name(kind: str, lang: str) -> str:
    """The game's name in `lang` (its definition's), or `kind` for one unknown."""
    game = registry.find(kind)
    return render(game.words.name, lang) if game is not None else kind


def _game_template(name: str) -> tuple[str, None, Callable[[], bool]] | None:
    """A game's own template, named "package:file" by its definition's TvScreen."""
    package, sep, file = name.partition(":")
    if not sep:
        return None
    source = resources.files(package).joinpath(file).read_text(encoding="utf-8")
    return source, None, lambda: True


_env = Environment(
    loader=ChoiceLoader(
        [PackageLoader("adapters.tv", "templates"), FunctionLoader(_game_template)]
    ),
    autoescape=select_autoescape(["html"]),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def qr_svg(url: str) -> Markup:
    """The join link as an inline SVG QR code (black on white, quiet zone kept)."""
    code = segno.make(url, error="m")
    svg = code.svg_inline(scale=1, border=2, dark="#000", light="#fff", omitsize=True)
    return Markup(svg.replace("<svg ", '<svg class="qr" role="img" ', 1))


def clock(seconds: float) -> str:
    s = max(0, int(seconds + 0.999))
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


def timer(view: dict[str, Any], now: float | None) -> Context:
    """The phase timer as the page shows it at `now` (the script keeps it ticking).
    With `now` None (event frames) the text is left to the script, so that a
    frame depends on the game alone and identical screens are identical bytes."""
    deadline = view.get("deadline")
    left = view.get("paused_left")
    if view.get("paused"):
        shown = clock(left) if left is not None and left >= 0 else ""
        return {"state": "paused", "text": shown, "deadline": None}
    if deadline is None or view.get("over") or view.get("phase") == "lobby":
        return {"state": "none", "text": "", "deadline": None}
    text = "" if now is None else clock(deadline - now)
    return {"state": "running", "text": text, "deadline": deadline}


def context(view: dict[str, Any], info: JoinInfo | None, now: float | None) -> Context:
    """Everything a screen template may use."""
    lang = view.get("lang", "en")
    game = registry.find(view.get("game", ""))
    tr = Tr(lang if lang in HTML_LANG else "en", game.words.tv_texts if game else {})
    names = {p["id"]: p["name"] for p in view.get("players", [])}

    def name_of(pid: str | None) -> str:
        if pid is None:
            return tr.t("vote_nobody")
        return str(names.get(pid, "?"))

    kind = view.get("game", "")
    phase = view.get("phase", "")
    # The game's name from the catalog (the header and the lobby), unless the
    # host gave the game a display name of its own.
    kind_label = game_name(kind, tr.lang)
    ctx: Context = {
        "view": view,
        "tr": tr,
        "t": tr.t,
        "tn": tr.n,
        "core": tr.core,
        "html_lang": HTML_LANG.get(tr.lang, "en"),
        "kind_label": kind_label,
        "title": info.name if info is not None and info.name else kind_label,
        "phase_label": phase_label(phase, tr),
        "timer": timer(view, now),
        "schedule": schedule(view, tr),
        "info": info,
        "refresh": REFRESH_SECONDS,
        "now": None if now is None else round(now, 3),
        # who is still to answer, by name: only where the core's public view
        # names them (its open phases); elsewhere it gives a count at most
        "awaiting": [name_of(p) for p in view.get(kind, {}).get("awaiting", [])],
    }
    until = (view.get("campaign") or {}).get("until")
    if until is not None and ctx["timer"]["state"] == "running":
        # a campaign is read against the clock: "until 17:00", not a countdown
        text = (
            tr.t("until_day", day=until["day"], time=until["time"])
            if until["day"]
            else (tr.t("until", time=until["time"]))
        )
        ctx["timer"] = {"state": "clock", "text": text, "deadline": None}
    if phase == "lobby":
        ctx["template"] = "lobby.html"
        ctx.update(lobby(view, info, tr))
        return ctx
    screen = game.tv if game is not None else None
    if screen is None:
        ctx["template"] = "generic.html"
        return ctx
    ctx["template"] = screen.template
    ctx.update(screen.build(view, tr, name_of))
    return ctx


def phase_label(phase: str, tr: Tr) -> str:
    """A phase's name: the page's (lobby, over) or the game's own (its tv_texts)."""
    key = f"phase_{phase}"
    if key in TEXTS or key in tr.texts:
        return tr.t(key)
    return phase


def phase_text(kind: str, phase: str) -> Msg:
    """A phase's name as a message, for texts outside the page (the calendar,
    the demo's terminal): the page's own or the game's (its tv_texts)."""
    game = registry.find(kind)
    key = f"phase_{phase}"
    found = TEXTS.get(key) or (game.words.tv_texts.get(key) if game is not None else None)
    return msg(found if found else phase)


def schedule(view: dict[str, Any], tr: Tr) -> list[dict[str, str]]:
    """A campaign's day as clock times, one row per window ("Round table" and
    "until 20:30"); a game's screen may give its own rows. Empty for a game
    that is not a campaign."""
    facts = view.get("campaign")
    if not facts:
        return []
    return [
        {"label": phase_label(w["phase"], tr), "time": tr.t("until", time=w["at"])}
        for w in facts["windows"]
    ]


def bot_name(url: str | None) -> str | None:
    """The bot's @username from its join link (https://t.me/<bot>?start=CODE)."""
    if not url:
        return None
    parts = urlsplit(url)
    name = parts.path.strip("/").split("/")[0]
    if parts.netloc.lower() not in ("t.me", "telegram.me") or not name:
        return None
    return f"@{name}"


def phone(number: str) -> str:
    """The service's number as people dial it (+47 59 44 00 00), or as given."""
    try:
        parsed = phonenumbers.parse(number, None)
    except phonenumbers.NumberParseException:
        return number
    if not phonenumbers.is_possible_number(parsed):
        return number
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.INTERNATIONAL)


def lobby(view: dict[str, Any], info: JoinInfo | None, tr: Tr) -> Context:
    out: Context = {"qr": None, "sms": None, "bot": None, "code": info.code if info else ""}
    if info is not None and info.telegram_url:
        out["qr"] = qr_svg(info.telegram_url)
        out["bot"] = bot_name(info.telegram_url)
    if info is not None and info.sms_number and info.code:
        out["sms"] = {
            "lead": tr.t("sms_join"),
            "text": tr.t("sms_join_text", code=info.code),
            "number": phone(info.sms_number),
        }
    out["joined"] = [p["name"] for p in view.get("players", [])]
    return out


def render_screen(view: dict[str, Any], info: JoinInfo | None, now: float | None = None) -> str:
    """The `<main>` fragment: what the event stream sends (with `now` None) and
    the page wraps."""
    ctx = context(view, info, now)
    return _env.get_template("screen.html").render(ctx)


@functools.cache
def game_css(kind: str) -> Markup:
    """The game's own stylesheet, `tv.css` beside its template (so a new game's
    styles live in its package), for the page's head; empty for none."""
    game = registry.find(kind)
    if game is None or game.tv is None:
        return Markup("")
    package = game.tv.template.partition(":")[0]
    path = resources.files(package).joinpath("tv.css")
    if not path.is_file():
        return Markup("")
    return Markup(f"<style>\n{path.read_text(encoding='utf-8')}</style>")


def render_page(view: dict[str, Any], info: JoinInfo | None, now: float, tag: str = "") -> str:
    """The whole page: works on its own (it refreshes) and goes live with script.
    `tag` names the screen it shows (adapters.tv.app.tag), never the version."""
    ctx = context(view, info, now)
    ctx["game_css"] = game_css(view.get("game", ""))
    ctx["tag"] = tag
    ctx["screen"] = Markup(_env.get_template("screen.html").render(ctx))
    return _env.get_template("page.html").render(ctx)
