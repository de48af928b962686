"""Reader for EndNote XML exports (``File > Export > XML``): ``<xml><records><record>...</record></records></xml>``.

Field text may be split over several ``<style>`` runs (EndNote's formatting) or be bare (older versions); the
text of an element is all of its runs joined. Parsed with ``defusedxml``: a document type declaration, entity
expansion or external reference is refused, so a hostile file cannot expand or reach outside itself. Like the
other readers, it feeds one raw record at a time to a :class:`Collector` and raises only
:class:`ImportFileError`. Pure logic: no Dagster, no files.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from agentr_dagster.imports.cleaning import clip
from agentr_dagster.imports.errors import ImportFileError
from agentr_dagster.imports.reader import Reader
from agentr_dagster.imports.records import Collector

# field -> element paths under <record>, first present wins
_FIELDS: dict[str, tuple[str, ...]] = {
    "title": ("titles/title", "titles/short-title", "titles/translated-title"),
    "abstract": ("abstract",),
    "year": ("dates/year", "dates/pub-dates/date"),
    "doi": ("electronic-resource-num",),
    "venue": ("periodical/full-title", "titles/secondary-title", "periodical/abbr-1", "titles/alt-title"),
    "url": ("urls/related-urls/url", "urls/web-urls/url", "urls/pdf-urls/url"),
    "source_id": ("accession-num", "rec-number"),
}
_AUTHORS = "contributors/authors/author"


def _text(element: Element | None) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def parse_endnote_xml(text: str, collector: Collector) -> str:
    try:
        root = fromstring(text.lstrip("\ufeff"))
    except DefusedXmlException as exc:
        raise ImportFileError(
            f"The XML file declares a document type or entities ({type(exc).__name__}); "
            "EndNote exports do not, and they are refused for safety."
        ) from exc
    except ParseError as exc:
        raise ImportFileError(f"The XML file is not well-formed: {clip(str(exc), 160)}.") from exc
    records = root.findall("./records/record") if root.tag == "xml" else []
    if root.tag == "records":
        records = root.findall("./record")
    if not records:
        raise ImportFileError(
            f"No EndNote XML records found (expected <xml><records><record>...; the document's root is "
            f"<{clip(str(root.tag), 40)}>)."
        )
    for number, record in enumerate(records, start=1):
        collector.count_row(number)
        raw: dict[str, object] = {}
        columns = {name: paths[0] for name, paths in _FIELDS.items()}
        for name, paths in _FIELDS.items():
            for path in paths:
                value = _text(record.find(path))
                if value:
                    raw[name], columns[name] = value, path
                    break
        authors = [name for name in (_text(a) for a in record.findall(_AUTHORS)) if name]
        if authors:
            raw["authors"], columns["authors"] = authors, _AUTHORS
        collector.add(number, raw, source_format="endnote-xml", columns=columns)
    return "endnote-xml"


ENDNOTE = Reader("endnote-xml", read=parse_endnote_xml)
