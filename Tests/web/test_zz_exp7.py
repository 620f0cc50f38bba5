import os, re
from playwright.sync_api import expect
import test_nothing_missing as nm
from test_resilience import Proxy
from webutil import start_thread

def test_slow_cpu_cuts(web_bridge, model, phone):
    nm.script(model)
    proxy = Proxy(web_bridge.port)
    page = phone.page
    frames, sockets = [], []
    def watch(ws):
        sockets.append(ws); n = len(sockets)
        ws.on("framereceived", lambda f: frames.append((n, *nm._seq(f))) if '"seq"' in f else None)
    page.on("websocket", watch)
    page.goto(nm.relayed_url(web_bridge, proxy))
    expect(phone.status()).to_have_text("Connected")
    cdp = phone.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": int(os.environ.get("CPU", 6))})
    start_thread(phone, "count through the cuts")
    model.wait_held(0)
    cutter = nm.Cutter(proxy, seed=int(os.environ.get("CUT_SEED", 1))).start()
    model.open_gate(0)
    model.wait_held(1, timeout=60)
    cutter.stop()
    expect(phone.status()).to_have_text("Connected", timeout=30_000)
    agent = page.locator(".msg.agent")
    try:
        expect(agent).to_have_text(nm.so_far(nm.LAST), timeout=20_000)
    except AssertionError:
        raise AssertionError(f"cuts {cutter.cuts} on screen: {agent.inner_text()!r}; frames: {nm._deltas(frames)}") from None
    model.open_gate(1)
    proxy.close()
