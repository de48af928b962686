"""PRISMA 2020 flow counts of a project (pure: the stage computes them from the store, the plot draws them).

Identification counts records per source and per imported file (``import:<file>``). A file counts every row its
importer read, as the import recorded it: the rows that became papers, the rows that repeated an earlier row of
the file or a paper the project already had (duplicates removed by the importer) and the unusable rows it
dropped (no title, invalid: removed for other reasons). A search source counts the distinct records it found;
the shared paper lake counts only the records nothing else of the project identified (a lake copy of what a
search found is that search's echo, not another identification). A paper identified by more than one source
adds the identifications beyond its first to the duplicates removed (across sources).

Screening counts what a person decided: every unique record is screened; labelled exclude, labelled include,
and not yet screened by a person (the ranking orders these; it decides nothing). Beside the flow, the ranking's
own counts: records scored by the model and not scored with the reason (the scoring plan's ``below cut-off`` at
its recall target, ``budget`` when the credits ran out, ``pending`` when no run scored it yet).

The boxes add up, and :meth:`PrismaCounts.problems` says where they do not: identified - duplicates - unusable
= screened = excluded + included + not yet screened = scored + not scored.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

NOT_SCORED_REASONS = ("below cut-off", "budget", "pending")


class PrismaCounts(BaseModel):
    identified: dict[str, int] = Field(default_factory=dict)  # openalex, import:<file>, lake, backward... -> n
    duplicates_by_importer: int = 0  # rows repeating an earlier row of the file, or a paper already in the project
    duplicates_across_sources: int = 0  # identifications beyond a paper's first (two sources found it)
    unusable_removed: int = 0  # rows an importer dropped: no title, invalid
    screened: int = 0  # unique records
    labelled_included: int = 0
    labelled_excluded: int = 0
    scored: int = 0  # the ranking: scored by the model
    not_scored: dict[str, int] = Field(default_factory=dict)  # reason (NOT_SCORED_REASONS) -> n

    @property
    def identified_total(self) -> int:
        return sum(self.identified.values())

    @property
    def duplicates_removed(self) -> int:
        return self.duplicates_by_importer + self.duplicates_across_sources

    @property
    def not_yet_screened(self) -> int:
        return self.screened - self.labelled_included - self.labelled_excluded

    @property
    def not_scored_total(self) -> int:
        return sum(self.not_scored.values())

    def problems(self) -> list[str]:
        """Every box sum that does not hold (empty when the flow adds up)."""
        out = []
        removed = self.duplicates_removed + self.unusable_removed
        if self.identified_total - removed != self.screened:
            out.append(f"identified {self.identified_total} - duplicates {self.duplicates_removed} - unusable "
                       f"{self.unusable_removed} != screened {self.screened}")
        if self.not_yet_screened < 0:
            out.append(f"labelled {self.labelled_included + self.labelled_excluded} > screened {self.screened}")
        if self.scored + self.not_scored_total != self.screened:
            out.append(f"scored {self.scored} + not scored {self.not_scored_total} != screened {self.screened}")
        counts = [self.duplicates_by_importer, self.duplicates_across_sources, self.unusable_removed,
                  self.labelled_included, self.labelled_excluded, *self.identified.values(), *self.not_scored.values()]
        if min(counts, default=0) < 0:
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
            {"phase": "identification", "box": "duplicates removed: by the importer",
             "count": self.duplicates_by_importer},
            {"phase": "identification", "box": "duplicates removed: across sources",
             "count": self.duplicates_across_sources},
            {"phase": "identification", "box": "records removed: unusable", "count": self.unusable_removed},
            {"phase": "screening", "box": "records screened", "count": self.screened},
            {"phase": "screening", "box": "records excluded (labelled)", "count": self.labelled_excluded},
            {"phase": "screening", "box": "records not yet screened", "count": self.not_yet_screened},
            {"phase": "included", "box": "studies included (labelled)", "count": self.labelled_included},
            {"phase": "ranking", "box": "records scored", "count": self.scored},
            {"phase": "ranking", "box": "records not scored", "count": self.not_scored_total},
        ]
        out += [{"phase": "ranking", "box": f"not scored: {reason}", "count": self.not_scored.get(reason, 0)}
                for reason in NOT_SCORED_REASONS]
        return out
