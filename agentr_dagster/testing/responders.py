"""Responders for the scripted server: schema-valid answers for each stage, cheap and deterministic.

The stage is recognised from the system prompt, as a real model would see it. Scores vary with the candidate's
title so that rankings are not all ties.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable

from agentr_dagster.domain.prompts import load_prompt

_TITLE_RE = re.compile(r"Title: (.*)")


def stage_of(body: dict) -> str:
    system = next((m.get("content", "") for m in body.get("messages", []) if m.get("role") == "system"), "")
    for stage in ("intent", "queries", "score", "related_work"):
        if system == load_prompt(stage).system:
            return stage
    raise ValueError("unknown prompt")


def intent_payload() -> dict:
    return {
        "problem_statement": "Selecting relevant studies for systematic reviews is slow and hard to audit.",
        "methodologies": ["active learning", "language models"],
        "application_domains": ["software engineering", "evidence synthesis"],
        "constraints": ["limited budget"],
        "contribution_types": ["methodology", "constraint_analysis"],
        "seed_keywords": ["systematic review", "study selection", "screening", "automation"],
    }


def queries_payload() -> dict:
    return {
        "boolean_query": '("systematic review" OR "literature review") AND (screening OR selection)',
        "expanded_keywords": [
            "systematic review", "literature review", "study selection", "citation screening", "active learning",
            "text classification", "evidence synthesis", "tertiary study", "mapping study", "automation",
        ],
        "search_strings": [
            "systematic review automation", "literature review tools",
            "active learning citation screening software engineering", "LLM study selection cost",
            "active learning for screening", "text classification of abstracts",
            "reducing screening workload", "auditable review process",
            "software engineering systematic reviews", "evidence-based software engineering",
        ],
    }


def score_payload(title: str) -> dict:
    h = int(hashlib.sha256(title.encode()).hexdigest()[:8], 16)
    c1 = h % 11
    return {
        "semantic_similarity": round((h % 1000) / 1000, 3),
        "overlap": {"problem": ["none", "low", "medium", "high"][h % 4], "method": "low", "domain": "medium",
                    "constraint": "none"},
        "c1_direct_competitor": {"score": c1, "justification": f"rubric band for score {c1}",
                                 "strengths": ["clear method"], "weaknesses": ["small sample"]},
        "c2_supporting_work": {"score": (h // 11) % 11, "justification": "provides context",
                               "contribution_type": "problem_context", "relevance_areas": ["screening"],
                               "strengths": [], "weaknesses": []},
        "research_gaps": ["does not audit cost"],
        "user_novelty": "durable, priced workflow",
        "candidate_advantage": "larger evaluation",
    }


_KEYS_RE = re.compile(r"Citation keys you may use: (.*)")


def related_work_payload(user: str) -> dict:
    """A paragraph that cites only the keys it was offered, one citation per sentence."""
    match = _KEYS_RE.search(user)
    keys = [k.strip().lstrip("@") for k in re.split(r"[,\s]+", match.group(1)) if k.strip()] if match else []
    sentences = [f"The study [@{key}] informs the planned work." for key in keys[:4]]
    return {"paragraph": " ".join(sentences) or "The planned work starts here."}


def valid_responder(body: dict) -> str:
    stage = stage_of(body)
    if stage == "related_work":
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return json.dumps(related_work_payload(user))
    if stage == "intent":
        return json.dumps(intent_payload())
    if stage == "queries":
        return json.dumps(queries_payload())
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    match = _TITLE_RE.search(user)
    return json.dumps(score_payload(match.group(1) if match else ""))


def judged_score_payload(included: bool) -> dict:
    """A perfect screener's verdict: an included paper is close work (high similarity, C1 and C2), an excluded
    one is unrelated."""
    level, score = ("high", 9) if included else ("none", 0)
    return {
        "semantic_similarity": 0.95 if included else 0.05,
        "overlap": {"problem": level, "method": level, "domain": level, "constraint": "none"},
        "c1_direct_competitor": {"score": score, "justification": "judged from the review's final decision",
                                 "strengths": [], "weaknesses": []},
        "c2_supporting_work": {"score": score, "justification": "judged from the review's final decision",
                               "contribution_type": "methodology", "relevance_areas": [], "strengths": [],
                               "weaknesses": []},
        "research_gaps": ["none stated"],
        "user_novelty": "n/a",
        "candidate_advantage": "n/a",
    }


def _normalise_title(title: str) -> str:
    return " ".join(title.casefold().split())


class OracleResponder:
    """A responder that scores a paper from the review's labels: ``included_titles`` holds the normalised
    titles (``normalise``) of the included records; every other stage gets :func:`valid_responder`'s answer.
    ``scored`` lists the normalised titles it was asked to score, in order."""

    def __init__(self, included_titles: set[str], normalise: Callable[[str], str] = _normalise_title):
        self.included_titles, self.normalise = included_titles, normalise
        self.scored: list[str] = []

    def __call__(self, body: dict) -> str:
        if stage_of(body) != "score":
            return valid_responder(body)
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        match = _TITLE_RE.search(user)
        title = self.normalise(match.group(1) if match else "")
        self.scored.append(title)
        return json.dumps(judged_score_payload(title in self.included_titles))


def oracle_responder(included_titles: set[str],
                     normalise: Callable[[str], str] = _normalise_title) -> OracleResponder:
    """An :class:`OracleResponder`: ``responder.scored`` lists the normalised titles it was asked to score."""
    return OracleResponder(included_titles, normalise)
