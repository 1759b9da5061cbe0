"""Text metrics of the font the sheets print with (DejaVu Sans, shipped with inkcrawl).

Pure data, no Qt: the printability checks and the sheet renderers measure text the same way.
Sizes are the font's em size in mm; a label's ``text_height_mm`` is the cap height
(:data:`CAP_HEIGHT_EM` of the em).
"""

from __future__ import annotations

import unicodedata

#: Cap height of DejaVu Sans as a fraction of the em.
CAP_HEIGHT_EM = 0.729
#: Descent below the baseline as a fraction of the em.
DESCENT_EM = 0.236

# Advance widths (1/1000 em) of DejaVu Sans and DejaVu Sans Bold for the printable ASCII range
# (space .. tilde), from the shipped font files, so layout matches what prints.
_REGULAR = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632,
    575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685,
    611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579,
    278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
)
_BOLD = (
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696,
    696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683,
    683, 821, 837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771,
    724, 725, 457, 365, 457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665,
    343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838,
)


def text_width_mm(text: str, size_mm: float, bold: bool = False) -> float:
    """Width of ``text`` in the shipped font at ``size_mm`` (em), in mm: exact for ASCII (no
    kerning), an estimate for other characters (wide East Asian ones count one em)."""
    table = _BOLD if bold else _REGULAR
    total = 0
    for char in text:
        code = ord(char)
        if 32 <= code < 127:
            total += table[code - 32]
        elif unicodedata.east_asian_width(char) in ("W", "F"):
            total += 1000
        elif unicodedata.combining(char):
            continue
        else:
            total += 700 if bold else 640
    return total / 1000 * size_mm
