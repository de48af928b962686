"""Deterministic validation of a related-work draft (Markdown or LaTeX) against its BibTeX file.

Checks: every citation key resolves to a BibTeX entry (duplicate entries are an error too); no placeholders
(TODO, TBD, [citation needed], ??, {{...}}, empty or numeric citations, ...); no empty sections; every sentence
that makes a claim about the literature cites at least one paper.

A sentence *makes a claim about the literature* when, after removing what it says about the planned work
itself, it still refers to literature (papers, studies, authors, prior/existing work, candidates, they/these,
et al.) or reports what someone did (reports, shows, proposes, finds, according to, ...). Sentences that only
describe this document's structure ("This section discusses ...", "Section 2 ...") are exempt unless they
also report a finding ("... that ...") or quote. The rule is lexical on purpose: the same text always gets the
same verdict, and a model's redraft is judged by exactly the rule the offline draft is.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

ISSUE_CODES = ("unknown_key", "duplicate_key", "placeholder", "empty_section", "uncited_claim", "out_of_scope",
               "no_sections", "format")


@dataclass(frozen=True)
class Issue:
    code: str
    message: str
    section: str | None = None
    paragraph: str | None = None  # the paragraph id (from `<!-- para ID -->` / `% para ID`) or its ordinal
    line: int | None = None
    sentence: str | None = None

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}

    def __str__(self) -> str:
        where = " ".join(x for x in (
            f"line {self.line}" if self.line else "", f"§ {self.section!r}" if self.section else "",
            f"¶ {self.paragraph}" if self.paragraph else "") if x)
        text = f"[{self.code}] {self.message}"
        if where:
            text += f" ({where})"
        if self.sentence:
            text += f": {self.sentence[:160]!r}"
        return text


@dataclass
class ParsedParagraph:
    text: str  # citations normalised to [@a; @b]
    para_id: str | None
    line: int


@dataclass
class ParsedSection:
    title: str
    level: int
    line: int
    paragraphs: list[ParsedParagraph] = field(default_factory=list)


@dataclass
class ValidationReport:
    issues: list[Issue]
    sections: int
    paragraphs: int
    sentences: int
    claims: int
    citations: int
    keys_cited: list[str]
    unused_keys: list[str]
    bib_entries: int = 0

    @property
    def ok(self) -> bool:
        return not self.issues

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for issue in self.issues:
            out[issue.code] = out.get(issue.code, 0) + 1
        return out

    def as_dict(self) -> dict:
        return {"ok": self.ok, "issues": [i.as_dict() for i in self.issues], "counts": self.counts(),
                "sections": self.sections, "paragraphs": self.paragraphs, "sentences": self.sentences,
                "claims": self.claims, "citations": self.citations, "keys_cited": self.keys_cited,
                "unused_keys": self.unused_keys, "bib_entries": self.bib_entries}


# ---------------------------------------------------------------------------------------------------- citations

KEY_CHARS = r"[A-Za-z0-9_][\w:.#$%&+?<>~/-]*"
MD_CITE_GROUP_RE = re.compile(r"(?<!\\)\[([^\[\]]*?@[^\[\]]*?)(?<!\\)\]")
MD_KEY_RE = re.compile(r"(?<![\w\\])-?@(" + KEY_CHARS + r")")
MD_BARE_RE = re.compile(r"(?<![\w@\\\[;])@(" + KEY_CHARS + r")")
TEX_CITE_RE = re.compile(
    r"\\(?:cite|citep|citet|citealp|citealt|citeauthor|citeyear|parencite|textcite|autocite|footcite)\*?"
    r"(?:\[[^\]]*\]){0,2}\{([^}]*)\}"
)
BIB_ENTRY_RE = re.compile(r"@\s*([A-Za-z]+)\s*\{\s*([^,\s{}]+)\s*,")
NORMALISED_CITE_RE = re.compile(r"\[@([^\]]*)\]")


def _clean_key(key: str) -> str:
    return key.rstrip(".,;:?!")


def normalised_keys(text: str) -> list[str]:
    """Keys of citations already normalised to ``[@a; @b]`` (the form the parsers produce)."""
    out = []
    for group in NORMALISED_CITE_RE.findall(text):
        out += [k.strip().lstrip("@") for k in group.split(";") if k.strip().lstrip("@")]
    return out


def bib_keys(bibtex: str) -> tuple[list[str], list[str]]:
    """(keys in order, duplicated keys) of a BibTeX file; @comment/@string/@preamble are not entries."""
    keys = [key for kind, key in BIB_ENTRY_RE.findall(bibtex) if kind.lower() not in ("comment", "string", "preamble")]
    seen: set[str] = set()
    dups = []
    for key in keys:
        if key in seen and key not in dups:
            dups.append(key)
        seen.add(key)
    return keys, dups


# ---------------------------------------------------------------------------------------------------- placeholders

PLACEHOLDER_PATTERNS: list[tuple[re.Pattern, str]] = [
    (re.compile(r"\b(?:TODO|TBD|TBA|FIXME|XXX+|TKTK)\b"), "editing marker"),
    (re.compile(r"lorem ipsum", re.I), "filler text"),
    (re.compile(r"\[\s*(?:citation|cite|ref|reference|source|sources|refs?)\s*(?:needed)?\s*\]", re.I),
     "citation placeholder"),
    (re.compile(r"\[\s*(?:author|authors)\s*,?\s*(?:year|\d{4}|et al\.?)?\s*\]", re.I), "citation placeholder"),
    (re.compile(r"\(\s*(?:author|authors)\s*,?\s*(?:year|\d{4}|n\.d\.)\s*\)", re.I), "citation placeholder"),
    (re.compile(r"\?\?+"), "unresolved reference (??)"),
    (re.compile(r"\{\{[^{}]*\}\}"), "template slot {{...}}"),
    (re.compile(r"\$\{[^{}]*\}"), "template slot ${...}"),
    (re.compile(r"<\s*(?:insert|placeholder|citation|cite|ref|add|paper|author|title|key)\b[^<>]*>", re.I),
     "template slot <...>"),
    (re.compile(r"(?<!\\)\[\s*@?\s*\](?!\()"), "empty citation"),
    (re.compile(r"(?<![\w\\])@(?:\?|key|citekey|citation|ref)\b", re.I), "placeholder citation key"),
    (re.compile(r"(?<!\\)\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*(?<!\\)\]"), "numeric citation that resolves to no entry"),
    (re.compile(r"\\(?:todo|cite[pt]?|ref)\{\s*\}"), "empty LaTeX command"),
    (re.compile(r"\\todo\b"), "editing marker"),
    (re.compile(r"\bet al\.?\s*\(n\.d\.\)", re.I), "undated citation placeholder"),
]


def find_placeholders(text: str) -> list[tuple[str, str]]:
    found = []
    for pattern, what in PLACEHOLDER_PATTERNS:
        for match in pattern.finditer(text):
            found.append((what, match.group(0)))
    return found


# ---------------------------------------------------------------------------------------------------- sentences

_ABBREV_RE = re.compile(
    r"(?:\bet al|\be\.g|\bi\.e|\bvs|\bcf|\bfig|\bfigs|\beq|\bsect|\bsec|\bno|\bvol|\bpp|\bapprox|\bresp|\bibid|\bch"
    r"|\b[A-Z])\.$",
    re.I,
)
_BOUNDARY_RE = re.compile(r"[.!?][\"'”’)\]]*\s+(?=[“\"'(\[A-Z0-9@\\*_])")


def split_sentences(text: str) -> list[str]:
    """Sentences of one paragraph; never splits inside a curly- or straight-quoted passage, after an
    abbreviation, or inside a citation bracket."""
    out, start = [], 0
    for match in _BOUNDARY_RE.finditer(text):
        end = match.start() + 1
        piece = text[start:end]
        head = text[:end]
        if _ABBREV_RE.search(text[max(start, end - 8) : end]):
            continue
        if head.count("“") > head.count("”") or head.count('"') % 2 == 1:
            continue
        if head.count("[") > head.count("]"):
            continue
        close = match.group(0)[1:].rstrip()
        out.append((piece + close).strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return [s for s in out if s]


PLANNED_WORK_RE = re.compile(
    r"\b(?:the|our|this)\s+(?:planned|proposed|present|current)\s+(?:work|study|research|approach|review|system)\b"
    r"|\bour\s+(?:work|study|research|approach|proposal|review|system|workflow)\b|\b(?:we|our|us)\b",
    re.I,
)
QUOTED_RE = re.compile(r"“[^”]*”|\"[^\"]*\"")
LIT_NOUNS_RE = re.compile(
    r"\b(?:papers?|stud(?:y|ies)|articles?|publications?|literature|authors?|researchers?|prior|previous|existing"
    r"|earlier|recent\s+work|related\s+work|line\s+of\s+work|body\s+of\s+work|work\s+(?:on|in|by)|works"
    r"|candidates?|competitors?|they|their|them|these|those|others|et\s+al|surveys?|reviews?|experiments?"
    r"|evaluations?|findings?)\b",
    re.I,
)
REPORTING_RE = re.compile(
    r"\b(?:reports?|reported|shows?|showed|shown|finds|found|proposes?|proposed|introduces?|introduced|presents?"
    r"|presented|demonstrates?|demonstrated|evaluates?|evaluated|investigates?|investigated|examines?|examined"
    r"|surveys|surveyed|argues?|argued|observes?|observed|addresses|addressed|states?|stated|writes?|wrote"
    r"|notes?|noted|describes?|described|compares?|compared|concludes?|concluded|according\s+to|suggests?"
    r"|suggested|claims?|claimed|develops?|developed|achieves?|achieved|outperforms?|scores?)\b",
    re.I,
)
STRUCTURAL_RE = re.compile(
    r"^\s*(?:this|the\s+(?:following|next|last|final|present))\s+(?:sub)?sections?\b|^\s*(?:sub)?sections?\s+\S+"
    r"|\b(?:this|the\s+(?:following|next))\s+(?:sub)?sections?\s+(?:discuss|organi[sz]|review|cover|group|collect|list)",
    re.I,
)


def is_literature_claim(sentence: str) -> bool:
    """See the module docstring. ``sentence`` has its citations normalised to [@...] (they do not count)."""
    text = NORMALISED_CITE_RE.sub(" ", sentence)
    reports_finding = bool(re.search(r"\bthat\b", text, re.I)) or bool(QUOTED_RE.search(text))
    if STRUCTURAL_RE.search(text) and not reports_finding:
        return False
    text = PLANNED_WORK_RE.sub(" ", text)
    return bool(LIT_NOUNS_RE.search(text) or REPORTING_RE.search(text))


# ---------------------------------------------------------------------------------------------------- parsing

MD_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{#[^}]*\})?\s*#*\s*$")
PARA_ID_RE = re.compile(r"<!--\s*para\s+(\S+)\s*-->")
HTML_COMMENT_RE = re.compile(r"<!--.*?-->", re.S)


def parse_markdown(text: str) -> list[ParsedSection]:
    """Sections (by ATX heading) with their paragraphs; YAML front matter and HTML comments are skipped, a
    ``<!-- para ID -->`` comment names the paragraph after it."""
    lines = text.splitlines()
    i = 0
    if lines and lines[0].strip() == "---":
        for j in range(1, len(lines)):
            if lines[j].strip() in ("---", "..."):
                i = j + 1
                break
    sections: list[ParsedSection] = []
    buffer: list[str] = []
    start_line = 0
    pending_id: str | None = None
    in_comment = False

    def flush() -> None:
        nonlocal buffer, pending_id
        body = " ".join(s.strip() for s in buffer).strip()
        if body and sections:
            cited = normalise_markdown_citations(body)
            sections[-1].paragraphs.append(ParsedParagraph(cited, pending_id, start_line))
            pending_id = None
        elif body and not sections:
            first = ParsedParagraph(normalise_markdown_citations(body), pending_id, start_line)
            sections.append(ParsedSection("(before the first heading)", 0, start_line, [first]))
            pending_id = None
        buffer = []

    for n in range(i, len(lines)):
        line = lines[n]
        if in_comment:
            if "-->" in line:
                in_comment = False
            continue
        stripped = line.strip()
        match = PARA_ID_RE.search(stripped)
        if match:
            flush()
            pending_id = match.group(1)
            continue
        if stripped.startswith("<!--"):
            flush()
            in_comment = "-->" not in stripped
            continue
        heading = MD_HEADING_RE.match(line)
        if heading:
            flush()
            sections.append(ParsedSection(heading.group(2).strip(), len(heading.group(1)), n + 1))
            continue
        if not stripped:
            flush()
            continue
        if not buffer:
            start_line = n + 1
        buffer.append(HTML_COMMENT_RE.sub(" ", line))
    flush()
    return sections


def normalise_markdown_citations(text: str) -> str:
    def group(match: re.Match) -> str:
        keys = [_clean_key(k) for k in MD_KEY_RE.findall(match.group(1))]
        return "[@" + "; @".join(keys) + "]" if keys else match.group(0)

    text = MD_CITE_GROUP_RE.sub(group, text)
    protected = []

    def keep(match: re.Match) -> str:
        protected.append(match.group(0))
        return f"\x00{len(protected) - 1}\x00"

    text = NORMALISED_CITE_RE.sub(keep, text)
    text = MD_BARE_RE.sub(lambda m: f"[@{_clean_key(m.group(1))}]", text)
    return re.sub(r"\x00(\d+)\x00", lambda m: protected[int(m.group(1))], text)


TEX_SECTION_RE = re.compile(r"\\(section|subsection|subsubsection|paragraph)\*?\{((?:[^{}]|\{[^{}]*\})*)\}")
TEX_LEVEL = {"section": 1, "subsection": 2, "subsubsection": 3, "paragraph": 4}
TEX_PARA_ID_RE = re.compile(r"^\s*%\s*para\s+(\S+)")


def _strip_tex_comment(line: str) -> str:
    return re.sub(r"(?<!\\)%.*$", "", line)


def parse_latex(text: str) -> list[ParsedSection]:
    """Sections (\\section..\\subsubsection) of the document body with their paragraphs; citations normalised."""
    begin = text.find("\\begin{document}")
    end = text.find("\\end{document}")
    offset = text[: begin + len("\\begin{document}")].count("\n") if begin >= 0 else 0
    body = text[begin + len("\\begin{document}") : end if end >= 0 else None] if begin >= 0 else text
    sections: list[ParsedSection] = []
    buffer: list[str] = []
    start_line = 0
    pending_id: str | None = None

    def flush() -> None:
        nonlocal buffer, pending_id
        raw = " ".join(buffer).strip()
        buffer = []
        if not raw:
            return
        plain = _tex_to_text(raw)
        if not plain.strip():
            return
        if not sections:
            sections.append(ParsedSection("(before the first section)", 0, start_line))
        sections[-1].paragraphs.append(ParsedParagraph(plain, pending_id, start_line))
        pending_id = None

    for n, line in enumerate(body.splitlines(), start=offset + 1):
        para = TEX_PARA_ID_RE.match(line)
        if para:
            flush()
            pending_id = para.group(1)
            continue
        code = _strip_tex_comment(line)
        heading = TEX_SECTION_RE.search(code)
        if heading:
            flush()
            sections.append(ParsedSection(_tex_to_text(heading.group(2)).strip(), TEX_LEVEL[heading.group(1)], n))
            rest = code[heading.end() :]
            rest = re.sub(r"\\label\{[^}]*\}", "", rest).strip()
            if rest:
                start_line = n
                buffer.append(rest)
            continue
        stripped = code.strip()
        if not stripped:
            flush()
            continue
        if re.fullmatch(r"\\(?:label|bibliography|bibliographystyle|maketitle|printbibliography)\{?[^}]*\}?", stripped):
            continue
        if not buffer:
            start_line = n
        buffer.append(stripped)
    flush()
    return sections


def _tex_to_text(tex: str) -> str:
    def cite(match: re.Match) -> str:
        keys = [k.strip() for k in match.group(1).split(",")]
        return "[@" + "; @".join(keys) + "]" if any(keys) else "[@]"

    text = TEX_CITE_RE.sub(cite, tex)
    text = text.replace("``", "“").replace("''", "”")
    text = re.sub(r"\\label\{[^}]*\}", "", text)
    text = re.sub(r"\\(?:emph|textit|textbf|texttt|textsc|mbox|url)\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"\\([&%$#_{}~^])", r"\1", text)
    text = text.replace("~", " ").replace("\\,", " ")
    return re.sub(r"\s+", " ", text)


# ---------------------------------------------------------------------------------------------------- checks

def check_sections(sections: list[ParsedSection], keys: set[str], duplicates: list[str] | None = None,
                   scopes: dict[str, set[str]] | None = None) -> ValidationReport:
    issues: list[Issue] = []
    for key in duplicates or []:
        issues.append(Issue("duplicate_key", f"BibTeX key {key!r} is defined more than once"))
    if not sections:
        issues.append(Issue("no_sections", "the draft has no sections"))
    n_par = n_sent = n_claims = n_cites = 0
    cited: list[str] = []
    for section in sections:
        if not section.title.strip():
            issues.append(Issue("empty_section", "a section heading has no title", line=section.line))
        if not section.paragraphs:
            issues.append(Issue("empty_section", f"section {section.title!r} has no text", section.title,
                                line=section.line))
        for p_index, paragraph in enumerate(section.paragraphs, start=1):
            n_par += 1
            pid = paragraph.para_id or f"#{p_index}"
            for what, found in find_placeholders(paragraph.text):
                issues.append(Issue("placeholder", f"{what}: {found!r}", section.title, pid, paragraph.line))
            scope = (scopes or {}).get(paragraph.para_id or "")
            for sentence in split_sentences(paragraph.text):
                n_sent += 1
                keys_here = normalised_keys(sentence)
                n_cites += len(keys_here)
                for key in keys_here:
                    cited.append(key)
                    if key not in keys:
                        issues.append(Issue("unknown_key", f"citation key {key!r} is not in the bibliography",
                                            section.title, pid, paragraph.line, sentence))
                    elif scope is not None and key not in scope:
                        issues.append(Issue("out_of_scope", f"{key!r} is not among this section's papers",
                                            section.title, pid, paragraph.line, sentence))
                if is_literature_claim(sentence):
                    n_claims += 1
                    if not keys_here:
                        issues.append(Issue("uncited_claim", "a claim about the literature cites no paper",
                                            section.title, pid, paragraph.line, sentence))
    distinct = sorted(set(cited))
    return ValidationReport(issues, len(sections), n_par, n_sent, n_claims, n_cites, distinct,
                            sorted(keys - set(cited)), len(keys))


def validate_markdown(markdown: str, bibtex: str, scopes: dict[str, set[str]] | None = None) -> ValidationReport:
    keys, dups = bib_keys(bibtex)
    return check_sections(parse_markdown(markdown), set(keys), dups, scopes)


def validate_latex(latex: str, bibtex: str, scopes: dict[str, set[str]] | None = None) -> ValidationReport:
    keys, dups = bib_keys(bibtex)
    return check_sections(parse_latex(latex), set(keys), dups, scopes)


def validate_paragraph(text: str, keys: set[str], scope: set[str] | None = None) -> list[Issue]:
    """The checks that apply to one paragraph on its own (used before committing a redrafted paragraph)."""
    section = ParsedSection("(paragraph)", 2, 0, [ParsedParagraph(normalise_markdown_citations(text), "p", 0)])
    if not text.strip():
        return [Issue("empty_section", "the paragraph is empty")]
    issues = check_sections([section], keys, scopes={"p": scope} if scope is not None else None).issues
    # A rewritten paragraph must stay one paragraph of prose: no heading, list, comment or second paragraph
    # that would change the document's structure once it is put back.
    if re.match(r"\s*(?:#|[-*+]\s|\d+\.\s|>|---|\\(?:sub)*section)", text) or "<!--" in text or "\n\n" in text.strip():
        issues.append(Issue("format", "a paragraph must be one block of prose: no headings, lists, comments or "
                                      "blank lines"))
    return issues
