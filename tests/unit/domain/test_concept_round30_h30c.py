"""Round 30 (h30c): the rest branch of blocks that meet in the same records (invented texts)."""

import re

from tests.unit.domain.concept_queries import hits, query

#: An invented background of 200 records: a tenth are trials of one topic, whose two words meet in all of them.
_RECORDS = (["Joint pain and function in knee osteoarthritis: a randomised trial of a new analgesic"] * 20
            + [f"Soil nitrogen and crop yield in field study {i}" for i in range(180)])


def _share(term: str) -> float:
    core = term.strip('"').casefold()
    pattern = re.compile(r"\b" + re.escape(core.rstrip("*")) + (r"" if core.endswith("*") else r"\b"))
    return sum(1 for r in _RECORDS if pattern.search(r.casefold())) / len(_RECORDS)


def test_blocks_that_meet_in_the_same_records_are_not_read_as_narrow():
    # "joint pain" and "knee osteoarthritis" are each in 10 % of the background's records, and in the same ones:
    # their shares multiplied (1 %) read the AND as narrow, the people left the rest branch, and the query was
    # tai chi OR every study of joint pain in knee osteoarthritis (10 % of the background)
    text = "Does tai chi reduce joint pain in older people with knee osteoarthritis?"
    q = query(text, _share)
    assert not hits(text, _RECORDS[0], _share), q
    assert hits(text, "Tai chi for knee osteoarthritis: a randomised trial", _share), q
    assert hits(text, "Joint pain of older people with knee osteoarthritis: a cohort", _share), q
