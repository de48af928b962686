"""Paper text as data: the one place where text that comes from papers (titles, abstracts, venues, authors,
recorded gaps) is neutralised, and where every output format is escaped.

``paper_text`` turns paper-derived text into plain prose that is never markup and never a citation: reference
markers ("[1]", "[2, 5-7]"), citation commands (``\\cite{...}``), LaTeX commands and math delimiters, HTML tags
and entities, Markdown emphasis, links and code, control characters and over-long tokens are removed, and what
the draft validator would take for a placeholder of the draft's own ("??", "TODO", "{{x}}") is defused. The draft
then escapes the result for Markdown (``md_escape``), LaTeX (``tex_escape``) and BibTeX (``bib_value``), so the
validator judges only the citations the draft makes itself. Pure: no Dagster, no store.
"""

from __future__ import annotations

import html
import re
import unicodedata

from agentr_dagster.synthesis.validate import find_placeholders

MAX_TOKEN = 60  # longer "words" (hashes, run-together URLs, base64) are cut: they only break lines

_HTML_COMMENT_RE = re.compile(r"<!--.*?(?:-->|$)", re.S)
_HTML_TAG_RE = re.compile(r"</?[A-Za-z][^<>]*>|<[!?/][^<>]*>")
_TEX_REF_RE = re.compile(
    r"\\(?:[a-zA-Z]*cite[a-zA-Z]*|ref|eqref|autoref|cref|Cref|pageref|label|footnote|url|href)\*?"
    r"\s*(?:\[[^\]]*\]\s*){0,2}(?:\{[^{}]*\}\s*){0,2}"
)
_TEX_FORMAT_RE = re.compile(r"\\(?:emph|textit|textbf|texttt|textsc|textrm|textsf|mathrm|mathbf|mathit|mbox|text)"
                            r"\s*\{([^{}]*)\}")
_TEX_COMMAND_RE = re.compile(r"\\([a-zA-Z]+)\*?|\\(.)")
_REF_MARKER_RE = re.compile(r"\s*\[\s*(?:\d+[a-z]?|[ivx]+)(?:\s*(?:[,;–—-]|and)\s*\d+[a-z]?)*\s*\]", re.I)
_BRACKET_CITE_RE = re.compile(r"\s*\[[^\[\]]*@[^\[\]]*\]")
_MD_LINK_RE = re.compile(r"!?\[([^\[\]]*)\]\([^()\s]*\)")
_MD_EMPHASIS_RE = re.compile(r"(?<![\w*_~`])(\*{1,3}|_{1,3}|~~|`+)(?=\S)(.+?)(?<=\S)\1(?!\w)")
_QUOTES = str.maketrans({c: "'" for c in "\"“”„‟«»〝〞＂"})
_WORD_RE = re.compile(r"\S{" + str(MAX_TOKEN + 1) + ",}")


def _plain_chars(text: str) -> str:
    """Every control, format, separator or surrogate character becomes a space (a U+2028 would start a new line
    in the Markdown, a lone surrogate cannot be written as UTF-8)."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        out.append(" " if cat[0] in "CZ" and ch not in "\u200d" else ch)
    return "".join(out)


def _tex_command(match: re.Match) -> str:
    """``\\alpha`` -> "alpha", ``\\%`` -> "%"; any other escaped symbol is dropped."""
    name, symbol = match.group(1), match.group(2)
    return name or (symbol if symbol.isalnum() or symbol in "&%#_" else " ")


def _defuse(match: str) -> str:
    """A match of a validator placeholder pattern, made harmless: brackets become parentheses, repeated
    question marks one, markers lower case, @ and template characters dropped."""
    text = re.sub(r"\?{2,}", "?", match)
    text = re.sub(r"[\[\]{}<>$@]", "", text)
    text = re.sub(r"\(\s*", "", text).replace(")", "")
    text = re.sub(r"\b[A-Z]{2,}\b", lambda m: m.group(0).lower(), text)
    return text.replace("lorem ipsum", "lorem-ipsum").replace("Lorem ipsum", "Lorem-ipsum")


def paper_text(text: str | None, *, max_token: int = MAX_TOKEN) -> str:
    """Paper-derived text as plain prose (see the module docstring); idempotent, '' for None."""
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", str(text))
    text = html.unescape(html.unescape(text))  # "&amp;lt;" is common in exported records
    text = _HTML_COMMENT_RE.sub(" ", text)
    text = _HTML_TAG_RE.sub(" ", text)
    text = _plain_chars(text)
    text = _TEX_REF_RE.sub(" ", text)
    for _ in range(3):  # nested \emph{\textbf{x}}
        text = _TEX_FORMAT_RE.sub(r"\1", text)
    text = _TEX_COMMAND_RE.sub(_tex_command, text)
    text = text.replace("$", " ").replace("\\", " ").replace("{", "").replace("}", "")
    text = _MD_LINK_RE.sub(r"\1", text)
    for _ in range(3):
        text = _MD_EMPHASIS_RE.sub(r"\2", text)
    text = _BRACKET_CITE_RE.sub("", text)
    text = _REF_MARKER_RE.sub("", text)
    # Brackets left are the paper's own asides; as parentheses they can never look like a citation group.
    text = text.replace("[", "(").replace("]", ")").translate(_QUOTES)
    text = re.sub(r"^#+\s*|(?<=\s)#+(?=\s)", " ", text)
    text = _WORD_RE.sub(lambda m: m.group(0)[:max_token] + "…", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    for _ in range(5):
        found = find_placeholders(text)
        if not found:
            break
        for _, match in found:
            text = text.replace(match, _defuse(match))
    else:  # not expected: drop every character a placeholder pattern is made of
        text = re.sub(r"[\[\]{}<>$@?]", "", text)
    return re.sub(r"\s+", " ", text).strip()


# ------------------------------------------------------------------------------------------------ Markdown

_MD_SPECIAL_RE = re.compile(r"([\\`*_\[\]<>#@|~$])")


def md_escape(text: str) -> str:
    """Text that Markdown (and the validator) will read literally: no emphasis, links, HTML or @citations."""
    return _MD_SPECIAL_RE.sub(r"\\\1", text.replace("\n", " "))


def md_unescape(text: str) -> str:
    return re.sub(r"\\([\\`*_\[\]<>#@|~$])", r"\1", text)


def md_data(text: str | None) -> str:
    """Paper-derived text for the Markdown draft: neutralised, then escaped."""
    return md_escape(paper_text(text))


# ------------------------------------------------------------------------------------------------ LaTeX

_TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                "“": "``", "”": "''", "‘": "`", "’": "'", "–": "--", "—": "---", "…": r"\ldots{}",
                "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "\u00a0": "~"}
# Characters pdflatex cannot typeset with inputenc utf8 + T1 are given as math symbols where there is one.
_TEX_SYMBOLS = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta", "η": "eta",
                "θ": "theta", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho",
                "σ": "sigma", "τ": "tau", "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega", "Γ": "Gamma",
                "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda", "Π": "Pi", "Σ": "Sigma", "Φ": "Phi", "Ψ": "Psi",
                "Ω": "Omega", "≤": "leq", "≥": "geq", "≠": "neq", "≈": "approx", "±": "pm", "×": "times",
                "→": "rightarrow", "←": "leftarrow", "∞": "infty", "∑": "sum", "√": "surd", "∈": "in", "·": "cdot"}
UNTYPESETTABLE = r"\textsuperscript{?}"


def _tex_char(ch: str) -> str:
    if ch in _TEX_SPECIAL:
        return _TEX_SPECIAL[ch]
    if ch in _TEX_SYMBOLS:
        return f"\\ensuremath{{\\{_TEX_SYMBOLS[ch]}}}"
    code = ord(ch)
    if 0x20 <= code < 0x7F or 0xA1 <= code <= 0x17F:  # ASCII and Latin-1/Extended-A: T1 has the glyphs
        return ch
    if unicodedata.category(ch)[0] in "CZ":
        return " "
    ascii_ = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return "".join(_TEX_SPECIAL.get(c, c) for c in ascii_) if ascii_ else UNTYPESETTABLE


def tex_escape(text: str) -> str:
    """Plain text as LaTeX that pdflatex compiles: specials escaped, characters outside T1 mapped or marked."""
    return "".join(_tex_char(ch) for ch in text)


# ------------------------------------------------------------------------------------------------ BibTeX

def bib_value(text: str | None) -> str:
    """A BibTeX field value (the text between the field's braces): neutralised and LaTeX-escaped, so its braces
    always balance."""
    return tex_escape(paper_text(text, max_token=200))


def bib_literal(text: str | None) -> str:
    """A DOI or URL: kept verbatim but for what would end the field or the entry (braces, whitespace)."""
    return re.sub(r"[{}\s\\]", "", text or "")
