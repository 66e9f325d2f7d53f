"""No token or secret in any log line: what httpx logs of a Bot API call (the
URL holds the bot's token), an exception's text, and the configured secrets
are scrubbed before any handler writes them, at every level."""

from __future__ import annotations

import io
import logging

import httpx
import pytest

from bots import logsafe
from bots.settings import load_settings

pytestmark = pytest.mark.telegram

TOKEN = "123456789:AAH-fake_token_for_tests_0123456789ab"
TWILIO = "f00dfacef00dfacef00dfacef00dface"


@pytest.fixture
def captured() -> logging.Logger:
    logger = logging.getLogger("logsafe-test")
    logger.handlers.clear()
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    stream = io.StringIO()
    logger.addHandler(logging.StreamHandler(stream))
    logger.stream = stream  # type: ignore[attr-defined]
    return logger


def test_a_bot_api_request_line_loses_its_token(captured: logging.Logger) -> None:
    logsafe.install([TOKEN, TWILIO], captured)
    httpx_log = logging.getLogger("httpx")
    httpx_log.handlers, httpx_log.propagate = list(captured.handlers), False
    httpx_log.setLevel(logging.DEBUG)
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json={"ok": True}))
    try:
        with httpx.Client(transport=transport) as client:
            client.post(f"https://api.telegram.org/bot{TOKEN}/getUpdates")
    finally:
        httpx_log.handlers, httpx_log.propagate = [], True
    text = captured.stream.getvalue()  # type: ignore[attr-defined]
    assert "getUpdates" in text and "<redacted>" in text  # the line is kept, scrubbed
    assert TOKEN not in text and TOKEN.split(":")[1] not in text


def test_secrets_in_messages_and_tracebacks_are_scrubbed(captured: logging.Logger) -> None:
    logsafe.install([TWILIO], captured)
    captured.debug("auth %s", TWILIO)
    try:
        raise RuntimeError(f"POST https://api.twilio.com/x?token={TWILIO} bot{TOKEN}")
    except RuntimeError:
        captured.exception("send failed")
    text = captured.stream.getvalue()  # type: ignore[attr-defined]
    assert "send failed" in text and "RuntimeError" in text
    assert TWILIO not in text and TOKEN not in text


def test_settings_name_every_secret() -> None:
    s = load_settings(
        None,
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_WEBHOOK_SECRET="hook-secret-value",
        TWILIO_ACCOUNT_SID="AC" + "0" * 32,
        TWILIO_AUTH_TOKEN=TWILIO,
        TWILIO_FROM="+4712345678",
        PUBLIC_BASE_URL="https://example.org",
        REDIS_URL="redis://:s3cretpass@127.0.0.1:1/0",
    )
    assert {TOKEN, "hook-secret-value", TWILIO, "s3cretpass"} <= set(s.secrets())
