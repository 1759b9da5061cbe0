"""Every menu command of the editor with its shortcut and tooltip, declared in one place.

The main window makes its menus and ``QAction`` objects from :data:`ACTIONS`; feature modules
(files, export, playtest...) connect handlers to them by ``id``. Shortcuts use Qt's standard
key sequences where one exists, so they follow each platform's conventions (Ctrl+Z, and
Ctrl+Shift+Z for redo, on Linux and Windows; Cmd on macOS). Commands whose usual shortcut
needs a punctuation key (Ctrl+' for the grid, Ctrl+] to rotate by a step) also have a letter
shortcut, which every keyboard layout can type (Ctrl+G shows the grid, as in Tiled).

A standard key expands to different sequences on each platform (Qt's Delete is Del and Ctrl+D
under KDE and GNOME, Del and Control+D on macOS). An explicit shortcut of a command wins over
another command's standard expansion: Ctrl+D duplicates everywhere, as in Tiled, and Delete keeps
Del and Backspace. :data:`PLATFORM_BINDINGS` lists Qt's standard bindings of every platform
(from the table of ``QKeySequence``'s documentation) so a test can check that no two commands
share a sequence anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QKeySequence

SK = QKeySequence.StandardKey


@dataclass(frozen=True)
class ActionSpec:
    """A command: ``id``, the ``menu`` it sits in, its ``text`` (with & for the mnemonic),
    ``shortcuts`` (standard keys or strings such as ``"Ctrl+D"``), a ``tooltip``, and whether
    it is ``checkable``."""

    id: str
    menu: str
    text: str
    shortcuts: tuple = ()
    tooltip: str = ""
    checkable: bool = False


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("new", "File", "&New Dungeon...", (SK.New,), "Start a dungeon from a ruleset template"),
    ActionSpec(
        "generate",
        "File",
        "&Generate Dungeon...",
        (),
        "Generate a new dungeon from a seed and constraints (opens unsaved, like New)",
    ),
    ActionSpec(
        "populate",
        "File",
        "&Populate Dungeon...",
        (),
        "Add monsters, treasures, keys and the rest of the scoring content to the current line layout (one undo step)",
    ),
    ActionSpec("open", "File", "&Open...", (SK.Open,), "Open a dungeon file or a content pack"),
    ActionSpec("save", "File", "&Save", (SK.Save,), "Save the dungeon (safely: written to a temporary file first)"),
    ActionSpec("save_as", "File", "Save &As...", (SK.SaveAs, "Ctrl+Shift+S"), "Save the dungeon to another file"),
    ActionSpec("close", "File", "&Close Dungeon", (SK.Close,), "Close the current dungeon"),
    ActionSpec("quit", "File", "&Quit", (SK.Quit, "Ctrl+Q"), "Quit the editor"),
    ActionSpec("undo", "Edit", "&Undo", (SK.Undo,), "Undo the last edit"),
    ActionSpec("redo", "Edit", "&Redo", ("Ctrl+Shift+Z", SK.Redo), "Redo the edit undone last"),
    ActionSpec("cut", "Edit", "Cu&t", (SK.Cut,), "Cut the selection to the clipboard"),
    ActionSpec(
        "copy", "Edit", "&Copy", (SK.Copy,), "Copy the selection (paste it into any dungeon of the same family)"
    ),
    ActionSpec("paste", "Edit", "&Paste", (SK.Paste,), "Paste objects copied from this or another dungeon"),
    ActionSpec("duplicate", "Edit", "&Duplicate", ("Ctrl+D",), "Duplicate the selection"),
    ActionSpec("delete", "Edit", "De&lete", (SK.Delete, "Backspace"), "Delete the selection"),
    ActionSpec(
        "rotate_cw",
        "Edit",
        "Rotate &Clockwise",
        ("Ctrl+R",),
        "Turn the selection 90° clockwise (elements also turn their glyph)",
    ),
    ActionSpec(
        "rotate_ccw", "Edit", "Rotate C&ounterclockwise", ("Ctrl+Shift+R",), "Turn the selection 90° counterclockwise"
    ),
    ActionSpec("rotate_step", "Edit", "Rotate by 15°", ("Ctrl+]", "Ctrl+Alt+R"), "Turn the selection 15° clockwise"),
    ActionSpec("select_all", "Edit", "Select &All", (SK.SelectAll,), "Select every object of the dungeon"),
    ActionSpec("zoom_in", "View", "Zoom &In", (SK.ZoomIn, "Ctrl+="), "Zoom in"),
    ActionSpec("zoom_out", "View", "Zoom &Out", (SK.ZoomOut,), "Zoom out"),
    ActionSpec("zoom_fit", "View", "&Fit Sheet", ("Ctrl+0",), "Fit the whole sheet in the window"),
    ActionSpec("zoom_actual", "View", "Actual &Size (100 %)", ("Ctrl+1",), "Show the sheet at its true size"),
    ActionSpec(
        "show_grid",
        "View",
        "Show Snapping &Grid",
        ("Ctrl+G", "Ctrl+'"),
        "Show the mm grid points snap to",
        checkable=True,
    ),
    ActionSpec(
        "snap",
        "View",
        "S&nap",
        ("Ctrl+Shift+G", "Ctrl+Shift+'"),
        "Snap to vertices, walls and the grid (hold Alt to place freely)",
        checkable=True,
    ),
    ActionSpec("grid_step", "View", "Grid S&tep...", (), "Set the snapping grid step in mm"),
    ActionSpec("validate", "Dungeon", "&Validate Now", ("F7",), "Run every check of inkcrawl validate now"),
    ActionSpec(
        "renumber_stones",
        "Dungeon",
        "&Renumber Artifact Stones",
        (),
        "Number the artifact stones 1, 2, 3... in reading order",
    ),
    ActionSpec(
        "renumber_ids",
        "Dungeon",
        "Renumber &Duplicate Ids...",
        (),
        "Give objects that share an id fresh ids (until then they cannot be selected or edited)",
    ),
    ActionSpec("resize_grid", "Dungeon", "Resize &Grid...", (), "Change the number of columns and rows"),
)


def spec(action_id: str) -> ActionSpec:
    """The declaration of action ``action_id``; raises ``KeyError`` for an unknown id."""
    for item in ACTIONS:
        if item.id == action_id:
            return item
    raise KeyError(action_id)


#: Qt's standard bindings of the standard keys the editor uses, per platform (Windows, macOS,
#: KDE Plasma, GNOME; "Ctrl" is Cmd and "Meta" is Control on macOS).
PLATFORM_BINDINGS: dict[str, dict[QKeySequence.StandardKey, tuple[str, ...]]] = {
    "windows": {
        SK.New: ("Ctrl+N",),
        SK.Open: ("Ctrl+O",),
        SK.Save: ("Ctrl+S",),
        SK.SaveAs: ("Ctrl+Shift+S",),
        SK.Close: ("Ctrl+F4", "Ctrl+W"),
        SK.Quit: (),
        SK.Undo: ("Ctrl+Z", "Alt+Backspace"),
        SK.Redo: ("Ctrl+Y", "Ctrl+Shift+Z", "Alt+Shift+Backspace"),
        SK.Cut: ("Ctrl+X", "Shift+Del"),
        SK.Copy: ("Ctrl+C", "Ctrl+Ins"),
        SK.Paste: ("Ctrl+V", "Shift+Ins"),
        SK.Delete: ("Del",),
        SK.SelectAll: ("Ctrl+A",),
        SK.ZoomIn: ("Ctrl++",),
        SK.ZoomOut: ("Ctrl+-",),
        SK.Print: ("Ctrl+P",),
    },
    "macos": {
        SK.New: ("Ctrl+N",),
        SK.Open: ("Ctrl+O",),
        SK.Save: ("Ctrl+S",),
        SK.SaveAs: ("Ctrl+Shift+S",),
        SK.Close: ("Ctrl+W", "Ctrl+F4"),
        SK.Quit: ("Ctrl+Q",),
        SK.Undo: ("Ctrl+Z",),
        SK.Redo: ("Ctrl+Shift+Z",),
        SK.Cut: ("Ctrl+X", "Meta+K"),
        SK.Copy: ("Ctrl+C",),
        SK.Paste: ("Ctrl+V", "Meta+Y"),
        SK.Delete: ("Del", "Meta+D"),
        SK.SelectAll: ("Ctrl+A",),
        SK.ZoomIn: ("Ctrl++",),
        SK.ZoomOut: ("Ctrl+-",),
        SK.Print: ("Ctrl+P",),
    },
    "kde": {
        SK.New: ("Ctrl+N",),
        SK.Open: ("Ctrl+O",),
        SK.Save: ("Ctrl+S",),
        SK.SaveAs: ("Ctrl+Shift+S",),
        SK.Close: ("Ctrl+W",),
        SK.Quit: ("Ctrl+Q",),
        SK.Undo: ("Ctrl+Z", "F14"),
        SK.Redo: ("Ctrl+Shift+Z",),
        SK.Cut: ("Ctrl+X", "F20", "Shift+Del"),
        SK.Copy: ("Ctrl+C", "F16", "Ctrl+Ins"),
        SK.Paste: ("Ctrl+V", "F18", "Shift+Ins"),
        SK.Delete: ("Del", "Ctrl+D"),
        SK.SelectAll: ("Ctrl+A",),
        SK.ZoomIn: ("Ctrl++",),
        SK.ZoomOut: ("Ctrl+-",),
        SK.Print: ("Ctrl+P",),
    },
    "gnome": {
        SK.New: ("Ctrl+N",),
        SK.Open: ("Ctrl+O",),
        SK.Save: ("Ctrl+S",),
        SK.SaveAs: ("Ctrl+Shift+S",),
        SK.Close: ("Ctrl+W",),
        SK.Quit: ("Ctrl+Q",),
        SK.Undo: ("Ctrl+Z", "F14"),
        SK.Redo: ("Ctrl+Shift+Z",),
        SK.Cut: ("Ctrl+X", "F20", "Shift+Del"),
        SK.Copy: ("Ctrl+C", "F16", "Ctrl+Ins"),
        SK.Paste: ("Ctrl+V", "F18", "Shift+Ins"),
        SK.Delete: ("Del", "Ctrl+D"),
        SK.SelectAll: ("Ctrl+A",),
        SK.ZoomIn: ("Ctrl++",),
        SK.ZoomOut: ("Ctrl+-",),
        SK.Print: ("Ctrl+P",),
    },
}


def standard_bindings(key: QKeySequence.StandardKey) -> list[QKeySequence]:
    """The sequences of a standard key on this platform (Qt's; tests replace this function to
    check another platform's, from :data:`PLATFORM_BINDINGS`)."""
    return [k for k in QKeySequence.keyBindings(key) if not k.isEmpty()]


def _explicit_keys() -> set[str]:
    """Every sequence some command names explicitly (these win over standard expansions)."""
    return {QKeySequence(s).toString() for item in ACTIONS for s in item.shortcuts if not isinstance(s, SK)}


def key_sequences(item: ActionSpec) -> list[QKeySequence]:
    """The shortcuts of an action as key sequences: standard keys expanded for the platform,
    less the sequences another command names explicitly (X11's Delete includes Ctrl+D, which is
    Duplicate here)."""
    claimed = _explicit_keys() - {QKeySequence(s).toString() for s in item.shortcuts if not isinstance(s, SK)}
    out: list[QKeySequence] = []
    for shortcut in item.shortcuts:
        if isinstance(shortcut, QKeySequence.StandardKey):
            out += [k for k in standard_bindings(shortcut) if k.toString() not in claimed]
        else:
            out.append(QKeySequence(shortcut))
    unique: list[QKeySequence] = []
    for key in out:
        if key not in unique:
            unique.append(key)
    return unique
