"""Markdown tables from one `agentr bench screening --out FILE` result: ours (``feedback``) beside ASReview, and
zero-shot beside the MiniLM cosine (``dense_onnx``), for all reviews, the Cohen drug reviews and the others apart.

    AGENTR_ASREVIEW_PYTHON=$PWD/.venv-asreview/bin/python agentr bench screening /work/shared/data/screening \
        --throughput-texts 0 --out /tmp/screening.json
    .venv/bin/python scripts/screening_vs_asreview.py /tmp/screening.json

Prints three tables: the groups (mean WSS@95 of feedback and ASReview, their ratio, reviews where ours is ahead,
zero-shot's mean and the reviews where it is below ``dense_onnx``), one row per review, and "labels from the top"
(recall@20 % of the unlabelled papers after k labels from the top of the zero-shot list, re-rank minus zero-shot),
with the reviews below ``--slack``. Nothing is computed beyond the bench's own figures.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from agentr_dagster.bench.queries import is_drug_review


def _mean(values: list[float]) -> float:
    vals = [v for v in values if not math.isnan(v)]
    return sum(vals) / len(vals) if vals else float("nan")


def _wss(review: dict, mode: str) -> float:
    rec = review["modes"].get(mode)
    return float(rec["wss95"]) if rec else float("nan")


def groups(result: dict) -> dict[str, list[dict]]:
    """The reviews of ``result`` as ``{"all N": [...], "drug N": [...], "other N": [...]}`` (drug: Cohen 2006)."""
    reviews = result["reviews"]
    drug = [r for r in reviews if is_drug_review(r["name"])]
    other = [r for r in reviews if not is_drug_review(r["name"])]
    return {f"all ({len(reviews)})": reviews, f"drug ({len(drug)})": drug, f"other ({len(other)})": other}


def group_row(reviews: list[dict]) -> dict[str, float | int]:
    """Mean WSS@95 of feedback and asreview, their ratio, the reviews where feedback is strictly ahead, the mean
    zero-shot WSS@95 and the reviews where zero-shot is strictly below ``dense_onnx``; recall@10/20 % means too."""
    fb = _mean([_wss(r, "feedback") for r in reviews])
    asr = _mean([_wss(r, "asreview") for r in reviews])
    return {
        "feedback": fb,
        "asreview": asr,
        "ratio": fb / asr if asr > 0 else float("nan"),
        "ahead": sum(_wss(r, "feedback") > _wss(r, "asreview") for r in reviews),
        "n": len(reviews),
        "zero_shot": _mean([_wss(r, "zero_shot") for r in reviews]),
        "dense_onnx": _mean([_wss(r, "dense_onnx") for r in reviews]),
        "zs_below_dense": sum(_wss(r, "zero_shot") < _wss(r, "dense_onnx") for r in reviews),
        **{
            f"{m}_{k}": _mean([float(r["modes"][m][k]) for r in reviews if m in r["modes"]])
            for m in ("feedback", "asreview")
            for k in ("recall10", "recall20")
        },
    }


def top_label_gaps(review: dict) -> dict[str, float]:
    """Per k: the re-rank's recall@20 % of the unlabelled papers minus zero-shot's (NaN when not measured)."""
    out = {}
    for k, per_mode in (review.get("after_top_labels") or {}).items():
        out[k] = float(per_mode["feedback"]["recall20"]) - float(per_mode["zero_shot"]["recall20"])
    return out


def below_slack(result: dict, slack: float = 0.05) -> dict[str, list[str]]:
    """Per k: the reviews whose re-rank is below zero-shot at recall@20 % by more than ``slack``."""
    out: dict[str, list[str]] = {}
    for r in result["reviews"]:
        for k, gap in top_label_gaps(r).items():
            out.setdefault(k, [])
            if gap < -slack:
                out[k].append(r["name"])
    return out


def _f(v: float, fmt: str = ".3f") -> str:
    return "-" if isinstance(v, float) and math.isnan(v) else format(v, fmt)


def markdown(result: dict, slack: float = 0.05) -> str:
    lines = [
        "| | feedback (ours) | ASReview | ratio | ours ahead | zero-shot | zero-shot below `dense_onnx` "
        "| recall@10 % ours / ASReview | recall@20 % ours / ASReview |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, reviews in groups(result).items():
        g = group_row(reviews)
        lines.append(
            f"| {name} | {_f(g['feedback'])} | {_f(g['asreview'])} | {_f(g['ratio'], '.2f')}x "
            f"| {g['ahead']} of {g['n']} | {_f(g['zero_shot'])} | {g['zs_below_dense']} "
            f"| {_f(g['feedback_recall10'])} / {_f(g['asreview_recall10'])} "
            f"| {_f(g['feedback_recall20'])} / {_f(g['asreview_recall20'])} |"
        )
    ks = sorted({k for r in result["reviews"] for k in (r.get("after_top_labels") or {})}, key=int)
    lines += [
        "",
        "| review | feedback | ASReview | ours - ASReview | zero-shot | `dense_onnx` | zero-shot - dense | "
        + " | ".join(f"top {k}: re-rank - zero-shot" for k in ks) + " |",
        "|---|---|---|---|---|---|---|" + "---|" * len(ks),
    ]
    for r in result["reviews"]:
        fb, asr, zs, dn = (_wss(r, m) for m in ("feedback", "asreview", "zero_shot", "dense_onnx"))
        gaps = top_label_gaps(r)
        lines.append(
            f"| {r['name']} | {_f(fb)} | {_f(asr)} | {_f(fb - asr, '+.3f')} | {_f(zs)} | {_f(dn)} "
            f"| {_f(zs - dn, '+.3f')} | " + " | ".join(_f(gaps.get(k, float('nan')), '+.3f') for k in ks) + " |"
        )
    lines.append("")
    for k, names in below_slack(result, slack).items():
        lines.append(f"after {k} labels from the top, re-rank below zero-shot by more than {slack} at recall@20 %: "
                     + (", ".join(names) if names else "none"))
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("result", type=Path, help="the JSON file of `agentr bench screening --out`")
    ap.add_argument("--slack", type=float, default=0.05)
    args = ap.parse_args()
    print(markdown(json.loads(args.result.read_text()), args.slack))


if __name__ == "__main__":
    main()
