"""What a research question asks for, as text: the sentences that describe wanted records.

Sentences that say what is *not* wanted would pull exactly those records up, and sentences that only say where
the records come from describe every candidate alike; both are dropped before any ranker reads the question.
"""

from __future__ import annotations

import re

from agentr_dagster.domain.text import clean_cell

__all__ = ["SENTENCE_SPLIT", "clean_question", "question_sentences", "topic_sentences"]

SENTENCE_SPLIT = re.compile(r"(?<=[.?!;])\s+")
# Sentences of a question that describe what is NOT wanted: their words would pull excluded records up.
_NEGATIVE_CUE = re.compile(
    r"\b(not relevant|irrelevant|are not (?:eligible|included|relevant|wanted)|(?:are|were|is) excluded|"
    r"exclusion criteria|we exclude|excluding|not of interest)\b",
    re.IGNORECASE,
)
# Sentences that only say where the records come from (data set, collection, review project): their words
# (project names, "records", "collection") describe every candidate alike and only add noise to the query.
_PROVENANCE = re.compile(
    r"\b(?:records? (?:come|came|were (?:retrieved|drawn|collected)|are (?:drawn|taken))|test collection|"
    r"data ?set|collection of (?:records|citations)|source of the records)\b",
    re.IGNORECASE,
)


def clean_question(question: str) -> str:
    """Drop sentences that describe what is *not* wanted (they would attract exactly those records)."""
    text = clean_cell(question)
    sents = [s for s in SENTENCE_SPLIT.split(text) if s.strip()]
    kept = [s for s in sents if not _NEGATIVE_CUE.search(s)]
    return " ".join(kept) if kept else text


def question_sentences(question: str) -> list[str]:
    """The question's sentences that say what is wanted: no negative criteria, no provenance sentences."""
    sents = [s for s in SENTENCE_SPLIT.split(clean_question(question)) if s.strip()]
    kept = [s for s in sents if not _PROVENANCE.search(s)]
    return kept or sents


# An abstract's aim sentence: a heading ("Objective:", "Aims.", "OBJECTIVE", glued "ObjectiveThis study ..."), or
# "we aimed to" / "this review aims to" / "the aim of this study was to". Case-sensitive heading: "Purposeful" is none.
_AIM_HEADING = re.compile(
    r"^(?:[Oo]bjectives?|[Aa]ims?|[Pp]urposes?|[Gg]oals?|OBJECTIVES?|AIMS?|PURPOSES?|GOALS?)(?![a-z])"
)
_AIM_PHRASE = re.compile(
    r"\b(?:we|(?:this|the present|our) (?:[\w-]+ ){0,2}(?:review|study|paper|analysis|meta-analysis))\s+"
    r"(?:aim(?:s|ed)?|sought|set out|intend(?:s|ed)?)\s+to\b|"
    r"\bthe (?:aim|objective|purpose|goal)s? of (?:this|the present|our) (?:[\w-]+ ){0,2}(?:review|study|paper)\s+"
    r"(?:was|is|were|are)\s+to\b",
    re.IGNORECASE,
)


def topic_sentences(question: str) -> list[str]:
    """What the text is about: its first sentence (a question's topic; an abstract's title) and, in an abstract,
    the sentences that state its aim, which the rankers weigh as the topic rather than as criteria."""
    sents = question_sentences(question)
    topic = sents[:1]
    for k in range(1, len(sents)):
        heading_alone = _AIM_HEADING.match(sents[k - 1]) and len(sents[k - 1].split()) == 1  # "Aims." then the aim
        if _AIM_HEADING.match(sents[k]) or _AIM_PHRASE.search(sents[k]) or (k > 1 and heading_alone):
            topic.append(sents[k])
    return topic
