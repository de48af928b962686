"""The text's sentences sorted: the question, eligibility, exclusion and provenance; an abstract's headings
and title."""

from __future__ import annotations

import re

from agentr_dagster.domain.specificity import general_zipf
from agentr_dagster.llm.offline.concepts.vocabulary import (
    _ANSWER_KINDS,
    _CLAUSE_CUT_RE,
    _DESIGN_WORDS,
    _ELIGIBILITY_RE,
    _EVIDENCE_KINDS,
    _EXCLUSION_ANY_RE,
    _EXCLUSION_START_RE,
    _FUNCTION,
    _GENETIC_FRAME_WORDS,
    _OUTCOMES_SENTENCE_RE,
    _PROVENANCE_RE,
    _STUDY_NOUNS,
    _WORD,
    DESIGN_TERMS,
    GENERIC_HEADS,
    META_WORDS,
    TOPIC_WORD_ZIPF,
    _sentences,
)
from agentr_dagster.llm.offline.concepts.who import names_animals

#: Section headings of a structured abstract, also glued to the next word ("ObjectiveThis paper ...").
_HEADINGS = (
    "background", "context", "introduction", "importance", "objectives?", "aims?", "purpose", "goals?",
    "methods?", "methodology", "design", "data sources", "sources", "study selection", "eligibility criteria",
    "data extraction", "data synthesis", "evidence review", "review methods", "settings?", "participants",
    "main outcome measures?", "results?", "findings", "conclusions?", "interpretation", "implications",
    "limitations", "discussion", "significance", "registration", "funding", "trial registration",
)  # fmt: skip


_GLUED_HEADING_RE = re.compile(r"\b(" + "|".join(h.capitalize() for h in _HEADINGS) + r")(?=[A-Z][a-z])")


#: "Methods: We ...", and the dash style of some journals ("Background.- Triptans ...", "Methods.—We ...").
_COLON_HEADING_RE = re.compile(r"(?:^|(?<=[.\s]))(" + "|".join(_HEADINGS) + r")\s*(?::\s+|\.\s?[-\u2013\u2014]\s*)",
                               re.I)


#: Headings after which the text reports what the review did or found, not what it is about.
_AFTER_TOPIC_HEADING_RE = re.compile(
    r"^(?:methods?|methodology|design|data sources|sources|study selection|eligibility criteria|data extraction|"
    r"data synthesis|evidence review|review methods|results?|findings|conclusions?|interpretation|implications|"
    r"limitations|discussion|significance|registration|funding|trial registration)$", re.I)


_AIM_HEADING_RE = re.compile(r"^(?:objectives?|aims?|purpose|goals?)$", re.I)


#: What the review itself did: registration, databases searched, screening, statistics. Never a topic.
_REVIEW_METHOD_RE = re.compile(
    r"\b(?:PROSPERO|CRD\s?\d{5,}|registered|registration|pre-?registered|protocol|searched|search(?:es|ed)? "
    r"(?:of|in|was|were|strateg\w*)|databases?|MEDLINE|Embase|PubMed|Cochrane|CINAHL|PsycINFO|PsycNET|"
    r"Web of Science|Scopus|Google Scholar|ERIC|reference lists?|hand-?search\w*|grey literature|"
    r"random[- ]effects?|fixed[- ]effects?|meta-?regression|meta-?analy[sz]\w*|pooled|heterogeneity|"
    r"risk of bias|GRADE|PRISMA|odds ratios?|hazard ratios?|risk ratios?|relative risks?|confidence intervals?|"
    r"\d+\s?% CI|\bCI\b|standardi[sz]ed mean differences?|mean differences?|effect sizes?|regression|"
    r"two (?:independent )?reviewers|independently|data (?:were|was) extracted|screened|quality assessment|"
    r"were included|studies included|included studies|were eligible|inclusion criteria|exclusion criteria|"
    r"English|language|peer-reviewed|full[- ]text|conference|abstracts? only|grey|dissertations?)\b",
    re.I,
)


_URL_RE = re.compile(r"https?://|\bdoi(?:\.org)?\b|\bwww\.", re.I)


#: Results and conclusions: numbers, or the review's verdict.
_RESULT_RE = re.compile(
    r"\d+(?:\.\d+)?\s?%|\b[Nn]\s?=\s?\d|\bp\s?[<=>]|\b\d+ (?:studies|trials|articles|papers|records|"
    r"participants|patients|cohorts)\b|\b(?:we found|results (?:show|suggest|indicate)|findings (?:show|suggest)|"
    r"evidence (?:is|was|suggests)|(?:further|more|future) research|there (?:is|was) (?:no|some|limited|little)|"
    r"was associated|were associated|did not|no (?:significant )?(?:difference|association)|"
    r"(?:in )?conclusion)\b",
    re.I,
)


#: Numbers an abstract reports and a question does not (a percentage, a statistic, a count of studies).
_REPORTED_NUMBERS_RE = re.compile(
    r"\d\s?%|\b(?:OR|RR|HR|CI|SMD|MD|k|n|N|I2|p)\s?[=<>]\s?\d|\b\d+ (?:studies|trials|articles|papers|records|"
    r"publications) (?:were|was|met|are)\b|\b(?:identified|included|selected) \d+\b")


#: A sentence that says what the review or paper is about (its aim), in an abstract. "aim" is the review's own
#: ("We aimed", "This review aims", "The aim of"), not what others aim at ("programmes now aim to cultivate it",
#: "interventions aimed at reducing X": a background sentence).
_AIM_RE = re.compile(
    r"(?:^|\b(?:the|our|its|main|primary|overall|specific|study|review|paper|article|analysis|work|research|"
    r"synthesis|survey|authors|we|it)\s+)"
    r"(?:aims?|aimed)\b|\baims? (?:of|was|were|is|are)\b|"
    r"\b(?:objectives?|purpose|goals?|we (?:sought|set out|wanted|asked)|research questions?|"
    r"(?:this|the present|our) (?:systematic |scoping |literature )?(?:review|meta-analysis|study|paper|article|"
    r"work)|to (?:determine|assess|evaluate|examine|investigate|identify|explore|compare|quantify|summari[sz]e|"
    r"review|synthesi[sz]e|estimate|describe|characteri[sz]e|establish|map)|we (?:\w+ly )?(?:investigated|examined|"
    r"reviewed|assessed|evaluated|explored|compared|propose|present|introduce|study|studied))\b",
    re.I,
)


#: A title's tail that names the kind of publication ("...: a systematic review and meta-analysis").
_TITLE_DESIGN_TAIL_RE = re.compile(
    r"[:\u2013\u2014-]\s*(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,3}(?:review|meta-?analy\w+|overview|evidence map|"
    r"survey|protocol|update)\b.*$", re.I)


#: What a review's kind in a title is of ("...: a systematic review of the X paradigm"): the subject, kept.
_KIND_OF_RE = re.compile(r"\b(?:review|meta-?analy\w+|overview|survey)\s+(?:of|on|into)\s+(?:the\s+)?(.+?)[.]?$", re.I)


_SYNTHESES_RE = re.compile(r"^(?:\w+\s+)?(?:reviews|meta-?analyses|overviews|literature)\b", re.I)


def _title_without_design(title: str) -> str:
    """A title without its closing "...: a systematic review" (its own kind), but with what a "review of X" names
    ("Animal models of depression: a systematic review of the chronic mild stress paradigm": the paradigm is the
    subject); not "of reviews" (a review of reviews) nor "of the literature"."""
    m = _TITLE_DESIGN_TAIL_RE.search(title)
    if m is None:
        return title
    of = _KIND_OF_RE.search(m.group(0))
    head = title[: m.start()].rstrip()
    if of and not _SYNTHESES_RE.match(of.group(1)) and head and _names_a_topic(of.group(1)):
        # the animals studied ("...: a meta-analysis of rodent studies") are a subtitle still, a chunk of their own
        # (:data:`_SUBTITLE_RE`), no variant of the head's last concept
        kept = of.group(1)
        if names_animals(kept):
            return f"{head}: {kept[:1].upper()}{kept[1:]}"
        if re.findall(_WORD, kept)[-1].casefold() not in _STUDY_NOUNS:
            return f"{head}: {kept}"
        # the kind of studies gathered ("...: a systematic review of pharmacokinetic interaction studies"): how the
        # studies were done, no variant of the head's last concept (``hypertens* OR pharmacokinetic*``)
    return head or title


#: What a review appraises of its subject, never a topic ("...: a systematic review of predictive performance").
_APPRAISED_PROPERTIES = frozenset(
    "performance accuracy validity reliability utility feasibility acceptability properties".split())


def _names_a_topic(phrase: str) -> bool:
    """The phrase names a topic, not the kind of studies or evidence reviewed ("candidate gene studies",
    "prospective cohort studies", "techniques and applications") nor a property appraised ("prognostic
    performance", "diagnostic accuracy": :data:`_APPRAISED_PROPERTIES`): a word rarer than
    :data:`TOPIC_WORD_ZIPF` that is no design, meta or evidence-kind word."""
    words = [w.casefold() for w in re.findall(_WORD, phrase)]
    if words[-1:] and words[-1] in _APPRAISED_PROPERTIES:
        return False
    topical = [w for w in words if w not in META_WORDS and w not in _DESIGN_WORDS and w not in _EVIDENCE_KINDS
               and w not in _ANSWER_KINDS and w not in _STUDY_NOUNS and w not in GENERIC_HEADS
               and w not in _FUNCTION and not any(w in t.split() for t in DESIGN_TERMS)
               and w not in _GENETIC_FRAME_WORDS]  # "genome-wide association and candidate gene studies"
    return any(general_zipf(w) < TOPIC_WORD_ZIPF for w in topical)


def _restore_headings(text: str) -> str:
    """Structured-abstract headings as sentences of their own ("ObjectiveThis paper" -> "Objective. This
    paper"; "Methods: We ..." -> "Methods. We ..."), and a sentence glued to the next ("dementia.We")."""
    text = _GLUED_HEADING_RE.sub(r"\1. ", text)
    text = _COLON_HEADING_RE.sub(lambda m: f" {m.group(1).capitalize()}. ", text)
    return re.sub(r"(?<=[A-Za-z0-9)\]]{2})([.?!])(?=[A-Z][a-z])", r"\1 ", text).strip()


def _heading(sentence: str) -> str | None:
    word = sentence.strip().rstrip(".:").casefold()
    return word if any(re.fullmatch(h, word) for h in _HEADINGS) else None


#: An abstract of this many sentences or more closes on its conclusion, never its aim (the last sentence index).
CLOSING_NO_AIM_AFTER = 4


def classify_sentences(text: str) -> tuple[list[str], list[str], list[str]]:
    """(topic sentences, eligibility sentences, dropped sentences/clauses) of a question or an abstract.

    What the review itself did (registration, databases searched, screening, statistics) is dropped in either.
    A question's topic is its question and other plain sentences; an abstract's topic is its first sentence
    (the title, or the opening) and the sentences that state its aim, never its methods, results or
    conclusions; the inclusion part of its sentences of which studies were taken is eligibility
    (:func:`_abstract_criteria`)."""
    text = _restore_headings(" ".join(text.split()))
    question = is_review_question(text)
    topic: list[str] = []
    eligibility: list[str] = []
    dropped: list[str] = []
    after_topic = False
    aim_heading = False  # under "Objective:" / "Aim:" the next sentence states the aim, whatever its words
    aims = 0
    criteria_heading = False  # under "Eligibility criteria:" the sentence says which studies were taken
    sentences = _sentences(text)
    for n, sentence in enumerate(sentences):
        heading = _heading(sentence)
        if heading is not None:
            after_topic = bool(_AFTER_TOPIC_HEADING_RE.match(heading))
            aim_heading = bool(_AIM_HEADING_RE.match(heading))
            criteria_heading = heading in ("eligibility criteria", "study selection")
            continue
        if not question and n > 0:
            criteria = _abstract_criteria(sentence, criteria_heading)
            if criteria:
                eligibility.append(criteria)
                dropped.append(sentence)
                continue
        if _PROVENANCE_RE.search(sentence) or _EXCLUSION_START_RE.search(sentence) or _EXCLUSION_ANY_RE.search(
            sentence
        ) or _URL_RE.search(sentence):
            dropped.append(sentence)
            continue
        if not question:
            if n == 0:
                sentence = _title_without_design(sentence)
            method = _REVIEW_METHOD_RE.search(sentence) and not (n == 0 and not _RESULT_RE.search(sentence))
            # the first aim sentence only
            # (under an aim heading only when the text has no title: a title already names the subject)
            # (not an unheaded abstract's closing sentence, its conclusion: "We propose a research agenda ...")
            aim = n > 0 and not aims and ((aim_heading and not topic) or bool(_AIM_RE.search(sentence)) and not (
                n == len(sentences) - 1 >= CLOSING_NO_AIM_AFTER))
            if after_topic or method or _RESULT_RE.search(sentence) or not (n == 0 or aim):
                dropped.append(sentence)
                continue
            aims += aim
        elif _REVIEW_METHOD_RE.search(sentence) and not sentence.rstrip().endswith("?") and not (
            _ELIGIBILITY_RE.search(sentence)
        ):
            dropped.append(sentence)
            continue
        cut = _CLAUSE_CUT_RE.search(sentence)
        if cut and cut.start() > 0:
            dropped.append(sentence[cut.start():].strip(" ,;"))
            sentence = sentence[: cut.start()]
        if _ELIGIBILITY_RE.search(sentence) or _OUTCOMES_SENTENCE_RE.search(sentence):
            eligibility.append(sentence)
        else:
            topic.append(sentence)
    if not topic and eligibility:
        topic, eligibility = eligibility[:1], eligibility[1:]
    return topic, eligibility, dropped


#: An abstract's sentence that says which studies were taken: its items are the variants studies write.
_ABSTRACT_INCLUSION_RE = re.compile(
    r"\b(?:were|was|are|being) (?:included|eligible|considered eligible|selected)\b|"
    r"\beligible (?:if|when|for inclusion)\b|\bwe included\b", re.I)

#: A sentence that counts what the review found ("Forty-two trials met the inclusion criteria.").
_COUNT_START_RE = re.compile(
    r"^\W*(?:results?\W+)?(?:\d[\d,]*|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|"
    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|a total of)\b)", re.I)

#: The language a review took its studies in ("articles in English"): no topic.
_LANGUAGE_RE = re.compile(r"\s*\b(?:published |written )?in (?:the )?English(?: language)?\b", re.I)

#: What such a sentence goes on to exclude ("...; reviews and editorials were excluded"): no variant.
_EXCLUSION_PART_RE = re.compile(
    r"\s*(?:;|, (?:and|but|while|whereas))\s.*?\b(?:excluded|not eligible|not included)\b.*$", re.I)


def _abstract_criteria(sentence: str, under_heading: bool) -> str:
    """The inclusion part of an abstract's sentence of which studies were taken ("Studies of A, B or C in D were
    included; reviews were excluded.", or any sentence under an "Eligibility criteria:" heading), "" for any other
    sentence and for a count of what was found ("Forty-two trials met the inclusion criteria"). Read as a
    question's eligibility sentence is (:func:`~.frames._read_eligibility`: its items add variants to the blocks
    they share a word with, never a block): a published abstract lists there the kinds and names its studies
    write ("suicidal ideation, self-harm, non-suicidal self-injury"), which its title and aim do not."""
    if _RESULT_RE.search(sentence) or _REPORTED_NUMBERS_RE.search(sentence) or _COUNT_START_RE.search(sentence):
        return ""
    kept = _LANGUAGE_RE.sub("", _EXCLUSION_PART_RE.sub("", _EXTRACTION_PART_RE.sub("", sentence))).strip()
    if _EXCLUSION_START_RE.search(kept) or _EXCLUSION_ANY_RE.search(kept):
        return ""
    if under_heading or _ABSTRACT_INCLUSION_RE.search(kept):
        return kept
    # where it searched, then for which studies ("MEDLINE was searched to 2022 for cohort studies of X"), or what
    # it took after the search ("We searched A and B and included trials of X")
    m = _SEARCHED_FOR_RE.search(kept)
    return kept[m.end():].strip() if m else ""


#: "... and data were extracted on X, Y and Z": what the review itself recorded of its studies (its method), no
#: kind of what they are about ("the fault detection evaluation" of metamorphic testing studies).
_EXTRACTION_PART_RE = re.compile(
    r"[,;]?\s*(?:\band\s+)?\b(?:(?:data|information)\s+(?:were|was)\s+(?:independently\s+)?extracted|"
    r"extract(?:ed|ing)\s+(?:the\s+)?(?:data|information))\b.*$", re.I)


#: "... searched ... for" / "... and included": what follows names the studies taken.
_SEARCHED_FOR_RE = re.compile(r"\bsearched\b.*?\bfor\b|\band (?:then )?included\b", re.I)


_PAPER_VOICE_RE = re.compile(
    r"\b(?:we|our) (?:propose|present|introduce|show|find|found|evaluate|report|results|approach|method)\b|"
    r"\b(?:this|the present) (?:paper|article|work)\b|\bresults (?:show|suggest|indicate)\b",
    re.I,
)


#: What a review reports having done, in the first person: an abstract's voice, never a question's.
_DONE_RE = re.compile(r"\bwe (?:\w+ly )?(?:searched|screened|included|identified|conducted|performed|extracted|"
                      r"pooled|synthesi[sz]ed)\b", re.I)


def is_review_question(text: str) -> bool:
    """A review question (a question, or Include / Exclude sentences), not an abstract: an abstract that says
    where its papers come from ("papers published between 1991 and 2011") is still an abstract."""
    text = " ".join(text.split())
    sentences = _sentences(text)
    if _GLUED_HEADING_RE.search(text) or _COLON_HEADING_RE.search(text) or _REPORTED_NUMBERS_RE.search(text):
        return False
    if _DONE_RE.search(text):
        return False  # a report of what was done ("we searched ...") is an abstract, whatever its eligibility
    if sentences and sentences[0].rstrip().endswith("?") and not _PAPER_VOICE_RE.search(text):
        return True
    return any(_ELIGIBILITY_RE.search(s) or _EXCLUSION_START_RE.search(s) for s in sentences)
