"""A paper's text as terms: the same words SQLite's FTS5 index sees, minus stopwords.

Tokens follow FTS5's `unicode61 remove_diacritics 2` tokenizer (letters and digits, case and
diacritics folded; anything else separates), so document frequencies can be read from the
library's full-text index (`similar_vocab`, an fts5vocab table) instead of being kept twice.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

# Letters and digits; "_" separates, as in unicode61 (it is punctuation, not a letter).
_TOKEN = re.compile(r"[^\W_]+")

# Words that carry no topic. idf already weighs them down, but in a small library (the first
# run's 150 sample papers) a stopword can be rare enough to look meaningful.
_STOPWORD_TEXT = """
    a about above across after again against all almost also although always am among an and
    another any are around as at be been before being below between both but by can cannot
    could did do does doing done down due during each either else enough etc even ever every
    few for from further had has have having he her here hers him his how however i if in into
    is it its itself just least less like many may me might more most much must my neither no
    nor not now of off often on once one only onto or other others our ours out over own per
    perhaps rather same several she should since so some still such than that the their theirs
    them then there these they this those though through thus to too two under until up upon
    us use used uses using very via was we well were what when where whether which while who
    whom whose why will with within without would yet you your
    paper propose proposed present presents show shows shown approach method methods new
    novel results result achieve achieves existing work based significantly significant
    furthermore moreover specifically respectively compared across different various first
    three key main via e g i e et al
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

TITLE_WEIGHT = 2  # a title or keyword word says more about the paper than an abstract word


def tokens(text: str) -> list[str]:
    """Lower-cased, diacritic-free tokens of `text`, as FTS5 would index them."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _TOKEN.findall(folded)


def is_term(token: str) -> bool:
    """Worth comparing papers by: not a stopword, not one character, not a bare number."""
    return len(token) > 1 and token not in STOPWORDS and not token.isdigit()


def term_counts(title: str, abstract: str, keywords: Iterable[str] = ()) -> Counter[str]:
    """How often each term occurs, title and keyword words counting TITLE_WEIGHT times."""
    counts: Counter[str] = Counter()
    for token in tokens(title):
        if is_term(token):
            counts[token] += TITLE_WEIGHT
    for keyword in keywords:
        for token in tokens(keyword):
            if is_term(token):
                counts[token] += TITLE_WEIGHT
    for token in tokens(abstract):
        if is_term(token):
            counts[token] += 1
    return counts
