"""vmafhip-tune's commands on a finished corpus (no pipelines run):
`ladder` (the per-title ladder on the convex hull, a table and a plot) and
`compare` (encoders at matched quality: BD-rate and the bitrate each needs
for given VMAF targets).  The geometry is ladder.py's; this module picks
the rows and prints.  docs/tune.md is the reference.
"""

import json
import os

from . import ladder
from .corpus import CorpusError, read_rows
from .encoders import ConfigError


def add_arguments(sub):
    p = sub.add_parser("ladder", help="the per-title bitrate ladder: rungs "
                                      "on the convex hull of a corpus")
    rows_arguments(p)
    p.add_argument("--encoder", metavar="NAME",
                   help="the encoder whose cells make the ladder (needed "
                        "when the corpus has several)")
    rungs = p.add_mutually_exclusive_group(required=True)
    rungs.add_argument("--rungs", type=int, metavar="N",
                       help="N rungs spread evenly in log bitrate")
    rungs.add_argument("--spacing", type=float, metavar="R",
                       help="each rung at least R times the bitrate of the "
                            "one below (R > 1), from the top")
    p.add_argument("--min-kbps", type=float, help="lowest rung's bitrate")
    p.add_argument("--max-kbps", type=float, help="highest rung's bitrate")
    p.add_argument("--log-rate", action="store_true",
                   help="the hull convex in log bitrate (default: linear)")
    p.add_argument("--plot", metavar="FILE",
                   help="draw every cell, the hull and the rungs (.png, .svg)")

    p = sub.add_parser("compare", help="encoders at matched quality: "
                                       "BD-rate, bitrate for VMAF targets")
    rows_arguments(p)
    p.add_argument("--encoder", action="append", metavar="NAME",
                   help="encoders compared, the first the anchor "
                        "(repeatable; default: every encoder in the corpus, "
                        "in the order of their first rows)")
    p.add_argument("--targets", default="80,90,95", metavar="LIST",
                   help="VMAF targets for the bitrate each encoder needs "
                        "(default 80,90,95)")
    p.add_argument("--method", choices=("pchip", "cubic"), default="pchip",
                   help="BD curve fit (default pchip)")


def rows_arguments(p):
    p.add_argument("--corpus", required=True, metavar="FILE",
                   help="the corpus (JSON lines) to read")
    p.add_argument("--source", metavar="SRC",
                   help="the source whose rows are used (needed when the "
                        "corpus has several)")
    p.add_argument("--metric", default="vmaf",
                   help="the pooled score used (default vmaf)")
    p.add_argument("--json", action="store_true",
                   help="print the result as JSON instead of a table")


def title_rows(args):
    """The corpus rows of one source's whole-title cells (per-shot rows
    are left out: a ladder is of a title)."""
    if not os.path.isfile(args.corpus):
        raise ConfigError(f"corpus {args.corpus}: no such file")
    rows = [r for r in read_rows(args.corpus) if r.get("shot") is None]
    sources = unique(r["source"] for r in rows)
    if args.source is not None:
        rows = [r for r in rows if r["source"] == args.source]
        if not rows:
            raise ConfigError(f"corpus {args.corpus}: no rows of source "
                              f"{args.source!r} (it has {', '.join(sources)})")
    elif len(sources) > 1:
        raise ConfigError(f"corpus {args.corpus} has {len(sources)} sources: "
                          "choose one with --source (" + ", ".join(sources) + ")")
    if not rows:
        raise ConfigError(f"corpus {args.corpus}: no rows")
    return rows


def unique(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def encoder_rows(rows, encoder, corpus):
    chosen = [r for r in rows if r["encoder"] == encoder]
    if not chosen:
        raise ConfigError(f"corpus {corpus}: no rows of encoder {encoder!r} "
                          "(it has " + ", ".join(unique(r["encoder"] for r in rows)) + ")")
    return chosen


def command_ladder(args):
    rows = title_rows(args)
    encoders = unique(r["encoder"] for r in rows)
    if args.encoder is None and len(encoders) > 1:
        raise ConfigError(f"corpus {args.corpus} has {len(encoders)} encoders: "
                          "choose one with --encoder (" + ", ".join(encoders) + ")")
    rows = encoder_rows(rows, args.encoder or encoders[0], args.corpus)
    points = ladder.points_from_rows(rows, args.metric)
    if not points:
        raise ConfigError(f"corpus {args.corpus}: no row has a bitrate and "
                          f"a pooled {args.metric!r}")
    hull = ladder.upper_convex_hull(points, log_rate=args.log_rate)
    try:
        rungs = ladder.pick_rungs(hull, count=args.rungs, spacing=args.spacing,
                                  min_kbps=args.min_kbps, max_kbps=args.max_kbps)
    except ValueError as e:
        raise ConfigError(str(e))
    if args.plot:
        ladder.plot_ladder(rows, hull, rungs, args.plot,
                           title=f"{rows[0]['source']}, {rows[0]['encoder']}",
                           metric=args.metric)
    if args.json:
        print(json.dumps({
            "source": rows[0]["source"], "encoder": rows[0]["encoder"],
            "cells": len(points),
            "hull": [point_json(p) for p in hull],
            "rungs": [point_json(p) for p in rungs]}, indent=1))
    else:
        print(f"{rows[0]['source']}, {rows[0]['encoder']}: {len(points)} "
              f"cells, {len(hull)} on the hull, {len(rungs)} rungs")
        for line in ladder.ladder_table(rungs, args.metric):
            print(line)
        if args.plot:
            print(f"plot: {args.plot}")
    return 0


def point_json(p):
    return {"cell": p.row["cell"], "width": p.row["width"],
            "height": p.row["height"], "knob": p.row["knob"],
            "value": p.row["value"], "bitrate_kbps": p.bitrate_kbps,
            "score": p.score}


def parse_targets(text):
    try:
        targets = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise ConfigError(f"--targets {text!r}: numbers, comma-separated")
    if not targets:
        raise ConfigError("--targets: at least one")
    return targets


def command_compare(args):
    rows = title_rows(args)
    encoders = args.encoder or unique(r["encoder"] for r in rows)
    if len(encoders) < 2:
        raise ConfigError(f"corpus {args.corpus}: compare needs two encoders "
                          f"or more (it has {', '.join(encoders)})")
    targets = parse_targets(args.targets)
    # each encoder at its best: the hull over all its resolutions
    hulls = []
    for name in encoders:
        points = ladder.points_from_rows(encoder_rows(rows, name, args.corpus),
                                         args.metric)
        hulls.append(ladder.upper_convex_hull(points))
    result = []
    for name, hull in zip(encoders, hulls):
        entry = {"encoder": name, "hull_points": len(hull),
                 "bitrate_kbps": {f"{t:g}": ladder.bitrate_for_score(hull, t)
                                  for t in targets}}
        if name != encoders[0]:
            try:
                entry["bd_rate_percent"] = ladder.bd_rate(hulls[0], hull, args.method)
                entry["bd_score"] = ladder.bd_score(hulls[0], hull, args.method)
            except ValueError as e:
                entry["bd_error"] = str(e)
        result.append(entry)
    if args.json:
        print(json.dumps({"source": rows[0]["source"], "anchor": encoders[0],
                          "method": args.method, "metric": args.metric,
                          "encoders": result}, indent=1))
        return 0
    print(f"{rows[0]['source']}: against {encoders[0]} ({args.method}, "
          f"each encoder's hull over its resolutions)")
    header = ["encoder", "hull", "BD-rate", f"BD-{args.metric}"] + \
        [f"kbps@{t:g}" for t in targets]
    lines = [header]
    for e in result:
        if "bd_error" in e:
            bd = ["n/a", "n/a"]
        elif "bd_rate_percent" in e:
            bd = [f"{e['bd_rate_percent']:+.2f} %", f"{e['bd_score']:+.3f}"]
        else:
            bd = ["anchor", "anchor"]
        kbps = ["-" if v is None else f"{v:.1f}" for v in e["bitrate_kbps"].values()]
        lines.append([e["encoder"], str(e["hull_points"])] + bd + kbps)
    widths = [max(len(r[c]) for r in lines) for c in range(len(header))]
    for r in lines:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    for e in result:
        if "bd_error" in e:
            print(f"{e['encoder']}: no BD figures ({e['bd_error']})")
    return 0


def run(args):
    """The command for args.command, or None if it is not one of these."""
    try:
        if args.command == "ladder":
            return command_ladder(args)
        if args.command == "compare":
            return command_compare(args)
    except CorpusError as e:
        raise ConfigError(str(e))
    return None
