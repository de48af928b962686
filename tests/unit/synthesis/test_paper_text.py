"""Hostile paper text made plain once and for all: no placeholders, brackets, markup or maths left."""

from __future__ import annotations

import re

from agentr_dagster.synthesis.sanitize import paper_text
from agentr_dagster.synthesis.validate import find_placeholders
from tests.support.hostile_text import HOSTILE_TEXT


def test_paper_text_is_plain_and_idempotent():
    for fragment in HOSTILE_TEXT:
        text = paper_text(f"The study {fragment} shows results [1].")
        assert paper_text(text) == text
        assert not find_placeholders(text), (fragment, text)
        assert not re.search(r"[\[\]{}\\$]|<[A-Za-z!/?]", text), (fragment, text)
