"""Issue 22 finding 1: a file is opened once. The agent can swap a name between a regular file, a symbolic link
out of the workspace and a FIFO while a phone reads it; readFile and GET /files never return the file outside,
never block the bridge, and /healthz keeps telling the truth. The real bridge with the real codex."""
import asyncio
import os
import threading
import time
import urllib.request

from codex_fixture import codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from test_codex import request, until_turn_completed
from test_downloads_forks import get_file
from wsutil import hello

SECRET = "TOP-SECRET-OUTSIDE-THE-ROOTS"


class Swapper:
    """Replaces `name` in `directory` as fast as it can with, in turn, a regular file, a link to `target` and a
    FIFO (each made under a temporary name and renamed over it, so the name always exists)."""

    def __init__(self, directory, name, target):
        self.directory, self.name, self.target = directory, name, target
        self.stop = threading.Event()
        self.swaps = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop.is_set():
            kind = self.swaps % 3
            temporary = self.directory / f".swap-{kind}"
            try:
                if kind == 0:
                    temporary.write_text("inside\n")
                elif kind == 1:
                    os.symlink(self.target, temporary)
                else:
                    os.mkfifo(temporary)
                os.replace(temporary, self.directory / self.name)
            except FileExistsError:
                os.unlink(temporary)
            self.swaps += 1

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(5)


def healthz(bridge):
    with urllib.request.urlopen(f"http://127.0.0.1:{bridge.port}/healthz", timeout=5) as res:
        return res.status


async def test_a_name_swapped_to_a_link_out_or_a_fifo_never_leaks_and_never_blocks(codex_bridge, model, workspace, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    model.queue({"kind": "message", "text": "ok"})
    ws, _ = await hello(codex_bridge)
    started = await request(ws, "startThread", cwd=str(workspace), prompt="hi")
    thread = started["threadId"]
    await until_turn_completed(ws, thread)

    answers = {"file": 0, "error": 0}
    with Swapper(workspace, "swapped.txt", outside / "secret.txt") as swapper:
        # Before the fix, within a few hundred reads the check saw the file and the open then read the link's
        # target (the secret) or blocked for ever on the FIFO (every later request went unanswered). Reads go on
        # until both sides did their share: at least 300 reads and 300 swaps (a loaded machine slows the swapper).
        deadline = time.monotonic() + 90
        reads = 0
        while reads < 300 or swapper.swaps < 300:
            assert time.monotonic() < deadline, (reads, swapper.swaps)
            answer = await asyncio.wait_for(request(ws, "readFile", threadId=thread, path="swapped.txt"), 10)
            assert SECRET not in str(answer), answer
            answers[answer["kind"]] = answers.get(answer["kind"], 0) + 1
            if answer["kind"] == "error":
                assert answer["code"] == "forbidden_path", answer
            reads += 1
        token = codex_bridge.token
        for _ in range(150):
            status, _, body = await asyncio.to_thread(get_file, codex_bridge, thread, "swapped.txt", token)
            assert SECRET.encode() not in (body if isinstance(body, bytes) else str(body).encode()), body
            assert status in (200, 403), (status, body)
    assert answers["file"] > 0 and answers["error"] > 0, answers
    # The bridge still answers everything, and says so.
    assert healthz(codex_bridge) == 200
    assert (await request(ws, "listThreads"))["kind"] == "threads"
    (workspace / "swapped.txt").unlink()
    os.mkfifo(workspace / "swapped.txt")
    started_at = time.monotonic()
    refused = await request(ws, "readFile", threadId=thread, path="swapped.txt")
    assert refused["kind"] == "error" and refused["code"] == "forbidden_path" and time.monotonic() - started_at < 5, refused
