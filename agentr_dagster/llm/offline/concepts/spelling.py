"""Spelling variants of a term: American and British forms, checked against general English."""

from __future__ import annotations

import re

from agentr_dagster.domain.specificity import general_zipf
from agentr_dagster.domain.truncation import is_acronym as _is_acronym
from agentr_dagster.domain.word_class import word_classes
from agentr_dagster.llm.offline.concepts.model import _render
from agentr_dagster.llm.offline.concepts.vocabulary import _FUNCTION, _JOIN, _JOINING_PREFIXES, _LETTER_OPENED_RE

#: American -> British spellings (and back), as (pattern, replacement) on lower-case text.
_EMIA_RULE = r"(?<=[^aeiou])emi(?=[ac]|\*)"  # and the stem the two share ("ischemi*": truncation._ia_stem)


#: "fiber" / "fibre", "center" / "centre", "liter" / "litre"; "prioritisation" / "prioritization" (British "-is-"
#: back to "-iz-"): checked word by word against general English, since "water" or "promise" have no other form.
_AMERICAN_ER_RULE = r"(?<=[a-z]{2}[bt])er(?=s?\b|s?\*)"


_BRITISH_RE_RULE = r"(?<=[a-z]{2}[bt])re(?=s?\b|s?\*)"


_BRITISH_IS_RULE = r"(?<=[a-z]{3})is(?=e|es|ed|ing|ation|ations|\*)"


#: "enrollment" / "enrolment", "installment" / "instalment", "fulfillment" / "fulfilment": American doubles the "l"
#: before "-ment" (checked word by word too: "element", "almond" have no other form).
_AMERICAN_LLMENT_RULE = r"(?<=[aeiou])llm(?=ent|\*)"


_BRITISH_LMENT_RULE = r"(?<=[aeiou])lm(?=ent|\*)"


#: "modelling" / "modeling", "counselling" / "counseling", "labelled" / "labeled": British doubles a closing "l"
#: after an unstressed vowel (a vowel, consonants and a vowel before it) before "-ing", "-ed", "-er"; checked word by
#: word ("filled" is no "filed": one vowel before it; "controlled" has no English "controled").
_BRITISH_LL_RULE = r"([aeiou][^aeiou\W\d]{1,3}[aeiou])ll(?=(?:ing|ed|er|ers)\b)"


_AMERICAN_L_RULE = r"([aeiou][^aeiou\W\d]{1,3}[aeiou])l(?=(?:ing|ed|er|ers)\b)"


#: The respelled word must be this common in general English (Zipf): "fibre" 3.6, "centre" 4.9; not "watre".
RESPELLING_KNOWN_ZIPF = 2.5


#: An American "-emia" / "-emic" word whose general-English Zipf is at least this, and whose British form English
#: does not know, is another word ("systemic", "academic", "epidemic", "chemical"), not a blood word ("anemia").
EMIA_KNOWN_ZIPF = 2.5


_SPELLING_RULES = (
    (_EMIA_RULE, "aemi"), (r"\besophag", "oesophag"), (r"(?<=gastro)esophag", "-oesophag"),
    (r"\bedema", "oedema"), (r"\bpediatr", "paediatr"), (r"\banesth", "anaesth"), (r"\bhem(?=[ao])", "haem"),
    (r"\bhemorrh", "haemorrh"), (r"(?<=[a-z])or\b", "our"), (r"(?<=behavi)or", "our"), (r"(?<=tum)or", "our"),
    # "-ize" words only ("organization", "randomized"; not "citizen")
    (r"(?<=[a-z]{3})iz(?=(?:e|es|ed|ing|ation|ations|ational|er|ers)\b|(?:e|ation)?\*)", "is"),
    (r"(?<=random)iz", "is"), (r"\bsulf", "sulph"),
    (r"\bestr(?=ogen|adiol|iol|ous)", "oestr"), (r"\bfet(?=al\b|us\b|uses\b|al\*|us\*)", "foet"),
    (r"(?<=rrh)ea\b", "oea"), (r"(?<=pn)ea\b", "oea"), (r"\bgynec", "gynaec"), (r"\borthoped", "orthopaed"),
    (r"\bceliac", "coeliac"), (r"\betiolog", "aetiolog"), (r"\bcesarean", "caesarean"),
    (_AMERICAN_ER_RULE, "re"), (r"\baging", "ageing"), (_AMERICAN_LLMENT_RULE, "lm"),
    (_AMERICAN_L_RULE, r"\1ll"),
)  # fmt: skip


_BRITISH_BACK = (
    (r"aemi", "emi"), (r"\boesophag", "esophag"), (r"-oesophag", "esophag"), (r"\boedema", "edema"),
    (r"\bpaediatr", "pediatr"), (r"\banaesth", "anesth"), (r"\bhaem", "hem"), (r"(?<=behavi)our", "or"),
    (r"(?<=tum)our", "or"), (r"(?<=random)is", "iz"), (r"\bsulph", "sulf"),
    (r"\boestr", "estr"), (r"\bfoet", "fet"), (r"(?<=rrh)oea\b", "ea"), (r"(?<=pn)oea\b", "ea"),
    (r"\bgynaec", "gynec"), (r"\borthopaed", "orthoped"), (r"\bcoeliac", "celiac"), (r"\baetiolog", "etiolog"),
    (r"\bcaesarean", "cesarean"), (_BRITISH_RE_RULE, "er"), (_BRITISH_IS_RULE, "iz"), (r"\bageing", "aging"),
    (r"\bprogramme(?=s?\b|s?\*)", "program"), (_BRITISH_LMENT_RULE, "llm"),
    (_BRITISH_LL_RULE, r"\1l"),
)  # fmt: skip


#: The rules applied word by word, only where English knows the other form (:func:`_known_respelling`).
_CHECKED_RULES = frozenset(
    {_AMERICAN_ER_RULE, _BRITISH_RE_RULE, _BRITISH_IS_RULE, _AMERICAN_LLMENT_RULE, _BRITISH_LMENT_RULE,
     _BRITISH_LL_RULE, _AMERICAN_L_RULE})


_SPELLING_SAFE_OR = frozenset("behavior tumor color colour humor labor labour favor neighbor".split())


def _spelling_variants(core: str) -> list[str]:
    low = core.casefold() if not any(_is_acronym(w) for w in core.split()) else core
    out = []
    for rules in (_SPELLING_RULES, _BRITISH_BACK):
        variant = low
        for pattern, repl in rules:
            if pattern == r"(?<=[a-z])or\b" and not any(w.rstrip("*s") in _SPELLING_SAFE_OR for w in low.split()):
                continue
            if pattern == _EMIA_RULE:
                variant = " ".join(re.sub(pattern, repl, w) if _blood_word(w) else w for w in variant.split(" "))
                continue
            if pattern in _CHECKED_RULES:
                variant = " ".join(_known_respelling(w, pattern, repl) for w in variant.split(" "))
                continue
            variant = re.sub(pattern, repl, variant)
        if variant != low:
            out.append(variant)
    return out


def _known_respelling(word: str, pattern: str, repl: str) -> str:
    """``word`` respelled by one rule where general English knows the result (a stem: one of its usual endings),
    else as written."""
    other = re.sub(pattern, repl, word)
    if other == word:
        return word
    core = other.rstrip("*")
    forms = [core + e for e in ("", "e", "s", "ation", "ing", "ed", "ent")] if other.endswith("*") else [core]
    return other if max(general_zipf(f) for f in forms) >= RESPELLING_KNOWN_ZIPF else word


def _blood_word(word: str) -> bool:
    """``word`` spelled "-aemia" / "-aemic" in British English: English knows that form ("anaemia", "ischaemic"),
    or the American one is rare (a technical word: "hypoxemia"); not "systemic" or "academic"."""
    core = word.strip('"-')
    core = core[:-1] + "a" if core.endswith("emi*") else core.rstrip("*")  # the stem judged as its "-emia" noun
    british = re.sub(_EMIA_RULE, "aemi", core)
    return british != core and (general_zipf(british) > 0 or general_zipf(core) < EMIA_KNOWN_ZIPF)


_ROMAN = {"1": "I", "2": "II", "3": "III", "4": "IV"}


def _spellings(term: str) -> list[str]:
    """A term with its other spellings: a hyphenated compound spaced and joined ("charged-particle" ->
    "charged particle", chargedparticle; "COX-2" -> "COX 2", COX2), and American / British forms
    (hypoglycemic / hypoglycaemic, esophagitis / oesophagitis, behavior / behaviour, randomized / randomised)."""
    core = term.strip('"')
    if core.startswith("("):  # words AND-ed, each spelled already (:func:`_head_alone`)
        return [term]
    forms = [core]
    if "-" in core.strip("-*"):
        # the spaced form is a phrase: no wildcard inside quotes ("non stimulant" still matches its plural); not
        # after a single letter ("e-learning": "e learning" sits inside "the learning" for a substring matcher)
        if not _LETTER_OPENED_RE.search(core):
            forms.append(" ".join(core.replace("-", " ").split()).rstrip("*"))
        left, _, right = core.partition("-")
        if right[:1].isdigit():  # "COX2"
            forms.append(core.replace("-", ""))
        # "nonstimulant", not "betaadrenergic": a prefix closes up with its own word only ("nonsuicidal
        # self-injury", not "nonsuicidal selfinjury")
        parts = core.split(" ")
        # a compound around a function word is spaced on its own ("health-related quality of life")
        spaced = [w.replace("-", " ") if any(p.casefold() in _FUNCTION for p in w.split("-")[1:-1]) else w
                  for w in parts]
        if spaced != parts and any("-" in w for w in spaced):
            forms.append(" ".join(spaced).rstrip("*"))
        prefixed = [i for i, w in enumerate(parts) if w.partition("-")[0].casefold() in _JOINING_PREFIXES]
        for i in prefixed:
            forms.append(" ".join([*parts[:i], parts[i].replace("-", "", 1), *parts[i + 1:]]))
        if len(prefixed) > 1:  # "nonsteroidal antiinflammatory drugs"
            forms.append(" ".join(w.replace("-", "", 1) if i in prefixed else w for i, w in enumerate(parts)))
    words = core.split(" ")
    if '"' in term and "*" not in core:
        # a small number after a word is also written hyphenated and as a Roman numeral ("type 2 diabetes",
        # "type-2 diabetes", "type II diabetes"; "phase 3" / "phase III")
        for i in range(1, len(words)):
            if words[i] in _ROMAN and words[i - 1].isalpha() and words[i - 1].islower():
                before, after = words[: i - 1], words[i + 1:]
                forms += [" ".join([*before, f"{words[i - 1]}-{words[i]}", *after]),
                          " ".join([*before, words[i - 1], _ROMAN[words[i]], *after])]
                break
    if (len(words) == 2 and words[1].casefold().endswith("ing") and words[0].isalpha()
            and not words[0].casefold().endswith("ing") and _JOIN not in core):
        # a noun and a gerund are written hyphenated as often as not ("decision making" / "decision-making")
        forms.append("-".join(words))
    forms += [v for f in list(forms) for v in _spelling_variants(f)]
    if len(words) >= 2 and '"' in term and "*" not in core and _JOIN not in core:
        # a noun modifier is also written as its "-al" adjective ("spine surgery" / "spinal surgery")
        for i, w in enumerate(words[:-1]):
            low = w.casefold()
            adjective = next((a for a in (low + "al", low[:-1] + "al" if low.endswith("e") else "")
                              if a and "ADJ" in word_classes(a)), "")
            if adjective and word_classes(low) == {"NOUN"}:
                forms.append(" ".join([*words[:i], adjective, *words[i + 1:]]))
    return _dedupe_plain([term] + [_render(f) for f in forms[1:]])


def _dedupe_plain(terms: list[str]) -> list[str]:
    out: list[str] = []
    for t in terms:
        if t and t.casefold() not in {o.casefold() for o in out}:
            out.append(t)
    return out
