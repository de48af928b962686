"""LaTeX markup to plain text (fast, regex-based), for BibTeX fields: accents, escapes, commands, braces, math.

Pure logic: no Dagster imports.
"""

from __future__ import annotations

import re
import unicodedata

_ACCENT_MARKS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304", ".": "\u0307",
    "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328", "r": "\u030a", "d": "\u0323",
    "b": "\u0331",
}  # fmt: skip
_SPECIAL_LETTERS = {
    "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "o": "ø", "O": "Ø",
    "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ",
}  # fmt: skip
_NAMED = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
    "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ",
    "Psi": "Ψ", "Omega": "Ω", "LaTeX": "LaTeX", "TeX": "TeX", "BibTeX": "BibTeX", "times": "×",
    "pm": "±", "leq": "≤", "geq": "≥", "le": "≤", "ge": "≥", "neq": "≠", "approx": "≈", "infty": "∞",
    "rightarrow": "→", "to": "→", "leftarrow": "←", "textendash": "–", "textemdash": "—", "ldots": "…",
    "dots": "…", "textregistered": "®", "texttrademark": "™", "copyright": "©", "S": "§", "P": "¶",
    "euro": "€", "pounds": "£", "textdegree": "°", "degree": "°",
}  # fmt: skip
_LATEX_ACCENT = re.compile(r"\\([`'^\"~=.])\s*(?:\{\s*\\?([A-Za-z])\s*\}|\\?([A-Za-z]))")
_LATEX_LETTER_ACCENT = re.compile(r"\\([uvHckrdb])(?:\s*\{\s*\\?([A-Za-z])\s*\}|\s+([A-Za-z])(?![A-Za-z]))")
_LATEX_SPECIAL = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![A-Za-z])(?:\s*\{\})?")
_LATEX_ESCAPE = re.compile(r"\\([&%$#_{}])")
_LATEX_COMMAND = re.compile(r"\\([A-Za-z]+)\*?")
_LATEX_SYMBOL = re.compile(r"\\[^A-Za-z]?")
_ESCAPE_HOLD = {"{": "\ue000", "}": "\ue001", "$": "\ue002", "&": "&", "%": "%", "#": "#", "_": "_"}
# The text-mode names of characters LaTeX reserves: held past the passes that read ~ and \\ as spacing.
_NAMED_HOLD = {"textasciitilde": "\ue003", "textasciicircum": "\ue004", "textbackslash": "\ue005"}
_ESCAPE_BACK = str.maketrans({"\ue000": "{", "\ue001": "}", "\ue002": "$", "\ue003": "~", "\ue004": "^",
                              "\ue005": "\\"})


def _accent(mark: str, letter: str) -> str:
    return unicodedata.normalize("NFC", letter + _ACCENT_MARKS[mark])


def latex_to_text(value: str) -> str:
    """Turn BibTeX/LaTeX markup into plain text: accents, escapes, formatting commands, braces, math `$`.

    Linear-time regex passes (no recursion), so hostile nesting cannot blow the stack.
    """
    if not any(ch in value for ch in "\\{}$~`'-"):
        return value
    text = re.sub("[\ue000-\ue005]", "", value)
    text = _LATEX_ESCAPE.sub(lambda m: _ESCAPE_HOLD[m.group(1)], text)
    text = _LATEX_ACCENT.sub(lambda m: _accent(m.group(1), m.group(2) or m.group(3)), text)
    text = _LATEX_LETTER_ACCENT.sub(lambda m: _accent(m.group(1), m.group(2) or m.group(3)), text)
    text = _LATEX_SPECIAL.sub(lambda m: _SPECIAL_LETTERS[m.group(1)], text)
    text = _LATEX_COMMAND.sub(lambda m: _NAMED_HOLD.get(m.group(1)) or _NAMED.get(m.group(1), ""), text)
    text = text.replace("\\\\", " ")
    text = _LATEX_SYMBOL.sub(" ", text)
    text = text.replace("---", "—").replace("--", "–").replace("``", "“").replace("''", "”")
    text = text.replace("~", " ").replace("{", "").replace("}", "").replace("$", "")
    return text.translate(_ESCAPE_BACK)
