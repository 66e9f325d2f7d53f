"""`muldvarp serve`'s settings check names every problem in one start, and the
"sms: off" line of the start banner names everything SMS needs.

pydantic runs a model's cross-field checks only when every field is valid, so
a start with a bad port and an SMS set-up without a sender used to report the
port, and the sender only on the next start. The operator fixes what is
listed and starts again: that second start must work. The tests check it that
way: the problems of several mistakes at once are those of each mistake on its
own, and fixing exactly what was reported leaves nothing.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bots.app import build_runtime
from bots.serve import banner
from bots.settings import SettingsError, load_settings, setting_names

SID = "AC" + "0123456789abcdef" * 2
MSS = "MG" + "0123456789abcdef" * 2
# A complete, valid set-up of both channels and the store.
GOOD = {
    "PUBLIC_BASE_URL": "https://muldvarp.example.org",
    "TELEGRAM_BOT_TOKEN": "123456:ABCdefGHIjkl",
    "TELEGRAM_WEBHOOK_SECRET": "s3cret",
    "TWILIO_ACCOUNT_SID": SID,
    "TWILIO_AUTH_TOKEN": "tok",
    "TWILIO_FROM": "+4759440000",
    "MULDVARP_PORT": "8000",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "RETENTION_DAYS": "7",
}
# One mistake each, in fields (pydantic's own checks) and across fields.
BAD = {
    "MULDVARP_PORT": "70000",
    "REDIS_URL": "localhost:6379",
    "PUBLIC_BASE_URL": "http://muldvarp.example.org",
    "TELEGRAM_BOT_TOKEN": "not-a-token",
    "TELEGRAM_WEBHOOK_SECRET": "",
    "TWILIO_AUTH_TOKEN": "",
    "TWILIO_FROM": "4759440000",
    "RETENTION_DAYS": "0",
}


def problems(tmp_path: Path, env: dict[str, Any]) -> set[str]:
    try:
        load_settings(None, DATA_DIR=str(tmp_path / "data"), **env)
    except SettingsError as exc:
        return set(exc.problems)
    return set()


@pytest.fixture(autouse=True)
def _clean_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in setting_names():
        monkeypatch.delenv(name, raising=False)


def test_several_mistakes_are_reported_together(tmp_path: Path) -> None:
    assert problems(tmp_path, GOOD) == set()
    alone = {name: problems(tmp_path, {**GOOD, name: bad}) for name, bad in BAD.items()}
    for name, found in alone.items():
        assert found, f"{name}={BAD[name]!r} alone is not reported"
    together = problems(tmp_path, {**GOOD, **BAD})
    missing = set().union(*alone.values()) - together
    assert not missing, f"left for a second start: {sorted(missing)}"
    assert len(together) >= len(BAD)


def test_fixing_what_was_reported_is_enough(tmp_path: Path) -> None:
    """The operator's view: the names in the list are the ones to fix; fixed,
    the next start has no problem left."""
    bad = {**GOOD, **BAD}
    reported = problems(tmp_path, bad)
    names = {p.split(":", 1)[0] for p in reported}
    names = {n for part in names for n in re.findall(r"[A-Z][A-Z0-9_]+", part)}
    assert set(BAD) <= names, sorted(names)
    fixed = {k: (GOOD[k] if k in names else v) for k, v in bad.items()}
    assert problems(tmp_path, fixed) == set()


def test_a_channel_problem_is_not_hidden_by_a_field_problem(tmp_path: Path) -> None:
    """The case of the first report: a bad port, and SMS without a sender and
    without PUBLIC_BASE_URL."""
    found = problems(
        tmp_path, {"MULDVARP_PORT": "0", "TWILIO_ACCOUNT_SID": SID, "TWILIO_AUTH_TOKEN": "t"}
    )
    names = sorted(p.split(":", 1)[0] for p in found)
    assert names == [
        "MULDVARP_PORT",
        "PUBLIC_BASE_URL",
        "TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID",
    ], found


def test_serve_prints_every_problem_at_the_first_start(tmp_path: Path) -> None:
    """The real command, settings half from .env and half from the environment."""
    items = list({**GOOD, **BAD}.items())
    (tmp_path / ".env").write_text("".join(f"{k}={v}\n" for k, v in items[::2]))
    env = {k: v for k, v in os.environ.items() if k not in setting_names()}
    env.update(dict(items[1::2]))
    r = subprocess.run(
        [sys.executable, "-m", "bots.cli", "serve"],
        cwd=tmp_path, env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 2, r.stderr
    listed = [ln.strip()[2:] for ln in r.stderr.splitlines() if ln.strip().startswith("- ")]
    assert set(listed) == problems(tmp_path, {**GOOD, **BAD}), r.stderr
    for name in BAD:
        assert name in r.stderr, (name, r.stderr)


# -- the "sms: off" hint --------------------------------------------------------------------

VALID = {
    "TWILIO_ACCOUNT_SID": SID,
    "TWILIO_AUTH_TOKEN": "tok",
    "TWILIO_FROM": "+4759440000",
    "TWILIO_MESSAGING_SERVICE_SID": MSS,
    "PUBLIC_BASE_URL": "https://muldvarp.example.org",
}


def hint(tmp_path: Path) -> list[list[str]]:
    """What the banner says SMS needs, as groups of alternatives: each part of
    "set A, B, C (or D)" is one need, met by any name in it."""
    rt = build_runtime(load_settings(None, DATA_DIR=str(tmp_path / "data")))
    try:
        (line,) = [ln for ln in banner(rt) if ln.strip().startswith("sms:")]
    finally:
        asyncio.run(rt.store.close())
    m = re.search(r"off \(set (.*)\)$", line)
    assert m, line
    return [re.findall(r"\b[A-Z][A-Z0-9_]{2,}\b", part) for part in m[1].split(", ")]


def sms_live(tmp_path: Path, env: dict[str, str]) -> bool:
    try:
        s = load_settings(None, DATA_DIR=str(tmp_path / "data"), **env)
    except SettingsError:
        return False
    rt = build_runtime(s)
    try:
        return any(c.name == "sms" for c in rt.channels)
    finally:
        asyncio.run(rt.store.close())


def test_the_sms_off_hint_names_everything_sms_needs(tmp_path: Path) -> None:
    needs = hint(tmp_path)
    assert ["PUBLIC_BASE_URL"] in needs, needs
    # the names the hint gives are enough: SMS goes live with them, with either alternative
    for pick in range(max(len(n) for n in needs)):
        env = {n[min(pick, len(n) - 1)]: VALID[n[min(pick, len(n) - 1)]] for n in needs}
        assert sms_live(tmp_path, env), env
    # and each is needed: without any one of them SMS is not live
    first = {n[0]: VALID[n[0]] for n in needs}
    for need in needs:
        assert not sms_live(tmp_path, {k: v for k, v in first.items() if k != need[0]}), need
