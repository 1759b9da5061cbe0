"""New dungeons from a ruleset: the starting point of File > New and the pack browser's Add.

The templates are core data (``inkcrawl new`` writes them too): :mod:`inkcrawl.templates`,
re-exported here for the editor.
"""

from __future__ import annotations

from inkcrawl.templates import A4, slug, template_data

__all__ = ["A4", "slug", "template_data"]
