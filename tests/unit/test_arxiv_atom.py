"""Reading arXiv API Atom pages: fields, paging figures, the API's error entry, and refusing
untrusted XML (DTDs, entities, oversize, not UTF-8) before it is parsed."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from hypothesis import given
from hypothesis import strategies as st

from digest_tui.errors import FeedFormatError, FetchError
from digest_tui.sources import arxiv_atom
from digest_tui.sources.arxiv_atom import check_untrusted, parse_feed

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "arxiv"
LABEL = "GET http://127.0.0.1/api/query?start=0 (page 0)"


def read(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def feed(*entries: str, head: str = "") -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">' + head + "".join(entries) + "</feed>"
    ).encode()


def entry(
    ident: str = "http://arxiv.org/abs/2506.00001v1",
    title: str = "A Title",
    published: str = "2025-06-04T10:00:00Z",
    extra: str = "",
) -> str:
    parts = [f"<id>{ident}</id>" if ident else ""]
    parts.append(f"<title>{title}</title>" if title else "")
    parts.append(f"<published>{published}</published>" if published else "")
    return "<entry>" + "".join(parts) + "<summary>An abstract.</summary>" + extra + "</entry>"


def test_a_recorded_page_gives_every_field():
    page = parse_feed(read("cs.DC_2025-06-04.xml"), LABEL)
    assert (page.total, page.start, page.per_page, page.count) == (4, 0, 100, 4)
    assert page.warnings == []
    first = page.entries[0]
    # The version suffix is not part of the id; it is kept beside it.
    assert (first.arxiv_id, first.version) == ("2506.09101", 2)
    # Hard-wrapped title and abstract come out as one line each.
    assert (
        first.title == "PagedSpec: Speculative Decoding over a Paged KV Cache (synthetic fixture)"
    )
    assert first.abstract.startswith("Speculative decoding drafts several tokens")
    assert "\n" not in first.abstract and "  " not in first.abstract
    assert r"$1.9\times$" in first.abstract  # LaTeX stays as written
    assert first.published == dt.datetime(2025, 6, 4, 17, 8, 18, tzinfo=dt.UTC)
    assert first.updated == dt.datetime(2025, 6, 6, 8, 30, tzinfo=dt.UTC)
    assert first.authors == ("Ana Lindqvist", "Rohan Mehta")
    assert first.primary_category == "cs.DC"
    assert first.categories == ("cs.DC", "cs.LG")
    assert [e.arxiv_id for e in page.entries] == [
        "2506.09101",
        "2506.03921",
        "2506.03877",
        "2506.03802",
    ]


def test_the_primary_category_comes_first_even_when_listed_later():
    extra = (
        '<category term="cs.LG"/><category term="cs.DC"/>'
        '<arxiv:primary_category term="cs.DC"/><category term="cs.LG"/>'
    )
    page = parse_feed(feed(entry(extra=extra)), LABEL)
    assert page.entries[0].categories == ("cs.DC", "cs.LG")


def test_markup_in_titles_and_abstracts_is_text():
    page = parse_feed(read("cs.DC_2025-06-04.xml"), LABEL)
    markup = page.entries[3]
    assert markup.title.startswith("<b>Markup</b> [bold red]in[/bold red] a Title")
    assert "<script>alert(1)</script>" in markup.abstract
    assert "[link=file:///etc/passwd]links[/link]" in markup.abstract


def test_a_child_element_inside_a_title_is_read_as_its_text():
    page = parse_feed(feed(entry(title='Fast <b xmlns="urn:x">GPU</b> Kernels')), LABEL)
    assert page.entries[0].title == "Fast GPU Kernels"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Cn")), min_size=1))
def test_any_title_text_comes_back_as_the_same_words(text):
    expected = " ".join(text.split())
    page = parse_feed(feed(entry(title=escape(text))), LABEL)
    if expected:
        assert page.entries[0].title == expected
    else:  # only whitespace: no title, so the entry is left out with a warning
        assert page.entries == [] and "title: missing" in page.warnings[0].message


def test_unusable_entries_are_skipped_with_the_field_named():
    page = parse_feed(
        feed(
            entry(),
            entry(ident=""),
            entry(ident="http://example.com/paper/1"),
            entry(ident="http://arxiv.org/abs/2506.00002v1", title=""),
            entry(ident="http://arxiv.org/abs/2506.00003v1", published="yesterday"),
            entry(ident="https://arxiv.org/abs/hep-th/9901001v3"),
        ),
        LABEL,
    )
    assert [e.arxiv_id for e in page.entries] == ["2506.00001", "hep-th/9901001"]
    assert page.count == 6
    messages = [str(w) for w in page.warnings]
    assert messages == [
        f"{LABEL}: entry 1: id: missing; skipped",
        f"{LABEL}: entry 2: id: 'http://example.com/paper/1' is not an arXiv abstract URL; skipped",
        f"{LABEL}: entry 3: title: missing (2506.00002); skipped",
        f"{LABEL}: entry 4: published: missing or not an ISO time (2506.00003); skipped",
    ]


def test_paging_figures_that_are_not_small_counts_are_ignored():
    head = (
        f"<opensearch:totalResults>{'9' * 5000}</opensearch:totalResults>"
        "<opensearch:startIndex>-3</opensearch:startIndex>"
    )
    page = parse_feed(feed(entry(), head=head), LABEL)
    assert (page.total, page.start, page.per_page) == (None, None, None)


def test_the_api_error_entry_is_an_error_naming_the_page_and_the_reason():
    with pytest.raises(FeedFormatError) as caught:
        parse_feed(read("error_bad_query.xml"), LABEL)
    assert str(caught.value) == (
        f"{LABEL}: the arXiv API reports an error: start must be non-negative"
    )
    assert isinstance(caught.value, FetchError) and caught.value.exit_status == 1


@pytest.mark.timeout(10)
def test_a_billion_laughs_body_is_refused_before_parsing(monkeypatch):
    body = read("billion_laughs.xml")

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the parser saw a body with a DTD")

    monkeypatch.setattr(arxiv_atom.ET, "fromstring", never)
    with pytest.raises(FeedFormatError, match="refused: the answer declares a DOCTYPE"):
        parse_feed(body, LABEL)


@pytest.mark.parametrize(
    "declaration",
    [
        b'<!doctype feed SYSTEM "file:///etc/passwd">',
        b'<! DOCTYPE feed [ <!ENTITY x "y"> ]>',
        b'<!ENTITY x SYSTEM "http://127.0.0.1/">',
    ],
)
def test_every_spelling_of_a_declaration_is_refused(declaration):
    body = b'<?xml version="1.0"?>' + declaration + feed(entry()).split(b"?>", 1)[1]
    with pytest.raises(FeedFormatError, match="refused"):
        parse_feed(body, LABEL)


def test_a_declaration_hidden_in_utf16_is_refused_as_not_utf8():
    body = '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE x [<!ENTITY a "b">]><feed/>'
    with pytest.raises(FeedFormatError):
        parse_feed(body.encode("utf-16"), LABEL)
    with pytest.raises(FeedFormatError, match="NUL bytes"):
        parse_feed(body.encode("utf-16-le"), LABEL)


def test_oversize_and_non_xml_answers_are_errors_naming_the_page(monkeypatch):
    monkeypatch.setattr(arxiv_atom, "MAX_FEED_BYTES", 1000)
    with pytest.raises(FeedFormatError, match=r"answer of 1,001 bytes is over the 1,000-byte"):
        check_untrusted(b"x" * 1001, LABEL)
    with pytest.raises(FeedFormatError, match=r"not XML .*'Rate exceeded.'"):
        parse_feed(b"Rate exceeded.", LABEL)
    with pytest.raises(FeedFormatError, match="not an Atom feed \\(root element 'rss'\\)"):
        parse_feed(b"<rss><channel/></rss>", LABEL)
    with pytest.raises(FeedFormatError, match="not UTF-8"):
        parse_feed(b"<feed>\xff</feed>", LABEL)
