"""Benchmark: a 100-page PDF of play sheets through Qt, against cairosvg on the same SVGs.

Usage (from the repository root)::

    PYTHONPATH=. python benchmarks/export_pdf.py [--count 100] [--seed 1] [--out DIR] [--reuse]
                                                [--repeat 3] [--no-cli] [--profile]
                                                [--install-cairosvg] [--cairosvg-dir DIR]

What it does:

1. Generates two packs with the seeded generators of ``benchmarks/validate_pack.py`` (imported,
   not copied): ``--count / 2`` grid-classic and ``--count / 2`` line-classic dungeons. That
   generator puts the grid 30-100 mm from the top of the page, but a grid sheet needs room for
   its scoring area below the grid, so grids lower than :data:`GRID_ORIGIN_MAX_Y_MM` are moved
   up to it (the count is printed). The packs are opened with ``inkcrawl.loading.open_dungeons``.
2. Times, each as the best of ``--repeat`` runs (median in brackets):
   (a) building the SVG of every sheet with ``exporters.pages.sheet_page(dungeon, ruleset,
       PageOptions())``, one after the other in this process, with its CPU time; each run starts
       without the glyph definitions the run before kept (``exporters.canvas.clear_definitions``),
       as an export does; ``--profile`` adds a cProfile run of it; the elements of those SVGs
       and the shapes Qt draws (:func:`shape_counts`) are counted (untimed);
   (b) writing those SVGs as one PDF through Qt, ``exporters.qt.write_pdf`` (after a one-page
       warm-up, timed on its own, that starts Qt and registers the fonts): the whole job as the
       CLI does it, in this process, the file written atomically; its CPU time is shown;
   (b2) the same job shared with a second process, the way inkcrawl once did it, to show
       whether that pays: one helper (an ``inkcrawl.workers.WorkerPool`` worker, spawned, which
       imports Qt and loads the fonts inside the timing) renders sheets while this process
       renders others (the helper never has more than two waiting), and the two PDFs are
       merged in page order with pypdf (``--no-two-processes`` skips it);
   (c) converting the same SVG texts with ``cairosvg.svg2pdf(bytestring=...)``, one PDF per page
       (after a one-page warm-up). The pages are *not* merged into one document, which would
       only add time to cairosvg's side;
   (d) merging two Qt PDFs (odd and even pages) into one of every page in order, with pypdf
       and, when it can be imported, pikepdf (neither is needed by inkcrawl at run time);
   and prints seconds, pages per second and the ratio (c) / (b), with the aims of issue #3:
   Qt at least 10x faster than cairosvg, and the 100 pages in under 3 s; and those of issue #15:
   SVG building at most 10 ms a page, the 100-page CLI export under 2 s. The machine is shared:
   read the best of several runs (``--repeat``), and the CPU time next to it. Its speed at the
   moment is printed last (:func:`machine_speed`, before and after the timings): its CPU swings
   by half from minute to minute, so compare only figures taken at the same speed.
3. Times the same job through the CLI end to end, a fresh ``python -m inkcrawl export sheet
   GRID_PACK LINE_PACK -o OUT.pdf`` subprocess (wall and CPU time, its workers included), and
   checks with pypdf that the PDFs written (in-process, in two processes and by the CLI) have one page per dungeon.

cairosvg is *not* a dependency of inkcrawl and must not become one. When ``import cairosvg``
fails, the script says how to get it and still times Qt; ``--install-cairosvg`` runs
``pip install --target DIR cairosvg`` into a cache folder (``$XDG_CACHE_HOME/inkcrawl-bench/...``,
else ``/tmp/inkcrawl-bench/...``; ``--cairosvg-dir`` to choose) and puts DIR on ``sys.path`` of
this process only. Later runs find it there without the flag. cairosvg also needs the system
library libcairo2 (``apt-get install libcairo2``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import validate_pack

REPO = validate_pack.REPO
TARGET_SECONDS = 3.0  # for 100 pages
TARGET_RATIO = 10.0  # cairosvg time / Qt time
SVG_TARGET_MS = 10.0  # issue #15: SVG building per page
CLI_TARGET_SECONDS = 2.0  # issue #15: the 100-page CLI export, on the 2-core machine at rest
#: Lowest grid origin (mm from the top of the paper) that leaves a grid-classic sheet room for
#: its scoring area below a 7x7 grid of 24 mm cells on A4 (validate_pack draws 30-100 mm).
GRID_ORIGIN_MAX_Y_MM = 80


# --------------------------------------------------------------------------------------------
# Packs
# --------------------------------------------------------------------------------------------


def _raise_grids(grid_dir: Path) -> int:
    """Move every generated grid lower than GRID_ORIGIN_MAX_Y_MM up to it; returns how many."""
    moved = 0
    for file in sorted((grid_dir / "dungeons").glob("*.json")):
        data = json.loads(file.read_text(encoding="utf-8"))
        origin = data["grid"]["origin_mm"]
        if origin[1] > GRID_ORIGIN_MAX_Y_MM:
            origin[1] = GRID_ORIGIN_MAX_Y_MM
            file.write_text(validate_pack.dumps(data), encoding="utf-8")
            moved += 1
    return moved


def prepare_packs(out: Path, count: int, seed: int, reuse: bool) -> tuple[Path, Path]:
    grid_dir, line_dir = out / validate_pack.GRID_PACK_ID, out / validate_pack.LINE_PACK_ID
    if reuse and (grid_dir / "pack.json").is_file() and (line_dir / "pack.json").is_file():
        print(f"reusing the packs in {out}")
    else:
        validate_pack.prepare_out(out)
        begin = time.perf_counter()
        grid_dir, line_dir, info = validate_pack.generate(out, count, seed)
        print(
            f"generated {info['grid']} grid + {info['line']} line dungeons (seed {seed}) with "
            f"benchmarks/validate_pack.py in {time.perf_counter() - begin:.1f} s into {out}"
        )
    moved = _raise_grids(grid_dir)
    if moved:
        print(f"  moved {moved} grid(s) up to {GRID_ORIGIN_MAX_Y_MM} mm from the top so the scoring area fits below")
    return grid_dir, line_dir


# --------------------------------------------------------------------------------------------
# cairosvg, in the benchmark's environment only
# --------------------------------------------------------------------------------------------


def default_cairosvg_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or tempfile.gettempdir())
    return base / "inkcrawl-bench" / f"cairosvg-py{sys.version_info[0]}{sys.version_info[1]}"


def _import_cairosvg():
    try:
        import cairosvg
    except (ImportError, OSError) as exc:  # OSError: cairocffi found no libcairo
        return None, exc
    return cairosvg, None


def load_cairosvg(folder: Path, install: bool):
    """cairosvg from this environment, else from ``folder`` (installing it there with
    ``install``); ``(module or None, why not)``."""
    module, error = _import_cairosvg()
    if module is not None:
        return module, None
    if folder.is_dir() and str(folder) not in sys.path:
        sys.path.append(str(folder))
        module, error = _import_cairosvg()
        if module is not None:
            return module, None
    if not install:
        return None, error
    folder.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--target",
        str(folder),
        "cairosvg",
    ]
    print(f"installing cairosvg for this benchmark only: {' '.join(command)}")
    done = subprocess.run(command)
    if done.returncode:
        return None, f"pip install failed (exit {done.returncode})"
    if str(folder) not in sys.path:
        sys.path.append(str(folder))
    return _import_cairosvg()


# --------------------------------------------------------------------------------------------
# (b2) a PDF in two processes, and (d) merging PDFs
# --------------------------------------------------------------------------------------------

_HELPER_DOCUMENT = None  # in the helper process: the PDF it renders its sheets into


def _helper_begin(title: str) -> None:
    global _HELPER_DOCUMENT
    from exporters.qt import PdfDocument

    _HELPER_DOCUMENT = PdfDocument(title)


def _helper_add(svg: bytes, width_mm: float, height_mm: float) -> None:
    _HELPER_DOCUMENT.add(svg, width_mm, height_mm)


def _helper_finish() -> bytes:
    return _HELPER_DOCUMENT.finish()


def merge_with_pypdf(parts: list[bytes], order: list[int]) -> bytes:
    """One PDF of the pages of ``parts``, page ``i`` the next page of part ``order[i]``."""
    from io import BytesIO

    from pypdf import PdfReader, PdfWriter

    readers = [PdfReader(BytesIO(data)) for data in parts]
    writer, taken = PdfWriter(), [0] * len(parts)
    for part in order:
        writer.add_page(readers[part].pages[taken[part]])
        taken[part] += 1
    writer.add_metadata(dict(readers[0].metadata or {}))
    out = BytesIO()
    writer.write(out)
    return out.getvalue()


def merge_with_pikepdf(parts: list[bytes], order: list[int]) -> bytes:
    from io import BytesIO

    import pikepdf

    sources = [pikepdf.Pdf.open(BytesIO(data)) for data in parts]
    merged, taken = pikepdf.Pdf.new(), [0] * len(parts)
    for part in order:
        merged.pages.append(sources[part].pages[taken[part]])
        taken[part] += 1
    merged.docinfo["/Title"] = sources[0].docinfo.get("/Title", "")
    out = BytesIO()
    merged.save(out)
    return out.getvalue()


def write_pdf_two_processes(pages, path: Path, title: str) -> int:
    """``pages`` as one PDF rendered by this process and a spawned helper, merged with pypdf."""
    from exporters.qt import PdfDocument
    from inkcrawl.jsonio import write_bytes_atomic
    from inkcrawl.workers import WorkerPool

    helper = WorkerPool(
        1, start="spawn", initializer=_helper_begin, initargs=(title,), restart=False, name="bench-pdf-helper"
    )
    own, order, waiting = PdfDocument(title), [], []
    try:
        for page in pages:
            waiting = [future for future in waiting if not future.done()]
            svg = page.svg.encode("utf-8")
            if len(waiting) < 2:
                waiting.append(helper.submit(_helper_add, svg, page.width_mm, page.height_mm))
                order.append(1)
            else:
                own.add(svg, page.width_mm, page.height_mm)
                order.append(0)
        parts = [own.finish(), helper.submit(_helper_finish).result()]
        write_bytes_atomic(path, merge_with_pypdf(parts, order) if 0 in order else parts[1])
        return len(order)
    finally:
        own.abort()
        helper.terminate()


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


def best_of(repeat: int, job) -> tuple[list[float], object]:
    times, value = [], None
    for _ in range(max(1, repeat)):
        begin = time.perf_counter()
        value = job()
        times.append(time.perf_counter() - begin)
    return times, value


def best_of_cpu(repeat: int, job) -> tuple[list[float], list[float], object]:
    """As :func:`best_of`, with the CPU time (user + system) of this process in each run."""
    times, cpus, value = [], [], None
    for _ in range(max(1, repeat)):
        cpu, begin = time.process_time(), time.perf_counter()
        value = job()
        times.append(time.perf_counter() - begin)
        cpus.append(time.process_time() - cpu)
    return times, cpus, value


def profile_svgs(build, top: int = 25) -> None:
    """One run of ``build`` (step (a)) under cProfile: the ``top`` functions by own time and
    by cumulative time (cProfile slows it about three times; read the shares, not the seconds)."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.runcall(build)
    print(f"\n(a) under cProfile, the {top} functions with most own time, then most cumulative time:")
    stats = pstats.Stats(profiler, stream=sys.stdout).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


#: The SVG elements Qt draws as shapes (a ``<use>`` draws the shapes of what it refers to).
SHAPE_TAGS = frozenset({"path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text"})


def shape_counts(svgs) -> tuple[int, int]:
    """``(elements, shapes)`` of SVG texts: every element written, and every shape Qt draws
    (:data:`SHAPE_TAGS`), a ``<use>`` counted as the shapes of the element it refers to (at each
    use) and what is in ``<defs>`` only there. Qt's time to render a page into a PDF grows with
    its shapes, svgwrite's and ElementTree's with its elements."""
    elements = shapes = 0
    for svg in svgs:
        root = ElementTree.fromstring(svg)
        by_id = {node.get("id"): node for node in root.iter() if node.get("id")}
        elements += sum(1 for _ in root.iter())
        drawn: dict[str, int] = {}

        def count(node) -> int:
            tag = node.tag.rsplit("}", 1)[-1]
            if tag == "defs":
                return 0
            if tag == "use":
                href = node.get("{http://www.w3.org/1999/xlink}href") or node.get("href") or ""
                target = by_id.get(href[1:])
                if target is None:
                    return 0
                if href not in drawn:
                    drawn[href] = count(target)
                return drawn[href]
            return (tag in SHAPE_TAGS) + sum(count(child) for child in node)

        shapes += count(root)
    return elements, shapes


def pdf_pages(path: Path) -> int | str:
    try:
        from pypdf import PdfReader
    except ImportError:
        return "not checked (pypdf is not installed: pip install pypdf)"
    return len(PdfReader(str(path)).pages)


def _line(label: str, times: list[float], pages: int, extra: str = "") -> str:
    best = min(times)
    return f"  {label:<40} {best:7.3f} s  ({statistics.median(times):.3f})  {pages / best:7.1f} pages/s" + (
        f"  {extra}" if extra else ""
    )


def machine_speed(rounds: int = 3) -> float:
    """CPU seconds a fixed pure-Python loop takes, best of ``rounds``: the machine's speed at the
    moment. Its speed swings (a shared host), so figures taken when the loop took different
    times are not comparable."""
    best = math.inf
    for _ in range(rounds):
        begin, total = time.process_time(), 0
        for number in range(2_000_000):
            total += number * number
        best = min(best, time.process_time() - begin)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=100, help="dungeons (= pages) in all, half grid, half line")
    parser.add_argument("--seed", type=int, default=1, help="random seed of the generator (default 1)")
    parser.add_argument(
        "--out", type=Path, help="write the packs and PDFs here and keep them (default: a temporary folder)"
    )
    parser.add_argument("--reuse", action="store_true", help="with --out: use the packs already there")
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed runs of each kind; the best is reported (default 3)"
    )
    parser.add_argument("--no-cli", action="store_true", help="skip the end-to-end CLI subprocess")
    parser.add_argument(
        "--profile", action="store_true", help="also a cProfile run of (a): where building the SVGs takes its time"
    )
    parser.add_argument("--no-two-processes", action="store_true", help="skip (b2), the PDF shared with a helper")
    parser.add_argument(
        "--install-cairosvg",
        action="store_true",
        help="pip install cairosvg into --cairosvg-dir (never into the project) if it is missing",
    )
    parser.add_argument(
        "--cairosvg-dir",
        type=Path,
        default=default_cairosvg_dir(),
        help="where --install-cairosvg puts cairosvg (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    if args.count < 2:
        parser.error("--count must be at least 2 (one dungeon per pack)")
    if args.reuse and not args.out:
        parser.error("--reuse needs --out")

    temporary = None
    if args.out:
        out = args.out.resolve()
        out.mkdir(parents=True, exist_ok=True)
    else:
        temporary = tempfile.TemporaryDirectory(prefix="inkcrawl-bench-pdf-")
        out = Path(temporary.name)
    try:
        grid_dir, line_dir = prepare_packs(out, args.count, args.seed, args.reuse)
        paths = [str(grid_dir), str(line_dir)]

        from exporters.canvas import clear_definitions
        from exporters.pages import PageOptions, sheet_page
        from exporters.qt import ensure_app, write_pdf
        from inkcrawl.loading import open_dungeons

        speed_before = machine_speed()
        begin = time.perf_counter()
        opened = open_dungeons(paths)
        load_time = time.perf_counter() - begin
        report = opened.report
        print(
            f"  opened {len(opened.dungeons)} dungeons in {load_time:.2f} s "
            f"({report.errors} errors, {report.warnings} warnings)"
        )
        if report.errors or not opened.dungeons:
            print("the generated packs do not validate; nothing to time", file=sys.stderr)
            return 1
        dungeons = opened.dungeons
        count = len(dungeons)
        options = PageOptions()

        def build_svgs():
            # cold: the glyph definitions a run keeps for its next sheets are not reused from
            # the run before (an export starts with none)
            clear_definitions()
            return [sheet_page(item.dungeon, item.ruleset, options) for item in dungeons]

        try:
            svg_times, svg_cpus, pages = best_of_cpu(args.repeat, build_svgs)
        except ValueError as exc:  # PaperError, SheetLayoutError
            print(f"a sheet cannot be laid out: {exc}", file=sys.stderr)
            return 1
        svg_bytes = sum(len(page.svg.encode("utf-8")) for page in pages)
        svg_elements, svg_shapes = shape_counts(page.svg for page in pages)
        if args.profile:
            profile_svgs(build_svgs)

        # (b) Qt: start Qt and load the fonts once, then the timed runs.
        qt_pdf = out / "qt.pdf"
        begin = time.perf_counter()
        ensure_app()
        write_pdf(pages[:1], str(out / "warm-up.pdf"))
        qt_warm_up = time.perf_counter() - begin
        cpu_before = os.times()
        qt_times, written = best_of(args.repeat, lambda: write_pdf(pages, str(qt_pdf), title="benchmark"))
        cpu_after = os.times()
        qt_cpu = sum(cpu_after[:4]) - sum(cpu_before[:4])  # user + system, self + children
        qt_pages = pdf_pages(qt_pdf)
        two_times = None
        if not args.no_two_processes:
            two_pdf = out / "qt-two-processes.pdf"
            cpu_before = os.times()
            two_times, two_written = best_of(args.repeat, lambda: write_pdf_two_processes(pages, two_pdf, "benchmark"))
            cpu_after = os.times()
            two_cpu = sum(cpu_after[:4]) - sum(cpu_before[:4])
            two_pages = pdf_pages(two_pdf)

        # (c) cairosvg
        cairosvg, why = load_cairosvg(args.cairosvg_dir, args.install_cairosvg)
        cairo_times = None
        if cairosvg is not None:
            data = [page.svg.encode("utf-8") for page in pages]
            begin = time.perf_counter()
            cairosvg.svg2pdf(bytestring=data[0])
            cairo_warm_up = time.perf_counter() - begin
            cpu_before = os.times()
            cairo_times, outputs = best_of(args.repeat, lambda: [cairosvg.svg2pdf(bytestring=d) for d in data])
            cpu_after = os.times()
            cairo_cpu = sum(cpu_after[:4]) - sum(cpu_before[:4])
            cairo_bytes = sum(len(o) for o in outputs)

        # (d) merging 100 pages
        from exporters.qt import PdfDocument

        def one_pdf(part):
            document = PdfDocument("benchmark")
            for page in part:
                document.add(page.svg.encode("utf-8"), page.width_mm, page.height_mm)
            return document.finish()

        parts, order = [one_pdf(pages[0::2]), one_pdf(pages[1::2])], [i % 2 for i in range(count)]
        merges = {}
        for name, merge in (("pypdf", merge_with_pypdf), ("pikepdf", merge_with_pikepdf)):
            try:
                module = __import__(name)
            except ImportError as exc:
                merges[name] = (None, f"not installed ({exc})")
                continue
            merge(parts, order)  # warm-up
            times, merged = best_of(max(args.repeat, 5), lambda: merge(parts, order))
            check = out / f"merged-{name}.pdf"
            check.write_bytes(merged)
            merges[name] = (times, f"{name} {module.__version__}, {len(merged) / 1e6:.1f} MB, {pdf_pages(check)} pages")

        # CLI end to end
        cli_times = None
        if not args.no_cli:
            cli_pdf = out / "cli.pdf"
            env = validate_pack.subprocess_env()
            command = [sys.executable, "-m", "inkcrawl", "export", "sheet", *paths, "-o", str(cli_pdf)]
            cli_times, cli_cpus = [], []
            for _ in range(max(1, args.repeat)):
                children, begin = os.times(), time.perf_counter()
                done = subprocess.run(command, env=env, cwd=REPO, capture_output=True)
                cli_times.append(time.perf_counter() - begin)
                after = os.times()  # the CLI and the workers it forks, user + system
                cli_cpus.append(
                    after.children_user + after.children_system - children.children_user - children.children_system
                )
                if done.returncode:
                    print(
                        f"inkcrawl export failed (exit {done.returncode}):\n{done.stderr.decode(errors='replace')}",
                        file=sys.stderr,
                    )
                    cli_times = None
                    break
            if cli_times:
                cli_pages = pdf_pages(cli_pdf)
                cli_message = done.stdout.decode(errors="replace").strip()

        print(f"\ntiming of {count} pages (best of {max(1, args.repeat)}; median in brackets)")
        per_page_ms = min(svg_times) * 1000 / count
        print(
            _line(
                "(a) SVGs, exporters.pages.sheet_page",
                svg_times,
                count,
                f"{svg_bytes / 1e6:.1f} MB of SVG; {per_page_ms:.1f} ms a page, aim <= {SVG_TARGET_MS:g} ms: "
                + ("within" if per_page_ms <= SVG_TARGET_MS else "OVER"),
            )
        )
        print(
            f"      CPU {min(svg_cpus):.3f} s at best ({min(svg_cpus) * 1000 / count:.1f} ms a page): "
            "the figure to compare on a loaded machine"
        )
        print(
            f"      {svg_elements} elements written, {svg_shapes} shapes for Qt to draw (a use counted as "
            "the shapes it stands for): what (a) and (b) grow with"
        )
        qt_best = min(qt_times)
        verdict = "within" if qt_best <= TARGET_SECONDS * count / 100 else "OVER"
        print(
            _line(
                "(b) PDF, Qt (exporters.qt.write_pdf)",
                qt_times,
                count,
                f"{qt_pdf.stat().st_size / 1e6:.1f} MB, {qt_pages} pages; "
                f"aim < {TARGET_SECONDS:g} s per 100 pages: {verdict}",
            )
        )
        print(f"      one process, file written; CPU {qt_cpu / max(1, args.repeat):.3f} s per run")
        print(f"      first call (Qt start-up, fonts, 1 page): {qt_warm_up:.3f} s, not included")
        if two_times is not None:
            print(
                _line(
                    "(b2) PDF, Qt in this and a helper process",
                    two_times,
                    count,
                    f"{two_pages} pages; CPU {two_cpu / max(1, args.repeat):.3f} s per run, helper included; "
                    f"{min(two_times) / qt_best:.2f}x the time of (b)",
                )
            )
        both = min(a + b for a, b in zip(svg_times, qt_times))
        verdict_both = "within" if both <= TARGET_SECONDS * count / 100 else "OVER"
        print(
            f"  {'(a)+(b) SVG and Qt PDF, in-process':<40} {both:7.3f} s  {'':>7}  {count / both:7.1f} pages/s"
            f"  aim < {TARGET_SECONDS:g} s per 100 pages: {verdict_both}"
        )
        if cairo_times is not None:
            ratio = min(cairo_times) / qt_best
            print(
                _line(
                    "(c) PDF, cairosvg.svg2pdf per page",
                    cairo_times,
                    count,
                    f"{cairo_bytes / 1e6:.1f} MB in {count} one-page PDFs, not merged "
                    f"(cairosvg {getattr(cairosvg, '__version__', '?')}; first call {cairo_warm_up:.3f} s)",
                )
            )
            print(
                f"  ratio cairosvg / Qt: {ratio:.1f}x  (aim at least {TARGET_RATIO:g}x: "
                f"{'met' if ratio >= TARGET_RATIO else 'NOT met'})"
            )
            cpu_ratio = cairo_cpu / qt_cpu if qt_cpu > 0 else float("inf")
            print(
                f"      by CPU time per run: cairosvg {cairo_cpu / max(1, args.repeat):.3f} s, Qt "
                f"{qt_cpu / max(1, args.repeat):.3f} s, {cpu_ratio:.1f}x (the figure to compare on a loaded machine)"
            )
        else:
            print(f"  (c) cairosvg: skipped, it is not installed ({why}).")
            print(
                f"      Get it for this benchmark only (not the project): rerun with --install-cairosvg "
                f"(pip install --target {args.cairosvg_dir} cairosvg), or pip install cairosvg in a "
                f"throwaway environment; it needs libcairo2."
            )
        for name, (times, about) in merges.items():
            if times is None:
                print(f"  (d) merge {count} pages, {name}: skipped, {about}")
            else:
                print(
                    f"  (d) merge {count} pages, {name:<8}  {min(times) * 1000:7.1f} ms  "
                    f"({statistics.median(times) * 1000:.1f})  {about}"
                )
        if cli_times:
            best = min(cli_times)
            verdict_cli = "within" if best <= CLI_TARGET_SECONDS * count / 100 else "OVER"
            print(
                _line(
                    "CLI end to end (python -m inkcrawl export)",
                    cli_times,
                    count,
                    f"{cli_pages} pages; aim < {CLI_TARGET_SECONDS:g} s per 100 pages: {verdict_cli}",
                )
            )
            print(f"      CPU {min(cli_cpus):.3f} s at best (the CLI and its workers); {cli_message}")
        elif not args.no_cli:
            print("  CLI end to end: failed (see above)")
        print(
            f"  machine speed: a fixed pure-Python loop took {speed_before:.3f} s of CPU before the timings, "
            f"{machine_speed():.3f} s after (best of 3; compare figures only between runs where it took about the same)"
        )

        counts = [qt_pages] + ([cli_pages] if cli_times else []) + ([two_pages] if two_times else [])
        ok = written == count and all(n == count for n in counts if isinstance(n, int))
        if not ok:
            print(
                f"\npage count mismatch: write_pdf returned {written}, Qt PDF has {qt_pages}"
                + (f", two processes {two_pages}" if two_times else "")
                + (f", CLI PDF has {cli_pages}" if cli_times else "")
                + f", expected {count}",
                file=sys.stderr,
            )
        return 0 if ok and (cli_times or args.no_cli) else 1
    finally:
        if temporary is not None:
            temporary.cleanup()


if __name__ == "__main__":
    sys.exit(main())
