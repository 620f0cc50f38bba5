"""Issue 34 item 3 under the thread list (390×844, real codex): the account's tokens as Codex reads them from
ChatGPT's backend (`accountUsage`; codex signed in with ChatGPT offline, mock_model.chatgpt_login) beside the
rate-limit line. axe-core clean, screenshots light and dark. Cost: ~8 s."""
import datetime

from playwright.sync_api import expect

from mock_model import chatgpt_login
from test_housekeeping_web import clean, serious
from webutil import pair, start_thread


def test_the_accounts_tokens_under_the_list(web_bridge_factory, model, codex_home, phone_factory):
    today = datetime.date.today().isoformat()
    model.usage_profile = {"stats": {"lifetime_tokens": 1234567, "daily_usage_buckets": [
        {"start_date": "2026-01-01", "tokens": 5}, {"start_date": today, "tokens": 7000}]}}
    model.queue({"kind": "message", "text": "Done.", "rate_limits": {"primary": [12, 300], "secondary": [3, 10080]}})
    bridge = web_bridge_factory(extra=("--codex-config", chatgpt_login(codex_home, model.port)[1]))
    light, dark = phone_factory(), phone_factory(color_scheme="dark")
    pair(light, bridge)
    expect(light.page.locator(".token-line")).to_have_text("Tokens: 1.2M in all · 7.0k today")
    start_thread(light, "hello")
    expect(light.page.locator(".msg.agent")).to_contain_text("Done.")
    light.button("Back").click()
    expect(light.page.locator(".usage-line")).to_have_text("Usage: 5 h 12% · 7 d 3%")
    expect(light.page.locator(".token-line")).to_be_visible()
    pair(dark, bridge)
    expect(dark.page.locator(".token-line")).to_have_text("Tokens: 1.2M in all · 7.0k today")
    assert serious(light.page) == []
    light.shot("thread-list-tokens-light")
    dark.shot("thread-list-tokens-dark")
    clean(light, dark)
