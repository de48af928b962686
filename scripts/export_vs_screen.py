"""Export order vs `agentr screen` on the same input, in-process (offline, no labels).

For each review folder (``review.json`` + ``papers.csv`` with labels; the unlabelled view is derived), and for
synthetic perturbations of one (``--synthetic``), the file goes through ``agentr papers add`` (intake), the
relevance stage and the export frame (``scores_dataframe``), and through ``screen`` as ``agentr screen`` reads
it; both orders are mapped to the review's records as ``agentr bench pipeline`` maps them, and scored.

    PYTHONPATH=$PWD python scripts/export_vs_screen.py ../shared/data/screening/Radjenovic_2013 ...
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def compare(folder: Path, work: Path) -> dict:
    from agentr_dagster.bench.pipeline import _export_order, _metrics, _screen_order
    from agentr_dagster.bench.screening import load_review
    from agentr_dagster.cli.screen import read_papers_csv
    from agentr_dagster.screening.screen import screen
    from agentr_dagster.stages.exports import scores_dataframe
    from agentr_dagster.stages.intake import add_papers_file, add_project
    from agentr_dagster.stages.relevance import rank_project
    from agentr_dagster.store import DomainStore

    review = load_review(folder)
    work.mkdir(parents=True, exist_ok=True)
    unlabelled = folder / "papers_unlabeled.csv"
    if not unlabelled.is_file():
        frame = pd.read_csv(folder / "papers.csv", dtype=str, keep_default_na=False)
        unlabelled = work / "papers_unlabeled.csv"
        frame.drop(columns=["label_included"]).to_csv(unlabelled, index=False)
    y = review.labels
    t0 = time.perf_counter()
    store = DomainStore(f"sqlite:///{work / 'store.db'}")
    add_project(store, "r", review.question)
    add_papers_file(store, "r", unlabelled)
    rank_project(store, "r")
    export_csv = work / "scores.csv"
    scores_dataframe(store, "r").to_csv(export_csv, index=False)
    export_order, missing = _export_order(export_csv, review, store, "r")
    t1 = time.perf_counter()
    out = screen(review.question, read_papers_csv(str(unlabelled)))
    screen_csv = work / "screen.csv"
    out.to_csv(screen_csv, index=False)
    screen_order = _screen_order(screen_csv, review)
    t2 = time.perf_counter()
    same = bool(np.array_equal(export_order, screen_order))
    # the papers themselves, as the order lists them (merged duplicates and unranked records left out): the
    # export's rows by their source id, screen's records that duplicate nothing
    exported = pd.read_csv(export_csv, dtype=str, keep_default_na=False)["source_id"].tolist()
    screened = [rid for rid, dup in zip(out["record_id"], out["duplicate_of"], strict=True) if not dup]
    same_papers = screened[: len(exported)] == exported
    first = int(np.argmax(export_order != screen_order)) if not same else None
    return {"name": review.name, "n": len(y), "R": int(y.sum()), "papers": store.projects.count_papers("r"),
            "not_in_export": missing, "export": _metrics(export_order, y), "screen": _metrics(screen_order, y),
            "same_order": same, "first_difference": first, "same_paper_order": same_papers,
            "seconds": [round(t1 - t0, 1), round(t2 - t1, 1)]}


def _write_review(folder: Path, name: str, question: str, frame: pd.DataFrame) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "review.json").write_text(json.dumps({"name": name, "question": question}))
    frame.to_csv(folder / "papers.csv", index=False)
    return folder


def _read(folder: Path) -> tuple[str, pd.DataFrame]:
    meta = json.loads((folder / "review.json").read_text())
    return meta["question"], pd.read_csv(folder / "papers.csv", dtype=str, keep_default_na=False)


def pooled(base: Path, others: list[Path], out: Path) -> Path:
    """``base``'s question and labels; candidates = its records + every record of ``others`` (labelled 0)."""
    question, frame = _read(base)
    parts = [frame]
    for other in others:
        _, extra = _read(other)
        extra = extra.assign(label_included="0", record_id=other.name[:12] + "-" + extra["record_id"])
        parts.append(extra)
    return _write_review(out, f"pooled:{base.name}+{len(others)}", question, pd.concat(parts, ignore_index=True))


KINDS = ("doi", "dup", "near", "noabs", "notitle", "shuffle")


def messy(base: Path, out: Path, seed: int = 0, kinds: tuple[str, ...] = KINDS) -> Path:
    """``base`` with what real exports carry: DOIs, 8 % titles missing (abstract kept), 5 % duplicated under a new
    id with the same DOI (half of those without the abstract), 3 % near-duplicate titles under a new id and no
    DOI, 3 % abstracts missing, rows shuffled."""
    rng = np.random.default_rng(seed)
    question, frame = _read(base)
    frame = frame.copy()
    n = len(frame)
    if "doi" in kinds:
        frame["doi"] = [f"10.9999/w27d.{i}" for i in range(n)]
    dup = frame.iloc[rng.choice(n, int(0.05 * n), replace=False)].copy()
    dup["record_id"] = "dup-" + dup["record_id"]
    half = rng.random(len(dup)) < 0.5
    dup.loc[half, "abstract"] = ""
    near = frame.iloc[rng.choice(n, int(0.03 * n), replace=False)].copy()
    near["record_id"] = "near-" + near["record_id"]
    near["doi"] = ""
    near["title"] = near["title"].str.upper().str.rstrip(".") + " ."
    noabs = frame.index[rng.choice(n, int(0.03 * n), replace=False)]
    notitle = frame.index[rng.choice(n, int(0.08 * n), replace=False)]
    if "noabs" in kinds:
        frame.loc[noabs, "abstract"] = ""
    if "notitle" in kinds:
        frame.loc[notitle, "title"] = ""
        both = (frame["title"] == "") & (frame["abstract"] == "")
        frame.loc[both, "abstract"] = "(no abstract)"
    allrows = pd.concat([frame] + [dup] * ("dup" in kinds) + [near] * ("near" in kinds), ignore_index=True)
    perm = rng.permutation(len(allrows))
    if "shuffle" in kinds:
        allrows = allrows.iloc[perm].reset_index(drop=True)
    return _write_review(out, f"messy[{','.join(kinds)}]:{base.name}", question, allrows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--no-transformer", action="store_true", help="static model only (fast; both paths)")
    parser.add_argument("--pooled", nargs="+", type=Path, default=None, help="BASE OTHER...: a pooled review")
    parser.add_argument("--messy", nargs="+", type=Path, default=None, help="reviews to perturb")
    parser.add_argument("--kinds", default=",".join(KINDS), help="perturbations, comma-separated; 'each' = one by one")
    args = parser.parse_args()
    if args.no_transformer:
        import agentr_dagster.domain.transformer as tr

        tr._DISABLED = True
    results = []
    with tempfile.TemporaryDirectory(prefix="w27d-") as tmp:
        folders = list(args.folders)
        if args.pooled:
            folders.append(pooled(args.pooled[0], args.pooled[1:], Path(tmp) / "pooled"))
        runs = [tuple(k for k in args.kinds.split(",") if k)] if args.kinds != "each" else [(k,) for k in KINDS]
        for j, base in enumerate(args.messy or []):
            for m, kinds in enumerate(runs):
                folders.append(messy(base, Path(tmp) / f"messy{j}-{m}", kinds=kinds))
        for i, folder in enumerate(folders):
            r = compare(folder, Path(tmp) / str(i))
            results.append(r)
            e, s = r["export"], r["screen"]
            print(f"{r['name']:<44} n={r['n']:>5} R={r['R']:>4} papers={r['papers']:>5} "
                  f"missing={r['not_in_export']:>4} "
                  f"export wss={e['wss95']:.3f} r10={e['recall10']:.3f} r20={e['recall20']:.3f} | "
                  f"screen wss={s['wss95']:.3f} r10={s['recall10']:.3f} r20={s['recall20']:.3f} "
                  f"same={r['same_order']} first_diff={r['first_difference']} same_papers={r['same_paper_order']} "
                  f"s={r['seconds']}", flush=True)
            if args.json:
                args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.exit(main())
