"""inkcrawl: level editor and content toolkit for paper draw-your-path dungeon games.

The ``inkcrawl`` package is the Qt-free core: the dungeon model, loading, saving and
migration of files, JSON Schema validation, rule checks and the command line.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
