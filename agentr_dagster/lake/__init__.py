"""The paper lake: papers profiled once (clean text, static embedding, lexical terms), shared by every project,
searched with weighted hybrid retrieval (bm25s + dense cosine, reciprocal rank fusion). No Dagster here.

    from agentr_dagster.lake import Lake, add_files, lake_dir
    report = add_files([Path("openalex.jsonl")])          # AddReport: per-file counts and errors
    lake = Lake.open()                                     # None while the lake is empty
    hits = lake.search("static embeddings for screening", k=10)   # [LakeHit]
    mask = lake.boolean_mask('"systematic review" AND automat*')  # bool per paper
"""

from agentr_dagster.lake.analysis import ANALYZER_VERSION, Profiler, Profiles, analyze, paper_text
from agentr_dagster.lake.core import (
    LAKE_LIMITS,
    AddReport,
    FileReport,
    Lake,
    LakeHit,
    add_files,
    add_records,
    boolean_positive_text,
    get_profiler,
    lake_background,
    lake_query_share,
    rebuild,
)
from agentr_dagster.lake.files import lake_dir
from agentr_dagster.lake.fusion import FusionWeights, fuse

__all__ = [
    "ANALYZER_VERSION",
    "LAKE_LIMITS",
    "AddReport",
    "FileReport",
    "FusionWeights",
    "Lake",
    "LakeHit",
    "Profiler",
    "Profiles",
    "add_files",
    "add_records",
    "analyze",
    "boolean_positive_text",
    "fuse",
    "get_profiler",
    "lake_background",
    "lake_dir",
    "lake_query_share",
    "paper_text",
    "rebuild",
]
