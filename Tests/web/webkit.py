"""WebKit (Safari's engine) for the web app tests: WebKitGTK's MiniBrowser in automation mode, driven by
Selenium through WebKitWebDriver, on an Xvfb display of its own.

Debian packages: webkit2gtk-driver (WebKitWebDriver, MiniBrowser) and xvfb; PyPI: selenium (`Scripts/test`
installs them). `--headless` hangs on this platform, hence the virtual display. Nothing here skips: a missing
piece fails the test with the command that installs it.

Controls are found as a person finds them, by their accessible name (`aria-label`, else their text), with
explicit waits on what the page shows; never by sleeping.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import time

import pytest

MINIBROWSER = os.environ.get("WEBKIT_MINIBROWSER", "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser")
DRIVER = os.environ.get("WEBKIT_WEBDRIVER", "/usr/bin/WebKitWebDriver")
INSTALL = "apt-get install -y webkit2gtk-driver xvfb && pip install selenium (Scripts/test does both)"
PHONE = (390, 844)


def _need(path: str, what: str):
    if not (os.path.exists(path) and os.access(path, os.X_OK)):
        pytest.fail(f"{what} not found at {path}: {INSTALL}")


class Xvfb:
    """A private X display (`Xvfb -displayfd`: the server picks a free display number and tells us)."""

    def __init__(self, size=(1280, 1024)):
        if not shutil.which("Xvfb"):
            pytest.fail(f"Xvfb not found: {INSTALL}")
        read, write = os.pipe()
        self.proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", f"{size[0]}x{size[1]}x24", "-nolisten", "tcp"],
            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        number = b""
        deadline = time.monotonic() + 20
        with os.fdopen(read, "rb") as pipe:
            while not number.endswith(b"\n") and time.monotonic() < deadline:
                chunk = pipe.read(1)
                if not chunk:
                    break
                number += chunk
        if not number.strip():
            self.stop()
            pytest.fail("Xvfb did not report a display")
        self.display = f":{number.decode().strip()}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class WebKitPhone:
    """One MiniBrowser window the size of a phone, with an iPhone's user agent (`dark`: GTK's dark theme, which
    WebKitGTK reports as `prefers-color-scheme: dark`)."""

    def __init__(self, display: str, log_dir: pathlib.Path, dark=False, user_agent=None):
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        _need(MINIBROWSER, "MiniBrowser")
        _need(DRIVER, "WebKitWebDriver")
        options = Options()
        options.binary_location = MINIBROWSER
        options.add_argument("--automation")
        if user_agent:
            options.add_argument(f"--user-agent={user_agent}")
        if dark:
            options.add_argument("--dark-mode")
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"webkitwebdriver-{'dark' if dark else 'light'}.log"
        env = dict(os.environ, DISPLAY=display)
        env.pop("WAYLAND_DISPLAY", None)
        service = Service(executable_path=DRIVER, log_output=str(self.log_path), env=env)
        self.driver = webdriver.WebKitGTK(options=options, service=service)
        self.driver.set_window_size(*PHONE)

    # -- finding things --------------------------------------------------------------------------------------
    def wait(self, condition, timeout=20.0, what="condition"):
        """Polls `condition()` (exceptions count as not yet) until it returns something truthy; returns it."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            try:
                value = condition()
                if value:
                    return value
            except Exception as e:  # noqa: BLE001 (stale elements, not yet in the DOM, ...)
                last = e
            if time.monotonic() >= deadline:
                shot = self.failure_shot()
                raise AssertionError(f"WebKit: {what} not met within {timeout}s (last error: {last!r}); "
                                     f"status {self.status_text()!r}, url {self.driver.current_url}; screenshot {shot}")
            time.sleep(0.1)

    def failure_shot(self):
        """A screenshot next to the driver's log, for a wait that timed out."""
        try:
            path = self.log_path.with_name(f"failure-{time.monotonic_ns()}.png")
            self.driver.save_screenshot(str(path))
            return path
        except Exception as e:  # noqa: BLE001
            return f"(none: {e!r})"

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def visible(self, css):
        """The displayed elements matching `css`."""
        from selenium.webdriver.common.by import By
        return [e for e in self.driver.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]

    def button(self, name, timeout=20.0):
        """The one displayed button whose accessible name is `name` (its aria-label, else its text)."""
        from selenium.webdriver.common.by import By
        xpath = f"//button[@aria-label={_xq(name)} or (not(@aria-label) and normalize-space(.)={_xq(name)})]"

        def find():
            shown = [e for e in self.driver.find_elements(By.XPATH, xpath) if e.is_displayed()]
            return shown[0] if len(shown) == 1 else None
        return self.wait(find, timeout, f"one visible button {name!r}")

    def has_button(self, name) -> bool:
        from selenium.webdriver.common.by import By
        xpath = f"//button[@aria-label={_xq(name)} or (not(@aria-label) and normalize-space(.)={_xq(name)})]"
        return any(e.is_displayed() for e in self.driver.find_elements(By.XPATH, xpath))

    def labelled(self, label, timeout=20.0):
        """The displayed form control labelled `label` (aria-label or a <label>)."""
        from selenium.webdriver.common.by import By
        xpath = (f"//*[@aria-label={_xq(label)}][self::textarea or self::input or self::select] | "
                 f"//label[normalize-space(.)={_xq(label)} or ./span[normalize-space(.)={_xq(label)}]]"
                 f"//*[self::input or self::select or self::textarea] | "
                 f"//*[@id=//label[normalize-space(.)={_xq(label)}]/@for]")

        def find():
            shown = [e for e in self.driver.find_elements(By.XPATH, xpath) if e.is_displayed()]
            return shown[0] if shown else None
        return self.wait(find, timeout, f"a visible control labelled {label!r}")

    def text_of(self, css) -> list:
        """The rendered text (innerText) of each displayed element matching `css`. Read by the page itself:
        WebKitWebDriver's Get Element Text answers "" for some elements (seen: a one-line ellipsised path)."""
        return self.js("""return Array.from(document.querySelectorAll(arguments[0]))
            .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
            .map((e) => e.innerText.trim());""", css)

    def text(self, element) -> str:
        return self.js("return arguments[0].innerText.trim()", element)

    def status_text(self) -> str:
        try:
            return self.js("const s = document.querySelector('[role=status]'); return s ? s.textContent.trim() : null")
        except Exception:  # noqa: BLE001
            return None

    def wait_status(self, text, timeout=20.0):
        self.wait(lambda: self.status_text() == text, timeout, f"status {text!r}")

    def wait_text(self, css, predicate, timeout=20.0, what=None):
        """Waits until the visible texts of `css` satisfy `predicate(list)`; returns them."""
        return self.wait(lambda: predicate(self.text_of(css)) and self.text_of(css), timeout, what or f"text of {css}")

    def click(self, target, attempts=3):
        """Scrolls into view, then clicks (WebDriver refuses an element under the composer or off screen). `target`
        is an element, or a button's name: found again if the screen was drawn anew between finding and clicking
        it (a Selenium element, unlike a Playwright locator, goes stale; e.g. New thread draws its folder again when
        the listing arrives)."""
        from selenium.common.exceptions import StaleElementReferenceException
        for attempt in range(attempts):
            element = self.button(target) if isinstance(target, str) else target
            try:
                self.js("arguments[0].scrollIntoView({block: 'center'})", element)
                element.click()
                return
            except StaleElementReferenceException:
                if not isinstance(target, str) or attempt == attempts - 1:
                    raise

    def shot(self, path: pathlib.Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(path))
        return path

    def quit(self):
        try:
            self.driver.quit()
        except Exception:  # noqa: BLE001
            pass


def _xq(text: str) -> str:
    """An XPath string literal for `text`."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ", \"'\", ".join(f"'{part}'" for part in text.split("'")) + ")"
