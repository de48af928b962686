"""What a research question asks for, as text: the sentences that describe wanted records.

Sentences that say what is *not* wanted would pull exactly those records up, and sentences that only say where
the records come from describe every candidate alike; both are dropped before any ranker reads the question.
"""

from __future__ import annotations

import re

from agentr_dagster.domain.text import clean_cell

__all__ = ["SENTENCE_SPLIT", "clean_question", "question_sentences", "topic_sentences"]

SENTENCE_SPLIT = re.compile(r"(?<=[.?!;])\s+")
# Two sentences glued without a space, as abstracts exported without their headings often are ("dementia.We
# systematically reviewed", "(p = 0.01).Glutamine"): a stop after two letters, digits or brackets, before a
# capitalised word ("i.e.The", "U.S.A" stay whole).
_GLUED = re.compile(r"(?<=[A-Za-z0-9)\]]{2}[.?!])(?=[A-Z][a-z])")
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


def _sentences(text: str) -> list[str]:
    return [s for part in SENTENCE_SPLIT.split(text) for s in _GLUED.split(part) if s.strip()]


def clean_question(question: str) -> str:
    """Drop sentences that describe what is *not* wanted (they would attract exactly those records)."""
    text = clean_cell(question)
    sents = _sentences(text)
    kept = [s for s in sents if not _NEGATIVE_CUE.search(s)]
    return " ".join(kept) if kept else text


def question_sentences(question: str) -> list[str]:
    """The question's sentences that say what is wanted: no negative criteria, no provenance sentences."""
    sents = _sentences(clean_question(question))
    kept = [s for s in sents if not _PROVENANCE.search(s)]
    return kept or sents


# An abstract's aim sentence, by its structure rather than its words:
# * a heading ("Objective:", "Aims.", "OBJECTIVE", glued "ObjectiveThis study ..."); case-sensitive, so that
#   "Purposeful" is none;
_AIM_HEADING = re.compile(
    r"^(?:[Oo]bjectives?|[Aa]ims?|[Pp]urposes?|[Gg]oals?|OBJECTIVES?|AIMS?|PURPOSES?|GOALS?)(?![a-z])"
)
# * the review itself as the subject of an aim verb: "this review aims to", "this scoping review maps", "the
#   present meta-analysis examined", "this paper describes a systematic review";
_WORK = r"(?:review|overview|study|paper|article|report|analysis|meta-analysis|synthesis|map|mapping)"
_AIM_TO = r"(?:aim(?:s|ed)?|seeks?|sought|sets? out|intend(?:s|ed)?|attempt(?:s|ed)?) to"
_AIM_ACT = (  # the verbs of a review's aim, any inflection ("maps", "examined", "summarizes", "quantified")
    r"(?:map|examin|explor|investigat|assess|evaluat|summari[sz]|synthesi[sz]|describ|review|compar|quantif|"
    r"characteri[sz]|apprais|address|determin|estimat|updat)(?:e|es|ed|s|ped|ies|ied|y)?"
)
_AIM_VERB = rf"(?:{_AIM_TO}|{_AIM_ACT})"
_WORK_SUBJECT = rf"\b(?:this|the present|the current|our) (?:[\w-]+ ){{0,3}}?{_WORK}s?\s+(?:\w+ly\s+)?(?:{_AIM_VERB})\b"
# * a review done "to" something: "a systematic review ... was conducted to", "this review was undertaken to";
_WORK_DONE_TO = (
    rf"\b(?:an?|this|the present|the current|our) (?:[\w-]+ ){{0,3}}?{_WORK}s?\b[^.;:]{{0,80}}?"
    r"\b(?:was|were|is|has been) (?:conducted|performed|undertaken|carried out|designed|done) to\b"
)
# * "we" and an aim or a review verb: "we aimed to", "we systematically reviewed", "here we investigate",
#   "we conducted a scoping review of/to";
_WE = (
    r"\bwe (?:\w+ly )?(?:(?:aim(?:ed)?|seek|sought|set out|intend(?:ed)?|attempt(?:ed)?) to|"
    r"(?:review|map|synthesi[sz]e|summari[sz]e|investigate|explore|examine|focus)(?:d|ed|ped|s|es)?\b|"
    r"(?:conduct(?:ed)?|perform(?:ed)?|undert(?:ake|ook)|carr(?:y|ied) out|did|present|report|describe) (?:an?|our) "
    r"(?:[\w-]+ ){0,3}?(?:review|meta-analysis|synthesis|overview|mapping))"
)
# * "the aim of this review was/is", "our objective was to", "the purpose of the present study";
_AIM_NOUN = (
    r"\b(?:the|our) (?:\w+ )?(?:aims?|objectives?|purposes?|goals?) "
    rf"(?:of (?:this|the present|the current|our) (?:[\w-]+ ){{0,3}}?{_WORK}s?\b|(?:was|is|were|are) to\b)"
)
# * an infinitive aim opening the sentence, as structured abstracts without headings write it: "To compare ...".
_TO_AIM = rf"^To (?:\w+ly )?{_AIM_ACT}\b"
_AIM_PHRASE = re.compile("|".join((_WORK_SUBJECT, _WORK_DONE_TO, _WE, _AIM_NOUN)), re.IGNORECASE)
_AIM_OPENING = re.compile(_TO_AIM)


def _is_aim(sent: str) -> bool:
    return bool(_AIM_HEADING.match(sent) or _AIM_PHRASE.search(sent) or _AIM_OPENING.match(sent))


def topic_sentences(question: str) -> list[str]:
    """What the text is about: its first sentence (a question's topic; an abstract's title) and, in an abstract,
    the sentences that state its aim, which the rankers weigh as the topic rather than as criteria."""
    sents = question_sentences(question)
    topic = sents[:1]
    for k in range(1, len(sents)):
        heading_alone = _AIM_HEADING.match(sents[k - 1]) and len(sents[k - 1].split()) == 1  # "Aims." then the aim
        if _is_aim(sents[k]) or (k > 1 and heading_alone):
            topic.append(sents[k])
    return topic
