"""``inkcrawl report PACK -o report.html``: a pack's play report as one self-contained HTML page
(charts as inline SVG, heatmaps as embedded PNG: it opens in any browser, with no server and no
network), or as JSON (``--format json``; :mod:`inkcrawl.pack_report` describes the data).

Registered in the core CLI through the ``inkcrawl.commands`` entry point (see
:mod:`inkcrawl.cli`). Exit codes: 0 written, 1 the pack has validation errors (the report is
printed) or a dungeon cannot be played, 2 usage error, unreadable input or output that cannot be
written (a read-only output is refused unless ``--force``). 130 Ctrl+C, 143 SIGTERM.
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import sys
from pathlib import Path

from inkcrawl.cli import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE
from inkcrawl.cli.common import check_output_file, load_games, positive_int, terminal_safe, write_failure

_EPILOG = """\
examples:
  inkcrawl report content/packs/lantern-depths -o lantern-report.html
  inkcrawl report content/packs/ember-halls -o ember-report.html --games 5000 --players 3
  inkcrawl report content/packs/lantern-depths --format json -o lantern-report.json --skill 0.5

For each dungeon, in pack order: grid dungeons are played by random and by greedy players (score
spread, seat wins, ties, lead changes, the skill gap, a heatmap of the rooms entered); line dungeons
get their par (proven or bounded, the route's length against the timer at --speed) and a sloppy
human's games at --skill (score spread, how often each element is completed, how scrawls end, a
heatmap of where lines go). The pack's difficulty curve says whether each dungeon is harder than the
one before: for line dungeons the share of par a human loses, for grid dungeons the greedy players'
mean score (lower is harder). The same seed gives the same report.
OUT is written atomically; a read-only OUT is refused unless --force.
exit codes: 0 written, 1 validation errors or a dungeon that cannot be played (the report is still
written, saying why), 2 usage error,
unreadable input or unwritable output; 130 Ctrl+C, 143 SIGTERM
"""


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError("use a number from 0 to 1")
    return value + 0.0  # -0 is 0 (the report would print "skill -0")


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value <= 10000:
        raise argparse.ArgumentTypeError("use mm per second above 0 and at most 10000 (a careful line is about 50)")
    return value


def register(subparsers) -> None:
    """Add ``report`` to the ``inkcrawl`` command line."""
    parser = subparsers.add_parser(
        "report",
        help="play every dungeon of a pack and write a report: par, scores, balance, heatmaps, difficulty curve",
        description="Play every dungeon of a pack with the rules engines and write one self-contained HTML page "
        "(or JSON): par and route length for line dungeons, simulated score spreads, balance, completion "
        "rates and heatmaps, and whether difficulty rises in pack order.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("pack", metavar="PACK", help="a pack folder or pack.json (or a dungeon file, or a game.json)")
    parser.add_argument("-o", "--output", metavar="OUT", required=True, help="the report: .html, or .json")
    parser.add_argument(
        "--format", choices=("html", "json"), default=None, help="html (default; .json outputs default to json)"
    )
    parser.add_argument("--games", type=positive_int, default=2000, metavar="N", help="games per grid policy (2000)")
    parser.add_argument(
        "--line-games", type=positive_int, default=200, metavar="N", help="sloppy-human games per line dungeon (200)"
    )
    parser.add_argument("--players", type=positive_int, default=2, metavar="P", help="players in grid games (2)")
    parser.add_argument(
        "--skill", type=_fraction, default=0.7, metavar="S", help="the line players' skill, 0 to 1 (0.7)"
    )
    parser.add_argument("--speed", type=_speed, default=50.0, metavar="MM_PER_S", help="drawing speed (50 mm/s)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (0)")
    parser.add_argument(
        "--workers", type=positive_int, default=None, metavar="N", help="processes to play in (one per core)"
    )
    parser.add_argument("--dpi", type=float, default=100, help="heatmap resolution (100)")
    parser.add_argument("--force", action="store_true", help="replace OUT even when it is read-only")
    parser.set_defaults(func=_cmd_report)


def _error(message: str, status: int = EXIT_USAGE) -> int:
    print(terminal_safe(f"inkcrawl report: error: {message}"), file=sys.stderr)
    return status


def _cmd_report(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from inkcrawl.engines.grid import GameDataError as GridDataError
    from inkcrawl.engines.line import GameDataError as LineDataError
    from inkcrawl.jsonio import write_text_atomic
    from inkcrawl.loading import input_files
    from inkcrawl.pack_report import ReportOptions, games_of, pack_report
    from inkcrawl.runs import MAX_WORKERS
    from inkcrawl.workers import default_workers

    fmt = args.format or ("json" if args.output.lower().endswith(".json") else "html")
    if fmt == "html" and not args.output.lower().endswith((".html", ".htm")):
        return _error("an HTML report's file name ends in .html (or give --format json)")
    if not 10 <= args.dpi <= 600:
        return _error("use a heatmap resolution from 10 to 600 dpi")
    if args.workers is not None and args.workers > MAX_WORKERS:
        return _error(
            f"--workers {args.workers}: use 1 to {MAX_WORKERS} (more processes than cores only slow the games down)"
        )
    refused = check_output_file(args.output, args.force, input_files([args.pack]))
    if refused:
        return _error(refused)
    entries, status = load_games([args.pack])
    if status is not None:
        return status
    if not entries:
        return _error(f"no dungeon found in {args.pack}")
    options = ReportOptions(
        games=args.games,
        line_games=args.line_games,
        players=args.players,
        skill=args.skill,
        speed_mm_s=args.speed,
        seed=args.seed,
        workers=args.workers or default_workers(),
    )
    bar = tqdm(
        total=games_of(entries, options),
        unit="game",
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        leave=False,
        dynamic_ncols=True,
    )
    print(terminal_safe(f"inkcrawl report: playing {len(entries)} dungeons of {args.pack}"), file=sys.stderr)
    try:
        report = pack_report(entries, options, progress=bar.update)
    except (GridDataError, LineDataError, ValueError) as exc:
        return _error(f"{args.pack}: a dungeon cannot be played: {exc}", EXIT_PROBLEMS)
    finally:
        bar.close()
    report["pack"] = str(args.pack)
    if fmt == "json":
        text = json.dumps(report, indent=2) + "\n"
    else:
        text = render_html(report, entries, args.pack, args.dpi)
    try:
        write_text_atomic(Path(args.output), text, force=args.force, inputs=input_files([args.pack]))
    except OSError as exc:
        return _error(write_failure(args.output, exc))
    print(terminal_safe(f"wrote {args.output}"), file=sys.stderr)
    unplayed = [row for row in report["dungeons"] if row.get("note")]
    for row in unplayed:
        print(
            terminal_safe(f"inkcrawl report: error: dungeon {row['id']!r} cannot be played: {row['note']}"),
            file=sys.stderr,
        )
    return EXIT_PROBLEMS if unplayed else EXIT_OK


# -- the page ---------------------------------------------------------------------------------

_CSS = """
body{font-family:"DejaVu Sans",Verdana,sans-serif;margin:2em auto;max-width:60em;color:#1b1b1b;padding:0 1em}
h1{color:#8a2d1c;margin-bottom:.2em}h2{border-bottom:2px solid #8a2d1c;padding-bottom:.2em;margin-top:2em}
h3{margin:1.2em 0 .4em}table{border-collapse:collapse;margin:.5em 0}td,th{padding:.25em .6em;text-align:right}
th{border-bottom:1px solid #999}td:first-child,th:first-child{text-align:left}
.figs{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}.figs figure{margin:0}
figcaption{font-size:.85em;color:#555;max-width:28em}.ok{color:#2a7a2a}.warn{color:#b05a00}
.note{font-size:.9em;color:#555}img.heat{max-width:26em;border:1px solid #ccc}
"""


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _bars(values: dict, width: float = 420, height: float = 140, colour: str = "#8a2d1c", label: str = "") -> str:
    """A histogram as inline SVG: ``values`` maps a label (a score) to a count, in order."""
    if not values:
        return ""
    counts = {int(k): v for k, v in values.items()}
    low, high = min(counts), max(counts)
    width_of_bin = max(1, -(-(high - low + 1) // 80))  # at most 80 bars: whole scores, or bins of several
    binned: dict[int, int] = {}
    for score, count in counts.items():
        start = low + (score - low) // width_of_bin * width_of_bin
        binned[start] = binned.get(start, 0) + count
    items = [
        (str(start) if width_of_bin == 1 else f"{start}..{start + width_of_bin - 1}", binned.get(start, 0))
        for start in range(low, high + 1, width_of_bin)
    ]  # every score between the lowest and the highest, so gaps show as gaps
    top = max(count for _, count in items) or 1
    pad = 24.0  # room on both sides for the first and last tick labels ("-33" is not cut to "33")
    bar_w = width / len(items)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width + 2 * pad:g}" height="{height + 32}" role="img">',
        f'<g transform="translate({pad:g} 0)">',
    ]
    parts.append(f"<title>{_e(label)}</title>")
    for k, (key, count) in enumerate(items):
        h = height * count / top
        x = k * bar_w
        parts.append(
            f'<rect x="{x + 0.5:.1f}" y="{height - h:.1f}" width="{max(bar_w - 1, 0.5):.1f}" height="{h:.1f}" '
            f'fill="{colour}"><title>{_e(key)}: {count}</title></rect>'
        )
    step = max(1, len(items) // 10)
    for k in range(0, len(items), step):
        x = k * bar_w + bar_w / 2
        parts.append(
            f'<text x="{x:.1f}" y="{height + 14}" font-size="10" text-anchor="middle">{_e(items[k][0])}</text>'
        )
    parts.append(f'<text x="{width / 2}" y="{height + 27}" font-size="10" text-anchor="middle">{_e(label)}</text>')
    parts.append("</g></svg>")
    return "".join(parts)


def _curve(labels: list[str], values: list[float], width: float = 640, height: float = 180, label: str = "") -> str:
    """A line chart as inline SVG: ``values`` in order (the pack order), one point per label."""
    if not values:
        return ""
    low, high = min(values + [0.0]), max(values + [0.0])
    span = (high - low) or 1.0
    left, right, top, bottom = 70.0, 70.0, 24.0, 40.0
    inner_w, inner_h = width - left - right, height - bottom - top
    xs = [left + (inner_w * k / max(len(values) - 1, 1)) for k in range(len(values))]
    ys = [top + inner_h * (high - v) / span for v in values]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img">']
    parts.append(f"<title>{_e(label)}</title>")
    zero = top + inner_h * high / span
    parts.append(f'<line x1="{left}" y1="{zero:.1f}" x2="{width - right}" y2="{zero:.1f}" stroke="#bbb"/>')
    parts.append(
        '<polyline fill="none" stroke="#8a2d1c" stroke-width="2" points="'
        + " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys))
        + '"/>'
    )
    for x, y, v, name in zip(xs, ys, values, labels):
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#8a2d1c"><title>{_e(name)}: {v:g}</title></circle>'
        )
        parts.append(f'<text x="{x:.1f}" y="{y - 8:.1f}" font-size="10" text-anchor="middle">{v:.2f}</text>')
        parts.append(
            f'<text x="{x:.1f}" y="{height - bottom + 16}" font-size="10" text-anchor="middle">{_e(name[:22])}</text>'
        )
    parts.append(f'<text x="{width / 2}" y="{height - 6}" font-size="10" text-anchor="middle">{_e(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _heatmap(entry: dict, usage, source: str, dpi: float, caption: str) -> str:
    """A heatmap PNG as an ``<img>`` with a data URI (nothing to fetch), or a note when it cannot be drawn."""
    from exporters.heatmap import heatmap_png

    try:
        data = heatmap_png(entry, usage, source=source, dpi=dpi, caption=caption)
    except (ValueError, KeyError) as exc:
        return f'<p class="note">No heatmap: {_e(exc)}</p>'
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img class="heat" alt="{_e(caption)}" src="data:image/png;base64,{encoded}">'


def _grid_section(row: dict, entry: dict, source: str, dpi: float) -> str:
    random_, greedy = row["random"], row["greedy"]
    out = ["<table><tr><th></th><th>random players</th><th>greedy players</th></tr>"]
    for label, key in (("mean score", "mean"), ("standard deviation", "stdev"), ("min", "min"), ("max", "max")):
        out.append(f"<tr><td>{label}</td><td>{random_['score'][key]:g}</td><td>{greedy['score'][key]:g}</td></tr>")
    for label, key in (("ties", "ties"), ("outcome uniformity", "outcome_uniformity")):
        a, b = random_["balance"][key], greedy["balance"][key]
        fmt = "{:.1%}" if key == "ties" else "{:.3f}"
        out.append(f"<tr><td>{label}</td><td>{fmt.format(a)}</td><td>{fmt.format(b)}</td></tr>")
    wins = [" / ".join(f"{s['wins']:.0%}" for s in stats["seats"]) for stats in (random_, greedy)]
    out.append(f"<tr><td>seat wins</td><td>{wins[0]}</td><td>{wins[1]}</td></tr>")
    tallies = [stats["tallies"]["mean"] for stats in (random_, greedy)]
    out.append(f"<tr><td>tally marks per player</td><td>{tallies[0]:g}</td><td>{tallies[1]:g}</td></tr></table>")
    out.append(f"<p>Skill gap: <b>{row['skill_gap']:+.2f} VP</b> (greedy minus random), {row['players']} players.</p>")
    out.append('<div class="figs">')
    for policy, stats in (("random", random_), ("greedy", greedy)):
        out.append(
            "<figure>"
            + _bars(stats["score"]["distribution"], label=f"final score, {policy} players")
            + f"<figcaption>Final scores of {stats['games']:,} games, every seat {policy}.</figcaption></figure>"
        )
    usage = [room["entered"] for room in greedy["rooms"]]
    caption = f"greedy players, {greedy['games']} games"
    out.append(f"<figure>{_heatmap(entry, usage, source, dpi, caption)}<figcaption>{_e(caption)}</figcaption></figure>")
    out.append("</div>")
    return "".join(out)


def _line_section(row: dict, entry: dict, source: str, dpi: float) -> str:
    out = []
    p = row["par"]
    if "human" not in row and not p["length_mm"]:
        return (
            f'<p class="warn">No par: {_e(row.get("note", ""))}. The search\'s best, {p["bound"]} VP, is only a '
            "bound.</p>"
        )
    proven = (
        '<span class="ok">proven optimal</span>' if p["proven"] else f'<span class="warn">bound {p["bound"]}</span>'
    )
    out.append(f"<p>Par <b>{p['par']}</b> ({proven}); the route is {p['length_mm']:.0f} mm long.")
    if p.get("timer_s") is not None:
        seconds = p["length_mm"] / p["speed_mm_s"]
        fits = '<span class="ok">fits</span>' if p["fits_timer"] else '<span class="warn">does not fit</span>'
        out.append(
            f" At {p['speed_mm_s']:g} mm/s it takes {seconds:.0f} s: it {fits} the {p['timer_s']:g} s timer"
            + ("" if p["fits_timer"] else f" (the timer stops it at {p['timer_vp']} VP)")
            + "."
        )
    out.append("</p>")
    if p.get("note"):
        out.append(f'<p class="note">{_e(p["note"])}</p>')
    if "human" not in row:
        out.append(f'<p class="warn">Not simulated: {_e(row.get("note", ""))}</p>')
        return "".join(out)
    human = row["human"]
    score = human["score"]
    out.append(
        f"<p>A player of skill {human['skill']:g} scores <b>{score['mean']:.2f}</b> on average "
        f"(standard deviation {score['stdev']:.2f}, {score['min']} to {score['max']}), "
        f"{human['balance']['par_gap']:.2f} VP under par; the greedy player (no look-ahead) scores "
        f"{row['greedy']:g}. Scrawls ended: "
        + ", ".join(f"{_e(how.replace('_', ' '))} {share:.0%}" for how, share in human["ended"].items())
        + ".</p>"
    )
    out.append('<div class="figs"><figure>')
    out.append(_bars(score["distribution"], label=f"final score, skill {human['skill']:g}"))
    out.append(f"<figcaption>Final scores of {human['games']} sloppy-human games.</figcaption></figure>")
    caption = f"{human['games']} games at skill {human['skill']:g}"
    out.append(
        f"<figure>{_heatmap(entry, human['heatmap'], source, dpi, caption)}<figcaption>{_e(caption)}</figcaption>"
        "</figure></div>"
    )
    out.append("<h3>Elements completed</h3><table><tr><th>element</th><th>kind</th><th>area</th><th>VP</th>")
    out.append("<th>completed</th></tr>")
    for c in human["completion"]:
        vp = "" if c["vp"] is None else f"{c['vp']:+d}"
        share = c["completed"]
        style = ' class="warn"' if share < 0.5 else ""
        out.append(
            f"<tr><td>{_e(c['element'])}</td><td>{_e(c['kind'])}</td><td>{_e(c['area'] or '')}</td>"
            f"<td>{vp}</td><td{style}>{share:.0%}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)


def render_html(report: dict, entries: list[dict], source: str, dpi: float = 100) -> str:
    """The report (:func:`inkcrawl.pack_report.pack_report`) as one HTML page; ``entries`` are the
    game data of its dungeons (for the heatmaps), ``source`` the pack (for the printed sheets)."""
    by_id = {e.get("id"): e for e in entries}
    out = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Play report: {_e(source)}</title><style>{_CSS}</style></head><body>",
        f"<h1>Play report</h1><p>{_e(source)}: {len(report['dungeons'])} dungeons; seed {report['seed']}.</p>",
    ]
    out.append("<h2>Difficulty in pack order</h2>")
    for curve in report["difficulty"]:
        verdict = (
            '<span class="ok">rises in pack order</span>'
            if curve["rises"]
            else '<span class="warn">does not rise in pack order</span>'
        )
        names = [str(d) for d in curve["dungeons"]]
        out.append(
            f"<p>{_e(curve['family'])} dungeons ({_e(curve['measure'])}, higher is harder): difficulty {verdict}"
            + (f"; Kendall's tau {curve['kendall_tau']:+.2f}" if curve["kendall_tau"] is not None else "")
            + ".</p>"
        )
        out.append(_curve(names, [float(v) for v in curve["values"]], label=curve["measure"]))
    out.append("<table><tr><th>#</th><th>dungeon</th><th>family</th><th>par</th><th>mean score</th>")
    out.append("<th>spread</th><th>difficulty</th></tr>")
    for row in report["dungeons"]:
        if row["family"] == "grid":
            par_text, stats = "", row["greedy"]
        else:
            par_text, stats = str(row["par"]["par"]), row.get("human")
        mean = f"{stats['score']['mean']:.2f}" if stats else ""
        spread = f"{stats['score']['stdev']:.2f}" if stats else ""
        difficulty = "" if row.get("difficulty") is None else f"{float(row['difficulty']):.3f}"
        out.append(
            f"<tr><td>{row['order']}</td><td><a href='#{_e(row['id'])}'>{_e(row['title'] or row['id'])}</a></td>"
            f"<td>{_e(row['family'])}</td><td>{par_text}</td><td>{mean}</td><td>{spread}</td><td>{difficulty}</td></tr>"
        )
    out.append("</table>")
    for row in report["dungeons"]:
        out.append(f"<h2 id='{_e(row['id'])}'>{row['order']}. {_e(row['title'] or row['id'])}</h2>")
        entry = by_id[row["id"]]
        out.append(
            _grid_section(row, entry, source, dpi)
            if row["family"] == "grid"
            else _line_section(row, entry, source, dpi)
        )
    out.append(
        "<p class='note'>Made by inkcrawl report. Line players: the par route drawn by a sloppy hand "
        "(misses, pen jitter, speed against the timer); grid players: random and greedy policies. "
        "See docs/sweeps.md for the measures.</p></body></html>\n"
    )
    return "".join(out)
