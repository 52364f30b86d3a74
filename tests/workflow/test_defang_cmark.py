"""The fork flow's mention filter (ksnap_ci.defang) checked through the real
CommonMark renderer GitHub uses (cmark-gfm): a report.md made by a fork's
code must never make the bot @mention anybody, nor carry a second marker.

Each case is a bypass of the former line-toggle filter; the assertion is on
the HTML cmark-gfm renders, where GitHub looks for mentions (text outside
<code>, <pre> and <a>)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "ci" / "github" / "scripts"))
import ksnap_ci  # noqa: E402

CMARK = shutil.which("cmark-gfm")
needs_cmark = pytest.mark.skipif(CMARK is None, reason="cmark-gfm is not installed")


def render(markdown: str) -> str:
    """HTML as GitHub's renderer makes it (raw HTML kept: --unsafe)."""
    r = subprocess.run([CMARK, "--unsafe", "-e", "table", "-e", "autolink", "-e", "strikethrough",
                        "-e", "tagfilter"], input=markdown.encode(), capture_output=True, check=True)
    return r.stdout.decode()


class Mentions(HTMLParser):
    """Text GitHub would scan for @mentions: outside code, pre and links."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.skip = 0
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("code", "pre", "a"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in ("code", "pre", "a"):
            self.skip -= 1

    def handle_data(self, data):
        if self.skip == 0:
            self.found += re.findall(r"@[A-Za-z0-9][\w-]*", data)


def mentions(html: str) -> list[str]:
    p = Mentions()
    p.feed(html)
    return p.found


BYPASSES = {
    # ``` followed by a backtick is no fence (a paragraph with a code span).
    "backticks_that_are_no_fence": "x\n\n``` `a`\n@octo-admins\n```\n",
    # Four spaces: indented code, then a paragraph.
    "indented_fence": "x\n\n    ```\n@octo-admins\n    ```\n",
    # ~~~ inside ``` is content, not a toggle.
    "tildes_inside_backticks": "```\n~~~\n```\n@octo-admins\n~~~\n",
    # A lone backtick opens no span; the old filter skipped "`@".
    "unmatched_backtick": "see `@octo-admins now\n",
    # A character reference renders as "@".
    "entity": "&#64;octo-admins &#x40;octo-team &commat;octo-ops &#0064;octo-x\n",
    # Removing the inner marker once re-formed an outer one.
    "nested_marker": "<!-- ksnap-<!-- ksnap-ir-report -->ir-report -->\n@octo-admins\n",
    # Not line ends to CommonMark, line ends to str.splitlines.
    "unicode_line_separator": "x\n\n\u2028```\n@octo-admins\n```\n",
    # A fence inside raw HTML that spans blank lines is no fence.
    "fence_inside_raw_html": "<!--\n\n-->\n```\n@octo-admins\n```\n<pre>\n\n```\n</pre>\n@octo-y\n",
    # A fence inside an HTML block (type 6, until a blank line) is no fence.
    "fence_inside_html_block": "<div>\n```\n@octo-admins\n```\n</div>\n",
    # A fence opened in a quote ends with it: the next line is a paragraph.
    "fence_in_a_quote": "> ```\n@octo-admins\n> ```\n",
}


@needs_cmark
@pytest.mark.parametrize("name", sorted(BYPASSES))
def test_the_old_filter_was_bypassed_and_the_new_is_not(name):
    text = BYPASSES[name]
    out = ksnap_ci.defang(text)
    body = f"{ksnap_ci.MARKER}\n{out}"
    assert body.count(ksnap_ci.MARKER) == 1, out
    assert mentions(render(body)) == [], render(body)


@needs_cmark
def test_the_cases_reproduce_through_cmark():
    """Without the filter each case pings somebody (or re-forms the marker):
    the cases test something."""
    for name, text in BYPASSES.items():
        if name == "nested_marker":
            assert ksnap_ci.MARKER in text.replace(ksnap_ci.MARKER, "", 1)
        else:
            assert mentions(render(text)), name


@needs_cmark
def test_real_fenced_code_is_left_as_it_is():
    """The ksnap report's own IR blocks (LLVM @symbols) keep their text."""
    text = ("**IR changed.**\n\n<details><summary>add_kernel</summary>\n\n````diff\n"
            "-  tt.func @add_kernel(%a: i32)\n+  @x = global i32 0\n````\n\n</details>\n"
            "\n~~~\n@keep-in-tildes\n~~~\nA paragraph\n```\n@after-a-paragraph\n```\n")
    out = ksnap_ci.defang(text)
    assert "-  tt.func @add_kernel(%a: i32)\n" in out and "\n@keep-in-tildes\n" in out
    assert "\n@after-a-paragraph\n" in out  # a fence interrupts a paragraph
    html = render(out)
    assert "@add_kernel" in html and mentions(html) == []


@needs_cmark
def test_a_line_that_closes_the_fence_per_commonmark_ends_the_code():
    """Up to three spaces close a fence; the text after it is text again."""
    out = ksnap_ci.defang("```\ncode\n   ```\n@octo-admins\n")
    assert mentions(render(out)) == []
    out = ksnap_ci.defang("````\n```\n@still-code\n````\n@octo-admins\n")
    assert "\n@still-code\n" in out and mentions(render(out)) == []


def test_markers_are_removed_to_a_fixed_point():
    nested = "<!-- ksnap-" * 3 + ksnap_ci.MARKER + "ir-report -->" * 3
    assert ksnap_ci.MARKER not in ksnap_ci.defang(nested)
