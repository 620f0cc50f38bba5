"""Issue 47, the phone's side of voice: the voice mode in the thread screen and Dictate in the composer, in Debian's
chromium with a fake microphone (a WAV that espeak-ng spoke) against the real bridge and the real codex with the
scripted model. Plain http (no microphone at all) says the command that gives https; a browser without speech
recognition records a clip that goes up as an audio attachment, and one without recording either says why not;
the voice panel's states, its refusal sentence, and axe on it, light and dark. Cost: ~50 s for the file (the
refusals ~20 s: three bridges)."""
import pathlib
import re
import shutil
import subprocess

import pytest
from playwright.sync_api import expect

import conftest
from test_accessibility import Audit
from mock_model import chatgpt_login
from webutil import CHROMIUM, IPHONE_UA, LOOPBACK_ONLY, bridge_env, codex_bin, pair, pairing_url, start_thread, thread_action

TLS_COMMAND = "codex-bridge serve --tls"
DICTATE_HTTP = ("Dictation needs the microphone, which needs https, and this page came over plain http: run "
                "codex-bridge serve --tls on the workstation and scan the first code it prints.")
VOICE_HTTP = ("The microphone needs https, and this page came over plain http: run codex-bridge serve --tls on the "
              "workstation and scan the first code it prints.")


@pytest.fixture(scope="module")
def spoken_wav(tmp_path_factory):
    """A few seconds of speech as the fake microphone's input (espeak-ng, installed by Scripts/test)."""
    espeak = shutil.which("espeak-ng")
    assert espeak, "espeak-ng is missing: Scripts/test installs it"
    path = tmp_path_factory.mktemp("voice") / "speech.wav"
    subprocess.run([espeak, "-w", str(path), "Please list the files in this folder."], check=True)
    assert path.stat().st_size > 10_000
    return path


def launch(browser, *args):
    return browser.browser_type.launch(executable_path=CHROMIUM, args=["--no-sandbox", *args])


def phone_context(b, scheme="light", route=LOOPBACK_ONLY):
    context = b.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            device_scale_factor=2, user_agent=IPHONE_UA, color_scheme=scheme, service_workers="block")
    context.route(route, lambda r: r.abort())
    return context


class FakePhone:
    """What Audit and the helpers need of webutil.Phone, on a context of a browser launched here."""

    def __init__(self, context):
        self.context = context
        self.page = context.new_page()
        self.errors = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def shot(self, name, full_page=False):
        conftest.ARTIFACTS.mkdir(exist_ok=True)
        path = conftest.ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path

    def button(self, name):
        return self.page.get_by_role("button", name=name, exact=True)

    def status(self):
        return self.page.get_by_role("status").first


def first_thread(phone, model, bridge, url=None):
    model.queue({"kind": "message", "text": "Here."})
    if url:
        phone.page.goto(url)
        expect(phone.page.get_by_role("status")).to_have_text("Connected")
    else:
        pair(phone, bridge)
    start_thread(phone, "hello")
    expect(phone.page.locator(".msg.agent")).to_have_text("Here.")


def test_on_plain_http_dictate_and_voice_say_the_command_that_gives_https(web_bridge, model, browser):
    """http://workstation.test (127.0.0.1 inside the browser) is no secure context, so no microphone: Dictate and
    Voice each say so in a sentence with the command. ~4 s."""
    b = launch(browser, "--host-resolver-rules=MAP workstation.test 127.0.0.1")
    try:
        context = phone_context(b, route=re.compile(r"^(?!(https?|wss?)://(127\.0\.0\.1|workstation\.test)(:\d+)?/).*"))
        phone = FakePhone(context)
        first_thread(phone, model, web_bridge, url=pairing_url(web_bridge).replace("127.0.0.1", "workstation.test"))
        page = phone.page
        assert page.evaluate("window.isSecureContext") is False
        dictate = phone.button("Dictate")
        expect(dictate).to_have_attribute("aria-disabled", "true")
        dictate.click(force=True)  # marked unavailable, still a tap target: the tap says why
        note = page.locator(".voice-note")
        expect(note).to_have_text(DICTATE_HTTP)
        expect(note.locator("code")).to_have_text(TLS_COMMAND)
        thread_action(phone, "Voice")
        panel = page.get_by_role("region", name="Voice")
        expect(panel.get_by_role("alert")).to_have_text(VOICE_HTTP)
        expect(panel.get_by_role("alert").locator("code")).to_have_text(TLS_COMMAND)
        expect(page.locator(".composer")).to_be_hidden()
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            phone.shot(f"voice-http-{scheme}")
        panel.get_by_role("button", name="Close").click()
        expect(page.locator(".composer")).to_be_visible()
        expect(panel).to_be_hidden()
        assert not phone.errors, phone.errors
    finally:
        b.close()


NO_SPEECH = "delete window.SpeechRecognition; delete window.webkitSpeechRecognition;"
NO_RECORDING = NO_SPEECH + " delete window.MediaRecorder;"


def test_dictation_without_speech_recognition_records_a_clip_or_says_why_not(web_bridge, model, browser, spoken_wav):
    """No SpeechRecognition (as in Firefox): Dictate records from the microphone and the clip goes up to
    POST /uploads as an audio attachment of the message (the bridge reads its type from the bytes). No recording
    either: Dictate is marked unavailable and says why. ~9 s."""
    b = launch(browser, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
               f"--use-file-for-fake-audio-capture={spoken_wav}")
    try:
        context = phone_context(b)
        context.add_init_script(NO_SPEECH)
        phone = FakePhone(context)
        first_thread(phone, model, web_bridge)
        page = phone.page
        dictate = phone.button("Dictate")
        expect(dictate).to_have_attribute("aria-disabled", "false")
        dictate.click()
        expect(dictate).to_have_attribute("aria-pressed", "true")
        expect(page.locator(".voice-note")).to_have_text("Recording… tap Dictate again to stop.")
        page.wait_for_timeout(1500)
        dictate.click()
        expect(dictate).to_have_attribute("aria-pressed", "false")
        chip = page.locator(".attachment-tray .attachment")
        expect(chip).to_have_count(1)
        expect(chip).to_have_attribute("data-upload-id", re.compile(r"^up-"))  # the bridge took it as audio
        expect(page.locator(".voice-note")).to_have_text("The recording goes with your message; Codex transcribes it.")
        page.get_by_label("Message").fill("what does this say?")
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            phone.shot(f"voice-dictated-clip-{scheme}")
        context.close()

        context = phone_context(b)
        context.add_init_script(NO_RECORDING)
        phone = FakePhone(context)
        pair(phone, web_bridge)
        phone.page.locator(".thread-row").first.click()
        dictate = phone.button("Dictate")
        expect(dictate).to_have_attribute("aria-disabled", "true")
        dictate.click(force=True)  # marked unavailable, still a tap target: the tap says why
        expect(phone.page.locator(".voice-note")).to_have_text(
            "This browser has neither speech recognition nor audio recording: type, or use the keyboard's own dictation.")
        assert not phone.errors, phone.errors
    finally:
        b.close()


def test_the_voice_panel_says_the_refusal_and_keeps_its_controls(web_bridge, model, browser, spoken_wav):
    """The voice panel refused (the scripted model is no OpenAI provider): its sentence, no startVoice sent;
    hands-free and hold to talk, the voice picker; Close gives the composer back. axe finds nothing serious on the
    panel, light and dark. ~8 s."""
    b = launch(browser, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
               f"--use-file-for-fake-audio-capture={spoken_wav}")
    try:
        context = phone_context(b)
        phone = FakePhone(context)
        # What the page sends: the startVoice request carries an SDP offer with an audio line.
        phone.page.add_init_script("""
          window.__sent = [];
          const send = WebSocket.prototype.send;
          WebSocket.prototype.send = function (data) { window.__sent.push(String(data)); return send.call(this, data); };
        """)
        first_thread(phone, model, web_bridge)
        page = phone.page
        thread_action(phone, "Voice")
        panel = page.get_by_role("region", name="Voice")
        expect(panel).to_be_visible()
        expect(page.locator(".composer")).to_be_hidden()
        # The scripted model is another provider than OpenAI's: the bridge refuses voice (listVoices), said at once.
        expect(panel).to_have_attribute("data-phase", "error")
        expect(panel.get_by_role("alert")).to_have_text(API_KEY)
        assert not page.evaluate("window.__sent.filter((s) => s.includes('startVoice'))")
        assert panel.get_by_role("button", name="Hands-free").get_attribute("aria-pressed") == "true"
        panel.get_by_role("button", name="Hold to talk", exact=True).click()
        expect(panel.get_by_role("button", name="Hold to talk", exact=True)).to_have_attribute("aria-pressed", "true")
        expect(panel.get_by_label("Codex's voice")).to_be_visible()
        audit = Audit(phone)
        audit("voice-panel")
        assert not audit.found, audit.found
        panel.get_by_role("button", name=re.compile("^(End voice|Close)$")).click()
        expect(panel).to_be_hidden()
        expect(page.locator(".composer")).to_be_visible()
        # Voice is in the More menu too (the only way at 200% text, where the header keeps its room for the title).
        phone.button("More").click()
        page.get_by_role("menuitem", name="Voice").click()
        expect(panel.get_by_role("alert")).to_have_text(API_KEY)
        assert not phone.errors, phone.errors
    finally:
        b.close()


def test_dictation_falls_back_to_recording_when_the_browsers_speech_service_fails(web_bridge, model, browser, spoken_wav):
    """Chromium has SpeechRecognition, but here (as on Debian's chromium, which has no Google service keys) it fails
    at once (`audio-capture`, or `network`): Dictate records a clip instead, and goes straight to recording on the
    next tap. ~6 s."""
    b = launch(browser, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
               f"--use-file-for-fake-audio-capture={spoken_wav}")
    try:
        phone = FakePhone(phone_context(b))
        first_thread(phone, model, web_bridge)
        page = phone.page
        assert page.evaluate("typeof webkitSpeechRecognition") == "function"
        dictate = phone.button("Dictate")
        dictate.click()
        expect(page.locator(".voice-note")).to_have_text("Recording… tap Dictate again to stop.")
        expect(dictate).to_have_attribute("aria-pressed", "true")
        page.wait_for_timeout(1000)
        dictate.click()
        expect(page.locator(".attachment-tray .attachment")).to_have_attribute("data-upload-id", re.compile(r"^up-"))
        dictate.click()  # the next tap records at once
        expect(page.locator(".voice-note")).to_have_text("Recording… tap Dictate again to stop.")
        dictate.click()
        expect(page.locator(".attachment-tray .attachment")).to_have_count(2)
        assert not phone.errors, phone.errors
    finally:
        b.close()


API_KEY = ("Voice needs Codex signed in with ChatGPT, and it uses an API key or another provider: on the workstation, run "
           "codex login and choose Sign in with ChatGPT.")
NO_LOGIN = "Voice needs Codex signed in with ChatGPT: on the workstation, run codex login and choose Sign in with ChatGPT."
DISABLED = ("Voice is turned off in Codex on the workstation: set realtime_conversation = true under [features] in "
            "~/.codex/config.toml, then try again.")


COUNT_MIC = """window.__mic = 0;
  const ask = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  navigator.mediaDevices.getUserMedia = (c) => { window.__mic += 1; return ask(c); };"""


def open_voice_refused(phone, sentence, command):
    page = phone.page
    thread_action(phone, "Voice")
    panel = page.get_by_role("region", name="Voice")
    expect(panel.get_by_role("alert")).to_have_text(sentence)
    expect(panel.get_by_role("alert").locator("code")).to_have_text(command)
    expect(panel).to_have_attribute("data-phase", "error")
    return panel


def test_the_bridges_refusals_are_each_a_sentence_saying_what_to_do(bridge_factory, web_bridge, model, codex_home,
                                                                     workspace, tmp_path, browser, spoken_wav):
    """The real bridge's refusals, from what the real codex reports (listVoices, asked before the microphone):
    another model provider (the scripted model's) → voice_api_key; OpenAI's provider with no sign-in →
    voice_no_login; signed in with ChatGPT but realtime_conversation off → voice_disabled. ~20 s."""
    b = launch(browser, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
               f"--use-file-for-fake-audio-capture={spoken_wav}")
    try:
        context = phone_context(b)
        context.add_init_script(COUNT_MIC)
        phone = FakePhone(context)
        first_thread(phone, model, web_bridge)
        panel = open_voice_refused(phone, API_KEY, "codex login")
        phone.shot("voice-refused-api-key")
        assert phone.page.evaluate("window.__mic") == 0, "the microphone was asked for although voice cannot work"
        panel.get_by_role("button", name="Close").click()

        # OpenAI's own provider: no sign-in, then ChatGPT's with the feature off. The turn that makes the thread
        # fails (nothing but loopback is reachable); the thread is there all the same.
        for name, login, extra, sentence in (
                ("no-login", False, [], NO_LOGIN),
                ("disabled", True, ["--codex-config", "features.realtime_conversation=false"], DISABLED)):
            home = tmp_path / f"codex-{name}"
            env = bridge_env(home)
            env.pop("OPENAI_API_KEY", None)
            args = ["--codex", codex_bin(), "--root", str(workspace), "--codex-config", 'model_provider="openai"', *extra]
            if login:
                args += ["--codex-config", chatgpt_login(home, model.port)[1]]
            bridge = bridge_factory(name=f"voice-{name}", env=env, args=args)
            phone = FakePhone(phone_context(b))
            pair(phone, bridge)
            start_thread(phone, "hello")
            open_voice_refused(phone, sentence, "codex login" if not login else "realtime_conversation = true")
            phone.shot(f"voice-refused-{name}")
            assert not phone.errors, phone.errors
    finally:
        b.close()
