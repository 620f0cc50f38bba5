"""A scripted model server for tests: the OpenAI Responses streaming API (SSE) on 127.0.0.1.

Codex POSTs `/v1/responses`; every POST consumes the next scripted response (kinds below). When the script
runs dry the server answers a plain message "ok", so a stray extra request never hangs a test.

Response kinds (dicts):
    {"kind": "message", "text": "Hello.", "deltas": ["Hel", "lo."]}   # deltas optional: streamed as
                                                                       # response.output_text.delta first
    {"kind": "exec", "cmd": "touch approved.txt"}                       # an `exec_command` function call;
                                                                       # codex runs it (or asks approval) and
                                                                       # POSTs again with function_call_output
    {"kind": "stall", "text": "late"}                                  # keeps the stream open until released
                                                                       # (release()/POST /control/release), the
                                                                       # client goes away, or `max_seconds`
    {"kind": "error", "status": 500}                                   # an HTTP error status (optional "text",
                                                                       # and "type"/"code" in the error object,
                                                                       # e.g. 429 usage_limit_reached)
    {"kind": "ask", "questions": [{"id", "header", "question",         # a `request_user_input` function call
              "options": [{"label", "description"}]}]}                  # (codex needs
                                                                       # features.default_mode_request_user_input)
    {"kind": "call", "name": "y", "namespace": "mcp__x",              # a function call of any tool (MCP tools
     "arguments": {}}                                                  # are named within their namespace)
    {"kind": "echo_output"}                                            # a message whose text is the output of the
                                                                       # last function call in the request (what
                                                                       # the tool answered the model)
    {"kind": "echo_images"}                                            # a message: JSON {"images": [{"mime", "bytes"}],
                                                                       # "notes": [input texts naming an upload]}
                                                                       # of the request's input images
    {"kind": "update_plan", "plan": [{"step", "status"}],             # Codex's `update_plan` tool (the bridge turns
     "explanation": "..."}                                             # it on): status pending|in_progress|completed
    {"kind": "propose_plan", "text": "Intro.", "plan": "# Markdown"}   # a message holding a <proposed_plan> block,
                                                                       # streamed in deltas (plan mode makes it a
                                                                       # `plan` item with item/plan/delta)
    {"kind": "spawn_agent", "message": "task", "agent_type": "..."}    # multi_agent_v1's spawn_agent: Codex starts a
                                                                       # sub-agent thread, whose own requests come here
    {"kind": "update_goal", "status": "complete"}                      # the goal tool: complete|blocked|paused
    {"kind": "messages", "texts": ["One.", "Two."]}                    # several assistant messages in one response
                                                                       # (one agentMessage item each: a long
                                                                       # thread's history made cheaply)

Any response may carry:
    "rate_limits": {"primary": [12, 300], "secondary": [3, 10080]}: the account's rate-limit windows (percent used,
                         minutes), as response headers
    "when": "text"       served only to a request whose last user message contains "text" (the rest of the script
                         stays in order for the others): sub-agents post concurrently with their parent
    "served_model": "m"  the `openai-model` response header: Codex sees the request served by another model
                         (`model/rerouted`)
    "usage": {...}       the response's token usage (default: 1 in, 1 out), e.g. {"input_tokens": 98000,
                         "output_tokens": 40, "total_tokens": 98040, ...}: how full the context looks

As a pytest helper:

    model = MockModel([{"kind": "message", "text": "hi"}]).start()
    args, env = codex_args(model.port), codex_env(tmp_path / "codex-home")
    ...; model.requests  # the JSON bodies seen; model.stop()

As a process (for the Swift tests):

    python mock_model.py --script script.json --port-file port.txt
    # prints "PORT <n>" on stdout; GET /control/requests -> JSON list of bodies; POST /control/release;
    # POST /control/queue with a JSON list appends responses. Ends on SIGTERM/SIGINT.
"""
from __future__ import annotations

import argparse
import base64
import datetime
import json
import os
import pathlib
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

USAGE = {
    "input_tokens": 1,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 1,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 2,
}


def codex_args(port: int) -> list[str]:
    """The `-c KEY=VALUE` arguments that point `codex app-server` at a MockModel on `port`."""
    provider = (
        '{name="mock",base_url="http://127.0.0.1:%d/v1",wire_api="responses",env_key="OPENAI_API_KEY"}' % port
    )
    return ["-c", "model_provider=mock", "-c", f"model_providers.mock={provider}", "-c", "model=mock-model"]


def chatgpt_login(codex_home, port: int) -> list[str]:
    """Signs codex in with ChatGPT without the network: an `auth.json` holding an unsigned token (codex reads its
    claims, never checks a signature), refreshed now (so codex does not refresh it). Returns the `-c` arguments that
    point codex's ChatGPT backend at the MockModel on `port` (its `usage_profile`)."""
    def part(value) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
    claims = {"email": "test@example.com", "exp": int(time.time()) + 30 * 86400,
              "https://api.openai.com/auth": {"chatgpt_plan_type": "plus", "chatgpt_account_id": "acct-test",
                                              "chatgpt_user_id": "user-test", "user_id": "user-test"}}
    token = f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}.unsigned"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    auth = {"auth_mode": "chatgpt", "OPENAI_API_KEY": None, "last_refresh": now,
            "tokens": {"id_token": token, "access_token": token, "refresh_token": "unused", "account_id": "acct-test"}}
    path = pathlib.Path(codex_home) / "auth.json"
    path.write_text(json.dumps(auth))
    path.chmod(0o600)
    return ["-c", f'chatgpt_base_url="http://127.0.0.1:{port}"']


def codex_env(codex_home, base=None) -> dict:
    """An environment for codex: `CODEX_HOME` (created) and a dummy `OPENAI_API_KEY`."""
    home = pathlib.Path(codex_home)
    home.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ if base is None else base)
    env["CODEX_HOME"] = str(home)
    env["OPENAI_API_KEY"] = "sk-test"
    # Tests talk only to loopback: codex's own calls elsewhere (its plugin sync to chatgpt.com and GitHub at
    # start-up) go to a proxy on 127.0.0.1 that refuses them at once; the scripted model is on loopback, no proxy.
    for key in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy"):
        env[key] = "http://127.0.0.1:9"
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost,::1"
    return env


class MockModel:
    """The scripted server. Thread-safe; `start()` binds 127.0.0.1 port 0 and serves on a daemon thread."""

    def __init__(self, script=None, max_stall_seconds: float = 120.0):
        self._lock = threading.Lock()
        self._queue = list(script or [])
        self._requests: list = []
        self._release = threading.Event()
        self.max_stall_seconds = max_stall_seconds
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._counter = 0
        # ChatGPT's backend, for a codex pointed here with `chatgpt_base_url` (chatgpt_login): the token-usage
        # profile `account/usage/read` fetches (GET /api/codex/profiles/me, `{"stats": {...}}`); None: 404.
        self.usage_profile: dict | None = None

    # -- control -------------------------------------------------------------------------------------------
    def start(self) -> "MockModel":
        model = self

        class Handler(_Handler):
            owner = model

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="mock-model", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def port(self) -> int:
        assert self._server is not None, "start() first"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def queue(self, *responses: dict) -> None:
        """Appends scripted responses."""
        with self._lock:
            self._queue.extend(responses)

    def release(self) -> None:
        """Ends every current and future stall."""
        self._release.set()

    @property
    def requests(self) -> list:
        """The JSON bodies of the POST /v1/responses seen so far."""
        with self._lock:
            return list(self._requests)

    def wait_requests(self, count: int, timeout: float = 10.0) -> list:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            seen = self.requests
            if len(seen) >= count:
                return seen
            time.sleep(0.02)
        raise AssertionError(f"expected {count} model requests, saw {len(self.requests)}")

    # -- internals -----------------------------------------------------------------------------------------
    def _next(self, body) -> tuple[int, dict]:
        with self._lock:
            self._requests.append(body)
            self._counter += 1
            n = self._counter
            said = _last_user_text(body)
            for index, spec in enumerate(self._queue):
                if "when" not in spec or spec["when"] in said:
                    return n, self._queue.pop(index)
        return n, {"kind": "message", "text": "ok"}


class _Handler(BaseHTTPRequestHandler):
    owner: MockModel
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # quiet
        pass

    def _json(self, status: int, payload) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("Content-Encoding", "") == "zstd":
            return {"undecoded": True}
        try:
            return json.loads(raw or b"null")
        except json.JSONDecodeError:
            return {"raw": raw.decode(errors="replace")}

    def do_GET(self):
        if self.path.startswith("/control/requests"):
            self._json(200, self.owner.requests)
        elif self.path.startswith("/v1/models"):
            self._json(200, {"object": "list", "data": []})
        elif self.path.startswith("/api/codex/accounts/check"):
            # ChatGPT's account list (chatgpt_login's account, no workspace routing): codex's `account/read` asks
            # it for a ChatGPT sign-in and fails ("workspace routing discovery failed") without an answer.
            self._json(200, {"accounts": [{"id": "acct-test", "workspace_backend_origin": "https://chatgpt.com",
                                           "account_routing_override": "NO_CONSTRAINT"}]})
        elif self.path.startswith("/api/codex/profiles/me") and self.owner.usage_profile is not None:
            self._json(200, self.owner.usage_profile)
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self):
        body = self._body()
        if self.path.startswith("/control/release"):
            self.owner.release()
            return self._json(200, {"ok": True})
        if self.path.startswith("/control/queue"):
            self.owner.queue(*(body or []))
            return self._json(200, {"ok": True})
        if not self.path.rstrip("/").endswith("/responses"):
            return self._json(404, {"error": {"message": "not found"}})
        n, spec = self.owner._next(body)
        kind = spec.get("kind", "message")
        if kind == "error":
            error = {"message": spec.get("text", "boom")}
            error.update({k: spec[k] for k in ("type", "code") if k in spec})
            return self._json(int(spec.get("status", 500)), {"error": error})
        self.send_response(200)
        if spec.get("served_model"):
            self.send_header("openai-model", spec["served_model"])
        # The account's rate-limit windows, as the Responses API reports them in headers: {"primary": [percent,
        # minutes], "secondary": [percent, minutes]} (Codex turns them into account/rateLimits/updated).
        for window, (percent, minutes) in (spec.get("rate_limits") or {}).items():
            self.send_header(f"x-codex-{window}-used-percent", str(percent))
            self.send_header(f"x-codex-{window}-window-minutes", str(minutes))
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        rid = f"resp_{n}"
        try:
            self._event({"type": "response.created", "response": {"id": rid}})
            if not self._respond(kind, spec, n):
                return
            self._event({"type": "response.completed", "response": {"id": rid, "usage": spec.get("usage", USAGE)}})
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _respond(self, kind: str, spec: dict, n: int) -> bool:
        """Writes the response's output items for one scripted `spec`; False when the stream must end without
        `response.completed` (a stall whose client went away). Subclasses add kinds and fall back to this."""
        if kind == "exec":
            self._exec(spec, n)
        elif kind == "ask":
            self._function_call("request_user_input", {"questions": spec.get("questions", [])}, spec, n)
        elif kind == "call":
            self._function_call(spec["name"], spec.get("arguments", {}), spec, n)
        elif kind == "update_plan":
            arguments = {"plan": spec.get("plan", [])}
            if "explanation" in spec:
                arguments["explanation"] = spec["explanation"]
            self._function_call("update_plan", arguments, spec, n)
        elif kind == "propose_plan":
            intro = spec.get("text", "Here is the plan.")
            plan = spec.get("plan", "1. Do it")
            pieces = [intro + "\n", "<proposed_plan>\n", plan + "\n", "</proposed_plan>\n"]
            self._message("".join(pieces), pieces, n)
        elif kind == "spawn_agent":
            arguments = {"message": spec.get("message", "help")}
            if "agent_type" in spec:
                arguments["agent_type"] = spec["agent_type"]
            self._function_call("spawn_agent", arguments, {**spec, "namespace": "multi_agent_v1"}, n)
        elif kind == "update_goal":
            self._function_call("update_goal", {"status": spec.get("status", "complete")}, spec, n)
        elif kind == "echo_images":
            self._message(json.dumps(_input_images(self.owner.requests[-1] if self.owner.requests else None)), None, n)
        elif kind == "echo_output":
            self._message(_last_function_output(self.owner.requests[-1] if self.owner.requests else None), None, n)
        elif kind == "messages":
            for i, text in enumerate(spec.get("texts", [])):
                self._event({
                    "type": "response.output_item.done", "output_index": i,
                    "item": {"type": "message", "role": "assistant", "id": f"msg_{n}_{i}",
                             "content": [{"type": "output_text", "text": text}]},
                })
        elif kind == "stall":
            if not self._stall():
                return False
            self._message(spec.get("text", "resumed"), None, n)
        else:
            self._message(spec.get("text", "ok"), spec.get("deltas"), n)
        return True

    def _event(self, payload: dict) -> None:
        self.wfile.write(f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode())
        self.wfile.flush()

    def _message(self, text: str, deltas, n: int) -> None:
        item_id = f"msg_{n}"
        if deltas:
            self._event({
                "type": "response.output_item.added", "output_index": 0,
                "item": {"type": "message", "role": "assistant", "id": item_id, "content": []},
            })
            for delta in deltas:
                self._event({
                    "type": "response.output_text.delta", "item_id": item_id, "output_index": 0,
                    "content_index": 0, "delta": delta,
                })
                time.sleep(0.01)
        self._event({
            "type": "response.output_item.done", "output_index": 0,
            "item": {"type": "message", "role": "assistant", "id": item_id,
                     "content": [{"type": "output_text", "text": text}]},
        })

    def _exec(self, spec: dict, n: int) -> None:
        arguments = {"cmd": spec.get("cmd", "true")}
        if "justification" in spec:
            arguments["justification"] = spec["justification"]
        if "sandbox_permissions" in spec:
            arguments["sandbox_permissions"] = spec["sandbox_permissions"]
        self._event({
            "type": "response.output_item.done", "output_index": 0,
            "item": {"type": "function_call", "id": f"fc_{n}", "call_id": spec.get("call_id", f"call_{n}"),
                     "name": "exec_command", "arguments": json.dumps(arguments)},
        })

    def _function_call(self, name: str, arguments: dict, spec: dict, n: int) -> None:
        item = {"type": "function_call", "id": f"fc_{n}", "call_id": spec.get("call_id", f"call_{n}"),
                "name": name, "arguments": json.dumps(arguments)}
        if "namespace" in spec:
            item["namespace"] = spec["namespace"]
        self._event({"type": "response.output_item.done", "output_index": 0, "item": item})

    def _stall(self) -> bool:
        """Waits until released; False when the client went away (e.g. the turn was interrupted)."""
        deadline = time.monotonic() + self.owner.max_stall_seconds
        while time.monotonic() < deadline:
            if self.owner._release.wait(0.2):
                return True
            try:  # an SSE comment: notices a client that hung up
                self.wfile.write(b": waiting\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return False
        return True


def _last_user_text(body) -> str:
    """The text of the last user message of a request body ("" when there is none)."""
    for item in reversed((body or {}).get("input") or []):
        if isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, list):
                return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
            return content if isinstance(content, str) else ""
    return ""


def _last_function_output(body) -> str:
    """The `output` of the last function_call_output item of a request body ("none" when there is none)."""
    for item in reversed((body or {}).get("input") or []):
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            output = item.get("output")
            return output if isinstance(output, str) else json.dumps(output)
    return "none"


def _input_images(body) -> dict:
    """The input images of a request body (media type and decoded size of each data URL) and the input texts
    that name an uploaded file."""
    import base64
    images, notes = [], []
    for item in (body or {}).get("input") or []:
        for part in (item.get("content") or []) if isinstance(item, dict) and isinstance(item.get("content"), list) else []:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "input_image":
                url = part.get("image_url") or ""
                head, _, data = url.partition(",")
                images.append({"mime": head[5:].split(";")[0] if head.startswith("data:") else head,
                               "bytes": len(base64.b64decode(data)) if data else 0})
            elif part.get("type") == "input_text" and "up-" in (part.get("text") or ""):
                notes.append(part["text"])
    return {"images": images, "notes": notes}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", help="a JSON file holding a list of responses")
    parser.add_argument("--port-file", help="write the bound port here once listening")
    parser.add_argument("--max-stall", type=float, default=120.0)
    args = parser.parse_args(argv)
    script = json.loads(pathlib.Path(args.script).read_text()) if args.script else []
    model = MockModel(script, max_stall_seconds=args.max_stall).start()
    if args.port_file:
        tmp = pathlib.Path(args.port_file + ".tmp")
        tmp.write_text(str(model.port))
        tmp.replace(args.port_file)
    print(f"PORT {model.port}", flush=True)
    done = threading.Event()
    # A parent may have spawned us with these blocked (the mask survives exec): unblock, or SIGTERM never lands.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    while not done.wait(0.5):
        pass
    model.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
