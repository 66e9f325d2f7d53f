"""The SMS adapter's settings, from the environment.

`TWILIO_ACCOUNT_SID`, `TWILIO_AUTH_TOKEN`: the account (the token also signs
Twilio's webhooks). `TWILIO_FROM` or `TWILIO_MESSAGING_SERVICE_SID`: the
sender (a Messaging Service wins when both are set); `TWILIO_FROM_NUMBER` is the
older name of `TWILIO_FROM`, still read. `TWILIO_API_BASE_URL`: the
REST API's origin (default Twilio's own; tests point it at a local fake).
`PUBLIC_BASE_URL`: the URL the world reaches this app at, e.g.
`https://muldvarp.example.org` — webhook signatures are computed over it, so
they check out behind a reverse proxy that rewrites host, scheme or port.
`SMS_RATE`: messages per second per sender (1 for a long code). `SMS_TRANSLITERATE`:
write Serbian in GSM-7 letters (č -> c, đ -> dj) to halve the cost.
`SMS_DEFAULT_REGION`: where numbers without a country code are (NO).
`SMS_DEFAULT_LANG`: replies to phones in no game (nb). `SMS_ID_KEY`: the key of
the opaque player ids (defaults to the auth token). `SMS_ANNOUNCE`: "all"
(every public announcement is texted too, merged into the one text a moment
makes, for players without the TV) or "private" (only their own lines and
questions: a table that watches the TV). `SMS_DB`: the SQLite file of the adapter's own records
(numbers, opt-outs, messages; default muldvarp-sms.sqlite3) when no directory is
given; `muldvarp serve` gives one (SQLite in DATA_DIR, or Redis).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

TWILIO_API = "https://api.twilio.com"


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True, slots=True)
class SmsSettings:
    account_sid: str
    auth_token: str
    public_base_url: str
    from_number: str | None = None
    messaging_service_sid: str | None = None
    api_base_url: str = TWILIO_API
    rate: float = 1.0
    transliterate: bool = False
    default_region: str = "NO"
    default_lang: str = "nb"
    id_key: str = ""
    announce: str = "all"
    db_path: str = ":memory:"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> SmsSettings:
        e = os.environ if env is None else env
        token = e.get("TWILIO_AUTH_TOKEN", "")
        return cls(
            account_sid=e.get("TWILIO_ACCOUNT_SID", ""),
            auth_token=token,
            public_base_url=e.get("PUBLIC_BASE_URL", "").rstrip("/"),
            from_number=e.get("TWILIO_FROM") or e.get("TWILIO_FROM_NUMBER") or None,
            messaging_service_sid=e.get("TWILIO_MESSAGING_SERVICE_SID") or None,
            api_base_url=(e.get("TWILIO_API_BASE_URL") or TWILIO_API).rstrip("/"),
            rate=float(e.get("SMS_RATE", "1") or 1),
            transliterate=_flag(e.get("SMS_TRANSLITERATE")),
            default_region=e.get("SMS_DEFAULT_REGION", "NO") or "NO",
            default_lang=e.get("SMS_DEFAULT_LANG", "nb") or "nb",
            id_key=e.get("SMS_ID_KEY") or token,
            announce=e.get("SMS_ANNOUNCE", "all") or "all",
            db_path=e.get("SMS_DB", "muldvarp-sms.sqlite3") or "muldvarp-sms.sqlite3",
        )

    @property
    def sender(self) -> str:
        """The queue key: messages from one sender share its rate."""
        return self.messaging_service_sid or self.from_number or ""

    @property
    def status_url(self) -> str:
        return f"{self.public_base_url}/sms/twilio/status"
