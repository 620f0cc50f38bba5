"""Issue 37 item 6: `serve`'s pairing QR on a terminal comes after the startup's log lines (once Codex runs), and
when its code expires a fresh one is printed; the expired code pairs nobody."""
import json
import re

from codex_fixture import bridge_codex_args, codex_bin, codex_home, model, workspace  # noqa: F401 (fixtures)
from mock_model import codex_env
from test_attach import Terminal
from wsutil import hello

PHONE = {"name": "QR phone", "platform": "test"}
CODE = re.compile(r"#pair=v1&code=([A-Za-z0-9]+)")


async def test_the_qr_comes_last_and_a_fresh_one_follows_an_expired_code(model, codex_home, workspace, tmp_path):
    """Seen failing before: the QR came before "Codex is running" and nothing followed its expiry."""
    state = tmp_path / "qr-state"
    term = Terminal(["serve", "--listen", "127.0.0.1:0", "--state-dir", str(state), "--no-mdns", "--codex", codex_bin(),
                     "--root", str(workspace), *bridge_codex_args(model.port), "--startup-code-ttl", "3s"],
                    env=codex_env(codex_home))
    try:
        first = term.expect(CODE, timeout=60).group(1)
        assert term.seen.index("Codex is running") < term.seen.index("Scan with your phone's camera"), term.seen
        term.expect(r"expires in \d+ min")
        fresh = term.expect(r"The last pairing code expired\. A fresh one", timeout=20)
        assert fresh
        second = term.expect(CODE).group(1)
        assert second != first
        port = json.loads((state / "server.json").read_text())["port"]
        url = f"ws://127.0.0.1:{port}/"
        _, expired = await hello(url, token=first, extra={"device": PHONE})
        assert expired["kind"] == "helloAck" and expired.get("ok") is False, expired
        _, paired = await hello(url, token=second, extra={"device": PHONE})
        assert paired.get("ok") is True and paired.get("deviceToken"), paired
    finally:
        term.close()


async def test_enter_shows_the_qr_again_last_and_codex_lines_carry_no_escapes(model, codex_home, workspace, tmp_path):
    """Issue 46 item 4: on serve's terminal Enter prints the card again (the same code, the QR code and its caption
    last, within 80×24), and Codex's own log lines (RUST_LOG=info: styled with ANSI colours) come without escape
    sequences, raw or escaped. Cost: ~5 s."""
    state = tmp_path / "qr-state"
    env = codex_env(codex_home)
    env["RUST_LOG"] = "info"
    term = Terminal(["serve", "--listen", "127.0.0.1:0", "--state-dir", str(state), "--no-mdns", "--codex", codex_bin(),
                     "--root", str(workspace), *bridge_codex_args(model.port)], env=env)
    try:
        first = term.expect(CODE, timeout=60).group(1)
        term.expect("Enter shows it again")
        term.send("")
        again = term.expect(r"The pairing QR code again[\s\S]*?Enter shows it again\.[^\n]*\n", timeout=10).group(0)
        assert CODE.search(again).group(1) == first
        lines = again.replace("\r", "").split("\n")
        card = lines[next(i for i, line in enumerate(lines) if line.startswith("██")):]
        assert len([line for line in card if line]) <= 23 and all(len(line) <= 80 for line in card), card
        assert "INFO" in term.seen, "codex logged nothing at info: the check below would be empty"
        assert "\x1b[" not in term.seen and "\\u{1B}" not in term.seen, term.seen
    finally:
        term.close()
