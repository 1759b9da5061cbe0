"""Text for the sheet: cut at a word, shortened with an ellipsis to a printed width, wrapped
to a width."""

from __future__ import annotations

from inkcrawl.textmetrics import text_width_mm

# -- text -----------------------------------------------------------------------------------------


def _shorten(text: str, limit: int) -> str:
    """``text`` cut at a word to at most ``limit`` characters, with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:.") + "…"


def _fit(text: str, width_mm: float, em: float) -> str:
    """``text`` shortened with an ellipsis until it is at most ``width_mm`` wide."""
    if text_width_mm(text, em) <= width_mm:
        return text
    low, high = 0, len(text)  # the longest prefix that fits with the ellipsis: binary search
    while low < high:
        middle = (low + high + 1) // 2
        if text_width_mm(text[:middle].rstrip(" ,;:.") + "…", em) <= width_mm:
            low = middle
        else:
            high = middle - 1
    text = text[:low].rstrip(" ,;:.")
    return text + "…" if text else ""


def _wrap(text: str, width_mm: float, em: float) -> list[str]:
    lines: list[str] = []
    for word in text.split(" "):
        if lines and text_width_mm(f"{lines[-1]} {word}", em) <= width_mm:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines
