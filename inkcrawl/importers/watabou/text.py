"""Text for the sheet: cut at a word, shortened at a word with an ellipsis to a printed width,
wrapped to a width. A word is never cut."""

from __future__ import annotations

from inkcrawl.textmetrics import text_width_mm

# -- text -----------------------------------------------------------------------------------------


def _shorten(text: str, limit: int) -> str:
    """``text`` cut at a word to at most ``limit`` characters, with an ellipsis when cut (inside a
    word only when its first word alone is longer than ``limit``)."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in text[:limit] and text[limit - 1] != " ":
        cut = cut[: cut.rfind(" ")] if " " in cut else cut
    return cut.rstrip(" ,;:.") + "…"


def _fit(text: str, width_mm: float, em: float) -> str:
    """``text`` shortened at a word with an ellipsis until it is at most ``width_mm`` wide: the
    most whole words that fit with the "…"; ``""`` when not even the first word does (a word is
    never cut)."""
    if text_width_mm(text, em) <= width_mm:
        return text
    words = text.split(" ")
    low, high = 0, len(words) - 1  # the most whole words that fit with the ellipsis: binary search
    while low < high:
        middle = (low + high + 1) // 2
        if text_width_mm(" ".join(words[:middle]).rstrip(" ,;:.") + "…", em) <= width_mm:
            low = middle
        else:
            high = middle - 1
    text = " ".join(words[:low]).rstrip(" ,;:.")
    return text + "…" if text else ""


def _wrap(text: str, width_mm: float, em: float) -> list[str]:
    lines: list[str] = []
    for word in text.split(" "):
        if lines and text_width_mm(f"{lines[-1]} {word}", em) <= width_mm:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines
