"""`muldvarp demo --tv` as a newcomer runs it: the real command in a subprocess.

What is checked is what a person at the terminal sees: the TV link first, a
line per phase while the game plays (not all at the end), every line in the
chosen language with no raw key, the end screen kept up (for `--hold` seconds,
or until Ctrl-C), and a busy port answered in one line with a non-zero exit.
The plain `muldvarp demo` (the README's run command) is run too.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from adapters.tv.demo import DEMO_TEXTS, demo_text, hold_text
from gameflow.core.state import seed_digest
from gameflow.core.text import msg
from gameflow.games.station.reveal import winner_text
from gameflow.games.station.tv import SCREEN_TEXTS as TV_TEXTS  # Station's TV words
from gameflow.i18n import render

pytestmark = pytest.mark.station

ROOT = Path(__file__).resolve().parents[1]
PACE = "0.03"  # seconds between inputs: a whole 5-player game in a few seconds


class Run:
    """The command running, its stdout read line by line as it comes, each
    line with the time it arrived."""

    def __init__(self, *args: str, tmp: Path) -> None:
        env = {**os.environ, "TMPDIR": str(tmp), "PYTHONUNBUFFERED": ""}
        env.pop("REDIS_URL", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bots.cli", "demo", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[tuple[float, str]] = []
        self.began = time.monotonic()
        self._new = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._new:
                self.lines.append((time.monotonic(), line.rstrip("\n")))
                self._new.notify_all()
        with self._new:
            self._new.notify_all()

    def wait_for(self, text: str, timeout: float = 60.0) -> tuple[float, str]:
        deadline = time.monotonic() + timeout
        with self._new:
            while True:
                for at, line in self.lines:
                    if text in line:
                        return at, line
                left = deadline - time.monotonic()
                if left <= 0 or (not self._reader.is_alive() and self.proc.poll() is not None):
                    pytest.fail(f"no line with {text!r} in {self.text()!r}")
                self._new.wait(min(left, 0.2))

    def finish(self, timeout: float = 60.0) -> tuple[int, str]:
        code = self.proc.wait(timeout)
        self._reader.join(5)
        assert self.proc.stderr is not None
        err = self.proc.stderr.read()
        self.close()
        return code, err

    def close(self) -> None:
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()

    def text(self) -> str:
        return "\n".join(line for _, line in self.lines)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._reader.join(5)
        self.close()


@pytest.fixture
def runs(tmp_path: Path):  # type: ignore[no-untyped-def]
    made: list[Run] = []

    def start(*args: str) -> Run:
        run = Run(*args, tmp=tmp_path)
        made.append(run)
        return run

    yield start
    for run in made:
        run.kill()


def _url(line: str) -> str:
    found = re.search(r"http://127\.0\.0\.1:\d+/tv/\S+", line)
    assert found, line
    return found.group(0)


def _english_only_texts() -> list[str]:
    """The demo's own English lines, cut at their first placeholder."""
    return [t.split("{")[0] for t in DEMO_TEXTS.values() if t.split("{")[0].strip()]


@pytest.mark.parametrize("lang", ["nb", "sr", "en"])
def test_demo_tv_narrates_the_game_in_its_language_and_holds_the_end(runs, lang: str) -> None:
    run = runs("--tv", "--lang", lang, "--players", "5", "--delay", PACE, "--port", "0",
               "--hold", "2", "--seed", "tv-test")  # fmt: skip
    # The TV link is the first line, and the page is up while the game plays.
    first_at, first = run.wait_for("http://127.0.0.1:")
    assert run.lines[0][1] == first
    url = _url(first)
    assert first == render(demo_text("tv_url", url=url), lang)
    assert httpx.get(url, timeout=10).status_code == 200

    mission = msg(TV_TEXTS["phase_mission"])
    round1_at, _ = run.wait_for(render(demo_text("phase", round=1, rounds=6, phase=mission), lang))
    vote = msg(TV_TEXTS["phase_vote"])
    run.wait_for(render(demo_text("phase", round=1, rounds=6, phase=vote), lang))
    seed_at, _ = run.wait_for(seed_digest("tv-test"))
    hold_at, hold_line = run.wait_for(render(hold_text(2), lang))
    # Progress came while it played, not in one block at the end.
    assert seed_at - round1_at > 0.5, run.text()
    assert round1_at - first_at < seed_at - first_at

    # The end screen is up during the hold: the TV says who won, in the language.
    page = httpx.get(url, timeout=10).text
    winners = {w: render(msg(TV_TEXTS[f"{w}_won"]), lang) for w in ("loyal", "infiltrators")}
    assert any(text in page for text in winners.values()), page[:500]
    code, err = run.finish()
    ended = time.monotonic()
    assert code == 0 and err == ""
    assert ended - hold_at >= 1.8  # the hold was kept, then the command ended by itself

    text = run.text().replace(url, "<url>")
    won = [w for w in ("loyal", "infiltrators") if render(winner_text(w), lang) in text]
    assert len(won) == 1, text[-1500:]
    assert hold_line == text.splitlines()[-1]
    assert "[TV]" in text and text.count("\n") > 30
    # No raw key: the old English end line, or a winner's key on its own.
    assert "win. Seed" not in text and "{" not in text
    if lang != "en":
        assert not re.search(r"\b(loyal|infiltrators|Round|Winner|Seed|Vote)\b", text), text
        for english in _english_only_texts():
            assert english not in text


def test_demo_tv_keeps_the_end_screen_up_until_ctrl_c(runs, tmp_path: Path) -> None:
    run = runs("--tv", "--lang", "nb", "--players", "5", "--delay", "0.01", "--port", "0")
    url = _url(run.wait_for("http://127.0.0.1:")[1])
    run.wait_for(render(demo_text("hold"), "nb"))
    # A TV that is watching holds an event stream open; Ctrl-C must still end
    # the demo at once, without a traceback.
    stream: list[bytes] = []

    def watch() -> None:
        try:
            with httpx.stream("GET", url + "/events", timeout=30) as response:
                for chunk in response.iter_bytes():
                    stream.append(chunk)
        except httpx.HTTPError:
            stream.append(b"<cut>")

    viewer = threading.Thread(target=watch, daemon=True)
    viewer.start()
    time.sleep(2.0)
    assert run.proc.poll() is None, "the end screen went away by itself"
    assert b"event: screen" in b"".join(stream)
    sent = time.monotonic()
    run.proc.send_signal(signal.SIGINT)
    code, err = run.finish(timeout=15)
    assert time.monotonic() - sent < 5
    assert code == 0, err
    assert err == ""  # no traceback, no server error line
    assert run.lines[-1][1] == render(demo_text("stopped"), "nb")
    viewer.join(5)
    assert b"<cut>" not in b"".join(stream)  # the stream was ended, not broken
    assert not list(tmp_path.glob("muldvarp-demo-*"))  # its store folder is gone


def test_demo_tv_stopped_mid_game_says_so_and_cleans_up(runs, tmp_path: Path) -> None:
    run = runs("--tv", "--lang", "sr", "--players", "5", "--delay", "0.05", "--port", "0")
    mission = msg(TV_TEXTS["phase_mission"])
    run.wait_for(render(demo_text("phase", round=1, rounds=6, phase=mission), "sr"))
    assert list(tmp_path.glob("muldvarp-demo-*"))
    run.proc.send_signal(signal.SIGTERM)
    code, err = run.finish(timeout=15)
    assert code == 130 and err == ""
    assert run.lines[-1][1] == render(demo_text("stopped"), "sr")
    assert not list(tmp_path.glob("muldvarp-demo-*"))


@pytest.mark.parametrize("lang", ["sr", "en"])
def test_demo_tv_answers_a_busy_port_in_one_line(runs, lang: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = runs("--tv", "--lang", lang, "--port", str(port), "--delay", "0.01")
        code, err = run.finish(timeout=30)
    assert code == 1
    assert run.lines == []
    assert err.splitlines() == [render(demo_text("port_busy", port=port), lang)]
    assert str(port) in err and "Traceback" not in err


def test_demo_tv_refuses_a_table_size_in_its_language(runs) -> None:
    code, err = runs("--tv", "--lang", "nb", "--players", "3").finish(timeout=30)
    assert code == 2 and err.splitlines() == [render(demo_text("players"), "nb")]


def test_the_readme_demo_command_still_plays_in_the_terminal(runs) -> None:
    run = runs()  # `muldvarp demo`, as the README runs it
    code, err = run.finish(timeout=120)
    text = run.text()
    assert code == 0 and err == ""
    assert "Round 1 of 6" in text and "[private → " in text
    assert "Winner: the " in text and seed_digest("demo") in text


def test_the_demo_read_in_part_ends_quietly(tmp_path: Path) -> None:
    """`muldvarp demo | head`: the reader leaves early; no traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bots.cli", "demo", "--players", "5"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(60) == 0
    assert proc.stderr.read() == b""
    proc.stderr.close()
