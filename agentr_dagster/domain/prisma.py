"""PRISMA 2020 flow counts of a project (pure: the stage computes them from the store, the plot draws them).

Identification counts distinct records per source (each database's own duplicates are one record, as its export
would be), imports and the paper lake included; duplicates removed are the records that were a paper another
source had already brought. Screening here is ranking: every unique record is ranked; then scored by the model;
then the ones above the relevance threshold, and what a person labelled.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

RELEVANT_SCORE = 5.0  # C1 or C2 at or above this: "above threshold" (the landscape's direct-competitor threshold)


class PrismaCounts(BaseModel):
    identified: dict[str, int] = Field(default_factory=dict)  # source (openalex, imports, lake, backward...) -> n
    duplicates_removed: int = 0
    screened: int = 0  # unique records, every one ranked
    scored: int = 0
    above_threshold: int = 0
    labelled_included: int = 0
    labelled_excluded: int = 0
    threshold: float = RELEVANT_SCORE

    @property
    def identified_total(self) -> int:
        return sum(self.identified.values())

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
            {"phase": "included", "box": f"above threshold (C1 or C2 >= {self.threshold:g})",
             "count": self.above_threshold},
            {"phase": "included", "box": "labelled include", "count": self.labelled_included},
            {"phase": "included", "box": "labelled exclude", "count": self.labelled_excluded},
        ]
        return out
