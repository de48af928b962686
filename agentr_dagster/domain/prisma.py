"""PRISMA 2020 flow counts of a project (pure: the stage computes them from the store, the plot draws them).

Identification counts distinct records per source (each database's own duplicates are one record, as its export
would be) and per imported file (``import:<file>``); the shared paper lake counts only the records nothing else of
the project identified (a lake copy of what a search found is that search's echo, not another identification).
Duplicates removed are the identifications beyond the first of each paper. Screening here is ranking: every unique
record is ranked; then each is either scored by the model or not scored, with the reason (the scoring plan's
``below cut-off`` at its recall target, ``budget`` when the credits ran out, ``pending`` when no run scored it yet);
then the ones above the relevance threshold, and what a person labelled.

The boxes add up, and :meth:`PrismaCounts.problems` says where they do not: identified − duplicates = screened,
scored + not scored = screened, above threshold ≤ scored, labelled ≤ screened.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

RELEVANT_SCORE = 5.0  # C1 or C2 at or above this: "above threshold" (the landscape's direct-competitor threshold)
NOT_SCORED_REASONS = ("below cut-off", "budget", "pending")


class PrismaCounts(BaseModel):
    identified: dict[str, int] = Field(default_factory=dict)  # openalex, import:<file>, lake, backward... -> n
    duplicates_removed: int = 0
    screened: int = 0  # unique records, every one ranked
    scored: int = 0
    not_scored: dict[str, int] = Field(default_factory=dict)  # reason (NOT_SCORED_REASONS) -> n
    above_threshold: int = 0
    labelled_included: int = 0
    labelled_excluded: int = 0
    threshold: float = RELEVANT_SCORE

    @property
    def identified_total(self) -> int:
        return sum(self.identified.values())

    @property
    def not_scored_total(self) -> int:
        return sum(self.not_scored.values())

    def problems(self) -> list[str]:
        """Every box sum that does not hold (empty when the flow adds up)."""
        out = []
        if self.identified_total - self.duplicates_removed != self.screened:
            out.append(f"identified {self.identified_total} - duplicates {self.duplicates_removed} != screened "
                       f"{self.screened}")
        if self.scored + self.not_scored_total != self.screened:
            out.append(f"scored {self.scored} + not scored {self.not_scored_total} != screened {self.screened}")
        if self.above_threshold > self.scored:
            out.append(f"above threshold {self.above_threshold} > scored {self.scored}")
        if self.labelled_included + self.labelled_excluded > self.screened:
            out.append(f"labelled {self.labelled_included + self.labelled_excluded} > screened {self.screened}")
        if min([self.duplicates_removed, *self.identified.values(), *self.not_scored.values()], default=0) < 0:
            out.append("a negative count")
        return out

    def rows(self) -> list[dict[str, object]]:
        """One row per box of the flow diagram: (phase, box, count) - the shape of ``prisma.csv``."""
        out: list[dict[str, object]] = [
            {"phase": "identification", "box": f"records identified: {source}", "count": n}
            for source, n in self.identified.items()
        ]
        out += [
            {"phase": "identification", "box": "records identified: total", "count": self.identified_total},
            {"phase": "identification", "box": "duplicates removed", "count": self.duplicates_removed},
            {"phase": "screening", "box": "records screened (ranked)", "count": self.screened},
            {"phase": "screening", "box": "records scored", "count": self.scored},
            {"phase": "screening", "box": "records not scored", "count": self.not_scored_total},
        ]
        out += [{"phase": "screening", "box": f"not scored: {reason}", "count": self.not_scored.get(reason, 0)}
                for reason in NOT_SCORED_REASONS]
        out += [
            {"phase": "included", "box": f"above threshold (C1 or C2 >= {self.threshold:g})",
             "count": self.above_threshold},
            {"phase": "included", "box": "labelled include", "count": self.labelled_included},
            {"phase": "included", "box": "labelled exclude", "count": self.labelled_excluded},
        ]
        return out
