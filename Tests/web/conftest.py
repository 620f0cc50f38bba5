"""Fixtures for the web app tests: Debian's chromium driven by Playwright on a phone viewport, against the
real `codex-bridge serve` with the real codex and the scripted model (all on 127.0.0.1).

The integration suite's helpers are reused: Tests/integration goes on sys.path and its conftest is loaded
under another name; this module re-exports what codex_fixture.py imports from `conftest`.
"""
import importlib.util
import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
INTEGRATION = ROOT / "Tests" / "integration"
ASSETS = ROOT / "Sources" / "BridgeWeb" / "Assets"
ARTIFACTS = HERE / "artifacts"

if "BRIDGE_BIN" not in os.environ and not (ROOT / ".build" / "debug" / "codex-bridge").exists():
    if pathlib.Path("/tmp/cb/codex-bridge").exists():  # the lead's development binary
        os.environ["BRIDGE_BIN"] = "/tmp/cb/codex-bridge"
sys.path.insert(0, str(INTEGRATION))
_spec = importlib.util.spec_from_file_location("integration_conftest", INTEGRATION / "conftest.py")
_it = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_it)

BIN = _it.BIN
Bridge = _it.Bridge
run_cli = _it.run_cli
isolated_binary = _it.isolated_binary
bridge_factory = _it.bridge_factory

from webutil import *  # noqa: E402,F401,F403  (fixtures: browser, phone, web_env, ...)


# Markers by file, so a developer can pick (`Scripts/test -m "not slow"`, `-m browser`): see pytest.ini.
_ROOT_FILES = {"test_lan.py", "test_lan_ca.py", "test_lan_web.py", "test_machines_nearby_web.py"}
_SLOW_FILES = _ROOT_FILES | {"test_package.py"}


def pytest_collection_modifyitems(config, items):
    import pytest as _pytest
    for item in items:
        name = item.path.name
        item.add_marker(_pytest.mark.browser)
        if name in _ROOT_FILES:
            item.add_marker(_pytest.mark.root)
        if name in _SLOW_FILES:
            item.add_marker(_pytest.mark.slow)
