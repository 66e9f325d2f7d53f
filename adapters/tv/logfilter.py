"""Keeping TV tokens out of logs.

uvicorn's access log writes every request path, and a TV path *is* the secret.
`RedactTokens` rewrites `/tv/<token>` to `/tv/<redacted>` in every record of the
loggers it is installed on, before any handler formats it; the same for the
game's story (`/story/<token>`, adapters/story), which the TV's token opens,
and the game master's console (`/console/<token>`, adapters/console).
"""

from __future__ import annotations

import logging
import re

_TOKEN_PATH = re.compile(r"/(tv|story|console)/(?!static/)[^/?#\s\"']+")
REDACTED = "/tv/<redacted>"
LOGGERS = ("uvicorn.access", "uvicorn.error", "uvicorn")


def redact(text: str) -> str:
    return _TOKEN_PATH.sub(r"/\1/<redacted>", text)


class RedactTokens(logging.Filter):
    """A filter that never drops a record, only scrubs tokens from it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {
                k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()
            }
        return True


def install(names: tuple[str, ...] = LOGGERS) -> RedactTokens:
    """Put one filter on each logger in `names` (idempotent) and return it.

    Call it after uvicorn has configured logging (e.g. in the app's lifespan),
    since `logging.config.dictConfig` replaces loggers' filters.
    """
    found = None
    for name in names:
        logger = logging.getLogger(name)
        for f in logger.filters:
            if isinstance(f, RedactTokens):
                found = f
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            found = found or RedactTokens()
            logger.addFilter(found)
    return found or RedactTokens()
