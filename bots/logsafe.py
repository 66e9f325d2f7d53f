"""No token or secret in any log line, at any level.

Libraries log what they send: httpx writes every request line at INFO, and a
Telegram Bot API URL *is* the bot's token (`…/bot<TOKEN>/getUpdates`); an
exception's text may carry a Twilio URL or a header. Operators keep these logs
in journald and docker, so the scrubbing happens before any handler writes: a
filter on every handler of the root logger formats the record's message once,
replaces each configured secret (and anything shaped like a bot token) with
`<redacted>`, and drops the record's arguments. Records are never dropped.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

REDACTED = "<redacted>"
# A Telegram bot token: the bot's numeric id, a colon, 35 URL-safe characters.
BOT_TOKEN = re.compile(r"(?<![0-9])[0-9]{5,}:[A-Za-z0-9_-]{30,}")


class ScrubSecrets(logging.Filter):
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        # Longest first, so a secret that contains another is replaced whole.
        self.secrets = sorted({s for s in secrets if s and len(s) >= 6}, key=len, reverse=True)

    def scrub(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return BOT_TOKEN.sub(REDACTED, text)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: leave it to logging's own error path
            return True
        clean = self.scrub(message)
        if clean != message or record.args:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.scrub(record.exc_text)
        return True


def install(secrets: Iterable[str], logger: logging.Logger | None = None) -> ScrubSecrets:
    """Put one scrubber on every handler of `logger` (the root by default)."""
    target = logger or logging.getLogger()
    scrubber = ScrubSecrets(secrets)
    for handler in target.handlers:
        for old in [f for f in handler.filters if isinstance(f, ScrubSecrets)]:
            handler.removeFilter(old)
        handler.addFilter(scrubber)
    return scrubber
