"""Versioned prompt templates. A template's version is its file name version plus a hash of its text, so
editing a prompt changes the version, which is the asset's code version: exactly the affected assets go stale.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from string import Template

STAGES = ("intent", "queries", "score")
STAGE_FILES = {"intent": "intent.v2.txt", "queries": "queries.v2.txt", "score": "score.v1.txt"}
STAGE_FILES["related_work"] = "related_work.v1.txt"  # synthesis: paragraph rewrites of the draft
STAGE_TEMPERATURES = {"intent": 0.3, "queries": 0.4, "score": 0.4}
STAGE_TEMPERATURES["related_work"] = 0.3
USER_MARKER = "---USER---"


@dataclass(frozen=True)
class PromptTemplate:
    stage: str
    version: str
    system: str
    user: Template

    def render(self, **values: str) -> list[dict[str, str]]:
        # Untrusted text may contain our delimiters; neutralise them so it cannot close its quote block.
        safe = {k: _neutralise_delimiters(v) for k, v in values.items()}
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user.substitute(safe)},
        ]


def _neutralise_delimiters(text: str) -> str:
    return text.replace("<<<", "‹‹‹").replace(">>>", "›››")


@cache
def load_prompt(stage: str) -> PromptTemplate:
    if stage not in STAGE_FILES:
        raise ValueError(f"unknown stage {stage!r}")
    name = STAGE_FILES[stage]
    text = resources.files("agentr_dagster.prompts").joinpath(name).read_text(encoding="utf-8")
    system, _, user = text.partition(USER_MARKER)
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    file_version = name.split(".")[1]
    return PromptTemplate(stage, f"{stage}-{file_version}-{digest}", system.strip(), Template(user.strip()))


def prompt_version(stage: str) -> str:
    return load_prompt(stage).version
