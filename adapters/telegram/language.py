"""Which of our languages a Telegram user reads, from their app's language.

Telegram sends the user's `language_code` with every update. Replies to
someone in no game (help, a toast for a button of no game) follow it; in a
game, the game's language is used.
"""

from __future__ import annotations

from telegram import User

from gameflow.core.engine import LANGUAGES

# Telegram's language codes -> ours (Norwegian and the Serbo-Croatian languages).
LANGUAGE_OF = {
    "en": "en",
    "nb": "nb",
    "no": "nb",
    "nn": "nb",
    "sr": "sr",
    "hr": "sr",
    "bs": "sr",
}
assert set(LANGUAGE_OF.values()) == set(LANGUAGES)


def user_lang(user: User | None, default: str) -> str:
    """nb/no/nn read Norwegian, sr/hr/bs Serbian, anything else English; the
    bot's default only when Telegram sends no language at all."""
    code = (user.language_code or "") if user is not None else ""
    if not code:
        return default
    return LANGUAGE_OF.get(code.split("-")[0].lower(), "en")
