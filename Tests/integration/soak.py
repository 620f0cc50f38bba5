"""Soak: the real bridge and the real codex under a steady mixed load for MINUTES, from several paired clients.

    python soak.py --minutes 3 [--clients 4] [--markdown FILE] [--seed N]      (Scripts/soak runs it)

Each client is a paired device subscribed to every thread ("*") that, until the deadline, runs turns one after the
other on threads of its own: short answers, streamed answers (40 deltas), commands that need an approval (answered
by their owner while other clients race to answer the same approval), and photos uploaded then attached. Every
client also drops its connection every 2-6 s (half of the time abruptly, half with a close handshake) and
reconnects with `resume`; requests in flight are sent again with the same id (exactly-once). The scripted model
(127.0.0.1) answers by what each prompt asks for, so concurrent turns never take each other's answers.

Each minute the bridge process is sampled: RSS, open file descriptors, OS threads, the journal (the frames' bytes,
what --journal-max-bytes bounds) and the database files (bridge.sqlite + WAL). At the end, with the load stopped,
every client reconnects once more and then:

- nothing lost: every client saw every seq from 1 to the bridge's last, each exactly once, in order on each
  connection; every streamed message's deltas add up to its final text in every client; every prompt became one
  user message (a retried request ran once); every approval was resolved once;
- nothing left: no upload file remains, every turn ended, no socket is left once every client went, and
  `serve` exits 0 on SIGTERM;
- no growth beyond the bounds below: BOUNDS from the first sample after the warm-up minute to the last; the
  journal within its cap plus the frames of the last pruning interval; the database files under DB_BOUND_MIB.

A leak of a descriptor per reconnect, a task or thread per connection, or a lost or duplicated frame fails even
the 3-minute run; a slow memory leak fails once it exceeds BOUNDS["rss_mib"] (BENCHMARKS.md has a 30-minute run).
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import pathlib
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

import websockets

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from conftest import BIN, ROOT, Bridge, run_cli  # noqa: E402
from mock_model import MockModel, _input_images, codex_args, codex_env  # noqa: E402

STREAM_DELTAS = 40
TURNS_PER_THREAD = 25
TURN_TIMEOUT = 180.0
REQUEST_TIMEOUT = 120.0
# Growth allowed from the first sample after warm-up (minute 1) to the last one.
# (A 30-minute run on 2 shared cores: RSS +7.0 MiB, fds +0, threads +4; BENCHMARKS.md, "Soak".)
BOUNDS = {
    "rss_mib": 24.0,       # resident memory
    "fds": 8,              # open descriptors (the clients' sockets come and go; codex's pipes and SQLite's stay)
    "threads": 8,          # OS threads of the bridge process
}
JOURNAL_MAX_BYTES = 4 * 1024 * 1024  # serve --journal-max-bytes: the journal stays within it plus a minute's traffic
PRUNE_WINDOW = 75                    # s: the pruner's interval (60 s) and some slack
DB_BOUND_MIB = 32.0                  # bridge.sqlite + its WAL, at any sample (SQLite reuses the pages pruning frees)


def tiny_png(seed: int) -> bytes:
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes([(seed + x + y) % 256 for x in range(24)]) for y in range(8))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


# -- the model: answers by what the prompt asks for ----------------------------------------------------------
class SoakModel(MockModel):
    """A MockModel whose answer depends on the request, not on a queue: `soak:short`, `soak:stream`, `soak:exec`,
    `soak:upload` in the last user message; after a tool call, "done". Keeps no request bodies (a soak makes many)."""

    def _next(self, body):
        with self._lock:
            self._counter += 1
            n = self._counter
        items = (body or {}).get("input") or []
        last = items[-1] if items else {}
        if isinstance(last, dict) and last.get("type") == "function_call_output":
            return n, {"kind": "message", "text": "done"}
        text = ""
        for item in reversed(items):
            if isinstance(item, dict) and item.get("role") == "user":
                text = " ".join(p.get("text", "") for p in item.get("content") or [] if isinstance(p, dict))
                break
        match = re.search(r"soak:(\w+) (\S+)", text)
        if not match:
            return n, {"kind": "message", "text": "ok"}
        kind, tag = match.groups()
        if kind == "stream":
            deltas = [f"{tag}-{i} " for i in range(STREAM_DELTAS)]
            return n, {"kind": "message", "text": "".join(deltas), "deltas": deltas}
        if kind == "exec":
            return n, {"kind": "exec", "cmd": f"touch soak-{tag}.txt"}
        if kind == "upload":
            seen = _input_images(body)
            return n, {"kind": "message", "text": f"images {len(seen['images'])}"}
        return n, {"kind": "message", "text": f"short {tag}"}


# -- one client ----------------------------------------------------------------------------------------------
class Client:
    def __init__(self, soak: "Soak", n: int, code: str):
        self.soak, self.n, self.code = soak, n, code
        self.name = f"soak client {n}"
        self.rng = random.Random(soak.seed * 1000 + n)
        self.token = None
        self.device_id = None
        self.ws = None
        self.up = asyncio.Event()
        self.seen = collections.Counter()
        self.max_seq = 0
        self.out_of_order = 0
        self.pending = {}  # request id -> (frame, future)
        self.turns_done = set()
        self.turn_events = {}
        self.deltas = collections.defaultdict(list)
        self.finals = {}
        self.user_texts = collections.Counter()
        self.resolved = collections.Counter()
        self.reconnects = 0
        self.gaps = 0
        self.closing = False  # the run is over: no more reconnects
        self.threads = {}  # purpose -> [threadId, turns]
        self.stats = collections.Counter()
        self.tasks = []

    # connection ------------------------------------------------------------------------------------------
    async def _open(self, first: bool):
        ws = await websockets.connect(f"ws://127.0.0.1:{self.soak.bridge.port}/", max_size=None, open_timeout=15,
                                      ping_interval=None)
        frame = {"kind": "hello", "version": 1}
        if first:
            frame.update(token=self.code, device={"name": self.name, "platform": "soak"})
        else:
            frame.update(token=self.token, resume={"lastSeq": self.max_seq})
        await ws.send(json.dumps(frame))
        ack = json.loads(await asyncio.wait_for(ws.recv(), 15))
        if ack.get("kind") != "helloAck" or not ack.get("ok"):
            await ws.close()
            raise AssertionError(f"{self.name}: handshake refused: {ack}")
        if first:
            self.token, self.device_id = ack["deviceToken"], ack["deviceId"]
        else:
            if ack.get("resume") != "ok":
                self.gaps += 1
            if "*" not in (ack.get("restoredSubscriptions") or []):
                raise AssertionError(f"{self.name}: '*' not restored: {ack}")
        return ws

    async def run_connection(self):
        """Connects, reads until the socket goes, reconnects with resume; until `closing` and disconnected."""
        first = True
        backoff = 0.05
        while True:
            try:
                ws = await self._open(first)
            except (OSError, websockets.WebSocketException, asyncio.TimeoutError) as e:
                self.stats["connect_failures"] += 1
                if self.stats["connect_failures"] > 200:
                    raise AssertionError(f"{self.name}: cannot reconnect: {e!r}")
                await asyncio.sleep(backoff)
                backoff = min(2.0, backoff * 2)
                continue
            backoff = 0.05
            if not first:
                self.reconnects += 1
            self.ws = ws
            first = False
            for frame, _ in list(self.pending.values()):  # retried with the same id: exactly-once
                await self._send_quietly(frame)
            self.up.set()
            last_seq_here = 0
            try:
                async for raw in ws:
                    msg = json.loads(raw)
                    seq = msg.get("seq")
                    if isinstance(seq, int):
                        if seq <= last_seq_here:
                            self.out_of_order += 1
                        last_seq_here = seq
                        self.seen[seq] += 1
                        self.max_seq = max(self.max_seq, seq)
                    self._handle(msg)
            except websockets.ConnectionClosed:
                pass
            finally:
                self.up.clear()
                self.ws = None
            if self.closing:
                return

    async def drop(self):
        ws = self.ws
        if ws is None:
            return
        if self.rng.random() < 0.5:
            ws.transport.abort()  # the network went away
        else:
            await ws.close()

    async def churn(self, stop: asyncio.Event):
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), self.rng.uniform(2.0, 6.0))
            except asyncio.TimeoutError:
                await self.drop()

    async def _send_quietly(self, frame):
        ws = self.ws
        if ws is None:
            return
        try:
            await ws.send(json.dumps(frame))
        except websockets.ConnectionClosed:
            pass  # sent again after the reconnect

    async def request(self, kind, timeout=REQUEST_TIMEOUT, **params):
        rid = f"{self.n}-{uuid.uuid4().hex}"
        frame = {"kind": kind, "id": rid, **params}
        future = asyncio.get_running_loop().create_future()
        self.pending[rid] = (frame, future)
        try:
            await self._send_quietly(frame)
            return await asyncio.wait_for(future, timeout)
        finally:
            self.pending.pop(rid, None)

    def _handle(self, msg):
        kind = msg.get("kind")
        rid = msg.get("id")
        if rid in self.pending and kind not in ("event",):
            future = self.pending[rid][1]
            if not future.done():
                future.set_result(msg)
            return
        if kind == "event":
            data = msg.get("data") or {}
            etype = msg.get("type")
            if etype == "turn/completed":
                turn_id = (data.get("turn") or {}).get("id") or msg.get("turnId")
                self.turns_done.add(turn_id)
                event = self.turn_events.get(turn_id)
                if event:
                    event.set()
            elif etype == "item/agentMessage/delta":
                self.deltas[data.get("itemId")].append(data.get("delta", ""))
            elif etype == "item/completed":
                item = data.get("item") or {}
                if item.get("type") == "agentMessage":
                    self.finals[item.get("id")] = item.get("text", "")
                elif item.get("type") == "userMessage":
                    for part in item.get("content") or []:
                        text = part.get("text", "") if isinstance(part, dict) else ""
                        if "soak:" in text:
                            self.user_texts[text] += 1
        elif kind == "approvalRequest":
            owner = self.soak.thread_owner.get(msg.get("threadId"))
            if owner is self:
                self.tasks.append(asyncio.get_running_loop().create_task(self._approve(msg["approvalId"], 0.0)))
            elif self.rng.random() < 0.3:  # another phone races to answer the same approval
                self.tasks.append(asyncio.get_running_loop().create_task(self._approve(msg["approvalId"], self.rng.uniform(0, 0.2))))
        elif kind == "approvalResolved":
            self.resolved[msg.get("approvalId")] += 1

    async def _approve(self, approval_id, delay):
        await asyncio.sleep(delay)
        answer = await self.request("approve", approvalId=approval_id, decision="accept")
        if answer.get("kind") == "accepted":
            self.soak.approvals_won[approval_id] += 1
            self.stats["approvals_won"] += 1
        elif answer.get("code") == "approval_not_pending":
            self.stats["approvals_lost_race"] += 1
        else:
            raise AssertionError(f"{self.name}: approve answered {answer}")

    # the work ----------------------------------------------------------------------------------------------
    async def _wait_turn(self, turn_id):
        if turn_id in self.turns_done:
            return
        event = self.turn_events.setdefault(turn_id, asyncio.Event())
        if turn_id in self.turns_done:
            return
        try:
            await asyncio.wait_for(event.wait(), TURN_TIMEOUT)
        except asyncio.TimeoutError:
            raise AssertionError(f"{self.name}: turn {turn_id} did not complete within {TURN_TIMEOUT}s") from None

    async def turn(self, purpose, text, attachments=None):
        entry = self.threads.get(purpose)
        if entry is None or entry[1] >= TURNS_PER_THREAD:
            params = {"cwd": str(self.soak.workspace), "prompt": text,
                      "approvalPolicy": "untrusted" if purpose == "approvals" else "on-request"}
            if attachments:
                params["attachments"] = attachments
            answer = await self.request("startThread", **params)
            if answer.get("kind") != "threadStarted":
                raise AssertionError(f"{self.name}: startThread answered {answer}")
            self.soak.thread_owner[answer["threadId"]] = self
            self.threads[purpose] = entry = [answer["threadId"], 0]
            self.stats["threads"] += 1
        else:
            params = {"threadId": entry[0], "text": text}
            if attachments:
                params["attachments"] = attachments
            answer = await self.request("sendMessage", **params)
            if answer.get("kind") != "accepted" or not answer.get("turnId"):
                raise AssertionError(f"{self.name}: sendMessage answered {answer}")
        entry[1] += 1
        self.soak.prompts[text] += 1
        began = time.monotonic()
        await self._wait_turn(answer["turnId"])
        self.soak.turn_times.append((time.monotonic() - began, text, answer["turnId"], entry[0]))

    async def upload(self) -> str:
        body = tiny_png(self.rng.randrange(256))

        def post():
            req = urllib.request.Request(f"http://127.0.0.1:{self.soak.bridge.port}/uploads", data=body, method="POST",
                                         headers={"Authorization": f"Bearer {self.token}", "Content-Type": "image/png"})
            with urllib.request.urlopen(req, timeout=30) as res:
                return json.loads(res.read())["uploadId"]
        return await asyncio.to_thread(post)

    async def work(self, deadline):
        await self.up.wait()
        while time.monotonic() < deadline:
            action = self.rng.choices(["short", "stream", "exec", "upload"], weights=[4, 3, 2, 1])[0]
            tag = f"{self.n}.{uuid.uuid4().hex[:10]}"
            if action == "exec":
                await self.turn("approvals", f"soak:exec {tag}")
            elif action == "upload":
                upload_id = await self.upload()
                self.stats["uploads"] += 1
                await self.turn("chat", f"soak:upload {tag}", attachments=[upload_id])
            else:
                await self.turn("chat", f"soak:{action} {tag}")
            self.stats[action] += 1
            self.stats["turns"] += 1
            await asyncio.sleep(self.rng.uniform(0.2, 0.8))


# -- sampling --------------------------------------------------------------------------------------------------
def proc_sample(pid: int, state_dir: pathlib.Path) -> dict:
    """The bridge process (RSS, descriptors, OS threads) and its database: the files (bridge.sqlite + WAL) and the
    journal in them (the frames' bytes, what --journal-max-bytes bounds; and those of the last PRUNE_WINDOW s)."""
    status = pathlib.Path(f"/proc/{pid}/status").read_text()
    rss_kib = int(re.search(r"^VmRSS:\s+(\d+)", status, re.M).group(1))
    threads = int(re.search(r"^Threads:\s+(\d+)", status, re.M).group(1))
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    files = sum((state_dir / name).stat().st_size for name in ("bridge.sqlite", "bridge.sqlite-wal")
                if (state_dir / name).exists())
    journal = recent = 0
    if (state_dir / "bridge.sqlite").exists():
        with contextlib.closing(sqlite3.connect(f"file:{state_dir / 'bridge.sqlite'}?mode=ro", uri=True, timeout=10)) as db:
            journal, recent = db.execute(
                "SELECT COALESCE(SUM(bytes), 0), COALESCE(SUM(CASE WHEN createdAt > "
                "(SELECT MAX(createdAt) FROM journal) - ? THEN bytes END), 0) FROM journal", (PRUNE_WINDOW,)).fetchone()
    return {"rss_mib": rss_kib / 1024, "fds": fds, "threads": threads, "db_mib": files / 2**20,
            "journal_mib": journal / 2**20, "recent_mib": recent / 2**20}


def child_of(pid: int):
    """The pids whose parent is `pid`."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                yield int(entry)


def sockets(targets) -> int:
    return sum(1 for t in targets if t.startswith("socket:"))


def fd_targets(pid: int) -> list:
    """What each open descriptor of `pid` is (sockets and pipes by kind, files by path)."""
    out = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        out.append(re.sub(r"\[\d+\]$", "", target))
    return out


# -- the run ---------------------------------------------------------------------------------------------------
class Soak:
    def __init__(self, minutes: float, clients: int, seed: int, workdir: pathlib.Path):
        self.minutes, self.n_clients, self.seed, self.workdir = minutes, clients, seed, workdir
        self.thread_owner = {}
        self.prompts = collections.Counter()
        self.approvals_won = collections.Counter()
        self.samples = []
        self.clients = []
        self.turn_times = []

    def start(self):
        self.workspace = self.workdir / "workspace"
        self.workspace.mkdir(parents=True)
        env_git = dict(os.environ, GIT_AUTHOR_NAME="s", GIT_AUTHOR_EMAIL="s@s", GIT_COMMITTER_NAME="s",
                       GIT_COMMITTER_EMAIL="s@s")
        subprocess.run(["git", "init", "-q", str(self.workspace)], check=True)
        (self.workspace / "README").write_text("soak\n")
        subprocess.run(["git", "-C", str(self.workspace), "add", "."], check=True, env=env_git)
        subprocess.run(["git", "-C", str(self.workspace), "commit", "-qm", "init"], check=True, env=env_git)
        self.model = SoakModel(max_stall_seconds=5).start()
        codex = os.environ.get("CODEX_BIN") or shutil.which("codex")
        if not codex:
            import codex_cli_bin  # type: ignore
            codex = str(codex_cli_bin.bundled_codex_path())
        # CODEX_HOME outside /tmp: codex will not put its sandbox helper under /tmp.
        self.codex_home = pathlib.Path.home() / ".cache" / "codex-bridge-tests" / uuid.uuid4().hex
        env = codex_env(self.codex_home)
        args = ["--codex", codex, "--root", str(self.workspace),
                *[a for v in codex_args(self.model.port)[1::2] for a in ("--codex-config", v)],
                "--journal-max-bytes", str(JOURNAL_MAX_BYTES)]
        self.bridge = Bridge(self.workdir / "state", args=args, env=env).start(timeout=30)

    def stop(self):
        code = None
        try:
            code = self.bridge.stop(timeout=45)  # a turn still running may take --shutdown-grace (30 s) to end
        finally:
            self.model.stop()
            shutil.rmtree(self.codex_home, ignore_errors=True)
        return code

    def sample(self, minute, extra=None):
        row = {"minute": minute, **proc_sample(self.bridge.proc.pid, self.bridge.state_dir)}
        row["turns"] = sum(c.stats["turns"] for c in self.clients)
        row["approvals"] = len(self.approvals_won)
        row["uploads"] = sum(c.stats["uploads"] for c in self.clients)
        row["reconnects"] = sum(c.reconnects for c in self.clients)
        row["seq"] = max((c.max_seq for c in self.clients), default=0)
        row.update(extra or {})
        self.samples.append(row)
        print(format_row(row), flush=True)
        return row

    async def run(self):
        codes = [json.loads(run_cli("pair", "--json", state_dir=self.bridge.state_dir, check=True).stdout)["code"]
                 for _ in range(self.n_clients)]
        self.idle_fd_targets = await self._settled_fds()
        self.clients = [Client(self, n, code) for n, code in enumerate(codes)]
        connections = [asyncio.create_task(c.run_connection()) for c in self.clients]
        await asyncio.wait_for(asyncio.gather(*(c.up.wait() for c in self.clients)), 30)
        for c in self.clients:  # remembered for the device: restored on every reconnect from now on
            answer = await c.request("subscribe", threadId="*", afterSeq=0)
            assert answer.get("kind") == "subscribed", answer
        started = time.monotonic()
        deadline = started + self.minutes * 60
        stop_churn = asyncio.Event()
        print(header(), flush=True)
        self.sample(0)
        churn = [asyncio.create_task(c.churn(stop_churn)) for c in self.clients]
        work = [asyncio.create_task(c.work(deadline)) for c in self.clients]
        sampler = asyncio.create_task(self._sampler(started, deadline))
        try:
            # Until every client finished its last turn; a client's connection task only ends by failing.
            give_up = deadline + TURN_TIMEOUT + 60
            pending = set(work) | set(connections)
            while not all(t.done() for t in work):
                if time.monotonic() > give_up:
                    raise AssertionError("the clients did not finish their last turns")
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED,
                                                   timeout=give_up - time.monotonic())
                for task in done:
                    if task.exception():
                        raise task.exception()
        finally:
            stop_churn.set()
            await asyncio.gather(*churn, return_exceptions=True)
            sampler.cancel()
        elapsed = (time.monotonic() - started) / 60
        # Settle: every client connected once more (resume), the journal quiet, everyone at the same last seq.
        for c in self.clients:
            await c.drop()
        await asyncio.wait_for(asyncio.gather(*(c.up.wait() for c in self.clients)), 30)
        last = await self._quiesce()
        self.sample(round(elapsed, 1), {"note": "end"})
        for c in self.clients:
            errors = [t.exception() for t in c.tasks if t.done() and not t.cancelled() and t.exception()]
            if errors:
                raise errors[0]
        for c in self.clients:
            c.closing = True
            await c.ws.close()
        await asyncio.wait_for(asyncio.gather(*connections, return_exceptions=True), 30)
        # Every client gone: no socket left beyond those the bridge had before the first one came.
        end = time.monotonic() + 15
        while True:
            self.fd_targets_after = fd_targets(self.bridge.proc.pid)
            if sockets(self.fd_targets_after) <= sockets(self.idle_fd_targets) or time.monotonic() > end:
                break
            await asyncio.sleep(0.2)
        return last

    async def _settled_fds(self, quiet=2.0, timeout=30.0) -> list:
        """The bridge's descriptors once codex runs under it and nothing changed for `quiet` seconds."""
        pid = self.bridge.proc.pid
        end = time.monotonic() + timeout
        previous, since = None, time.monotonic()
        while time.monotonic() < end:
            targets = sorted(fd_targets(pid))
            codex_up = any(child_of(pid))
            if targets != previous or not codex_up:
                previous, since = targets, time.monotonic()
            elif time.monotonic() - since >= quiet:
                break
            await asyncio.sleep(0.2)
        return previous

    async def _sampler(self, started, deadline):
        minute = 1
        while True:
            wake = started + minute * 60
            if wake > deadline:
                return
            await asyncio.sleep(max(0.0, wake - time.monotonic()))
            self.sample(minute)
            minute += 1

    async def _quiesce(self, quiet=3.0, timeout=60.0):
        end = time.monotonic() + timeout
        previous, stable_since = None, time.monotonic()
        while time.monotonic() < end:
            now = tuple(c.max_seq for c in self.clients)
            if now != previous:
                previous, stable_since = now, time.monotonic()
            elif len(set(now)) == 1 and time.monotonic() - stable_since >= quiet:
                return now[0]
            await asyncio.sleep(0.2)
        raise AssertionError(f"the clients did not settle on one last seq: {[c.max_seq for c in self.clients]}")

    # verdict ---------------------------------------------------------------------------------------------
    def check(self, last_seq) -> list:
        problems = []
        expected = set(range(1, last_seq + 1))
        for c in self.clients:
            missing = sorted(expected - set(c.seen))
            dups = sorted(s for s, k in c.seen.items() if k > 1)
            if missing:
                problems.append(f"{c.name}: {len(missing)} seq never seen, e.g. {missing[:10]}")
            if dups:
                problems.append(f"{c.name}: {len(dups)} seq seen more than once, e.g. {dups[:10]}")
            if c.out_of_order:
                problems.append(f"{c.name}: {c.out_of_order} seq out of order on a connection")
            if c.gaps:
                problems.append(f"{c.name}: {c.gaps} resumes answered gap")
            bad = [i for i, d in c.deltas.items() if i in c.finals and "".join(d) != c.finals[i]]
            if bad:
                problems.append(f"{c.name}: {len(bad)} streamed messages whose deltas differ from the final text")
            twice = [t for t, k in c.user_texts.items() if k != 1]
            if twice:
                problems.append(f"{c.name}: {len(twice)} prompts seen as a user message other than once, e.g. {twice[:3]}")
            unseen = [p for p in self.prompts if p not in c.user_texts]
            if unseen:
                problems.append(f"{c.name}: {len(unseen)} prompts never became a user message, e.g. {unseen[:3]}")
            if any(k != 1 for k in c.resolved.values()):
                problems.append(f"{c.name}: an approval resolved other than once")
        won = [a for a, k in self.approvals_won.items() if k != 1]
        if won:
            problems.append(f"{len(won)} approvals accepted for more than one client: {won[:5]}")
        resolved = set(self.clients[0].resolved)
        if set(self.approvals_won) != resolved:
            problems.append(f"approvals answered {len(self.approvals_won)} but resolved {len(resolved)}")
        if any(k != 1 for k in self.prompts.values()):
            problems.append("a prompt was sent by more than one turn")
        leftovers = list((self.bridge.state_dir / "uploads").glob("*")) if (self.bridge.state_dir / "uploads").exists() else []
        if leftovers:
            problems.append(f"{len(leftovers)} upload files left after their turns ended")
        problems += self.check_growth()
        return problems

    def check_growth(self) -> list:
        problems = []
        during = [s for s in self.samples if s.get("note") != "end"]
        base = next((s for s in during if s["minute"] >= 1), during[0])
        last = self.samples[-1]
        for key, bound in BOUNDS.items():
            grown = last[key] - base[key]
            if grown > bound:
                problems.append(f"{key} grew by {grown:.1f} from minute {base['minute']} to the end (bound {bound})")
        if sockets(self.fd_targets_after) > sockets(self.idle_fd_targets):
            extra = collections.Counter(self.fd_targets_after) - collections.Counter(self.idle_fd_targets)
            problems.append(f"{sockets(self.fd_targets_after)} sockets open after every client left, "
                            f"{sockets(self.idle_fd_targets)} before the first came; more descriptors now: {dict(extra)}")
        cap = JOURNAL_MAX_BYTES / 2**20
        for s in self.samples:  # the pruner runs each minute: at most the cap plus what came since it last ran
            if s["journal_mib"] > cap + s["recent_mib"]:
                problems.append(f"minute {s['minute']}: the journal holds {s['journal_mib']:.2f} MiB, more than its cap "
                                f"{cap:.0f} MiB plus the {s['recent_mib']:.2f} MiB journaled in the last {PRUNE_WINDOW} s")
        worst = max(s["db_mib"] for s in self.samples)
        if worst > DB_BOUND_MIB:
            problems.append(f"the database files reached {worst:.1f} MiB (bound {DB_BOUND_MIB} MiB)")
        return problems


COLUMNS = [("minute", "min", "{}"), ("turns", "turns", "{}"), ("approvals", "approvals", "{}"), ("uploads", "uploads", "{}"),
           ("reconnects", "reconnects", "{}"), ("seq", "last seq", "{}"), ("rss_mib", "RSS MiB", "{:.1f}"),
           ("fds", "fds", "{}"), ("threads", "threads", "{}"), ("journal_mib", "journal MiB", "{:.2f}"), ("db_mib", "db MiB", "{:.1f}")]


def header() -> str:
    return " | ".join(f"{title:>10}" for _, title, _ in COLUMNS)


def format_row(row) -> str:
    return " | ".join(f"{fmt.format(row[key]):>10}" for key, _, fmt in COLUMNS) + (f"  ({row['note']})" if row.get("note") else "")


def markdown(samples) -> str:
    lines = ["| " + " | ".join(title for _, title, _ in COLUMNS) + " |", "|" + "---:|" * len(COLUMNS)]
    for row in samples:
        cells = [fmt.format(row[key]) for key, _, fmt in COLUMNS]
        if row.get("note"):
            cells[0] += f" ({row['note']})"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="soak the bridge (see the module's documentation)")
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--markdown", help="also write the table as Markdown to this file")
    parser.add_argument("--keep", action="store_true", help="keep the state directory and logs")
    args = parser.parse_args(argv)
    if not BIN.exists():
        print(f"error: no bridge binary at {BIN}; build it or set BRIDGE_BIN", file=sys.stderr)
        return 2
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="codex-bridge-soak-"))
    print(f"soak: {args.minutes:g} min, {args.clients} clients, seed {args.seed}, binary {BIN}, work in {workdir}", flush=True)
    soak = Soak(args.minutes, args.clients, args.seed, workdir)
    soak.start()
    problems, exit_code = [], None
    try:
        last = asyncio.run(soak.run())
        problems = soak.check(last)
    except BaseException as e:  # noqa: BLE001 (reported below with the log)
        problems = [f"the run failed: {e!r}"]
    finally:
        exit_code = soak.stop()
    if exit_code not in (0, None):
        problems.append(f"serve exited {exit_code} on SIGTERM")
    totals = collections.Counter()
    for c in soak.clients:
        totals.update(c.stats)
    print(f"\nturns {totals['turns']} (short {totals['short']}, streamed {totals['stream']}, approvals {totals['exec']}, "
          f"uploads {totals['upload']}), threads {totals['threads']}, approvals won {totals['approvals_won']} / "
          f"lost a race {totals['approvals_lost_race']}, reconnects {sum(c.reconnects for c in soak.clients)}, "
          f"last seq {max((c.max_seq for c in soak.clients), default=0)}")
    print("bounds: growth from minute 1 to the end: RSS ≤ {rss_mib} MiB, fds ≤ {fds}, threads ≤ {threads}; "
          "journal ≤ --journal-max-bytes ({jm} MiB) + the frames of the last {w} s; database files ≤ {db} MiB".format(
              **BOUNDS, jm=JOURNAL_MAX_BYTES // 2**20, w=PRUNE_WINDOW, db=DB_BOUND_MIB))
    if len(soak.samples) > 2:
        base = next(s for s in soak.samples if s["minute"] >= 1)
        last = soak.samples[-1]
        if last["turns"] > base["turns"]:
            print(f"after minute 1: RSS {last['rss_mib'] - base['rss_mib']:+.1f} MiB over {last['turns'] - base['turns']} turns "
                  f"({(last['rss_mib'] - base['rss_mib']) * 1024 / (last['turns'] - base['turns']):.2f} KiB per turn), "
                  f"fds {last['fds'] - base['fds']:+d}, threads {last['threads'] - base['threads']:+d}, "
                  f"database files {last['db_mib'] - base['db_mib']:+.1f} MiB")
    slowest = sorted(soak.turn_times, reverse=True)[:5]
    if slowest:
        print("slowest turns: " + "; ".join(f"{t:.1f} s {text.split()[0]} (thread {thread}, turn {turn})"
                                             for t, text, turn, thread in slowest))
    if args.markdown:
        pathlib.Path(args.markdown).write_text(markdown(soak.samples) + "\n")
    if problems:
        print("\nSOAK FAILED:\n  " + "\n  ".join(problems), file=sys.stderr)
        print(f"bridge log: {soak.bridge.log_path}", file=sys.stderr)
        return 1
    print("soak passed: nothing lost, nothing left, no growth beyond the bounds")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    sys.exit(main())
