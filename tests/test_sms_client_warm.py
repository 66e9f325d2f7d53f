"""The Twilio client is warmed at start (adapters/sms/outbound.py, `twilio_client`).

The SDK imports its REST domains on first use: ~60 ms with their bytecode
cached, much more without. Done in the first text's send, that import held
the event loop every webhook shares (seen in a py-spy profile under
bench/knee.py's load). In a fresh interpreter: nothing of the message
resource is imported before the client is made, all of it after."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.sms

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import sys
from adapters.sms.outbound import twilio_client
from adapters.sms.settings import SmsSettings
name = "twilio.rest.api.v2010.account.message"
before = name in sys.modules
twilio_client(SmsSettings("AC" + "0" * 32, "token", "https://muldvarp.example.org"))
print(before, name in sys.modules)
"""


def test_the_message_resource_is_imported_when_the_client_is_made() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "True"], out.stdout + out.stderr
