"""Issue 15: a file too large for the viewer is offered for download (GET /files with the phone's token)."""
from playwright.sync_api import expect

from webutil import pair, thread_action


def test_a_file_too_large_to_show_downloads(web_bridge, model, phone, workspace):
    model.queue({"kind": "exec", "cmd": "head -c 1500000 /dev/urandom > big.log"},
                {"kind": "message", "text": "Wrote the log."})
    pair(phone, web_bridge)
    page = phone.page
    phone.button("New thread").click()
    phone.button("Use this folder").click()
    page.get_by_label("Message").fill("write a big log")
    page.get_by_text("Options").click()
    page.get_by_label("Approval policy").select_option("untrusted")
    phone.button("Start").click()
    phone.button("Approve").click()
    expect(page.locator(".msg.agent")).to_contain_text("Wrote the log.")
    assert (workspace / "big.log").stat().st_size == 1500000
    thread_action(phone, "Diff")
    phone.button("View big.log").click()
    expect(page.get_by_text("big.log is too large to show here.")).to_be_visible()
    phone.shot("file-download")
    with page.expect_download() as info:
        phone.button("Download").click()
    download = info.value
    assert download.suggested_filename == "big.log"
    assert open(download.path(), "rb").read() == (workspace / "big.log").read_bytes()
    assert phone.errors == [] and phone.csp_violations() == []
