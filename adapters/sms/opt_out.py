"""Carrier keywords: STOP, START, HELP and their kin are control messages.

Twilio (and the carriers behind it) act on these words when a text is exactly
one of them: after STOP nothing more can be sent to the number until START.
They are therefore never read as game input, whatever the game is asking. STOP
marks the player unreachable and tells the host (by name, never the number);
their private information is simply not sent, never redirected. START makes
them reachable again and resends their current question; HELP is answered with
the command list.
"""

from __future__ import annotations

# Twilio's default opt-out, opt-in and help keywords (Advanced Opt-Out defaults).
STOP_WORDS = frozenset(
    {"STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT", "STOPP"}
)
START_WORDS = frozenset({"START", "YES", "UNSTOP"})
HELP_WORDS = frozenset({"HELP", "INFO"})

STOP, RESUME, HELP = "stop", "start", "help"


def classify(body: str) -> str | None:
    """STOP, RESUME or HELP when `body` is a carrier keyword, else None."""
    word = body.strip().strip(".!").strip().upper()
    if word in STOP_WORDS:
        return STOP
    if word in START_WORDS:
        return RESUME
    if word in HELP_WORDS:
        return HELP
    return None
