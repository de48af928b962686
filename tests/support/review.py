"""A small synthetic labelled review (for the relevance and scoring-plan tests) and a responder for the
scripted server that judges papers as a perfect screener would: from the labels, by title."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pandas as pd

from agentr_dagster.testing.responders import intent_payload, queries_payload, score_payload, stage_of

QUESTION = ("Active learning and text classification to reduce the screening workload of systematic reviews: "
            "which machine learning methods rank citations so reviewers find the relevant studies early?")

_TITLE = re.compile(r"Title: (.*)")  # how the scoring prompt shows the candidate's title
_RELEVANT = ["active learning for citation screening", "text classification of abstracts in systematic reviews",
             "reducing screening workload with machine learning", "ranking citations for systematic reviewers",
             "technology assisted review of medical abstracts"]
_OTHER = ["soil erosion on hill slopes", "corrosion of steel bridges", "protein folding kinetics",
          "urban traffic signal timing", "coral reef bleaching", "battery electrolyte stability",
          "medieval trade routes", "wind turbine blade fatigue", "dairy cattle nutrition", "glacier mass balance",
          "child language acquisition", "supply chain inventory policy"]


def synthetic_review(n_relevant: int = 12, n_other: int = 96, seed: int = 0) -> pd.DataFrame:
    """``record_id,title,abstract,label_included``: relevant papers on screening automation, others on
    unrelated topics, shuffled with a fixed seed."""
    rng = random.Random(seed)
    rows = []
    for i in range(n_relevant):
        topic = _RELEVANT[i % len(_RELEVANT)]
        rows.append({"title": f"{topic.capitalize()}: study {i}",
                     "abstract": f"We evaluate {topic} in systematic reviews. A classifier ranks citations by "
                                 f"relevance so reviewers screen fewer abstracts; recall and work saved are "
                                 f"reported on review {i}.", "label_included": 1})
    for i in range(n_other):
        topic = _OTHER[i % len(_OTHER)]
        rows.append({"title": f"{topic.capitalize()}: field report {i}",
                     "abstract": f"Measurements of {topic} at site {i} over {2 + i % 9} seasons; a regression "
                                 f"model explains the variation and we discuss practical implications.",
                     "label_included": 0})
    rng.shuffle(rows)
    frame = pd.DataFrame(rows)
    frame.insert(0, "record_id", [f"R{1000 + i}" for i in range(len(frame))])
    return frame


def write_review(frame: pd.DataFrame, folder: Path) -> Path:
    """The candidates as a user's CSV (no labels): ``record_id,title,abstract``."""
    path = folder / "candidates.csv"
    frame[["record_id", "title", "abstract"]].to_csv(path, index=False)
    return path


def oracle_responder(relevant_titles: set[str]):
    """Schema-valid answers; a score judges the paper as its label says (similarity and C2 high for an include,
    low for an exclude), so the pipeline's weak labels are the true labels."""

    def respond(body: dict) -> str:
        stage = stage_of(body)
        if stage == "intent":
            return json.dumps(intent_payload())
        if stage == "queries":
            return json.dumps(queries_payload())
        user = next(m["content"] for m in body["messages"] if m.get("role") == "user")
        title = _TITLE.search(user).group(1).strip()
        payload = score_payload(title)
        relevant = title in relevant_titles
        payload["semantic_similarity"] = 0.9 if relevant else 0.1
        payload["c1_direct_competitor"]["score"] = 2
        payload["c2_supporting_work"]["score"] = 9 if relevant else 1
        return json.dumps(payload)

    return respond
