"""The page's pure parts in the real browser: Markdown to DOM (safe by construction), diffs, pairing codes."""
import os
import re

import pytest

from webutil import web_env

import conftest


@pytest.fixture
def page(bridge_factory, phone_factory, tmp_path):
    bridge = bridge_factory(name="plain", env=web_env())
    phone = phone_factory()
    phone.page.goto(f"http://127.0.0.1:{bridge.port}/")
    phone.page.wait_for_selector(".pair-screen")
    yield phone.page
    assert not phone.errors, phone.errors


def md(page, text):
    """Renders Markdown with the app's renderer; returns a tree of [tag, attrs, children] / text."""
    return page.evaluate("""async (text) => {
        const { renderMarkdown } = await import('./markdown.js');
        const walk = (n) => n.nodeType === 3 ? n.data : [n.tagName.toLowerCase(),
            Object.fromEntries([...n.attributes].map(a => [a.name, a.value])), [...n.childNodes].map(walk)];
        return walk(renderMarkdown(text));
    }""", text)


def tags(tree, out=None):
    out = [] if out is None else out
    if isinstance(tree, list):
        out.append(tree[0])
        for c in tree[2]:
            tags(c, out)
    return out


def text(tree):
    return tree if isinstance(tree, str) else "".join(text(c) for c in tree[2])


def find(tree, tag):
    if isinstance(tree, str):
        return []
    found = [tree] if tree[0] == tag else []
    for c in tree[2]:
        found += find(c, tag)
    return found


def test_blocks_and_inlines(page):
    tree = md(page, "# Title\n\nSome **bold**, *em*, ~~gone~~ and `code <b>`.\n\n"
                    "- one\n- two\n  - nested\n\n1. first\n2. second\n\n> quoted *text*\n\n---\n\n"
                    "```python\nprint('<script>')\n    indented\n```\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n")
    t = tags(tree)
    for tag in ("h2", "p", "strong", "em", "del", "code", "ul", "ol", "li", "blockquote", "hr", "pre", "table", "th", "td"):
        assert tag in t, (tag, tree)
    pre = find(tree, "pre")[0]
    assert text(pre) == "print('<script>')\n    indented"
    assert find(tree, "code")[0][2] == ["code <b>"]
    nested = find(find(tree, "ul")[0], "ul")[1:]
    assert nested and text(nested[0]) == "nested"
    assert text(find(tree, "td")[1]) == "2" and "align-right" in find(tree, "td")[1][1].get("class", "")


def test_links_only_http_https_mailto(page):
    tree = md(page, "[ok](https://example.com/a?b=1) [mail](mailto:a@b.c) [bad](javascript:alert(1)) "
                    "[bad2]( JaVaScRiPt:alert(1)) [data](data:text/html,x) [rel](/etc/passwd) "
                    "<https://auto.example/x> see https://bare.example/path. and javascript:alert(2) "
                    "![img](javascript:alert(3)) ![pic](https://img.example/p.png)")
    links = find(tree, "a")
    hrefs = [a[1]["href"] for a in links]
    assert hrefs == ["https://example.com/a?b=1", "mailto:a@b.c", "https://auto.example/x",
                     "https://bare.example/path", "https://img.example/p.png"], hrefs
    for a in links:
        assert a[1]["target"] == "_blank" and a[1]["rel"] == "noopener noreferrer"
    assert "bad" in text(tree) and "javascript:alert(2)" in text(tree)


def test_html_is_text(page):
    payload = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><svg onload=window.__xss=3>'
    tree = md(page, payload + "\n\n<b>bold?</b>")
    assert set(tags(tree)) == {"div", "p"}, tree
    assert payload in text(tree) and "<b>bold?</b>" in text(tree)
    assert page.evaluate("window.__xss") is None


def test_no_html_sinks_in_the_app():
    """No innerHTML/outerHTML/insertAdjacentHTML/document.write/eval anywhere in the app's code."""
    for path in conftest.ASSETS.glob("*.js"):
        source = path.read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
            assert sink not in source, (path.name, sink)
    html = (conftest.ASSETS / "index.html").read_text()
    assert not re.search(r"\son[a-z]+\s*=", html, re.I), "inline event handler"
    assert all("src=" in tag for tag in re.findall(r"<script[^>]*>", html)), "inline script"
    assert "style=" not in html and "<style" not in html


def test_diff_parsing(page):
    diff = ("diff --git a/src/app.py b/src/app.py\nindex 1..2 100644\n--- a/src/app.py\n+++ b/src/app.py\n"
            "@@ -1,2 +1,2 @@\n-old line\n+new line\n same\n"
            "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n")
    files = page.evaluate("async (d) => (await import('./diff-view.js')).parseDiff(d)", diff)
    assert [(f["path"], f["added"], f["removed"], f["status"]) for f in files] == [
        ("src/app.py", 1, 1, ""), ("new.txt", 1, 0, "added")]


def test_pairing_codes(page):
    got = page.evaluate("""async () => { const { normalizeCode } = await import('./pairing.js');
        return ['7k3qz-9m2xa', ' 7K3QZ 9M2XA ', 'OIL23-45678', 'short', '7K3QZ9M2XU'].map(normalizeCode); }""")
    assert got == ["7K3QZ9M2XA", "7K3QZ9M2XA", "01123456 78".replace(" ", ""), None, None]


def test_large_diff_files_start_collapsed(page):
    big = "diff --git a/big.txt b/big.txt\n--- a/big.txt\n+++ b/big.txt\n@@ -1,600 +1,600 @@\n" + "".join(f"+line {i}\n" for i in range(600))
    small = "diff --git a/small.txt b/small.txt\n--- a/small.txt\n+++ b/small.txt\n@@ -1 +1 @@\n-a\n+b\n"
    state = page.evaluate("""async (d) => { const { renderDiff } = await import('./diff-view.js');
        const el = renderDiff(d); document.body.append(el);
        const files = [...el.querySelectorAll('.diff-file')];
        const open = (f) => f.querySelector('.diff-toggle').getAttribute('aria-expanded') === 'true' && !f.querySelector('pre').hidden;
        const before = files.map(f => [open(f), f.querySelectorAll('.dl').length]);
        files[0].querySelector('.diff-toggle').click(); await new Promise(r => setTimeout(r, 50));
        return [before, files[0].querySelectorAll('.dl').length]; }""", big + small)
    (big_state, small_state), opened_lines = state
    assert big_state == [False, 0] and small_state == [True, 3]
    assert opened_lines == 601


def test_service_worker_precaches_every_file_the_app_loads():
    import re as _re
    sw = (conftest.ASSETS / "sw.js").read_text()
    shell = set(_re.findall(r"'([^']+)'", sw.split("const SHELL = [")[1].split("];")[0]))
    # trust.js belongs to the trust page, served only as plain HTTP on a TLS port (issue 27), where no worker runs.
    wanted = {p.name for p in conftest.ASSETS.glob("*.js") if p.name not in ("sw.js", "trust.js")} | {
        "index.html", "app.css", "manifest.webmanifest"}
    assert wanted <= shell, wanted - shell
    assert all((conftest.ASSETS / name).exists() for name in shell if name != "./")


def test_adversarial_markdown_renders_quickly(page):
    """Attacker-shaped input (unclosed delimiters, deep nesting, huge tables) must not hang the page."""
    timings = page.evaluate("""async () => {
        const { renderMarkdown } = await import('./markdown.js');
        const inputs = {
            stars: '*a '.repeat(20000), unders: '_a '.repeat(20000), brackets: '['.repeat(20000),
            brackets2: '[a]('.repeat(10000), backticks: '`a'.repeat(20000), nested: '> '.repeat(5000) + 'x',
            lists: Array.from({length: 3000}, (_, i) => ' '.repeat(i % 40) + '- item').join('\\n'),
            table: '| a | b |\\n|---|---|\\n' + '| 1 | 2 |\\n'.repeat(5000), links: '<http://x'.repeat(10000),
            emph: '**a *b ~~c '.repeat(8000), fences: '```\\n'.repeat(5000),
        };
        const out = {};
        for (const [name, text] of Object.entries(inputs)) {
            const t = performance.now(); renderMarkdown(text); out[name] = performance.now() - t;
        }
        return out;
    }""")
    slow = {k: round(v) for k, v in timings.items() if v > 1000}
    assert not slow, timings
