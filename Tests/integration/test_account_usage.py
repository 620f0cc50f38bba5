"""Issue 34 item 3's `accountUsage` (Codex `account/usage/read`) with the real codex: Codex reads the account's token
use from ChatGPT's backend, so the test signs codex in with ChatGPT offline (mock_model.chatgpt_login: a local
auth.json and `chatgpt_base_url` pointing at the scripted server, which answers the usage profile). The answer is
typed and bounded (the last 31 days, by date); a backend that does not answer and an API-key sign-in are Codex's
errors (`codex_error`). Cost: ~4 s."""
import pytest

from codex_fixture import bridge_codex_args, codex_bin, codex_bridge, codex_home, model, workspace  # noqa: F401 (fixtures)
from mock_model import chatgpt_login, codex_env
from test_codex import request
from wsutil import hello


@pytest.fixture
def chatgpt_bridge(bridge_factory, model, codex_home, workspace):
    login = chatgpt_login(codex_home, model.port)
    args = ["--codex", codex_bin(), "--root", str(workspace), *bridge_codex_args(model.port), "--codex-config", login[1]]
    return bridge_factory(name="codex-chatgpt", args=args, env=codex_env(codex_home))


async def test_account_usage_from_chatgpt(chatgpt_bridge, model):
    days = [{"start_date": f"2026-10-{d:02d}", "tokens": d * 100} for d in range(1, 32)]
    days += [{"start_date": f"2026-11-{d:02d}", "tokens": d * 1000} for d in range(1, 10)]
    model.usage_profile = {"stats": {"lifetime_tokens": 1234567, "peak_daily_tokens": 90000, "longest_running_turn_sec": 600,
                                     "current_streak_days": 3, "longest_streak_days": None,
                                     "daily_usage_buckets": list(reversed(days))}}
    ws, _ = await hello(chatgpt_bridge)
    answer = await request(ws, "accountUsage")
    assert answer["kind"] == "accountUsage", answer
    assert answer["summary"] == {"lifetimeTokens": 1234567, "peakDailyTokens": 90000, "longestRunningTurnSec": 600,
                                 "currentStreakDays": 3}, answer["summary"]
    buckets = answer["dailyUsageBuckets"]
    assert len(buckets) == 31 and buckets[0] == {"startDate": "2026-10-10", "tokens": 1000}, buckets[:2]
    assert buckets[-1] == {"startDate": "2026-11-09", "tokens": 9000}, buckets[-1]

    # The backend says nothing: Codex's error, with its message.
    model.usage_profile = None
    failed = await request(ws, "accountUsage")
    assert failed["kind"] == "error" and failed["code"] == "codex_error" and "usage" in failed["message"], failed


async def test_account_usage_needs_chatgpt(codex_bridge):
    ws, _ = await hello(codex_bridge)
    refused = await request(ws, "accountUsage")
    assert refused["kind"] == "error" and refused["code"] == "codex_error", refused
    assert "authentication required to read token usage" in refused["message"], refused
