"""A hint for a file whose content looks like another supported format than its suffix says ("The content looks
like RIS; save it with a .ris suffix."), appended to a reader's "no records found" errors.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import re


def sniff_hint(text: str, suffix: str) -> str:
    """A hint when the content looks like another supported format than its suffix says."""
    head = text.lstrip()[:2000]
    guesses = (
        (bool(re.match(r"@\s*[A-Za-z]+\s*[{(]", head)), ".bib", "BibTeX"),
        (bool(re.search(r"^TY {1,2}- ", head, re.MULTILINE)), ".ris", "RIS"),
        (head.startswith("{"), ".jsonl", "JSON Lines"),
        (head.startswith("["), ".json", "a JSON array"),
    )
    for matched, guess, label in guesses:
        if matched:
            if guess == suffix or (guess == ".jsonl" and suffix == ".json"):
                return ""
            return f" The content looks like {label}; save it with a {guess} suffix."
    if re.search(r"<records>\s*<record>", head):
        return "" if suffix == ".xml" else " The content looks like EndNote XML; save it with a .xml suffix."
    if head[:200].lower().startswith(("<!doctype", "<html", "<?xml")):
        return " The content looks like HTML/XML, not a reference export."
    return ""
