"""`muldvarp serve`'s settings: environment variables or a `.env` file.

Read once at start and validated as a whole, so a typo stops the process with
one clear list of what is wrong instead of a crash at the first webhook. The
channels are optional and independent: Telegram is live when
`TELEGRAM_BOT_TOKEN` is set (webhook with `PUBLIC_BASE_URL`, polling without),
SMS when the Twilio account, token, a sender and `PUBLIC_BASE_URL` are set.
The embedded SQLite store under `DATA_DIR` is the default; `REDIS_URL`
switches to Redis (required for more than one worker process).

The channels get their settings from here, typed and checked
(`sms_settings()`, the Telegram fields), so a value given in `.env` reaches them too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import (
    AliasChoices,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:
    from adapters.sms.settings import SmsSettings

_TG_TOKEN = re.compile(r"^\d+:[A-Za-z0-9_-]{5,}$")
_TG_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")  # what Telegram allows for secret_token
_LOCAL = {"localhost", "127.0.0.1", "::1"}
_SEP = " | "  # joins problems inside one pydantic error; `_explain` splits them again

# Old names still read, each with the name the docs use (a warning says so).
RENAMED = {"TWILIO_FROM_NUMBER": "TWILIO_FROM"}

# What SMS needs, as the start banner names it when SMS is off.
SMS_NEEDS = (
    "TWILIO_ACCOUNT_SID",
    "TWILIO_AUTH_TOKEN",
    "TWILIO_FROM (or TWILIO_MESSAGING_SERVICE_SID)",
    "PUBLIC_BASE_URL (https)",
)


class SettingsError(ValueError):
    """Invalid settings: `problems` lists each as "NAME: what is wrong"."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("invalid settings:\n" + "\n".join(f"  - {p}" for p in problems))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", populate_by_name=True
    )

    # where the world reaches us, and where we listen
    public_base_url: str | None = Field(None, validation_alias="PUBLIC_BASE_URL")
    # not HOST: zsh and some images set it to the machine's name
    host: str = Field("127.0.0.1", validation_alias="MULDVARP_HOST")
    port: int = Field(8000, validation_alias=AliasChoices("MULDVARP_PORT", "PORT"), ge=1, le=65535)

    # store
    redis_url: str | None = Field(None, validation_alias="REDIS_URL")
    redis_prefix: str = Field("muldvarp:", validation_alias="MULDVARP_PREFIX")
    data_dir: Path = Field(Path("data"), validation_alias="DATA_DIR")
    retention_days: float = Field(7.0, validation_alias="RETENTION_DAYS", gt=0, le=3650)
    # an ended game's players' chat ids and numbers' ids are forgotten this
    # many hours after its end (the game stays until RETENTION_DAYS)
    contacts_retention_hours: float = Field(
        48.0, validation_alias="CONTACTS_RETENTION_HOURS", ge=0, le=87600
    )

    # Telegram
    telegram_bot_token: str | None = Field(None, validation_alias="TELEGRAM_BOT_TOKEN")
    telegram_webhook_secret: str | None = Field(None, validation_alias="TELEGRAM_WEBHOOK_SECRET")
    telegram_api_base_url: str | None = Field(None, validation_alias="TELEGRAM_API_BASE_URL")
    # Telegram's send limits, held by all workers together (adapters/ratelimit.py).
    # The bot's is kept 7% under Telegram's 30/s: messages sent on exact slots
    # reach Telegram with network jitter, which bunches them (measured at the
    # fake Bot API with two workers on a loaded machine: 32 in a 1 s window at 30/s).
    telegram_rate_bot: float = Field(28.0, validation_alias="TELEGRAM_RATE_BOT", ge=0)
    telegram_rate_chat: float = Field(1.0, validation_alias="TELEGRAM_RATE_CHAT", ge=0)
    telegram_rate_group: float = Field(20.0, validation_alias="TELEGRAM_RATE_GROUP", ge=0)

    # SMS (Twilio)
    twilio_account_sid: str | None = Field(None, validation_alias="TWILIO_ACCOUNT_SID")
    twilio_auth_token: str | None = Field(None, validation_alias="TWILIO_AUTH_TOKEN")
    twilio_from: str | None = Field(
        None, validation_alias=AliasChoices("TWILIO_FROM", "TWILIO_FROM_NUMBER")
    )
    twilio_messaging_service_sid: str | None = Field(
        None, validation_alias="TWILIO_MESSAGING_SERVICE_SID"
    )
    twilio_api_base_url: str | None = Field(None, validation_alias="TWILIO_API_BASE_URL")
    sms_transliterate: bool = Field(False, validation_alias="SMS_TRANSLITERATE")
    # the rest of docs/sms.md's knobs, handed to the adapter by sms_settings()
    sms_rate: float = Field(1.0, validation_alias="SMS_RATE", ge=0)
    # "all": the adapter texts every announcement, merged into one text a moment
    # ("bundled" is its older name); "private" leaves the news to the TV
    sms_announce: str = Field("all", validation_alias="SMS_ANNOUNCE")
    sms_default_region: str | None = Field(None, validation_alias="SMS_DEFAULT_REGION")
    sms_default_lang: str | None = Field(None, validation_alias="SMS_DEFAULT_LANG")
    sms_id_key: str | None = Field(None, validation_alias="SMS_ID_KEY")

    # process
    scheduler: bool = Field(True, validation_alias="MULDVARP_SCHEDULER")
    # the leader re-arms every active game this often, catching anything it missed
    scheduler_resync: float = Field(
        5.0, validation_alias="MULDVARP_SCHEDULER_RESYNC", ge=1, le=3600
    )
    tv_poll_seconds: float = Field(1.0, validation_alias="TV_POLL_SECONDS", gt=0, le=60)
    internal_token: str | None = Field(None, validation_alias="MULDVARP_INTERNAL_TOKEN")
    log_level: str = Field("INFO", validation_alias="LOG_LEVEL")
    # The address TVs and phones open for the TV pages, when it is not the
    # webhook address: a laptop on home Wi-Fi (http://192.168.1.20:8000), with
    # Telegram by long polling. http is allowed here: nothing calls it but the
    # table's own screens.
    tv_url: str | None = Field(None, validation_alias="TV_BASE_URL")

    def secrets(self) -> tuple[str, ...]:
        """Every configured value that must never reach a log line: tokens,
        shared secrets, and the password in the Redis URL (bots/logsafe.py)."""
        values = [
            self.telegram_bot_token,
            self.telegram_webhook_secret,
            self.twilio_auth_token,
            self.internal_token,
            self.sms_id_key,
        ]
        if self.redis_url:
            from urllib.parse import urlsplit

            values.append(urlsplit(self.redis_url).password)
        return tuple(v for v in values if v)

    @field_validator(
        "public_base_url",
        "redis_url",
        "telegram_bot_token",
        "telegram_webhook_secret",
        "telegram_api_base_url",
        "twilio_account_sid",
        "twilio_auth_token",
        "twilio_from",
        "twilio_messaging_service_sid",
        "twilio_api_base_url",
        "internal_token",
        "tv_url",
        "sms_default_region",
        "sms_default_lang",
        "sms_id_key",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        """`FOO=` in a .env file means "not set", not "set to nothing"."""
        if isinstance(value, str):
            value = value.strip()
            return value or None
        return value

    @field_validator("public_base_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an absolute URL such as https://muldvarp.example.org")
        if parts.scheme == "http" and parts.hostname not in _LOCAL:
            raise ValueError("must use https (Telegram and Twilio call webhooks over TLS)")
        if parts.query or parts.fragment:
            raise ValueError("must not have a query or fragment")
        return value.rstrip("/")

    @field_validator("tv_url")
    @classmethod
    def _tv_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an absolute URL such as http://192.168.1.20:8000")
        if parts.query or parts.fragment:
            raise ValueError("must not have a query or fragment")
        return value.rstrip("/")

    @field_validator("telegram_api_base_url")
    @classmethod
    def _bot_api(cls, value: str | None) -> str | None:
        """The Bot API server's URL, with or without the `/bot` that the
        official one ends in (https://api.telegram.org/bot): held in the form
        the client wants, `.../bot`, to which it appends `<token>/<method>`."""
        if value is None:
            return None
        form = "an http(s) URL such as http://127.0.0.1:8081 or https://api.telegram.org/bot"
        parts = urlsplit(value)
        try:
            port_ok = parts.port is None or parts.port > 0
        except ValueError:
            port_ok = False
        if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
            raise ValueError("must be " + form)
        if parts.query or parts.fragment or "@" in parts.netloc:
            raise ValueError("must be " + form + ", without a query, fragment or user")
        path = parts.path.rstrip("/")
        if re.search(r"/bot\d+:", path):
            raise ValueError("must end at /bot, without the token (TELEGRAM_BOT_TOKEN holds it)")
        if not path.endswith("/bot"):
            path += "/bot"
        return f"{parts.scheme}://{parts.netloc}{path}"

    @field_validator("redis_url")
    @classmethod
    def _redis(cls, value: str | None) -> str | None:
        from adapters.redis_url import check  # redis+cluster:// for a Cluster

        return None if value is None else check(value)

    @field_validator("redis_prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        if "{" in value or "}" in value or not value:
            raise ValueError("must be non-empty and without braces (they are Redis hash tags)")
        return value

    @field_validator("sms_announce")
    @classmethod
    def _announce(cls, value: str) -> str:
        if value not in ("bundled", "all", "private"):
            raise ValueError("must be all or private")
        return "all" if value == "bundled" else value

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        if value.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR"):
            raise ValueError("must be DEBUG, INFO, WARNING or ERROR")
        return value.upper()

    @model_validator(mode="wrap")
    @classmethod
    def _all_at_once(cls, data: Any, handler: ModelWrapValidatorHandler[Settings]) -> Settings:
        """Every problem in one round: pydantic skips the cross-field checks
        when a single field is invalid, so an operator would fix the fields,
        start again and only then learn that SMS lacks a sender. On a field
        error the channel checks run on the raw values as well."""
        try:
            return handler(data)
        except ValidationError as exc:
            if not isinstance(data, dict):
                raise
            problems = _explain(exc)
            named = {p.split(":", 1)[0] for p in problems}
            extra = [
                p for p in _channel_problems(_raw_values(data)) if p.split(":", 1)[0] not in named
            ]
            if not extra:
                raise
            raise ValueError(_SEP.join(problems + extra)) from None

    @model_validator(mode="after")
    def _channels(self) -> Settings:
        problems = _channel_problems({name: getattr(self, name) for name in _CHANNEL_FIELDS})
        if problems:
            raise ValueError(_SEP.join(problems))
        return self

    # -- derived ------------------------------------------------------------------

    @property
    def telegram_enabled(self) -> bool:
        return self.telegram_bot_token is not None

    @property
    def telegram_polling(self) -> bool:
        """No public URL: Telegram can't reach us, so we ask it (long polling)."""
        return self.telegram_enabled and self.public_base_url is None

    @property
    def sms_enabled(self) -> bool:
        return self.twilio_account_sid is not None and self.twilio_auth_token is not None

    @property
    def retention_seconds(self) -> float:
        return self.retention_days * 24 * 3600.0

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "muldvarp.sqlite3"

    def base_url(self) -> str:
        """Where links (TV pages) point: the public URL, else where we listen."""
        if self.public_base_url:
            return self.public_base_url
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        return f"http://{host}:{self.port}"

    def tv_base_url(self) -> str:
        """Where TV links point: `TV_BASE_URL` when set (a LAN address), else
        the public address, else this machine as it listens."""
        return (self.tv_url or self.base_url()) + "/tv/"

    def tv_unreachable(self) -> bool:
        """Listening on every interface with TV links that say 127.0.0.1: no
        TV on the network could open them (the banner says what to set)."""
        return self.host in ("0.0.0.0", "::") and not (self.tv_url or self.public_base_url)

    def sms_settings(self) -> SmsSettings:
        """The SMS adapter's settings, as checked here (nothing re-read)."""
        from adapters.sms.settings import TWILIO_API, SmsSettings

        token = self.twilio_auth_token or ""
        return SmsSettings(
            account_sid=self.twilio_account_sid or "",
            auth_token=token,
            public_base_url=self.public_base_url or "",
            from_number=self.twilio_from,
            messaging_service_sid=self.twilio_messaging_service_sid,
            api_base_url=(self.twilio_api_base_url or TWILIO_API).rstrip("/"),
            rate=self.sms_rate,
            transliterate=self.sms_transliterate,
            default_region=self.sms_default_region or "NO",
            default_lang=self.sms_default_lang or "nb",
            id_key=self.sms_id_key or token,
            announce=self.sms_announce,
        )


_CHANNEL_FIELDS = (
    "public_base_url",
    "telegram_bot_token",
    "telegram_webhook_secret",
    "twilio_account_sid",
    "twilio_auth_token",
    "twilio_from",
    "twilio_messaging_service_sid",
)


def _raw_values(data: dict[str, Any]) -> dict[str, Any]:
    """The channel fields as given (by environment name or field name), blank
    as unset: what `_channel_problems` needs when validation stopped early."""
    out: dict[str, Any] = {}
    for name in _CHANNEL_FIELDS:
        alias = Settings.model_fields[name].validation_alias
        names = [name, *(alias.choices if isinstance(alias, AliasChoices) else [alias])]
        value = next((data[n] for n in names if isinstance(n, str) and n in data), None)
        if isinstance(value, str):
            value = value.strip() or None
        out[name] = value
    return out


def _channel_problems(v: dict[str, Any]) -> list[str]:
    """What the channels need together, from the values of `_CHANNEL_FIELDS`."""
    out: list[str] = []
    token = v["telegram_bot_token"]
    if token is not None and not _TG_TOKEN.match(str(token)):
        out.append("TELEGRAM_BOT_TOKEN: does not look like a bot token (123456:ABC-...)")
    if token is not None and v["public_base_url"] is not None:
        secret = v["telegram_webhook_secret"]
        if secret is None:
            out.append(
                "TELEGRAM_WEBHOOK_SECRET: required for the webhook (PUBLIC_BASE_URL is set);"
                " make one with `openssl rand -hex 32`"
            )
        elif not _TG_SECRET.match(str(secret)):
            out.append("TELEGRAM_WEBHOOK_SECRET: 1-256 characters of A-Z a-z 0-9 _ -")
    sid, auth, frm = v["twilio_account_sid"], v["twilio_auth_token"], v["twilio_from"]
    mss = v["twilio_messaging_service_sid"]
    if any(x is not None for x in (sid, auth, frm, mss)):
        if sid is None:
            out.append("TWILIO_ACCOUNT_SID: required for SMS")
        elif not re.match(r"^AC[0-9a-fA-F]{32}$", str(sid)):
            out.append("TWILIO_ACCOUNT_SID: should be AC followed by 32 hex digits")
        if auth is None:
            out.append("TWILIO_AUTH_TOKEN: required for SMS (it also signs the webhooks)")
        if frm is None and mss is None:
            out.append("TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID: SMS needs a sender")
        if mss is not None and not re.match(r"^MG[0-9a-fA-F]{32}$", str(mss)):
            out.append("TWILIO_MESSAGING_SERVICE_SID: should be MG followed by 32 hex digits")
        if frm is not None and not re.match(r"^\+[1-9]\d{6,14}$", str(frm)):
            out.append("TWILIO_FROM: should be an E.164 number such as +4759440000")
        if v["public_base_url"] is None:
            out.append("PUBLIC_BASE_URL: required for SMS (Twilio posts to it and signs its URL)")
    return out


def load_settings(env_file: str | Path | None = ".env", **overrides: Any) -> Settings:
    """The settings from the environment (and `env_file` if it exists), or a
    `SettingsError` naming every problem by its environment variable."""
    try:
        return Settings(_env_file=env_file, **overrides)  # type: ignore[call-arg]
    except ValidationError as exc:
        raise SettingsError(_explain(exc)) from None


def _explain(exc: ValidationError) -> list[str]:
    names = {n: f.validation_alias for n, f in Settings.model_fields.items()}
    out: list[str] = []
    for err in exc.errors():
        loc = err.get("loc") or ()
        message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        if not loc:  # a whole-model check: its message names the variables already
            out.extend(part.strip() for part in message.split(_SEP))
            continue
        alias = names.get(str(loc[0]), loc[0])
        if isinstance(alias, AliasChoices):
            alias = alias.choices[0]
        name = alias if isinstance(alias, str) else str(loc[0]).upper()
        out.append(f"{name}: {message}")
    return out


def setting_names() -> frozenset[str]:
    """Every environment name `serve` reads (old names in `RENAMED` included):
    what the deploy files and the docs may set."""
    out: set[str] = set()
    for field in Settings.model_fields.values():  # every field has an environment name
        alias = field.validation_alias
        names = alias.choices if isinstance(alias, AliasChoices) else [alias]
        out.update(n for n in names if isinstance(n, str))
    return frozenset(out)


def renamed_warnings(env_file: str | Path | None = ".env") -> list[str]:
    """One line for each old name set in the environment or `env_file`: it is
    still read, but the docs and deploy/.env.example use the new one."""
    import os

    from dotenv import dotenv_values

    given = {k.upper() for k, v in os.environ.items() if v.strip()}
    if env_file is not None and Path(env_file).is_file():
        given |= {k.upper() for k, v in dotenv_values(env_file).items() if (v or "").strip()}
    out = []
    for old, new in RENAMED.items():
        if old in given:
            fate = "ignored, as " + new + " is set" if new in given else "read as " + new
            out.append(f"{old} is {fate}; rename it to {new}")
    return out
