"""The tests' own Redis Cluster: six `redis-server` processes, three masters
each with a replica, started by the tests (as tests/redis_server.py starts one
Redis), never a cluster of the machine's.

Each node runs on a free loopback port in a temporary folder, with
`--cluster-enabled yes`, the AOF on with `appendfsync everysec` (the settings
docs/operators.md describes for production) and a short `cluster-node-timeout`
(1000 ms: a replica is promoted about a second after its master stops
answering, so the failover test is quick). `redis-cli --cluster create ...
--cluster-replicas 1 --cluster-yes` assigns the slots; the cluster is ready
when every node reports `cluster_state:ok` and every master has a replica whose
replication link is up.

The URL handed to the product is `redis+cluster://127.0.0.1:PORT/0` (any one
node: the client discovers the rest). `test_cluster_url()` starts one cluster
per test process, shared by the tests that only need it to work, and sets
`MULDVARP_TEST_REDIS_CLUSTER_URL` for child processes; the failover test starts
a cluster of its own (`start_cluster()`), since it kills a node.

Without `redis-server` or `redis-cli` the cluster tests skip locally and FAIL
when `CI` is set (`.ci/run` installs Debian's redis-server and redis-tools).
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from tests.redis_server import _free_port, _missing

ENV = "MULDVARP_TEST_REDIS_CLUSTER_URL"
NODE_TIMEOUT_MS = 1000

_shared: dict[str, Cluster] = {}


@dataclass
class Cluster:
    """Six nodes on loopback. `procs[port]` is each node's process."""

    folder: str
    ports: list[int]
    procs: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.ports[0]}/0"

    def cli(self, port: int, *args: str, timeout: float = 10) -> str:
        try:
            out = subprocess.run(
                ["redis-cli", "-h", "127.0.0.1", "-p", str(port), *args],
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return ""
        return out.stdout

    def alive(self) -> list[int]:
        return [p for p in self.ports if self.procs[p].poll() is None]

    def nodes(self) -> list[dict[str, str]]:
        """`CLUSTER NODES` as seen by a live node: id, port, role, master id, slots."""
        text = ""
        for port in self.alive():
            text = self.cli(port, "cluster", "nodes")
            if text.strip() and not text.startswith(("ERR", "LOADING")):
                break
        rows = []
        for line in text.splitlines():
            parts = line.split()
            if len(parts) < 8:
                continue
            flags = parts[2].split(",")
            if not parts[1].split("@")[0].rsplit(":", 1)[-1].isdigit():
                continue  # a node still starting: no address yet
            rows.append(
                {
                    "id": parts[0],
                    "port": parts[1].split("@")[0].rsplit(":", 1)[1],
                    "role": "master" if "master" in flags else "replica",
                    "failed": "1" if ("fail" in flags or "fail?" in flags) else "",
                    "master": parts[3],
                    "slots": " ".join(parts[8:]),
                }
            )
        return rows

    def master_for_slot(self, slot: int) -> int:
        for row in self.nodes():
            if row["role"] != "master" or row["failed"]:
                continue
            for span in row["slots"].split():
                if span.startswith("["):
                    continue
                lo, _, hi = span.partition("-")
                if int(lo) <= slot <= int(hi or lo):
                    return int(row["port"])
        raise LookupError(f"no live master serves slot {slot}")

    def replica_of(self, port: int) -> int:
        rows = self.nodes()
        master = next(r for r in rows if int(r["port"]) == port)
        return next(int(r["port"]) for r in rows if r["master"] == master["id"])

    def ok(self) -> bool:
        """Every live node says cluster_state:ok and every slot has a live master."""
        return all("cluster_state:ok" in self.cli(port, "cluster", "info") for port in self.alive())

    def replicated(self) -> bool:
        """Three replicas, each with its link to its master up (synced)."""
        replicas = [int(r["port"]) for r in self.nodes() if r["role"] == "replica"]
        return len(replicas) == 3 and all(
            "master_link_status:up" in self.cli(p, "info", "replication") for p in replicas
        )

    def wait_ok(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ok():
                return
            time.sleep(0.1)
        raise AssertionError("the test cluster never reached cluster_state:ok")

    def kill(self, port: int) -> None:
        """SIGKILL one node: no shutdown, no last AOF write (a crash)."""
        self.procs[port].send_signal(signal.SIGKILL)
        self.procs[port].wait()

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def _node(binary: str, folder: str, port: int) -> subprocess.Popen[bytes]:
    here = os.path.join(folder, str(port))
    os.makedirs(here, exist_ok=True)
    return subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", here,
         "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
         "--cluster-node-timeout", str(NODE_TIMEOUT_MS),
         "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
         "--protected-mode", "yes"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip


def start_cluster() -> Cluster:
    """Six fresh nodes, three masters with a replica each, cluster_state:ok.
    The caller stops it (`Cluster.stop`)."""
    binary = shutil.which("redis-server")
    if binary is None or shutil.which("redis-cli") is None:
        _missing("redis-server and redis-cli (Debian's redis-server, redis-tools) are needed")
        raise AssertionError("unreachable")
    folder = tempfile.mkdtemp(prefix="muldvarp-test-cluster-")
    ports: list[int] = []
    while len(ports) < 6:
        port = _free_port()
        # the cluster bus listens on port + 10000: it must be free too
        if port not in ports and port + 10000 < 65536 and port + 10000 not in ports:
            ports.append(port)
    cluster = Cluster(folder, ports)
    try:
        for port in ports:
            cluster.procs[port] = _node(binary, folder, port)
        deadline = time.monotonic() + 10
        for port in ports:
            while cluster.cli(port, "ping").strip() != "PONG":
                if time.monotonic() > deadline or cluster.procs[port].poll() is not None:
                    raise AssertionError(f"cluster node {port} did not start")
                time.sleep(0.05)
        created = subprocess.run(
            ["redis-cli", "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports),
             "--cluster-replicas", "1", "--cluster-yes"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        if created.returncode != 0:
            raise AssertionError(f"redis-cli --cluster create failed:\n{created.stdout}")
        cluster.wait_ok()
        deadline = time.monotonic() + 30
        while not cluster.replicated():
            if time.monotonic() > deadline:
                raise AssertionError("the replicas never attached")
            time.sleep(0.1)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def test_cluster_url() -> str:
    """The URL of the tests' shared cluster (given, or started once for this
    process; child processes get it through MULDVARP_TEST_REDIS_CLUSTER_URL)."""
    given = os.environ.get(ENV)
    if given:
        return given
    if "c" not in _shared:
        _shared["c"] = start_cluster()
        atexit.register(_shared["c"].stop)
        os.environ[ENV] = _shared["c"].url
    return _shared["c"].url


test_cluster_url.__test__ = False  # type: ignore[attr-defined]  # a helper, not a test
