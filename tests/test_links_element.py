"""The findings' links element: escaped HTML, real addresses, and only known pages and
parameters followed when a click reports one."""

from __future__ import annotations

from pathlib import Path

from html_links import finding_kinds, page_links
from streamlit.testing.v1 import AppTest

from dashboard.ui import diagnosis, links_element

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"
PAGES = ("contingency", "affinity", "points")
PARAMS = ("class", "cluster", "sid")


def test_an_anchor_carries_its_address_and_escapes_its_text():
    a = links_element.anchor(
        "contingency", "→ <b>x</b>", {"class": ["4", "a&b"], "sid": ["s1"]}, 'say "hi" <i>'
    )
    assert 'href="contingency?class=4&amp;class=a%26b&amp;sid=s1"' in a
    assert 'data-page="contingency"' in a
    assert "&lt;b&gt;x&lt;/b&gt;" in a and "<b>" not in a
    assert 'title="say &quot;hi&quot; &lt;i&gt;"' in a
    assert "&quot;class&quot;:[&quot;4&quot;,&quot;a&amp;b&quot;]" in a  # the query, as JSON


def test_a_finding_s_words_are_escaped():
    f = {
        "kind": "split", "points": 3, "cause": "unknown", "classes": ["<img src=x onerror=1>"],
        "clusters": ["1"], "text": "class <script>alert(1)</script> is split",
    }  # fmt: skip
    out = diagnosis.finding_html(f, "", {})
    assert "<script>" not in out and "<img" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert "class=%3Cimg+src%3Dx+onerror%3D1%3E" in out  # the class in the link's address


def test_only_known_pages_and_parameters_are_followed():
    ok = {"page": "points", "query": {"class": ["1"], "sid": ["abc"]}}
    assert links_element.target(ok, PAGES, PARAMS) == ("points", {"class": ["1"], "sid": ["abc"]})
    for bad in [
        None,
        "points",
        {"page": "../secret", "query": {}},
        {"page": "summary", "query": {}},
        {"page": "points", "query": {"evil": ["1"]}},
        {"page": "points", "query": {"class": "1"}},
        {"page": "points", "query": {"class": [1]}},
        {"page": "points", "query": ["class"]},
        {"page": "points"},
    ]:
        assert links_element.target(bad, PAGES, PARAMS) is None, bad


def test_summary_shows_its_findings_and_their_links_as_one_element():
    at = AppTest.from_file(str(APP), default_timeout=90).run()
    assert not at.exception
    elements = [e for e in at.get("bidi_component") if "page_links" in e.proto.component_name]
    assert len(elements) == 1 and not at.get("page_link")
    assert finding_kinds(at) == ["merge", "split", "misassignment"]
    links = page_links(at)
    assert [link.label for link in links[:3]] == ["→ Contingency", "→ Affinity", "→ Points"]
    assert all(link.help for link in links)
    # what a click reports is what the checks let through
    for link in links:
        clicked = {"page": link.page, "query": link.query}
        assert links_element.target(clicked, diagnosis.PAGE_OF, PARAMS) == (link.page, link.query)
