#!/usr/bin/env python3
"""A fake `codex app-server` for fault injection only (the real path is tested with the real codex).

Speaks codex's JSON-RPC over stdio (one JSON object per line). Behaviour comes from FAKE_CODEX_MODE:
  normal   thread/start → a thread/started notification *before* the result (the order codex may use),
           turn/start → result, then a short turn (turn/started, one delta, turn/completed)
  crash    like normal, but exits (status 3) right after answering the first turn/start of the process,
           unless the file $FAKE_CODEX_STATE exists; creates that file first, so the restarted child is normal
  flood    turn/start → result, then $FAKE_CODEX_COUNT item/agentMessage/delta notifications (at most
           $FAKE_CODEX_RATE per second when set), then turn/completed
  subthreads  thread/list answers from four threads in $FAKE_CODEX_CWD, filtered by the request's sourceKinds as
           codex does: a parent (vscode), the sub-agent it spawned, a review and a compaction sub-thread
Invoked as `fake_codex.py app-server [-c ...]`.
"""
import json
import os
import sys
import time
import uuid

MODE = os.environ.get("FAKE_CODEX_MODE", "normal")
STATE = os.environ.get("FAKE_CODEX_STATE", "")
COUNT = int(os.environ.get("FAKE_CODEX_COUNT", "100000"))
RATE = float(os.environ.get("FAKE_CODEX_RATE", "0"))  # flood: at most this many deltas per second (0: no limit)
out = sys.stdout
CWD = os.environ.get("FAKE_CODEX_CWD", "/")
SUBTHREADS = [
    ("vscode", {"id": "parent", "cwd": CWD, "source": "vscode"}),
    ("subAgentThreadSpawn", {"id": "spawned", "cwd": CWD, "parentThreadId": "parent", "agentNickname": "Noether",
                             "source": {"subAgent": {"thread_spawn": {"parent_thread_id": "parent", "depth": 1}}}}),
    ("subAgentReview", {"id": "review", "cwd": CWD, "parentThreadId": "parent", "source": {"subAgent": "review"}}),
    ("subAgentCompact", {"id": "compact", "cwd": CWD, "parentThreadId": "parent", "source": {"subAgent": "compact"}}),
]


def send(obj):
    out.write(json.dumps(obj, separators=(",", ":")) + "\n")


def turn(thread_id, turn_id, deltas):
    send({"method": "turn/started", "params": {"threadId": thread_id, "turn": {"id": turn_id, "status": "inProgress"}}})
    item = "msg-" + turn_id
    began = time.monotonic()
    for i in range(deltas):
        send({"method": "item/agentMessage/delta", "params": {"threadId": thread_id, "turnId": turn_id, "itemId": item, "delta": f"{i} "}})
        if RATE and i % 200 == 199:
            out.flush()
            ahead = began + (i + 1) / RATE - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)
    send({"method": "turn/completed", "params": {"threadId": thread_id, "turn": {"id": turn_id, "status": "completed"}}})
    out.flush()


def main():
    if len(sys.argv) < 2 or sys.argv[1] != "app-server":
        print("fake codex: only app-server", file=sys.stderr)
        return 2
    threads = {}
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if rid is None or method is None:
            continue  # notifications (initialized) and answers
        if method == "initialize":
            send({"id": rid, "result": {"userAgent": "fake", "platformOs": "linux"}})
        elif method == "thread/start":
            tid = str(uuid.uuid4())
            threads[tid] = params.get("cwd", "/")
            send({"method": "thread/started", "params": {"thread": {"id": tid, "cwd": threads[tid]}}})
            out.flush()
            send({"id": rid, "result": {"thread": {"id": tid, "cwd": threads[tid]}}})
        elif method == "thread/resume":
            send({"id": rid, "result": {"thread": {"id": params.get("threadId"), "cwd": threads.get(params.get("threadId"), "/")}}})
        elif method == "thread/list" and MODE == "subthreads":
            kinds = set(params.get("sourceKinds") or ["cli", "vscode"])
            send({"id": rid, "result": {"data": [t for kind, t in SUBTHREADS if kind in kinds]}})
        elif method == "thread/list":
            send({"id": rid, "result": {"data": [{"id": t, "cwd": c} for t, c in threads.items()]}})
        elif method == "turn/start":
            turn_id = str(uuid.uuid4())
            send({"id": rid, "result": {"turn": {"id": turn_id, "status": "inProgress"}}})
            out.flush()
            if MODE == "crash" and STATE and not os.path.exists(STATE):
                open(STATE, "w").close()
                send({"method": "turn/started", "params": {"threadId": params["threadId"], "turn": {"id": turn_id}}})
                out.flush()
                os._exit(3)
            turn(params["threadId"], turn_id, COUNT if MODE == "flood" else 1)
        else:
            send({"id": rid, "error": {"code": -32601, "message": f"fake codex: {method} not supported"}})
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
