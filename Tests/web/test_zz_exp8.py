import os, re, socket, threading, time
from playwright.sync_api import expect
import test_nothing_missing as nm
from test_resilience import Proxy
from webutil import start_thread

class SlowProxy(Proxy):
    def _accept(self):
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self.lock:
                self.conns += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._slow, args=(upstream, client), daemon=True).start()

    @staticmethod
    def _slow(src, dst):
        src.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
        try:
            while data := src.recv(2048):
                dst.sendall(data)
                time.sleep(0.004)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try: s.shutdown(socket.SHUT_RDWR)
                except OSError: pass

N = int(os.environ.get("N", 20000))
def test_slow_reader(web_bridge, model, phone):
    deltas = [f"{i} " for i in range(N)]
    model.queue({"kind": "slow", "deltas": deltas, "hold_after": [5, N - 1]})
    proxy = SlowProxy(web_bridge.port)
    page = phone.page
    closes = []
    frames = []
    import json as _j
    def watch(ws):
        n = len(closes) + 100
        ws.on("close", lambda w: closes.append(1))
        def fr(f):
            if '"seq"' in f or 'helloAck' in f:
                m = _j.loads(f)
                d = (m.get("data") or {}).get("delta")
                frames.append((id(ws), m.get("seq"), m.get("type") or m.get("kind"), d, m.get("lastSeq"), m.get("resume")))
        ws.on("framereceived", fr)
    page.on("websocket", watch)
    page.goto(nm.relayed_url(web_bridge, proxy))
    expect(phone.status()).to_have_text("Connected")
    start_thread(phone, "flood")
    model.wait_held(0)
    model.open_gate(0)
    model.wait_held(1, timeout=120)
    want = "".join(deltas[:N - 1]).strip()
    agent = page.locator(".msg.agent")
    deadline = time.monotonic() + 120
    got = None
    while time.monotonic() < deadline:
        got = agent.inner_text().strip()
        if got == want: break
        page.wait_for_timeout(500)
    print("closes", len(closes), web_bridge.log().count("1013"), "slow" in web_bridge.log())
    if got != want:
        g = got.split(); w = want.split()
        missing = sorted(set(w) - set(g), key=int)[:20]
        dup = len(g) - len(set(g))
        extra = sorted(set(g) - set(w))[:20]
        socks = {}
        for f in frames: socks.setdefault(f[0], []).append(f)
        info = []
        for k, fs in socks.items():
            acks = [f for f in fs if f[2] == "helloAck"]
            seqs = [f[1] for f in fs if f[1] is not None]
            info.append((acks, seqs[:3], seqs[-3:], len(seqs)))
        hits = [f for f in frames if f[3] in ("5071 ", "5072 ", missing[0] + " ")]
        raise AssertionError(f"len got {len(g)} want {len(w)} missing {missing} extra {extra} dups {dup} info {info} hits {hits}")
    model.open_gate(1)
    proxy.close()
