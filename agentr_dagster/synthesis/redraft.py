"""With an LLM configured: every paragraph of the extractive draft is rewritten through the gateway (priced,
cached, validated like any other stage call), then checked by the deterministic validator. Failing paragraphs
are re-drafted one at a time with the validator's findings fed back, a bounded number of rounds; a paragraph
that still fails keeps its extractive version, which passes by construction. The rest are left alone (DAS:
scoped repair; the latest valid version is retained)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Protocol

from pydantic import StringConstraints

from agentr_dagster.domain.calls import CallContext
from agentr_dagster.domain.contracts import Strict
from agentr_dagster.domain.failures import FailureClass, StageError
from agentr_dagster.domain.prompts import load_prompt
from agentr_dagster.synthesis.draft import md_unescape
from agentr_dagster.synthesis.models import Draft, Evidence, Paragraph, Section, Sentence
from agentr_dagster.synthesis.validate import (
    is_literature_claim,
    normalise_markdown_citations,
    normalised_keys,
    split_sentences,
    validate_paragraph,
)

STAGE = "related_work"
MAX_ROUNDS = 2  # re-draft rounds after the first draft of each paragraph


class ParagraphDraft(Strict):
    paragraph: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]


class ParagraphWriter(Protocol):
    model: str
    label: str

    def write(self, section: Section, paragraph: Paragraph, feedback: list[str], ctx: CallContext,
              previous: str | None = None, attempt: int = 1) -> str: ...


def facts_of(paragraph: Paragraph) -> str:
    """The extractive sentences as the facts a model may use, in plain text with their citations."""
    return "\n".join(f"- {md_unescape(s.text)}" for s in paragraph.sentences)


def allowed_keys(paragraph: Paragraph) -> list[str]:
    """A rewritten paragraph may cite exactly the papers its extractive version cites."""
    keys: list[str] = []
    for sentence in paragraph.sentences:
        keys += [k for k in sentence.cites if k not in keys]
    return keys


class GatewayParagraphWriter:
    """Paragraph rewrites through the one LLM gateway (cache, orphan check, credits, repair, classification)."""

    def __init__(self, gateway):
        self.gateway = gateway
        self.model = gateway.model
        self.label = f"llm: {gateway.model} at {gateway.settings.base_url}"

    def write(self, section: Section, paragraph: Paragraph, feedback: list[str], ctx: CallContext,
              previous: str | None = None, attempt: int = 1) -> str:
        # The attempt number and the previous text make every re-draft a new request: an identical one would be
        # answered from the response cache with the same failing paragraph.
        note = ("This is the first attempt." if not feedback else
                f"Attempt {attempt}. Your previous version of this paragraph was:\n{previous or ''}\n"
                "It failed validation:\n" + "\n".join(f"- {f}" for f in feedback)
                + "\nWrite it again and fix exactly these problems.")
        messages = load_prompt(STAGE).render(
            section_title=section.title, section_kind=section.kind, keys=", ".join(allowed_keys(paragraph)),
            facts=facts_of(paragraph), feedback=note,
        )
        return self.gateway.complete(STAGE, messages, ParagraphDraft, ctx).paragraph


@dataclass
class _Attempt:
    text: str
    issues: list
    attempts: int


def paragraph_from_text(paragraph: Paragraph, text: str, origin: str) -> Paragraph:
    """A rewritten paragraph as sentences; each sentence's evidence is the extractive evidence for the papers
    it cites (so a claim still points at the score fields it rests on)."""
    by_key: dict[str, dict[int, Evidence]] = {}
    for sentence in paragraph.sentences:
        for ev in sentence.evidence:
            merged = by_key.setdefault(ev.key, {}).setdefault(
                ev.result_id or 0, Evidence(paper_id=ev.paper_id, key=ev.key, result_id=ev.result_id, fields={}))
            merged.fields.update(ev.fields)
    sentences = []
    for j, chunk in enumerate(split_sentences(normalise_markdown_citations(" ".join(text.split()))), start=1):
        keys = normalised_keys(chunk)
        evidence = [ev for k in dict.fromkeys(keys) for ev in by_key.get(k, {}).values()]
        sentences.append(Sentence(id=f"{paragraph.id}.s{j}", text=chunk, cites=keys,
                                  claim=is_literature_claim(chunk), evidence=evidence))
    return paragraph.model_copy(update={"sentences": sentences, "origin": origin})


def redraft(draft: Draft, writer: ParagraphWriter, slug: str, run_id: str | None = None,
            max_rounds: int = MAX_ROUNDS, on_error=None) -> Draft:
    """Rewrite every paragraph, re-draft the failing ones (bounded), fall back to the extractive version.

    A failure that is not the model's fault (no credits, permanent, transient after the gateway's retries)
    stops further calls; every paragraph not yet rewritten keeps its extractive text. ``on_error(exc)`` is
    told. An orphan (project deleted) is raised."""
    keys = draft.keys
    located = [(section, paragraph) for section in draft.sections for paragraph in section.paragraphs]
    state: dict[str, _Attempt] = {}
    log: list[dict] = []
    stopped: StageError | None = None

    def attempt(section: Section, paragraph: Paragraph, feedback: list[str]) -> bool:
        nonlocal stopped
        previous = state.get(paragraph.id)
        try:
            text = writer.write(section, paragraph, feedback, CallContext(slug=slug, stage=STAGE, run_id=run_id),
                                previous=previous.text if previous else None,
                                attempt=(previous.attempts if previous else 0) + 1)
        except StageError as exc:
            if exc.failure_class is FailureClass.orphan:
                raise
            stopped = exc
            log.append({"paragraph": paragraph.id, "event": "stopped", "failure_class": exc.failure_class.value,
                        "message": exc.message[:300]})
            if on_error:
                on_error(exc)
            return False
        issues = validate_paragraph(text, keys, set(allowed_keys(paragraph)))
        state[paragraph.id] = _Attempt(text, issues, (previous.attempts if previous else 0) + 1)
        log.append({"paragraph": paragraph.id, "event": "drafted" if not feedback else "redrafted",
                    "attempt": state[paragraph.id].attempts, "issues": [str(i) for i in issues]})
        return True

    for section, paragraph in located:
        if stopped or not attempt(section, paragraph, []):
            break
    for _ in range(max_rounds):
        failing = [(s, p) for s, p in located if p.id in state and state[p.id].issues]
        if not failing or stopped:
            break
        for section, paragraph in failing:  # one at a time; the others are left alone
            if stopped or not attempt(section, paragraph, [str(i) for i in state[paragraph.id].issues]):
                break

    sections = []
    for section in draft.sections:
        paragraphs = []
        for paragraph in section.paragraphs:
            got = state.get(paragraph.id)
            if got is not None and not got.issues:
                origin = "llm" if got.attempts == 1 else "llm-redrafted"
                paragraphs.append(paragraph_from_text(paragraph, got.text, origin))
            else:
                origin = "extractive-fallback" if got is not None else "extractive"
                paragraphs.append(paragraph.model_copy(update={"origin": origin}))
                if got is not None:
                    log.append({"paragraph": paragraph.id, "event": "fallback", "attempts": got.attempts})
        sections.append(section.model_copy(update={"paragraphs": paragraphs}))
    return draft.model_copy(update={"sections": sections, "redraft_log": log})
