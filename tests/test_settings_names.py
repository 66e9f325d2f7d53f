"""The settings the docs name are the ones `serve` reads.

README.md and docs/sms.md used to say `TWILIO_FROM_NUMBER` where the code read
`TWILIO_FROM`: an operator who followed them had SMS refused at start ("needs a
sender"). The name is `TWILIO_FROM`; the old one is still read, with one
warning line at start, and the docs may name it only next to the new one.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bots.settings import RENAMED, load_settings, renamed_warnings, setting_names

ROOT = Path(__file__).resolve().parents[1]
DOCS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "deploy").iterdir()),
]
SID = "AC" + "0123456789abcdef" * 2


def named(text: str) -> set[str]:
    """The setting-like names in a text: upper-case words with the first
    segment of some setting (TWILIO_, SMS_, MULDVARP_, TV_, ...)."""
    heads = "|".join(sorted({n.split("_", 1)[0] for n in setting_names() if "_" in n}))
    return set(re.findall(rf"\b(?:{heads})_[A-Z0-9_]*[A-Z0-9]\b", text))


def read_by_code() -> set[str]:
    """Names some other program of the repository reads (setup.py's build
    switch, the tests' own knobs, the SMS adapter used on its own): quoted in
    a .py file."""
    out: set[str] = set()
    for path in ROOT.rglob("*.py"):
        if ".venv" in path.parts or path.name == Path(__file__).name:
            continue
        out |= set(re.findall(r"[\"']([A-Z][A-Z0-9_]+)[\"']", path.read_text(errors="replace")))
    return out


def test_every_setting_the_docs_name_is_read() -> None:
    known = setting_names()
    others = read_by_code()
    wrong = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in DOCS
        if path.is_file()
        for name in sorted(named(path.read_text()))
        if name not in known and name not in others
    ]
    assert not wrong, wrong
    # the check reads what it should: the docs do name the SMS sender
    assert "TWILIO_FROM" in named((ROOT / "README.md").read_text())
    assert "TWILIO_SENDR" not in known | others


def test_an_old_name_appears_only_beside_the_new_one() -> None:
    stray = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in DOCS
        if path.is_file()
        for n, line in enumerate(path.read_text().splitlines(), 1)
        for old, new in RENAMED.items()
        if re.search(rf"\b{old}\b", line) and not re.search(rf"\b{new}\b", line)
    ]
    assert not stray, stray


def test_the_docs_agree_with_the_names_serve_reports() -> None:
    """The sender's name in serve's own messages is the one the docs use."""
    from bots.settings import SettingsError

    with pytest.raises(SettingsError) as err:
        load_settings(None, TWILIO_ACCOUNT_SID=SID, TWILIO_AUTH_TOKEN="t", TWILIO_FROM="12")
    (line,) = [p for p in err.value.problems if "E.164" in p]
    name = line.split(":", 1)[0]
    for doc in ("README.md", "docs/sms.md", "docs/operators.md", "deploy/.env.example"):
        assert name in named((ROOT / doc).read_text()), doc


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in setting_names():
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("clean_env")
def test_the_old_name_still_works_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = tmp_path / ".env"
    env.write_text("TWILIO_FROM_NUMBER=+4759440000\n")
    assert renamed_warnings(env) == [
        "TWILIO_FROM_NUMBER is read as TWILIO_FROM; rename it to TWILIO_FROM"
    ]
    s = load_settings(
        env, TWILIO_ACCOUNT_SID=SID, TWILIO_AUTH_TOKEN="t", PUBLIC_BASE_URL="https://x.example.org"
    )
    assert s.twilio_from == "+4759440000"
    assert s.sms_settings().from_number == "+4759440000"
    monkeypatch.setenv("TWILIO_FROM", "+4759440001")
    assert renamed_warnings(env) == [
        "TWILIO_FROM_NUMBER is ignored, as TWILIO_FROM is set; rename it to TWILIO_FROM"
    ]
    assert renamed_warnings(tmp_path / "none.env") == []
    monkeypatch.delenv("TWILIO_FROM")
    assert renamed_warnings(tmp_path / "none.env") == []


def test_serve_warns_once_about_the_old_name(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in setting_names()}
    env.update(TWILIO_FROM_NUMBER="+4759440000", MULDVARP_PORT="0")  # stops before serving
    r = subprocess.run(
        [sys.executable, "-m", "bots.cli", "serve"],
        cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 2
    warned = [ln for ln in r.stderr.splitlines() if "warning" in ln]
    assert warned == [
        "muldvarp serve: warning: TWILIO_FROM_NUMBER is read as TWILIO_FROM;"
        " rename it to TWILIO_FROM"
    ], r.stderr
