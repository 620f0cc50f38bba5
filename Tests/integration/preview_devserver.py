"""A dev server for the preview tests, run with its cwd inside (or outside) a thread's directory.

`http LOG [NAME]`: a threaded http.server on 127.0.0.1 port 0 with a page, a script, a header echo, a body echo, a
redirect to `http://localhost:PORT/landed`, cookie setters (one forging the bridge's cookies in the ways a browser
still reads as theirs), and what a hostile dev server would serve another preview's page: `/secret.json` (NAME's
secret, with CORS that lets any origin read it with credentials) and `/sw.js` (a service worker that answers every
request of its scope with NAME's page, `Service-Worker-Allowed: /`). `ws LOG`: a websockets echo server on ::1 port 0 (hot reload's
shape). DEVSERVER_PORT chooses the HTTP server's port. Each prints its port on the first line of stdout and appends every request's headers to LOG (one JSON line
each), so a test can check what reached it."""
import asyncio
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = sys.argv[2]
NAME = sys.argv[3] if len(sys.argv) > 3 else "dev"
# Every way a Set-Cookie can name the bridge's cookies as a browser parses it (RFC 6265bis 5.6: the name is what
# precedes the first '=', trimmed; a pair without '=' is a nameless cookie whose value the browser sends alone).
FORGED = ["codex_bridge_preview =forged", " codex_bridge_preview=forged", "codex_bridge_preview\t=forged",
          "=codex_bridge_preview=forged", "codex_bridge_preview", "Codex_Bridge_Preview=forged",
          "codex_bridge_preview_9101=forged; Path=/deep", "__Host-codex_bridge_preview=forged; Secure; Path=/"]
SW = """self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => e.respondWith(new Response(
  '<!doctype html><title>owned</title><h1 id="title">answered by the service worker of %s</h1>',
  {headers: {'Content-Type': 'text/html'}})));
"""


def log(headers):
    with open(LOG, "a") as f:
        f.write(json.dumps(headers) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self, status, body, kind="text/plain", extra=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_HEAD(self):
        log(dict(self.headers.items()))
        self.reply(200, "")

    def do_GET(self):
        log(dict(self.headers.items()))
        port = self.server.server_address[1]
        if self.path == "/":
            title = "Hello from the dev server" if NAME == "dev" else f"Hello from {NAME}"
            self.reply(200, f'<!doctype html><title>Dev app</title><h1 id="title">{title}</h1>'
                            '<p id="script">script not run</p><script src="/app.js"></script>', "text/html")
        elif self.path == "/app.js":
            self.reply(200, 'document.getElementById("script").textContent = "script ran";', "text/javascript")
        elif self.path == "/headers":
            self.reply(200, json.dumps(dict(self.headers.items())), "application/json")
        elif self.path == "/go":
            self.reply(302, "", extra=[("Location", f"http://localhost:{port}/landed?from=go")])
        elif self.path.startswith("/landed"):
            self.reply(200, "landed " + self.path)
        elif self.path == "/set-cookie":
            self.reply(200, "cookies", extra=[("Set-Cookie", "codex_bridge_preview=forged; Path=/"), ("Set-Cookie", "theme=dark")])
        elif self.path == "/forge-cookies":
            self.reply(200, "forged", extra=[("Set-Cookie", c) for c in FORGED] + [("Set-Cookie", "theme=dark")])
        elif self.path == "/secret.json":
            origin = self.headers.get("Origin", "*")
            self.reply(200, json.dumps({"secret": f"secret of {NAME}"}), "application/json",
                       extra=[("Access-Control-Allow-Origin", origin), ("Access-Control-Allow-Credentials", "true")])
        elif self.path == "/sw.js":
            self.reply(200, SW % NAME, "text/javascript", extra=[("Service-Worker-Allowed", "/")])
        elif self.path == "/big":
            self.reply(200, b"x" * (4 << 20), "application/octet-stream")
        else:
            self.reply(404, "not here")

    def do_POST(self):
        log(dict(self.headers.items()))
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.reply(200, json.dumps({"length": len(body), "head": body[:16].decode(errors="replace")}), "application/json")

    def log_message(self, *args):
        pass


async def websocket_echo():
    from websockets.asyncio.server import serve

    async def echo(ws):
        log(dict(ws.request.headers.raw_items()))
        async for message in ws:
            await ws.send(f"echo: {message}")

    async with serve(echo, "::1", 0) as server:
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    if sys.argv[1] == "http":
        server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("DEVSERVER_PORT", "0"))), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
    else:
        asyncio.run(websocket_echo())
