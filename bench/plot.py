#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns bench_peers' CSV into PNG plots and Markdown tables with quadrant's ratio to the best peer.

    python3 bench/plot.py RESULTS.csv OUT_DIR

For every (workload, scenario): when it was measured at several N, a log-log plot of time against N with one line
per contender; otherwise a horizontal bar chart. OUT_DIR/tables.md gets one table per workload and a summary of
quadrant's best time over the best peer's for every case (below 1: quadrant is faster). Rows that failed parity
have no time and are left out; contenders noted as "no index" are shown but not counted as peers.
"""
import csv
import os
import re
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


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


def style(name, index):
    # quadrant solid and thick, peers dashed: the eye finds quadrant's lines first. tab20 gives every line its own
    # colour (the default cycle repeats after ten).
    colour = plt.get_cmap("tab20")(index % 20)
    if name.startswith("quadrant"):
        return {"linestyle": "-", "linewidth": 2.2, "marker": "o", "color": colour}
    return {"linestyle": "--", "linewidth": 1.3, "marker": "s", "color": colour}


def plot_lines(rows, workload, scenario, out_dir):
    fig, ax = plt.subplots(figsize=(8, 5.5))
    contenders = OrderedDict()
    for r in rows:
        if r["time"] is not None:
            contenders.setdefault(r["contender"], []).append((r["n"], r["time"], r["p99"], r["max"]))
    tails = False
    for index, (name, points) in enumerate(contenders.items()):
        points.sort()
        look = style(name, index)
        ax.plot([p[0] for p in points], [p[1] for p in points], label=name, **look)
        # The tail of each point: a bar from the median up to the worst tick, with a dash at the 99th percentile.
        # The bars of a contender are nudged sideways (a few percent of N) so that they do not hide each other.
        tail = [p for p in points if p[3] is not None]
        if tail:
            tails = True
            nudge = 1.0 + 0.06 * (index - (len(contenders) - 1) / 2)
            xs = [p[0] * nudge for p in tail]
            ax.vlines(xs, [p[1] for p in tail], [p[3] for p in tail], color=look["color"], linewidth=1.2, alpha=0.8)
            ax.plot(xs, [p[2] for p in tail], linestyle="none", marker="_", markersize=9, markeredgewidth=2,
                    color=look["color"])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N")
    ax.set_ylabel(rows[0]["unit"])
    ax.set_title(f"{workload}: {scenario}" + ("\n(line: median tick; bar: up to the worst tick; dash: 99th percentile)"
                                               if tails else ""))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    path = os.path.join(out_dir, f"{slug(workload)}-{slug(scenario)}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_bars(rows, workload, scenario, out_dir, value="time"):
    rows = [r for r in rows if r[value] is not None]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.4))
    names = [r["contender"] for r in rows]
    values = [r[value] for r in rows]
    colours = ["#1f77b4" if r["is_quadrant"] else "#999999" for r in rows]
    ax.barh(names, values, color=colours)
    ax.invert_yaxis()
    ax.set_xscale("log")
    unit = rows[0]["unit"] if value == "time" else "bytes per object"
    ax.set_xlabel(unit + " (log scale; quadrant in blue)")
    ax.set_title(f"{workload}: {scenario}, N={rows[0]['n']}")
    for i, v in enumerate(values):
        ax.text(v, i, f" {v:.3g}", va="center", fontsize=8)
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
