"""Merging the PDFs that Qt's ``QPdfWriter`` writes, page by page, without re-encoding anything.

Only for Qt's own output (see :mod:`exporters.pdf_helper`): a classic cross-reference table,
a flat page tree, no object streams, no incremental updates. The pages, their content
streams, fonts (embedded subsets with their ToUnicode maps) and resources are copied byte
for byte; the objects of every PDF but the first are renumbered after those of the first.
The first PDF's catalogue, document information and XMP metadata are kept, its page tree
lists every page in the order asked. Anything unexpected raises :class:`UnexpectedPdf`, and
the caller renders the document in one piece instead.
"""

from __future__ import annotations

import re

_XREF_START = re.compile(rb"startxref\s+(\d+)\s+%%EOF\s*$")
_XREF_SECTION = re.compile(rb"xref\s+0\s+(\d+)\s+")
_XREF_ENTRY = re.compile(rb"(\d{10}) (\d{5}) ([nf])\s{1,2}")
_TRAILER = re.compile(rb"trailer\s*<<(.*?)>>\s*startxref", re.S)
_REFERENCE = re.compile(rb"(\d+) 0 R\b")
_OBJECT_HEAD = re.compile(rb"(\d+) 0 obj\b")
_STREAM = re.compile(rb">>\s*stream\r?\n")
_KIDS = re.compile(rb"/Kids\s*\[([^\]]*)\]")
_COUNT = re.compile(rb"/Count\s+\d+")


class UnexpectedPdf(ValueError):
    """The PDF is not laid out as Qt writes it."""


class _Pdf:
    """The objects of one PDF, by number, and the numbers that matter for merging."""

    def __init__(self, data: bytes):
        if not data.startswith(b"%PDF-"):
            raise UnexpectedPdf("no PDF header")
        end = _XREF_START.search(data, max(0, len(data) - 64))
        if not end:
            raise UnexpectedPdf("no startxref at the end")
        xref_at = int(end.group(1))
        section = _XREF_SECTION.match(data, xref_at)
        if not section:
            raise UnexpectedPdf("no classic cross-reference table")
        self.size = int(section.group(1))
        offsets, position = {}, section.end()
        for number in range(self.size):
            entry = _XREF_ENTRY.match(data, position)
            if not entry:
                raise UnexpectedPdf(f"bad cross-reference entry {number}")
            position = entry.end()
            if entry.group(3) == b"n":
                if entry.group(2) != b"00000":
                    raise UnexpectedPdf("object generations other than 0")
                offsets[number] = int(entry.group(1))
        trailer = _TRAILER.search(data, position)
        if not trailer or b"/Prev" in trailer.group(1):
            raise UnexpectedPdf("no trailer, or incremental updates")
        self.trailer = trailer.group(1)
        self.root = self._trailer_reference(b"/Root")
        self.info = self._trailer_reference(b"/Info")
        ordered = sorted(offsets.items(), key=lambda item: item[1])
        self.objects: dict[int, bytes] = {}
        for index, (number, start) in enumerate(ordered):
            stop = ordered[index + 1][1] if index + 1 < len(ordered) else xref_at
            text = data[start:stop]
            head = _OBJECT_HEAD.match(text)
            if not head or int(head.group(1)) != number or not text.rstrip().endswith(b"endobj"):
                raise UnexpectedPdf(f"object {number} is not where the table says")
            self.objects[number] = text
        self.header = data[:ordered[0][1]] if ordered else b""
        catalog = self.objects.get(self.root, b"")
        if b"/Type /Catalog" not in catalog:
            raise UnexpectedPdf("no catalogue")
        self.pages = self._reference(catalog, b"/Pages")
        pages = self.objects.get(self.pages, b"")
        kids = _KIDS.search(pages)
        if b"/Type /Pages" not in pages or not kids:
            raise UnexpectedPdf("no page tree")
        self.kids = [int(n) for n in _REFERENCE.findall(kids.group(1))]
        for kid in self.kids:
            if b"/Type /Page\n" not in self.objects.get(kid, b"") and b"/Type /Page " not in self.objects.get(kid, b""):
                raise UnexpectedPdf("a nested page tree")
        # what the first PDF's catalogue alone keeps: catalogue, pages, information, metadata, names
        self.document_objects = {self.root, self.pages, self.info}
        for key in (b"/Metadata", b"/Names"):
            if key in catalog:
                self.document_objects.add(self._reference(catalog, key))

    def _trailer_reference(self, key: bytes) -> int:
        return self._reference(self.trailer, key)

    @staticmethod
    def _reference(text: bytes, key: bytes) -> int:
        found = re.search(re.escape(key) + rb"\s+(\d+) 0 R", text)
        if not found:
            raise UnexpectedPdf(f"no {key.decode()} reference")
        return int(found.group(1))


def _renumbered(text: bytes, shift: int, parent: tuple[int, int]) -> bytes:
    """An object's text with every object number moved by ``shift``; stream data untouched.
    References to ``parent[0]`` (the page tree) become ``parent[1]``."""
    stream = _STREAM.search(text)
    head, tail = (text[:stream.end()], text[stream.end():]) if stream else (text, b"")

    def move(match: re.Match) -> bytes:
        number = int(match.group(1))
        return b"%d 0 R" % (parent[1] if number == parent[0] else number + shift)

    head = _OBJECT_HEAD.sub(lambda m: b"%d 0 obj" % (int(m.group(1)) + shift), head, count=1)
    return _REFERENCE.sub(move, head) + tail


def merge_qt_pdfs(parts: list[bytes], order: list[tuple[int, int]]) -> bytes:
    """One PDF of the pages of ``parts``: ``order`` lists ``(part index, number of pages)``
    runs, each taking the next pages of that part; every page of every part must be used."""
    pdfs = [_Pdf(data) for data in parts]
    first = pdfs[0]
    taken = [0] * len(pdfs)
    # object 0 is not an object: part i's object n becomes n + (objects before it) - i
    shifts = [sum(pdf.size for pdf in pdfs[:index]) - index for index in range(len(pdfs))]
    size = shifts[-1] + pdfs[-1].size
    kids = []
    for part, count in order:
        pdf = pdfs[part]
        if taken[part] + count > len(pdf.kids):
            raise UnexpectedPdf("more pages asked than written")
        kids += [n + shifts[part] for n in pdf.kids[taken[part]:taken[part] + count]]
        taken[part] += count
    if taken != [len(pdf.kids) for pdf in pdfs]:
        raise UnexpectedPdf("pages left over")

    out = bytearray(first.header)
    offsets: dict[int, int] = {}
    for index, pdf in enumerate(pdfs):
        for number, text in pdf.objects.items():
            target = number + shifts[index]
            offsets[target] = len(out)
            if index == 0 and number == first.pages:
                listed = b"/Kids \n[\n" + b"".join(b"%d 0 R\n" % kid for kid in kids) + b"]"
                text = _KIDS.sub(lambda _: listed, text, count=1)
                text = _COUNT.sub(b"/Count %d" % len(kids), text, count=1)
            elif index and number in pdf.document_objects:
                text = b"%d 0 obj\nnull\nendobj\n" % target  # kept as a placeholder
            elif index:
                text = _renumbered(text, shifts[index], (pdf.pages, first.pages))
            out += text
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    for number in range(1, size):
        if number in offsets:
            out += b"%010d 00000 n \n" % offsets[number]
        else:
            out += b"0000000000 65535 f \n"
    trailer = re.sub(rb"/Size\s+\d+", b"/Size %d" % size, first.trailer, count=1)
    out += b"trailer\n<<" + trailer + b">>\nstartxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)
