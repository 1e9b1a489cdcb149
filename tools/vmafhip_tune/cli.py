"""vmafhip-tune's command line: `corpus` (a grid sweep), `recommend`
(bisection to a target, optionally per shot), and on a corpus `ladder`
and `compare` (analyse.py).  docs/tune.md is the
reference.

Exit status: 0 done; 1 some cells failed (the others are in the corpus;
the failures in CORPUS.errors); 2 a usage or setup error (unknown encoder,
missing plugin, value out of range, unreadable source or corpus); 130
interrupted (rerun the same command to resume).
"""

import argparse
import json
import os
import re
import sys

from . import analyse, encoders, pipeline, queues, shots
from .corpus import CorpusError, cell_key
from .encoders import ConfigError, format_value
from .sweep import Interrupted, Sweep, bisection_probes, default_jobs, last_true


def parse_values(text, knob):
    """"18,23,28" and "18:30:4" (LOW:HIGH:STEP, HIGH included) to a list."""
    values = []
    for part in filter(None, text.split(",")):
        try:
            if ":" in part:
                fields = [float(x) for x in part.split(":")]
                low, high = fields[0], fields[1]
                step = fields[2] if len(fields) > 2 else 1
                if step <= 0 or len(fields) > 3:
                    raise ValueError
                v = low
                while v <= high + 1e-9:
                    values.append(round(v, 6))
                    v += step
            else:
                values.append(float(part))
        except ValueError:
            raise ConfigError(f"cannot read knob values {part!r} "
                              "(a list 18,23,28 or a range LOW:HIGH[:STEP])")
    if not values:
        raise ConfigError("no knob values given")
    return [int(v) if v == int(v) else v for v in values]


def parse_resolution(text, source):
    """WxH, or a height H (the width kept in the source's aspect ratio,
    rounded to even)."""
    if re.fullmatch(r"\d+x\d+", text):
        width, height = map(int, text.split("x"))
    elif re.fullmatch(r"\d+", text):
        height = int(text)
        width = max(2, 2 * round(source.width * height / source.height / 2))
    else:
        raise ConfigError(f"cannot read resolution {text!r} (WxH or a height)")
    if width <= 0 or height <= 0:
        raise ConfigError(f"resolution {text}: must be positive")
    if width > source.width or height > source.height:
        raise ConfigError(f"resolution {width}x{height} is larger than "
                          f"{source.spec}'s {source.width}x{source.height} "
                          "(vmafhip scales smaller encodes up, never down)")
    return width, height


def parse_settings(items):
    settings = []
    for item in items or ():
        if "=" not in item:
            raise ConfigError(f"--set {item!r}: PROPERTY=VALUE")
        prop, value = item.split("=", 1)
        settings.append((prop, value))
    return settings


def common_arguments(p):
    p.add_argument("--corpus", required=True, metavar="FILE",
                   help="the corpus (JSON lines), appended to; rows already "
                        "there are not run again")
    p.add_argument("--source", action="append", required=True, metavar="SRC",
                   help="a video file (anything decodebin reads, y4m "
                        "included) or testsrc:PROP=V,WxH,Nframes,Rfps; "
                        "repeatable")
    p.add_argument("--knob", help="the encoder's quality knob (default: its "
                                  "first in the table, e.g. crf)")
    p.add_argument("--resolution", action="append", metavar="WxH|H",
                   help="encode size (repeatable; default: the source's)")
    p.add_argument("--preset", help="the encoder's speed preset "
                                    "(x264enc/x265enc speed-preset, av1enc cpu-used)")
    p.add_argument("--set", action="append", metavar="PROP=VALUE",
                   help="another encoder property (repeatable)")
    p.add_argument("--decoder", help="the decoder element (default: the "
                                     "first installed of the table's)")
    p.add_argument("--backend", choices=("auto", "cpu", "hip"), default="auto")
    p.add_argument("--model", default="vmaf_v0.6.1",
                   help="built-in model name or model file")
    p.add_argument("--jobs", type=int, default=default_jobs(), metavar="N",
                   help="cells run at once, each cell of a shared "
                        "pipeline counted (default: CPUs / 2)")
    p.add_argument("--keep-encodes", metavar="DIR",
                   help="write each cell's elementary stream here")
    p.add_argument("--keep-logs", metavar="DIR",
                   help="write each cell's per-frame libvmaf log (JSON) here")
    p.add_argument("--queue-frames", type=positive_frames,
                   default=queues.START_FRAMES, metavar="N",
                   help="the pipeline's queues' first bound in frames; the "
                        "reference's doubles while an encoder needs more "
                        f"(default {queues.START_FRAMES})")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def positive_frames(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= queues.MAX_FRAMES:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a whole number of frames, 1 to {queues.MAX_FRAMES}")
    return value


def build_parser():
    parser = argparse.ArgumentParser(
        prog="vmafhip-tune",
        description="Encode, decode and score in GStreamer: encoder grids "
                    "into a corpus, target-VMAF settings (docs/tune.md).")
    parser.add_argument("--list-encoders", action="store_true",
                        help="print the encoder table and exit")
    sub = parser.add_subparsers(dest="command")

    p = sub.add_parser("corpus", help="a grid of encoder x knob values x "
                                      "resolutions over the sources")
    common_arguments(p)
    p.add_argument("--encoder", action="append", metavar="NAME",
                   help="GStreamer encoder (repeatable; default x264enc)")
    p.add_argument("--values", required=True, metavar="LIST",
                   help="knob values: 18,23,28 or 18:30:4")
    p.add_argument("--dry-run", action="store_true",
                   help="list the cells not yet in the corpus and exit")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--one-pipeline-per-cell", action="store_true",
                       help="every cell in a pipeline of its own (default: "
                            "the resolutions of one knob value share one "
                            "pipeline, its renditions scored against one "
                            "reference decode)")
    group.add_argument("--group-values", action="store_true",
                       help="one pipeline for every value and resolution of "
                            "a source and encoder")

    p = sub.add_parser("recommend", help="the cheapest knob value reaching "
                                         "a target, by bisection")
    common_arguments(p)
    p.add_argument("--encoder", default="x264enc", metavar="NAME")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--target-vmaf", type=float, metavar="T",
                        help="the cheapest setting with pooled VMAF >= T")
    target.add_argument("--target-bitrate", type=float, metavar="KBPS",
                        help="the best setting with bitrate <= KBPS")
    p.add_argument("--range", metavar="LOW:HIGH[:STEP]",
                   help="knob values searched (default: the knob's range, step 1)")
    p.add_argument("--per-shot", action="store_true",
                   help="tune each shot of the source on its own")
    p.add_argument("--cut-threshold", type=float, default=shots.DEFAULT_THRESHOLD,
                   help="scene cut: mean absolute luma difference (0-255) "
                        "of a frame from the one before, at least this "
                        f"(default {shots.DEFAULT_THRESHOLD:g})")
    p.add_argument("--min-shot-frames", type=int, default=shots.DEFAULT_MIN_FRAMES,
                   help=f"shortest shot (default {shots.DEFAULT_MIN_FRAMES})")
    p.add_argument("--json", action="store_true",
                   help="print the result as JSON instead of a table")
    analyse.add_arguments(sub)
    return parser


def setup(args, encoder_names):
    """Sources, encoders (checked), decoders, the sweep: ConfigError or
    SourceError where something is missing."""
    chosen = []
    for name in encoder_names:
        encoder = encoders.lookup(name)
        knob = encoder.knob(args.knob)
        decoder = encoders.check_plugins(encoder, args.decoder)
        chosen.append((encoder, knob, decoder))
    if any(s.startswith("testsrc:") for s in args.source) and \
            not encoders.have_element("videotestsrc"):
        raise ConfigError(encoders.missing_message(
            "videotestsrc", encoders.PACKAGES["videotestsrc"]))
    sources = [pipeline.probe_source(s) for s in args.source]
    if args.jobs < 1:
        raise ConfigError("--jobs must be at least 1")
    for folder in (args.keep_encodes, args.keep_logs):
        if folder:
            os.makedirs(folder, exist_ok=True)
    return chosen, sources


def resolutions(args, source):
    if not args.resolution:
        return [(source.width, source.height)]
    return [parse_resolution(r, source) for r in args.resolution]


def make_cell(source, encoder, knob, decoder, value, size, args, shot=None):
    width, height = size
    key = cell_key(source.spec, encoder.factory, knob.name, value, width,
                   height, None if shot is None else shot[0])
    cell = pipeline.Cell(key, source, encoder, knob, value, width, height,
                         decoder, args.preset, tuple(parse_settings(args.set)))
    if shot is not None:
        cell.shot, cell.shot_start, cell.shot_frames = shot
    return cell


def scoring(args):
    return pipeline.Scoring(args.backend, args.model, args.keep_encodes,
                            args.keep_logs, args.queue_frames)


def command_corpus(args):
    chosen, sources = setup(args, args.encoder or ["x264enc"])
    cells = []
    for source in sources:
        for encoder, knob, decoder in chosen:
            values = parse_values(args.values, knob)
            for value in values:
                knob.check(value, encoder.factory)
            for size in resolutions(args, source):
                for value in values:
                    cells.append(make_cell(source, encoder, knob, decoder,
                                           value, size, args))
    sweep = Sweep(args.corpus, scoring(args), args.jobs, args.quiet)
    todo = [c for c in cells if not sweep.corpus.has(c.key)]
    if args.dry_run:
        for cell in todo:
            print(cell.key)
        return 0
    groups = group_cells(todo, args)
    sweep.progress(len(todo), "cells")
    if len(todo) < len(cells) and not args.quiet:
        sweep.note(f"vmafhip-tune: {len(cells) - len(todo)} of {len(cells)} "
                   "cells already in the corpus")
    sweep.run_all([lambda g=g: sweep.measure_group(g) for g in groups])
    return finish(sweep)


def group_cells(cells, args):
    """CELLS in the pipelines that run them: those of one source, encoder,
    knob, decoder and value (every value with --group-values) together,
    each cell alone with --one-pipeline-per-cell or where the installed
    element has no renditions' pads."""
    if not args.one_pipeline_per_cell and not pipeline.renditions_supported():
        print("vmafhip-tune: this vmafhip has no dist_sink_%u pads: one "
              "pipeline per cell (update the plugin to share the reference "
              "decode)", file=sys.stderr)
        args.one_pipeline_per_cell = True
    if args.one_pipeline_per_cell:
        return [[cell] for cell in cells]
    groups = {}
    for cell in cells:
        key = (cell.source.spec, cell.encoder.factory, cell.knob.name,
               cell.decoder, cell.shot,
               None if args.group_values else cell.value)
        groups.setdefault(key, []).append(cell)
    return list(groups.values())


def finish(sweep, failed=False):
    if sweep.errors.entries or failed:
        print(f"vmafhip-tune: {len(sweep.errors.entries)} cell(s) failed "
              f"(listed in {sweep.errors.path})", file=sys.stderr)
        return 1
    return 0


class TaskFailed(Exception):
    pass


def search(sweep, cells, target_vmaf, target_bitrate):
    """The bisection over CELLS (ordered from best quality to cheapest):
    (index of the answer, reached, every probed row by index)."""
    probed = {}

    def row_at(i):
        if i not in probed:
            row = sweep.measure(cells[i])
            if row is None:
                raise TaskFailed(cells[i].key)
            probed[i] = row
        return probed[i]

    if target_vmaf is not None:
        # VMAF falls along the list: the last cell still at the target
        i = last_true(len(cells), lambda i: row_at(i)["scores"]["vmaf"] >= target_vmaf)
        reached = i >= 0
        index = i if reached else 0
    else:
        # bitrate falls along the list: the first cell at or under it
        i = last_true(len(cells), lambda i: row_at(i)["bitrate_kbps"] > target_bitrate)
        reached = i + 1 < len(cells)
        index = i + 1 if reached else len(cells) - 1
    row_at(index)
    return index, reached, probed


def search_values(args, encoder, knob):
    if args.range:
        values = parse_values(args.range, knob)
    else:
        values = parse_values(f"{format_value(knob.low)}:{format_value(knob.high)}", knob)
    for value in values:
        knob.check(value, encoder.factory)
    # best quality first
    return sorted(set(values), reverse=not knob.lower_is_better)


def title_pooled(rows):
    """The whole title's pooled VMAF from its shots' per-frame logs: the
    mean of every frame's score (frames-weighted across shots)."""
    scores = []
    for row in rows:
        log = row.get("log")
        if not log or not os.path.isfile(log):
            raise ConfigError(f"cell {row['cell']}: its per-frame log "
                              f"({log}) is gone; per-shot needs it")
        with open(log, encoding="utf-8") as f:
            frames = json.load(f)["frames"]
        scores.extend(frame["metrics"]["vmaf"] for frame in frames)
    return sum(scores) / len(scores), len(scores)


def command_recommend(args):
    (chosen, sources) = setup(args, [args.encoder])
    encoder, knob, decoder = chosen[0]
    values = search_values(args, encoder, knob)
    if args.per_shot and not args.keep_logs:
        args.keep_logs = args.corpus + ".logs"
        os.makedirs(args.keep_logs, exist_ok=True)
    sweep = Sweep(args.corpus, scoring(args), args.jobs, args.quiet)

    groups = []      # (source, size, shots or [None])
    for source in sources:
        shot_list = [None]
        if args.per_shot:
            found = shots.detect(source.spec, args.cut_threshold,
                                 args.min_shot_frames)
            shot_list = [(i, start, frames) for i, (start, frames) in enumerate(found)]
        for size in resolutions(args, source):
            groups.append((source, size, shot_list))

    tasks, where = [], []
    for g, (source, size, shot_list) in enumerate(groups):
        for shot in shot_list:
            cells = [make_cell(source, encoder, knob, decoder, v, size, args, shot)
                     for v in values]
            tasks.append(lambda cells=cells: search(sweep, cells, args.target_vmaf,
                                                    args.target_bitrate))
            where.append((g, shot, cells))
    sweep.progress(len(tasks) * bisection_probes(len(values)), "probes")
    results = sweep.run_all([guarded(t) for t in tasks])

    report = []
    for g, (source, size, shot_list) in enumerate(groups):
        entry = {"source": source.spec, "encoder": encoder.factory,
                 "knob": knob.name, "width": size[0], "height": size[1],
                 "shots": []}
        for (tg, shot, cells), result in zip(where, results):
            if tg != g:
                continue
            if isinstance(result, TaskFailed):
                entry["shots"].append({"shot": None if shot is None else shot[0],
                                       "failed": str(result)})
                continue
            index, reached, probed = result
            row = probed[index]
            entry["shots"].append({
                "shot": None if shot is None else shot[0],
                "start": None if shot is None else shot[1],
                "frames": row["frames"], "value": row["value"],
                "vmaf": row["scores"]["vmaf"], "bitrate_kbps": row["bitrate_kbps"],
                "bytes": row["bytes"], "reached": reached, "probes": len(probed),
                "cell": row["cell"], "row": row})
        done = [s for s in entry["shots"] if "failed" not in s]
        if args.per_shot and done and len(done) == len(entry["shots"]):
            vmaf, frames = title_pooled([s["row"] for s in done])
            nbytes = sum(s["bytes"] for s in done)
            entry["title"] = {"vmaf": vmaf, "frames": frames, "bytes": nbytes,
                              "bitrate_kbps": nbytes * 8 / (frames / source.fps) / 1000}
        report.append(entry)
    print_report(report, args)
    return finish(sweep, any("failed" in s for e in report for s in e["shots"]))


def guarded(task):
    def run():
        try:
            return task()
        except TaskFailed as e:
            return e
    return run


def print_report(report, args):
    if args.json:
        for entry in report:
            for shot in entry["shots"]:
                shot.pop("row", None)
        print(json.dumps(report, indent=1))
        return
    target = (f"VMAF >= {args.target_vmaf:g}" if args.target_vmaf is not None
              else f"bitrate <= {args.target_bitrate:g} kbps")
    for entry in report:
        print(f"{entry['source']} {entry['encoder']} {entry['width']}x"
              f"{entry['height']}, target {target}:")
        for s in entry["shots"]:
            label = "title" if s.get("shot") is None else f"shot {s['shot']}"
            if "failed" in s:
                print(f"  {label}: failed ({s['failed']})")
                continue
            where = "" if s.get("start") is None else \
                f" frames {s['start']}-{s['start'] + s['frames'] - 1}"
            note = "" if s["reached"] else "  (target not reached)"
            print(f"  {label}{where}: {entry['knob']}={format_value(s['value'])} "
                  f"vmaf {s['vmaf']:.6f} {s['bitrate_kbps']:.1f} kbps "
                  f"({s['probes']} probes){note}")
        if "title" in entry:
            t = entry["title"]
            print(f"  whole title: vmaf {t['vmaf']:.6f} over {t['frames']} "
                  f"frames, {t['bitrate_kbps']:.1f} kbps")


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.list_encoders:
        for row in encoders.table_rows():
            print("  ".join(row))
        return 0
    if args.command is None:
        parser.print_usage(sys.stderr)
        print("vmafhip-tune: a subcommand: corpus, recommend, ladder or "
              "compare", file=sys.stderr)
        return 2
    try:
        done = analyse.run(args)
        if done is not None:
            return done
        if args.command == "corpus":
            return command_corpus(args)
        return command_recommend(args)
    except (ConfigError, pipeline.SourceError, CorpusError) as e:
        print(f"vmafhip-tune: {e}", file=sys.stderr)
        return 2
    except (Interrupted, KeyboardInterrupt):
        print("vmafhip-tune: interrupted; run the same command again to "
              "resume", file=sys.stderr)
        return 130
