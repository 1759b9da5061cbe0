"""Reading a sheet's SVG as if its glyphs were drawn in place.

A sheet defines each glyph once in ``<defs>`` and places it with ``<use xlink:href="#glyph-N"
x=... y=...>`` (:meth:`exporters.canvas.SheetCanvas.reused`). :func:`inline_uses` turns every
such ``<use>`` back into the shapes it draws, at their place on the sheet, so tests read the
glyphs' outlines, colours, texts and positions from the group of their element as before.
"""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET

from exporters.canvas import fmt, fmt_all

SVG_NS = "{http://www.w3.org/2000/svg}"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_ROTATE = re.compile(r"rotate\(([-\d.eE]+) ([-\d.eE]+) ([-\d.eE]+)\)")


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _moved(node: ET.Element, dx: float, dy: float) -> None:
    """``node`` and what it holds moved by ``(dx, dy)`` mm: its coordinates changed, or for a
    node with a transform other than ``rotate(a cx cy)`` (a text as Qt gets it) a ``translate``
    put in front of that transform."""
    transform = node.get("transform")
    if transform:
        rotation = _ROTATE.fullmatch(transform)
        if rotation is None:
            node.set("transform", f"translate({fmt(dx)} {fmt(dy)}) {transform}")
            return
        angle, cx, cy = (float(v) for v in rotation.groups())
        node.set("transform", f"rotate({fmt(angle)} {fmt(cx + dx)} {fmt(cy + dy)})")
    for x_name, y_name in (("x", "y"), ("cx", "cy")):
        x, y = node.get(x_name), node.get(y_name)
        if x is not None and y is not None:
            node.set(x_name, fmt(float(x) + dx))
            node.set(y_name, fmt(float(y) + dy))
    d = node.get("d")
    if _local(node.tag) == "path" and d:
        # absolute commands whose numbers are all x y pairs (the canvas writes no others)
        numbers = [float(n) for n in _NUMBER.findall(d)]
        moved = [value + (dx if i % 2 == 0 else dy) for i, value in enumerate(numbers)]
        node.set("d", fmt_all(_NUMBER.sub("%.3f", d), moved))
    for child in node:
        _moved(child, dx, dy)


def inline_uses(root: ET.Element) -> ET.Element:
    """``root`` (changed in place, and returned) with every ``<use>`` of a definition replaced
    by a copy of the definition's shapes moved to the use's ``x``, ``y`` (in a ``<g>`` with the
    use's other attributes if it has any), and the ``<defs>`` gone: the tree a sheet drawing
    every glyph in place had."""
    definitions = {node.get("id"): node for node in root.iter() if node.get("id")}
    for parent in list(root.iter()):
        for child in list(parent):
            if _local(child.tag) != "use":
                continue
            href = child.get(XLINK_HREF) or child.get("href") or ""
            definition = definitions[href.lstrip("#")]
            dx, dy = float(child.get("x", "0")), float(child.get("y", "0"))
            parts = []
            for part in definition:
                part = copy.deepcopy(part)
                _moved(part, dx, dy)
                parts.append(part)
            attributes = {k: v for k, v in child.attrib.items() if k not in ("x", "y", "href", XLINK_HREF)}
            if attributes:  # a use tagged itself: its shapes in a group tagged so
                group = ET.Element(SVG_NS + "g", attributes)
                group.extend(parts)
                parts = [group]
            index = list(parent).index(child)
            parent[index : index + 1] = parts
    for parent in list(root.iter()):
        for child in list(parent):
            if _local(child.tag) == "defs":
                parent.remove(child)
    return root


def sheet_tree(svg: str) -> ET.Element:
    """The parsed ``svg`` with its uses inlined (:func:`inline_uses`)."""
    return inline_uses(ET.fromstring(svg))
