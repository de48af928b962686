"""The scoring stage, in three parts: what to score and when to stop (``plan.py``), the run that scores it
(``run.py``: claims, the thread pool of paid calls, or the offline batches) and what it writes (``write.py``:
results in batches, the queue artifact); ``summary.py`` holds what the run reports."""

from agentr_dagster.stages.scoring.plan import ScoringPlan, batch_size_for
from agentr_dagster.stages.scoring.run import PREPARE_AHEAD, score_project
from agentr_dagster.stages.scoring.summary import (
    PARTIAL_CLASSES,
    ProgressFn,
    ScoringSummary,
    recall_text,
    summary_text,
    worst_failure_class,
)
from agentr_dagster.stages.scoring.write import (
    QUEUE_STAGE,
    ResultWriter,
    below_cutoff_ids,
    queue_input_hash,
    queue_scores,
)

__all__ = [
    "PARTIAL_CLASSES", "PREPARE_AHEAD", "QUEUE_STAGE", "ProgressFn", "ResultWriter", "ScoringPlan", "ScoringSummary",
    "batch_size_for", "below_cutoff_ids", "queue_input_hash", "queue_scores", "recall_text", "score_project",
    "summary_text", "worst_failure_class",
]
