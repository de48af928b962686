"""Text a paper may carry that must stay data: one of each class (citations, markup, placeholders, control
characters, ...). Shared by the sanitiser's unit test and the synthesis hostile-input test."""

HOSTILE_TEXT = [
    "[1]", "[19]", "[2, 5-7]", "[3; 4]", r"\cite{smith2020}", r"\citep[p.~3]{a,b}", r"\ref{fig1}", "$x^2_i$",
    "$$E = mc^2$$", r"\(a+b\)", "50%", "R&D", "snake_case_name", "#hashtag", "# Heading", "<b>bold</b>",
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<!-- hidden", "-->", "&lt;i&gt;", "**strong**",
    "_em_", "`code`", "[link](http://example.org)", "@smith2020", "[@key2020]", "[see @other]", "user@example.org",
    "TODO", "TBD", "??", "{{slot}}", "${var}", "[citation needed]", "(Author, Year)", "lorem ipsum", "\\", "{", "}",
    "}{", "~", "^", "|", "“", "”", '"', "'", "\u2028", "\x00", "\t", "\r\n", "\ufeff", "\ud800", "中文", "😀", "ﬁ",
    "α≥β±γ", "Ω", "e.g.", "Fig. 3", "et al. (n.d.)", "<insert reference>", "---", "> quote", "- item", "1. item",
    "\\todo", "%comment", "x" * 300, "a-" * 80,
]
