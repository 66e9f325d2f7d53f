"""The Telegram adapter (python-telegram-bot 22): handlers, keyboards drawn from
legal actions, the one-message choice editor, the notifier and the outbound queue.

PTB 22 warns (PTBDeprecationWarning) whenever a time period such as a 429's
`retry_after` is read as an int, and does so while building the RetryAfter
error itself; we opt into the coming `timedelta` form, as PTB advises, so a
flood-control answer is never turned into an error by a warning filter.
"""

import os

os.environ.setdefault("PTB_TIMEDELTA", "true")
