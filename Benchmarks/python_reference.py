#!/usr/bin/env python3
"""The Python reference for P2 (issue 45 item 5): the relay path of a bridge written the plain Python way.

Issue 45 asks P2 to be at least 6x "the Python reference"; no reference was ever committed, so this is one, doing the
same work per event as codex-bridge does on P2's path and nothing else: read Codex's JSON-RPC lines from the pipe,
parse each one, give it a seq, journal it in a SQLite file (WAL, one transaction per chunk read from the pipe), and
send it to the subscribed WebSocket client as an `event` frame. asyncio and the `websockets` library (the
well-kept choice a Python bridge would make); no hub, scopes, audit or replay, which only flatters it.

It speaks the small part of BRIDGE.md that P2 uses: `hello {token}` -> `helloAck`, `startThread {id, cwd, prompt}`
-> `threadStarted`, then the turn's events. Started by codex-bridge-bench as the bridge is:
`python_reference.py serve --listen 127.0.0.1:0 --state-dir DIR --codex PATH [ignored options]`; it writes
`DIR/token` and `DIR/server.json {pid, port}`.
"""
import argparse
import asyncio
import json
import os
import secrets
import sqlite3
import time

import websockets


def compact(value):
    return json.dumps(value, separators=(",", ":"))


class Relay:
    def __init__(self, state_dir, codex):
        self.codex = codex
        self.token = secrets.token_hex(16)
        self.seq = 0
        self.db = sqlite3.connect(os.path.join(state_dir, "reference.sqlite"), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY, threadId TEXT NOT NULL, kind TEXT NOT NULL,"
            " type TEXT, turnId TEXT, text TEXT NOT NULL, bytes INTEGER NOT NULL, createdAt REAL NOT NULL)")

    async def client(self, ws):
        hello = json.loads(await ws.recv())
        if hello.get("kind") != "hello" or not secrets.compare_digest(str(hello.get("token", "")), self.token):
            await ws.send(compact({"kind": "helloAck", "version": 1, "ok": False, "error": "bad token"}))
            return
        await ws.send(compact({"kind": "helloAck", "version": 1, "ok": True}))
        try:
            async for text in ws:
                request = json.loads(text)
                if request.get("kind") == "startThread":
                    await self.start_thread(ws, request)
        except websockets.ConnectionClosed:
            pass

    async def start_thread(self, ws, request):
        codex = await asyncio.create_subprocess_exec(
            self.codex, "app-server", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 20)
        replies = {}

        async def call(rpc_id, method, params):
            codex.stdin.write((compact({"id": rpc_id, "method": method, "params": params}) + "\n").encode())
            await codex.stdin.drain()
            while rpc_id not in replies:
                message = json.loads(await codex.stdout.readline())
                replies[message.get("id")] = message
            return replies.pop(rpc_id)["result"]

        await call(1, "initialize", {"clientInfo": {"name": "reference", "version": "0"}})
        thread_id = (await call(2, "thread/start", {"cwd": request["cwd"]}))["thread"]["id"]
        turn_id = (await call(3, "turn/start", {"threadId": thread_id, "input": [{"type": "text",
                                                                                   "text": request["prompt"]}]}))["turn"]["id"]
        await ws.send(compact({"kind": "threadStarted", "id": request["id"], "threadId": thread_id, "turnId": turn_id}))
        rest = b""
        done = False
        while not done:
            chunk = await codex.stdout.read(1 << 16)
            if not chunk:
                break
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            rows, frames = [], []
            for line in lines:
                message = json.loads(line)
                if "method" not in message:
                    continue
                self.seq += 1
                params = message.get("params", {})
                frame = compact({"kind": "event", "seq": self.seq, "threadId": thread_id, "turnId": turn_id,
                                    "type": message["method"], "data": params})
                rows.append((self.seq, thread_id, "event", message["method"], turn_id, frame, len(frame), time.time()))
                frames.append(frame)
                done = done or message["method"] == "turn/completed"
            self.db.execute("BEGIN")
            self.db.executemany("INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            self.db.execute("COMMIT")
            for frame in frames:
                await ws.send(frame)
        codex.stdin.close()
        await codex.wait()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["serve"])
    parser.add_argument("--listen", default="127.0.0.1:0")
    parser.add_argument("--state-dir", required=True)
    parser.add_argument("--codex", required=True)
    args, _ = parser.parse_known_args()
    os.makedirs(args.state_dir, exist_ok=True)
    relay = Relay(args.state_dir, args.codex)
    host, port = args.listen.rsplit(":", 1)
    async with websockets.serve(relay.client, host, int(port), max_size=1 << 24) as server:
        bound = server.sockets[0].getsockname()[1]
        token_path = os.path.join(args.state_dir, "token")
        with open(os.open(token_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as token:
            token.write(relay.token + "\n")
        with open(os.path.join(args.state_dir, "server.json"), "w") as info:
            json.dump({"pid": os.getpid(), "port": bound}, info)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main())
