"""The story page's HTML: an ended game's `Story` (its definition's `story`)
as one page of steps, the cast first, then each round, then the end.

Every step is in the page, so it reads top to bottom without script; the
script (static/story.js) shows one step at a time. Players appear by name
only, never by id. Texts are the page's own (texts.py, domain `story`) and the
game's lines, each rendered in the game's language.
"""

from __future__ import annotations

from typing import Any

from adapters.linkpages import templates
from adapters.story.texts import TEXTS
from adapters.tv.screens import HTML_LANG, game_name
from gameflow.core.definition import Story
from gameflow.core.text import Msg, msg
from gameflow.i18n import render

_env = templates("adapters.story")


def text(key: str, lang: str, **params: Any) -> str:
    """One of the page's texts in `lang`."""
    return render(msg(TEXTS[key], **params), lang)


def steps(story: Story, lang: str) -> list[dict[str, Any]]:
    """The page's steps as template values: the cast, each round, the end."""

    def lines(items: tuple[Msg, ...]) -> list[str]:
        return [render(m, lang) for m in items]

    cast = [
        {
            "name": p.name,
            "role": render(p.role, lang),
            "hidden": p.hidden_side,
            "notes": lines(p.notes),
        }
        for p in story.cast
    ]
    out: list[dict[str, Any]] = [
        {"kind": "cast", "title": text("cast", lang), "cast": cast, "head": []}
    ]
    out.extend(
        {
            "kind": "round",
            "title": render(c.title, lang),
            "secret": lines(c.secret),
            "public": lines(c.public),
        }
        for c in story.chapters
    )
    out.append(
        {
            "kind": "end",
            "title": text("the_end", lang),
            "head": lines(story.head),
            "cast": cast,
            "seed": text("fair_deal", lang, seed=story.seed),
        }
    )
    return out


def render_page(story: Story, kind: str, lang: str) -> str:
    """The whole page of `story`, a game of `kind` in `lang`."""
    lang = lang if lang in HTML_LANG else "en"

    def t(key: str, **params: Any) -> str:
        return text(key, lang, **params)

    game = game_name(kind, lang)
    return _env.get_template("story.html").render(
        t=t,
        html_lang=HTML_LANG[lang],
        title=t("page_title", game=game),
        game=game,
        steps=steps(story, lang),
    )
