"""deploy/ as written: the files agree with each other and with `serve`.

The deploy files are read by five programs (Docker, compose, systemd, Caddy,
nginx) and each has its own rule about who wins: `docker run --env-file` and
compose's `env_file` override the image's `ENV`, systemd's `EnvironmentFile=`
overrides `Environment=`. A value that looks harmless in `.env.example` can so
move a container off `0.0.0.0` (the published port is dead, the health check on
127.0.0.1 stays green) or give every systemd instance the same port. Nothing of
this shows until someone deploys, so the checks here read the files, work out
what each documented set-up would run with (by the real `Settings` and the real
`serve` command line), and compare: the names, the hosts, the ports behind the
proxies, and the data folder against the volumes.

Each check is a function of a deploy folder returning its problems; the tests
run them on `deploy/` (none expected) and on mutated copies (the problem each
check exists for must be reported). The tools that can run here check their own
files: `systemd-analyze verify`, `nginx -t`, `caddy validate`; a missing tool
skips, except with `CI` set (.ci/run installs them), where it fails. Docker is
not run (no container engine on the test machines).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from dotenv import dotenv_values
from pydantic import ValidationError

from bots.cli import build_parser
from bots.settings import Settings, setting_names

pytestmark = pytest.mark.deploy

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
WILDCARD = {"0.0.0.0", "::"}
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# What the proxies dial and what is published: host:port on the loopback.
_HOSTPORT = re.compile(r"\b(?:127\.0\.0\.1|localhost):(\d+)\b")


# -- readers ------------------------------------------------------------------------------


def example(d: Path) -> dict[str, str]:
    """The variables `.env.example` sets (one `KEY=value` a line)."""
    out: dict[str, str] = {}
    for line in (d / ".env.example").read_text().splitlines():
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", line)
        if m:
            out[m[1]] = m[2]
    return out


def example_named(d: Path) -> set[str]:
    """Every variable the example sets or shows commented (`# NAME=default`)."""
    text = (d / ".env.example").read_text()
    return set(re.findall(r"^(?:# )?([A-Z][A-Z0-9_]*)=", text, re.M))


def dockerfile(d: Path) -> dict[str, Any]:
    """The image's ENV, VOLUMEs, EXPOSEd ports, health check and the
    `docker run` line its comments document."""
    text = (d / "Dockerfile").read_text()
    run = re.search(r"^#\s+(docker run .*)$", text, re.M)
    joined = re.sub(r"\\\n\s*", " ", text)
    env: dict[str, str] = {}
    volumes: list[str] = []
    expose: list[int] = []
    health = ""
    for line in joined.splitlines():
        word, _, rest = line.strip().partition(" ")
        if word == "ENV":
            env.update(tok.split("=", 1) for tok in shlex.split(rest))  # type: ignore[misc]
        elif word == "VOLUME":
            volumes += json.loads(rest) if rest.startswith("[") else rest.split()
        elif word == "EXPOSE":
            expose += [int(p.split("/")[0]) for p in rest.split()]
        elif word == "HEALTHCHECK":
            health = rest
    return {"env": env, "volumes": volumes, "expose": expose, "health": health, "run": run}


def compose(d: Path) -> dict[str, Any]:
    data = yaml.safe_load((d / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


def unit(path: Path) -> list[tuple[str, str, str]]:
    """(section, key, value) of a systemd unit, in order (keys repeat)."""
    out: list[tuple[str, str, str]] = []
    section = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        out.append((section, key.strip(), value.strip()))
    return out


def values(u: list[tuple[str, str, str]], key: str) -> list[str]:
    return [v for _, k, v in u if k == key]


def caddy_ports(d: Path) -> set[int]:
    """The ports Caddy proxies to: `reverse_proxy UPSTREAMS` and `to UPSTREAMS`."""
    ports: set[int] = set()
    for line in (d / "Caddyfile").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if re.match(r"^(reverse_proxy|to)\s", line):
            ports |= {int(p) for p in _HOSTPORT.findall(line)}
    return ports


def nginx_ports(d: Path) -> set[int]:
    text = (d / "nginx.conf").read_text()
    ports: set[int] = set()
    for block in re.findall(r"upstream\s+\w+\s*\{(.*?)\}", text, re.S):
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("server "):
                ports |= {int(p) for p in _HOSTPORT.findall(line)}
    return ports


def instances(d: Path) -> set[int]:
    """The template's instances the deploy files tell operators to enable."""
    text = "".join(
        (d / f).read_text() for f in ("muldvarp@.service", "README.md", "Caddyfile", "nginx.conf")
    )
    return {int(p) for p in re.findall(r"muldvarp@(\d+)", text)}


@contextmanager
def _no_settings_in_environ() -> Iterator[None]:
    with mock.patch.dict(os.environ):
        for name in setting_names():
            os.environ.pop(name, None)
        yield


def effective(env: dict[str, str], argv: list[str] | None = None) -> Settings:
    """The settings `muldvarp serve ARGV` starts with, given exactly `env`:
    the real command line parser and the real `Settings` (nothing from the
    machine's environment or a .env file)."""
    overrides: dict[str, Any] = dict(env)
    if argv is not None:
        args = build_parser().parse_args(argv)
        assert args.func.__name__ == "_serve", argv
        if args.host is not None:
            overrides["MULDVARP_HOST"] = args.host
        if args.port is not None:
            overrides["MULDVARP_PORT"] = args.port
    with _no_settings_in_environ():
        return Settings(_env_file=None, **overrides)  # type: ignore[call-arg]


def published(entry: str) -> tuple[str, str, str]:
    """compose's short port syntax `[IP:]HOST:CONTAINER` (IPv4 only here)."""
    parts = entry.split(":")
    if len(parts) == 2:
        return "", parts[0], parts[1]
    return parts[0], parts[1], parts[2]


# -- checks -------------------------------------------------------------------------------


def check_names(d: Path) -> list[str]:
    """Every variable a deploy file sets is one `serve` reads; the example
    names every setting (set, or commented with its default)."""
    known = setting_names()
    sets: dict[str, set[str]] = {
        ".env.example": set(example(d)) | example_named(d),
        "Dockerfile ENV": set(dockerfile(d)["env"]),
        "muldvarp.service": set(),
        "muldvarp@.service": set(),
    }
    for name in ("muldvarp.service", "muldvarp@.service"):
        for v in values(unit(d / name), "Environment"):
            sets[name] |= {tok.split("=", 1)[0] for tok in shlex.split(v)}
    for service, spec in compose(d).get("services", {}).items():
        env = spec.get("environment") or {}
        keys = env if isinstance(env, dict) else [e.split("=", 1)[0] for e in env]
        sets[f"compose {service}"] = set(keys)
    out = []
    for where, names in sets.items():
        for name in sorted(names):
            # PYTHON*: the interpreter's own (PYTHONUNBUFFERED), not serve's
            if name not in known and not name.startswith("PYTHON"):
                out.append(f"{where}: sets {name}, which serve does not read")
    primary = {
        a.choices[0] if hasattr(a, "choices") else a
        for a in (f.validation_alias for f in Settings.model_fields.values())
    }
    for name in sorted(n for n in primary if isinstance(n, str)):
        if name not in sets[".env.example"]:
            out.append(f".env.example: does not name {name}")
    return out


def check_example_format(d: Path) -> list[str]:
    """Plain `KEY=value` lines: what Docker's --env-file, systemd's
    EnvironmentFile= and python-dotenv (serve's .env) read alike."""
    out = []
    for n, line in enumerate((d / ".env.example").read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        m = re.match(r"^[A-Za-z_][A-Za-z0-9_]*=([^\s\"'#]*)$", line)
        if not m:
            out.append(f".env.example:{n}: not a plain KEY=value line: {line!r}")
    if dotenv_values(d / ".env.example") != example(d):
        out.append(".env.example: python-dotenv reads it differently from a plain KEY=value file")
    try:
        effective(example(d))
    except ValidationError as exc:
        out.append(f".env.example: as it is, serve refuses it: {exc}")
    return out


def check_no_override(d: Path) -> list[str]:
    """The example sets nothing that the image or a unit sets for itself:
    the example would win (--env-file over ENV, EnvironmentFile= over
    Environment=), even with the same value today."""
    ex = set(example(d))
    own = {"Dockerfile ENV": set(dockerfile(d)["env"])}
    for name in ("muldvarp.service", "muldvarp@.service"):
        own[name] = {
            tok.split("=", 1)[0]
            for v in values(unit(d / name), "Environment")
            for tok in shlex.split(v)
        }
    return [
        f".env.example: sets {name}, overriding the {where}'s own value"
        for where, names in own.items()
        for name in sorted(names & ex)
    ]


def check_docker(d: Path) -> list[str]:
    """`docker run --env-file .env` as the Dockerfile documents it."""
    out = []
    img = dockerfile(d)
    s = effective({**img["env"], **example(d)})
    if s.host not in WILDCARD:
        out.append(f"docker run: serve listens on {s.host}, a published port can't reach it")
    if img["expose"] != [s.port]:
        out.append(f"Dockerfile: EXPOSE {img['expose']} but serve listens on {s.port}")
    if not s.data_dir.is_absolute() or str(s.data_dir) not in img["volumes"]:
        out.append(f"docker run: DATA_DIR is {s.data_dir}, not the image's VOLUME {img['volumes']}")
    health = img["health"]
    if any(h in health for h in LOOPBACK):
        out.append(
            "Dockerfile: the health check calls the loopback, green on a dead published port"
        )
    if "MULDVARP_PORT" not in health and f":{s.port}/" not in health:
        out.append("Dockerfile: the health check does not call the port serve listens on")
    run = img["run"]
    if run is None:
        out.append("Dockerfile: no documented `docker run` line")
    else:
        args = shlex.split(run[1])
        for flag, value in itertools.pairwise(args):
            if flag == "-p":
                ip, _, inner = published(value)
                if ip not in LOOPBACK or int(inner) != s.port:
                    out.append(f"Dockerfile: `docker run -p {value}`: not loopback to {s.port}")
            if flag == "-v" and value.split(":")[1] != str(s.data_dir):
                out.append(f"Dockerfile: `docker run -v {value}` is not DATA_DIR {s.data_dir}")
    return out


def compose_ports(d: Path) -> tuple[set[int], list[str]]:
    """The host ports compose publishes, and the problems of each worker."""
    out: list[str] = []
    ports: set[int] = set()
    img = dockerfile(d)
    spec = compose(d)
    for name, svc in spec.get("services", {}).items():
        if "build" not in svc and svc.get("image") != "muldvarp":
            continue  # Redis
        env = svc.get("environment") or {}
        s = effective({**img["env"], **example(d), **{k: str(v) for k, v in env.items()}})
        if s.host not in WILDCARD:
            out.append(f"compose {name}: serve listens on {s.host}, its published port is dead")
        targets = [str(v).split(":", 1)[1].split(":")[0] for v in svc.get("volumes", [])]
        if str(s.data_dir) not in targets:
            out.append(f"compose {name}: DATA_DIR {s.data_dir} is not a volume ({targets})")
        if not s.redis_url:
            out.append(f"compose {name}: no REDIS_URL, so the workers would not share games")
        for entry in svc.get("ports", []):
            ip, host, inner = published(str(entry))
            if ip not in LOOPBACK:
                out.append(f"compose {name}: {entry} is published beyond the loopback")
            if not host.isdigit():
                out.append(f"compose {name}: {entry}: a port range lets Docker pick the port")
                continue
            if int(inner) != s.port:
                out.append(f"compose {name}: {entry} goes to {inner}, serve listens on {s.port}")
            if int(host) in ports:
                out.append(f"compose {name}: host port {host} published twice")
            ports.add(int(host))
        for f in svc.get("env_file", []):
            path = f["path"] if isinstance(f, dict) else f
            if (d / path).resolve() != (d.parent / ".env").resolve():
                out.append(f"compose {name}: env_file {path} is not the .env the docs copy to")
        build = svc.get("build")
        if isinstance(build, dict) and not (d / build["context"] / build["dockerfile"]).is_file():
            out.append(f"compose {name}: no Dockerfile at {build}")
    return ports, out


def systemd_ports(d: Path) -> tuple[int, set[int], list[str]]:
    """The port of muldvarp.service and of each documented template instance
    (%i substituted), with the units' problems."""
    out: list[str] = []
    ex = example(d)
    found: dict[str, Any] = {}
    for name in ("muldvarp.service", "muldvarp@.service"):
        u = unit(d / name)
        inst = sorted(instances(d)) if "@" in name else [None]
        files = values(u, "EnvironmentFile")
        if files != ["/etc/muldvarp/env"]:
            out.append(f"{name}: EnvironmentFile {files}, the docs install /etc/muldvarp/env")
        text = (d / name).read_text()
        for line in re.findall(r"^#.*\binstall\b.*$", text, re.M):
            if files and files[0] in line and " -D" not in line:
                parent = str(Path(files[0]).parent)
                if f"mkdir -p {parent}" not in text:
                    out.append(f"{name}: `{line.strip('# ')}` fails: {parent} does not exist")
        state = values(u, "StateDirectory")
        ports = set()
        for i in inst:
            tag = "" if i is None else str(i)  # systemd's %i: the instance name
            env = dict(
                tok.split("=", 1)
                for v in values(u, "Environment")
                for tok in shlex.split(v.replace("%i", tag))
            )
            argv = shlex.split(values(u, "ExecStart")[0].replace("%i", tag))[1:]
            s = effective({**env, **ex}, argv)  # EnvironmentFile= wins over Environment=
            label = f"muldvarp@{i}" if i is not None else name
            if i is not None and s.port != i:
                out.append(f"{label}: listens on {s.port}, not {i}")
            if s.host not in LOOPBACK:
                out.append(f"{label}: listens on {s.host}, not the loopback the proxies dial")
            want = Path("/var/lib") / (state[0] if state else "?")
            if s.data_dir != want or str(want) not in values(u, "ReadWritePaths"):
                out.append(f"{label}: DATA_DIR {s.data_dir}, but the unit's state folder is {want}")
            ports.add(s.port)
        found[name] = ports
    (single,) = found["muldvarp.service"] or {0}
    return single, found["muldvarp@.service"], out


def check_ports(d: Path) -> list[str]:
    """The proxies send to exactly the ports the workers listen on."""
    compose_set, out = compose_ports(d)
    single, template, sd = systemd_ports(d)
    out += sd
    caddy, nginx = caddy_ports(d), nginx_ports(d)
    if caddy != nginx:
        out.append(f"Caddyfile upstreams {sorted(caddy)} != nginx.conf's {sorted(nginx)}")
    if compose_set != caddy:
        out.append(f"compose publishes {sorted(compose_set)}, the Caddyfile dials {sorted(caddy)}")
    if template != caddy:
        out.append(f"systemd instances {sorted(template)}, the Caddyfile dials {sorted(caddy)}")
    if single not in caddy:
        out.append(f"muldvarp.service listens on {single}, which no proxy dials")
    return out


def check_units_agree(d: Path) -> list[str]:
    """The template is the single unit with a port: the same hardening, user,
    folders and settings file, so a fix to one can't miss the other."""
    vary = {"Description", "ExecStart"}
    a = [x for x in unit(d / "muldvarp.service") if x[1] not in vary]
    b = [x for x in unit(d / "muldvarp@.service") if x[1] not in vary]
    return [f"muldvarp@.service differs from muldvarp.service: {x}" for x in a if x not in b] + [
        f"muldvarp.service differs from muldvarp@.service: {x}" for x in b if x not in a
    ]


CHECKS: list[Callable[[Path], list[str]]] = [
    check_names,
    check_example_format,
    check_no_override,
    check_docker,
    check_ports,
    check_units_agree,
]


def problems(d: Path) -> list[str]:
    out = []
    for check in CHECKS:
        try:
            out += check(d)
        except ValidationError as exc:  # a set-up serve would refuse to start with
            out.append(f"{check.__name__}: serve refuses the settings: {exc}")
    return out


# -- the files as they are ----------------------------------------------------------------


def test_the_deploy_files_agree() -> None:
    assert problems(DEPLOY) == []


def test_the_files_say_what_the_checks_read() -> None:
    """Guards against a check that passes because it read nothing."""
    assert caddy_ports(DEPLOY) == {8000, 8001} == instances(DEPLOY)
    assert compose_ports(DEPLOY)[0] == {8000, 8001}
    assert dockerfile(DEPLOY)["env"]["DATA_DIR"] == "/data"
    assert {"PUBLIC_BASE_URL", "TWILIO_FROM", "REDIS_URL"} <= set(example(DEPLOY))
    assert systemd_ports(DEPLOY)[0] == 8000


# -- each check catches what it is for ----------------------------------------------------

MUTATIONS = [
    # the findings, as they were
    (".env.example", "# MULDVARP_HOST=127.0.0.1", "MULDVARP_HOST=127.0.0.1", "docker run: serve listens on 127.0.0.1"),
    (".env.example", "# MULDVARP_HOST=127.0.0.1", "MULDVARP_HOST=127.0.0.1", "overriding the Dockerfile ENV"),
    (".env.example", "# DATA_DIR=data", "DATA_DIR=data", "DATA_DIR is data"),
    (".env.example", "# DATA_DIR=data", "DATA_DIR=data", "muldvarp.service: DATA_DIR data"),
    (".env.example", "# MULDVARP_PORT=8000", "MULDVARP_PORT=8000", "overriding the Dockerfile ENV's"),
    ("muldvarp@.service", "serve --port %i", "serve", "muldvarp@8001: listens on 8000, not 8001"),
    ("muldvarp.service", "install -D -m 600", "install -m 600", "/etc/muldvarp does not exist"),
    ("docker-compose.yml", '"127.0.0.1:8001:8000"', '"127.0.0.1:8000-8009:8000"', "a port range"),
    # ports
    ("Caddyfile", "127.0.0.1:8001", "127.0.0.1:8002", "the Caddyfile dials [8000, 8002]"),
    ("nginx.conf", "server 127.0.0.1:8001", "server 127.0.0.1:8005", "nginx.conf's [8000, 8005]"),
    ("docker-compose.yml", '"127.0.0.1:8001:8000"', '"8001:8000"', "beyond the loopback"),
    ("docker-compose.yml", '"127.0.0.1:8001:8000"', '"127.0.0.1:8001:8080"', "goes to 8080"),
    ("docker-compose.yml", "MULDVARP_HOST: 0.0.0.0", "MULDVARP_HOST: 127.0.0.1", "its published port is dead"),
    ("README.md", "muldvarp@8001`", "muldvarp@8002`", "systemd instances [8000, 8001, 8002]"),
    ("Dockerfile", "EXPOSE 8000", "EXPOSE 8080", "EXPOSE [8080]"),
    ("Dockerfile", "-p 127.0.0.1:8000:8000", "-p 8000:8000", "docker run -p 8000:8000"),
    ("Dockerfile", "(socket.gethostbyname(socket.gethostname()), os.environ['MULDVARP_PORT'])", "('127.0.0.1', 8000)", "calls the loopback"),
    ("muldvarp.service", "ExecStart=/opt/muldvarp/bin/muldvarp serve", "ExecStart=/opt/muldvarp/bin/muldvarp serve --port 9000", "muldvarp.service listens on 9000"),
    ("muldvarp.service", "ExecStart=/opt/muldvarp/bin/muldvarp serve", "ExecStart=/opt/muldvarp/bin/muldvarp serve --host 0.0.0.0", "not the loopback"),
    # paths
    ("docker-compose.yml", "app-data:/data", "app-data:/srv", "DATA_DIR /data is not a volume"),
    ("Dockerfile", "DATA_DIR=/data", "DATA_DIR=data", "DATA_DIR is data"),
    ("muldvarp@.service", "Environment=DATA_DIR=/var/lib/muldvarp", "Environment=DATA_DIR=/srv/muldvarp", "state folder is /var/lib/muldvarp"),
    ("muldvarp.service", "EnvironmentFile=/etc/muldvarp/env", "EnvironmentFile=/etc/muldvarp.env", "the docs install"),
    ("docker-compose.yml", "path: ../.env", "path: .env", "not the .env the docs copy to"),
    ("docker-compose.yml", "REDIS_URL: redis://redis:6379/0", "REDIS_URL: ''", "would not share games"),
    # names and format
    (".env.example", "TWILIO_FROM=", "TWILIO_SENDER=", "sets TWILIO_SENDER, which serve does not read"),
    (".env.example", "TWILIO_FROM=", "TWILIO_SENDER=", "does not name TWILIO_FROM"),
    ("docker-compose.yml", "DATA_DIR: /data", "DATADIR: /data", "compose app: sets DATADIR"),
    ("muldvarp.service", "Environment=PYTHONUNBUFFERED=1", "Environment=MULDVARP_DATA=x", "sets MULDVARP_DATA"),
    (".env.example", "LOG_LEVEL=INFO", "LOG_LEVEL=INFO # or DEBUG", "not a plain KEY=value line"),
    (".env.example", "LOG_LEVEL=INFO", 'LOG_LEVEL="INFO"', "not a plain KEY=value line"),
    (".env.example", "LOG_LEVEL=INFO", "LOG_LEVEL=LOUD", "serve refuses it"),
    # the two units drift apart
    ("muldvarp@.service", "ProtectSystem=strict\n", "", "muldvarp@.service differs"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "old", "new", "expect"), MUTATIONS)
def test_each_check_catches_its_mistake(
    tmp_path: Path, name: str, old: str, new: str, expect: str
) -> None:
    d = tmp_path / "deploy"
    shutil.copytree(DEPLOY, d)
    text = (d / name).read_text()
    assert old in text, f"{name} no longer has {old!r}: update the mutation"
    (d / name).write_text(text.replace(old, new))
    found = problems(d)
    assert any(expect in p for p in found), found


# -- the tools ----------------------------------------------------------------------------


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI"):  # .ci/run installs it: missing means CI is broken
            pytest.fail(f"{name} is missing (.ci/run's `need` list installs it)")
        pytest.skip(f"{name} is not installed")
    return path


def systemd_root(tmp: Path, units: dict[str, str]) -> Path:
    """A root for `systemd-analyze verify --root`: the units in /etc, a stub
    where ExecStart points (verify checks it is executable), and the machine's
    own unit folder for the targets they name."""
    root = tmp / "root"
    (root / "etc/systemd/system").mkdir(parents=True)
    for name, text in units.items():
        (root / "etc/systemd/system" / name).write_text(text)
        start = values(unit(root / "etc/systemd/system" / name), "ExecStart")[0]
        exe = root / shlex.split(start)[0].lstrip("/")
        exe.parent.mkdir(parents=True, exist_ok=True)
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    system = next(
        p for p in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system")) if p.is_dir()
    )
    (root / "usr/lib/systemd").mkdir(parents=True)
    (root / "usr/lib/systemd/system").symlink_to(system)
    return root


def verify(tmp: Path, units: dict[str, str], *names: str) -> list[str]:
    exe = tool("systemd-analyze")
    root = systemd_root(tmp, units)
    out = []
    for name in names:
        r = subprocess.run(
            [exe, "verify", "--man=no", f"--root={root}", f"/etc/systemd/system/{name}"],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        said = [ln for ln in (r.stdout + r.stderr).splitlines() if "muldvarp" in ln]
        if r.returncode != 0 or said:
            out.append(f"{name}: rc {r.returncode}: {said}")
    return out


def test_systemd_analyze_verifies_both_units(tmp_path: Path) -> None:
    units = {n: (DEPLOY / n).read_text() for n in ("muldvarp.service", "muldvarp@.service")}
    assert verify(tmp_path, units, "muldvarp.service", "muldvarp@8001.service") == []
    broken = {n: t.replace("ProtectHome=yes", "ProtectHome=very") for n, t in units.items()}
    found = verify(tmp_path / "broken", broken, "muldvarp.service", "muldvarp@8001.service")
    assert len(found) == 2 and all("protect home value" in f for f in found), found


def nginx_check(tmp: Path, conf: str) -> subprocess.CompletedProcess[str]:
    """`nginx -t` on deploy/nginx.conf inside a wrapper http {} block, with a
    throw-away certificate in place of the Let's Encrypt paths (the only edit)."""
    exe, openssl = tool("nginx"), tool("openssl")
    tmp.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=muldvarp.example.org", "-keyout", tmp / "key.pem", "-out", tmp / "cert.pem"],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    live = "/etc/letsencrypt/live/muldvarp.example.org/"
    assert f"{live}fullchain.pem" in conf and f"{live}privkey.pem" in conf
    conf = conf.replace(f"{live}fullchain.pem", str(tmp / "cert.pem"))
    (tmp / "muldvarp.conf").write_text(conf.replace(f"{live}privkey.pem", str(tmp / "key.pem")))
    temp = "".join(
        f"    {k}_temp_path {tmp};\n" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (tmp / "nginx.conf").write_text(
        f"pid {tmp}/nginx.pid;\nerror_log stderr;\nevents {{}}\n"
        f"http {{\n{temp}    access_log off;\n    include {tmp}/muldvarp.conf;\n}}\n"
    )
    return subprocess.run(
        [exe, "-t", "-p", str(tmp), "-e", "stderr", "-c", str(tmp / "nginx.conf")],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip


def test_nginx_accepts_the_config(tmp_path: Path) -> None:
    conf = (DEPLOY / "nginx.conf").read_text()
    ok = nginx_check(tmp_path / "ok", conf)
    assert ok.returncode == 0, ok.stderr
    bad = nginx_check(tmp_path / "bad", conf.replace("proxy_buffering off;", "proxy_buffering of;"))
    assert bad.returncode != 0 and "proxy_buffering" in bad.stderr, bad.stderr


def caddy(tmp: Path, text: str, command: str) -> subprocess.CompletedProcess[str]:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "Caddyfile").write_text(text)
    env = {**os.environ, "HOME": str(tmp), "XDG_DATA_HOME": str(tmp), "XDG_CONFIG_HOME": str(tmp)}
    return subprocess.run(
        [tool("caddy"), command, "--config", str(tmp / "Caddyfile"), "--adapter", "caddyfile"],
        capture_output=True, text=True, timeout=30, env=env,
    )  # fmt: skip


def test_caddy_validates_the_caddyfile_and_dials_what_the_checks_read(tmp_path: Path) -> None:
    text = (DEPLOY / "Caddyfile").read_text()
    r = caddy(tmp_path, text, "validate")
    assert r.returncode == 0, r.stderr
    adapted = caddy(tmp_path, text, "adapt")
    dials = re.findall(r'"dial":\s*"[^"]*:(\d+)"', adapted.stdout)
    # both routes (TV pages and webhooks) dial every worker: what caddy_ports() read
    assert len(dials) == 2 * len(caddy_ports(DEPLOY))
    assert {int(p) for p in dials} == caddy_ports(DEPLOY)
    bad = caddy(
        tmp_path / "bad", text.replace("lb_policy least_conn", "lb_policy most_fun"), "validate"
    )
    assert bad.returncode != 0 and "most_fun" in bad.stderr, bad.stderr


def test_settings_errors_reach_the_checks() -> None:
    """`effective` raises on what serve would refuse (`problems` reports it),
    rather than filling in defaults."""
    with pytest.raises(ValidationError, match="MULDVARP_PORT"):
        effective({"MULDVARP_PORT": "99999"})
