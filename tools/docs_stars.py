"""Literal stars in the docs' prose: LS*, DecSubLight*, CoP*, C* (the papers' names) would
open an emphasis in Markdown and italicise the rest of a line. A star right after a letter or
digit that closes no emphasis opened before it on its line is escaped; code (spans and fenced
blocks), bold markers and real emphasis are left as written."""

from __future__ import annotations

import re

FENCE = re.compile(r"^\s*(```|~~~)")


def _line(text: str) -> str:
    out, opened, i, in_code = [], False, 0, False
    while i < len(text):
        ch = text[i]
        if ch == "`":
            in_code = not in_code
        elif ch == "*" and not in_code:
            if text.startswith("**", i):  # bold markers travel as a unit
                out.append("**")
                i += 2
                continue
            before = text[i - 1] if i else " "
            after = text[i + 1] if i + 1 < len(text) else " "
            if before.isalnum() or before == ")":
                if opened:
                    opened = False      # closes *emphasis*
                else:
                    out.append("\\*")   # a literal star: LS*, C*
                    i += 1
                    continue
            elif after.isalnum():
                opened = True
        out.append(ch)
        i += 1
    return "".join(out)


def escape(markdown: str) -> str:
    """The page with its literal stars escaped."""
    lines, fenced = [], False
    for line in markdown.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        lines.append(line if fenced or FENCE.match(line) else _line(line))
    return "\n".join(lines)
