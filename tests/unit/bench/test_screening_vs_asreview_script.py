"""scripts/screening_vs_asreview.py builds the ASReview comparison tables from a bench result: drug and other
reviews apart, strict counts of "ahead" and "below", and the labels-from-the-top reviews past the slack."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scripts import load_script

_SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "screening_vs_asreview.py"


@pytest.fixture(scope="module")
def script():
    return load_script(_SCRIPT)


def _review(name: str, fb: float, asr: float, zs: float, dense: float, gap10: float) -> dict:
    def mode(w: float) -> dict:
        return {"wss95": w, "recall10": w / 2, "recall20": w}

    return {
        "name": name,
        "modes": {"feedback": mode(fb), "asreview": mode(asr), "zero_shot": mode(zs), "dense_onnx": mode(dense)},
        "after_top_labels": {"10": {"zero_shot": {"recall10": 0.3, "recall20": 0.5},
                                    "feedback": {"recall10": 0.3, "recall20": 0.5 + gap10}}},
    }


def _result() -> dict:
    return {"reviews": [
        _review("Cohen_2006_Fictional", 0.6, 0.3, 0.4, 0.5, -0.2),
        _review("Cohen_2006_Imaginary", 0.4, 0.4, 0.4, 0.3, 0.0),
        _review("Lovelace_1843_Engines", 0.2, 0.5, 0.1, 0.1, -0.04),
    ]}


def test_groups_keep_the_drug_reviews_apart_and_count_strictly(script):
    g = script.groups(_result())
    assert list(g) == ["all (3)", "drug (2)", "other (1)"]
    drug = script.group_row(g["drug (2)"])
    assert drug["feedback"] == pytest.approx(0.5)
    assert drug["asreview"] == pytest.approx(0.35)
    assert drug["ratio"] == pytest.approx(0.5 / 0.35)
    assert drug["ahead"] == 1  # a tie is not ahead
    assert drug["zs_below_dense"] == 1
    other = script.group_row(g["other (1)"])
    assert other["ahead"] == 0 and other["zs_below_dense"] == 0  # equal is not below


def test_only_reviews_past_the_slack_are_listed(script):
    assert script.below_slack(_result(), 0.05) == {"10": ["Cohen_2006_Fictional"]}
    assert script.below_slack(_result(), 0.01) == {"10": ["Cohen_2006_Fictional", "Lovelace_1843_Engines"]}


def test_the_markdown_has_one_row_per_review_and_names_the_drops(script):
    md = script.markdown(_result())
    assert "| drug (2) | 0.500 | 0.350 | 1.43x | 1 of 2 |" in md
    assert "| Lovelace_1843_Engines | 0.200 | 0.500 | -0.300 |" in md
    assert md.endswith("more than 0.05 at recall@20 %: Cohen_2006_Fictional")
