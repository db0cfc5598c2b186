#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns bench_peers' CSV into PNG plots and Markdown tables with quadrant's ratio to the best peer.

    python3 bench/plot.py RESULTS.csv OUT_DIR

For every (workload, scenario): when it was measured at several N, a line chart of each contender's time over the
best peer's at that N (a line at 1.0), with at most five lines: quadrant's best two variants solid, the best peers
dashed, the legend below; otherwise horizontal bars from zero on a linear axis, sorted, quadrant's in blue, each
labelled with its value (and a memory chart the same way where bytes were measured). OUT_DIR/tables.md gets one
table per workload, every contender in it, and a summary of quadrant's best time over the best peer's for every
case (below 1: quadrant is faster). Rows that failed parity have no time and are left out; contenders noted as
"no index" are shown but not counted as peers.
"""
import csv
import difflib
import math
import os
import re
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["n"] = int(r["n"])
        r["time"] = float(r["time_ms"]) if r["time_ms"] else None
        r["bytes"] = float(r["bytes_per_object"]) if r["bytes_per_object"] else None
        r["is_quadrant"] = r["quadrant"] == "1"
        r["is_peer"] = not r["is_quadrant"] and "no index" not in r["note"]
        # Workloads that time ticks (aoi) note their 99th percentile and worst tick: "p99 X ms, max Y ms".
        tail = re.search(r"p99 ([0-9.e+-]+) ms, max ([0-9.e+-]+) ms", r["note"])
        r["p99"], r["max"] = (float(tail.group(1)), float(tail.group(2))) if tail else (None, None)
    return rows


def slug(text):
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-").replace("--", "-")


def groups(rows):
    out = OrderedDict()
    for r in rows:
        out.setdefault((r["workload"], r["scenario"]), []).append(r)
    return out


# Colours that stay apart on white and for the common colour blindnesses (Okabe and Ito's), darkest first; quadrant
# takes the blue and the vermilion, the peers the others. Markers differ too, for print and for lines that cross;
# quadrant's second marker is open, so that a point it shares with the first still shows both.
QUADRANT_LOOKS = [("#0072B2", "o", True), ("#D55E00", "D", False), ("#CC79A7", "v", False)]
PEER_LOOKS = [("#000000", "s", True), ("#009E73", "^", True), ("#8C6D00", "P", True)]
BEST_PEER = "#555555"
MAX_QUADRANT_SERIES = 2
MAX_PEER_SERIES = 3
# Two of quadrant's series closer than this at every N are drawn as one (the label names the other): two lines on
# top of each other hide one another.
COINCIDE = 0.10


def best_peer_times(rows):
    """The best peer's time at each N: the yardstick of every chart."""
    best = {}
    for r in rows:
        if r["is_peer"] and r["time"] is not None:
            best[r["n"]] = min(best.get(r["n"], r["time"]), r["time"])
    return best


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("inf")


def differing_words(name, other):
    """The words of other that name lacks, and the word after them: "quadrant Parent actors x Loose level" against
    "quadrant Loose actors x Loose level" gives "Parent actors"; "quadrant Streamer, Parent" gives "Parent"."""
    a, b = name.split(), other.split()
    words = []
    for op, _, _, j1, j2 in difflib.SequenceMatcher(a=a, b=b).get_opcodes():
        if op in ("replace", "insert"):
            words += b[j1:j2 + (1 if j2 < len(b) and not b[j2 - 1].endswith((",", ":")) else 0)]
    return " ".join(words).strip(",:") or other


def choose_series(ratios, is_quadrant, most=5):
    """At most five lines: quadrant's best variants and the best peers, the rest left to the tables.

    ratios maps a contender to {N: time / best peer's time}. Peers that are the best at some N come first (the line
    at 1.0 is theirs), then the others measured at the most sizes, fastest first. quadrant's series go fastest
    first (geometric mean of the ratios), skipping one that coincides with a series already chosen. most: the
    number of lines at most."""
    ours = sorted((c for c in ratios if is_quadrant[c]), key=lambda c: (-len(ratios[c]), geomean(ratios[c].values())))
    peers = [c for c in ratios if not is_quadrant[c]]
    wins = {c: sum(1 for n, v in ratios[c].items() if v == 1.0) for c in peers}
    peers.sort(key=lambda c: (-wins[c], -len(ratios[c]), geomean(ratios[c].values())))
    chosen, twins = [], {}
    for c in ours:
        twin = next((k for k in chosen if ratios[k].keys() == ratios[c].keys() and
                     all(abs(ratios[c][n] / ratios[k][n] - 1) < COINCIDE for n in ratios[c])), None)
        if twin is not None:
            twins.setdefault(twin, []).append(c)
        elif len(chosen) < MAX_QUADRANT_SERIES:
            chosen.append(c)
    room = min(MAX_PEER_SERIES, most - len(chosen))
    # In the CSV's order (quadrant first): a contender keeps its colour from one chart of a workload to the next.
    order = list(ratios)
    return sorted(chosen, key=order.index) + sorted(peers[:room], key=order.index), twins


def ratio_axis(ax, values):
    """A log y axis of ratios (0.5x and 2x equally far from 1) with plain numbers on its ticks."""
    ax.set_yscale("log")
    low, high = min(values + [1.0]) / 1.25, max(values + [1.0]) * 1.25
    ax.set_ylim(low, high)
    ticks = [t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500) if low <= t <= high]
    if len(ticks) < 5:  # a narrow range: ticks in between too
        ticks = sorted(set(ticks) | {t for t in (0.3, 0.7, 1.5, 3) if low <= t <= high})
    ax.set_yticks(ticks)
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_locator(ticker.NullLocator())


def legend_below(ax, handles, labels):
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=1, fontsize=9, frameon=False)


def plot_lines(rows, workload, scenario, out_dir):
    """Time over the best peer's at each N, one line a contender shown, the line at 1.0 the best peer."""
    best = best_peer_times(rows)
    if not best:  # no peer measured: nothing to divide by
        return None
    points, is_quadrant, notes = OrderedDict(), {}, {}
    for r in rows:
        if r["time"] is not None and r["n"] in best:
            points.setdefault(r["contender"], {})[r["n"]] = (r["time"], r["p99"], r["max"])
            is_quadrant[r["contender"]] = r["is_quadrant"]
            notes[r["contender"]] = r["note"]
    ratios = {c: {n: p[0] / best[n] for n, p in ps.items()} for c, ps in points.items()}
    # Where each point carries a tail bar (the aoi ticks), four lines at most: five and their bars tangle.
    tailed = any(p[2] is not None for ps in points.values() for p in ps.values())
    shown, twins = choose_series(ratios, is_quadrant, most=4 if tailed else 5)

    fig, ax = plt.subplots(figsize=(8, 6.2))
    values, handles, labels = [], [], []
    looks = iter(QUADRANT_LOOKS)
    peer_looks = iter(PEER_LOOKS)
    for index, name in enumerate(shown):
        colour, marker, filled = next(looks) if is_quadrant[name] else next(peer_looks)
        sizes = sorted(points[name])
        ys = [ratios[name][n] for n in sizes]
        values += ys
        solid = is_quadrant[name]
        # With tail bars, each contender's points and bars are nudged sideways (a few percent of N) so that neither
        # hide another's; without, the points sit on N.
        nudge = 1.0 + 0.09 * (index - (len(shown) - 1) / 2) if tailed else 1.0
        line, = ax.plot([n * nudge for n in sizes], ys, color=colour, marker=marker, markersize=8 if solid else 6,
                        markerfacecolor=colour if filled else "none", markeredgewidth=1 if filled else 2,
                        linestyle="-" if solid else (0, (5, 3)), linewidth=2.4 if solid else 1.8,
                        zorder=3 if solid else 2)
        label = name
        # A note that tells two variants apart (what the time includes) goes into the label.
        if notes[name] and not notes[name][0].isdigit():
            label = label[:-1] + f"; {notes[name]})" if label.endswith(")") else label + f" ({notes[name]})"
        for twin in twins.get(name, []):
            gap = max(abs(ratios[twin][n] / ratios[name][n] - 1) for n in sizes)
            label += f"\n    {differing_words(name, twin)}: the same within {math.ceil(gap * 100)}%"
        handles.append(line)
        labels.append(label)
        # The tail of each point: a bar from the median up to the worst tick, a dash at the 99th percentile, each
        # over the best peer's median.
        tail = [n for n in sizes if points[name][n][2] is not None]
        if tail:
            xs = [n * nudge for n in tail]
            top = [points[name][n][2] / best[n] for n in tail]
            p99 = [points[name][n][1] / best[n] for n in tail]
            values += top
            ax.vlines(xs, [ratios[name][n] for n in tail], top, color=colour, linewidth=1.4, alpha=0.9)
            ax.plot(xs, p99, linestyle="none", marker="_", markersize=10, markeredgewidth=2.2, color=colour)
    ax.axhline(1.0, color=BEST_PEER, linewidth=1.2, linestyle=":", zorder=1)
    ax.set_xscale("log")
    ratio_axis(ax, values)
    # Its label in the right margin, clear of the data.
    ax.text(1.01, 1.0, "best\npeer", transform=ax.get_yaxis_transform(), va="center", ha="left", fontsize=9,
            color=BEST_PEER)
    sizes = sorted(best)
    ax.set_xticks(sizes)
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.set_xlim(sizes[0] / 1.6, sizes[-1] * 1.6)
    ax.set_xlabel("objects (N)")
    median = "median tick " if tailed else ""
    ax.set_ylabel(f"{median}time / best peer's {median}time (log scale)")
    unit = rows[0]["unit"]
    ax.set_title(f"{workload}: {scenario}\n" + (
        "line: median tick over the best peer's median tick\nbar: up to the worst tick; dash: 99th percentile"
        if tailed else
        f"{unit}, each over the best peer's at that N; below 1: faster than every peer"), fontsize=11)
    ax.grid(True, which="major", alpha=0.3)
    legend_below(ax, handles, labels)
    path = os.path.join(out_dir, f"{slug(workload)}-{slug(scenario)}.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def ratio_text(ratio):
    return f"{ratio:,.0f}x" if ratio >= 100 else f"{ratio:.1f}x" if ratio >= 10 else f"{ratio:.2f}x"


def plot_bars(rows, workload, scenario, out_dir, value="time"):
    """Horizontal bars from zero on a linear axis, fastest (or smallest) on top, quadrant's in blue."""
    rows = sorted((r for r in rows if r[value] is not None), key=lambda r: r[value])
    if not rows:
        return None
    names = [r["contender"] + (" (no index)" if "no index" in r["note"] else "") for r in rows]
    values = [r[value] for r in rows]
    # The axis reaches quadrant's slowest bar and at least 4x the smallest indexed one (and any bar up to 1.5x that);
    # a longer bar is cut at the edge (two slashes) and keeps its value: a 2,000x spread would otherwise leave every
    # other bar a sliver.
    indexed = [r[value] for r in rows if "no index" not in r["note"]] or values
    reach = max([4 * min(indexed)] + [r[value] for r in rows if r["is_quadrant"]])
    whole = max(v for v in values if v <= 1.5 * reach)
    edge = whole * 1.3  # room for the label of the longest whole bar
    best = min((r[value] for r in rows if r["is_peer"]), default=None) if value == "time" else None

    fig, ax = plt.subplots(figsize=(8, 0.42 * len(rows) + 1.5))
    colours = ["#0072B2" if r["is_quadrant"] else "#A0A0A0" for r in rows]
    ax.barh(range(len(rows)), [v if v <= whole else edge for v in values], color=colours, height=0.68, zorder=2)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(names)
    for tick, r in zip(ax.get_yticklabels(), rows):
        if r["is_quadrant"]:
            tick.set_fontweight("bold")
            tick.set_color("#0072B2")
    ax.invert_yaxis()
    ax.set_xlim(0, edge)
    for i, v in enumerate(values):
        text = (f"{v:,.0f}" if v >= 100 else f"{v:.3g}") + (f"  ({ratio_text(v / best)})" if best else "")
        if v > whole:
            # The cut: two white slashes across the bar near the edge, the value inside the bar.
            for dx in (0.015, 0.035):
                ax.plot([edge * (0.93 + dx) - edge * 0.008, edge * (0.93 + dx) + edge * 0.008], [i + 0.4, i - 0.4],
                        color="white", linewidth=2.5, zorder=3)
            ax.text(edge * 0.92, i, text + " ", va="center", ha="right", fontsize=8.5, color="white",
                    fontweight="bold", zorder=4)
        else:
            # On white, so that the best peer's line does not run through it.
            ax.text(v + edge * 0.006, i, text, va="center", ha="left", fontsize=8.5, zorder=4,
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0})
    if best:
        ax.axvline(best, color=BEST_PEER, linewidth=1.2, linestyle=":", zorder=1)
        ax.text(best, -0.75, " best peer", va="bottom", ha="left", fontsize=8.5, color=BEST_PEER)
        ax.set_ylim(len(rows) - 0.5, -1.0)
    unit = rows[0]["unit"] if value == "time" else "bytes per object"
    note = "; (x): over the best peer's time" if best else ""
    cut = "; a bar cut by // runs on past the edge" if max(values) > whole else ""
    ax.set_xlabel(unit + note + cut, fontsize=9)
    ax.grid(True, axis="x", alpha=0.3, zorder=0)
    ax.set_title(f"{workload}: {scenario}, N={rows[0]['n']:,}" + (" (memory)" if value != "time" else ""),
                 fontsize=11)
    fig.tight_layout()
    suffix = "" if value == "time" else "-memory"
    path = os.path.join(out_dir, f"{slug(workload)}-{slug(scenario)}{suffix}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def fmt(v):
    return "—" if v is None else f"{v:.3g}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    out_dir = sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    md = ["<!-- written by bench/plot.py from " + os.path.basename(sys.argv[1]) + "; do not edit -->", ""]
    summary = ["| workload | case | N | quadrant's best | best peer | ratio | best tree library (Box2D, Boost) | ratio |",
               "|---|---|---|---|---|---|---|---|"]
    current = None
    for (workload, scenario), rs in groups(rows).items():
        if workload != current:
            current = workload
            md += [f"## {workload}", ""]
        sizes = sorted({r["n"] for r in rs})
        if len(sizes) > 1:
            picture = plot_lines(rs, workload, scenario, out_dir)
        else:
            picture = plot_bars(rs, workload, scenario, out_dir)
        if any(r["bytes"] is not None for r in rs) and len(sizes) == 1:
            plot_bars(rs, workload, scenario, out_dir, value="bytes")
        md += [f"### {scenario}", ""]
        if picture:
            md += [f"![{workload}: {scenario}]({os.path.basename(picture)})", ""]
        for n in sizes:
            case = [r for r in rs if r["n"] == n]
            unit = case[0]["unit"]
            md += [f"N = {n:,}", "", f"| contender | {unit} | bytes/object | results | parity |", "|---|---|---|---|---|"]
            for r in case:
                name = f"**{r['contender']}**" if r["is_quadrant"] else r["contender"]
                if r["note"]:
                    name += f" ({r['note']})"
                md.append(f"| {name} | {fmt(r['time'])} | {fmt(r['bytes'])} | {r['count']} | {r['parity']} |")
            md.append("")
            timed = [r for r in case if r["time"] is not None]
            ours = [r for r in timed if r["is_quadrant"]]
            peers = [r for r in timed if r["is_peer"]]
            if ours and peers:
                q = min(ours, key=lambda r: r["time"])
                p = min(peers, key=lambda r: r["time"])
                ratio = q["time"] / p["time"] if p["time"] > 0 else float("inf")
                libs = [r for r in peers if r["contender"].startswith(("Box2D", "Boost"))]
                lib_cells = "— | —"
                if libs:
                    b = min(libs, key=lambda r: r["time"])
                    lib_cells = f"{b['contender']} {fmt(b['time'])} | {q['time'] / b['time']:.2f}"
                summary.append(f"| {workload} | {scenario} | {n:,} | {q['contender']} {fmt(q['time'])} | "
                               f"{p['contender']} {fmt(p['time'])} | {ratio:.2f} | {lib_cells} |")
    with open(os.path.join(out_dir, "tables.md"), "w") as f:
        f.write("\n".join(["# Ratios: quadrant's best time / the best peer's (below 1: quadrant is faster)", ""]
                          + summary + [""] + md))
    print(f"wrote {out_dir}/tables.md and the plots")


if __name__ == "__main__":
    main()
