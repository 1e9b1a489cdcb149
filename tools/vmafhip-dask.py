#!/usr/bin/python3
"""vmafhip-dask: score a catalogue of reference/distorted pairs with
vmafhip-score on a Dask distributed cluster (docs/scale.md).

Each pair is one vmafhip-score task, or, for a long title, one
`--chunk I/N` task per chunk and a `--merge` task that depends on them.
Every log is written as a single-machine run writes it; a summary CSV
holds every pair's pooled means.
"""

import argparse
import csv
import json
import logging
import math
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import uuid
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field

LOG_FORMATS = ("json", "xml", "csv", "sub")
BACKENDS = ("auto", "cpu", "hip")
PIXEL_FORMATS = ("420", "422", "444")
BITDEPTHS = ("8", "10", "12")
INTEGER_FIELDS = ("width", "height", "threads", "frame_cnt", "chunks")
CATALOGUE_FIELDS = ("reference", "distorted", "output", "format", "model",
                    "width", "height", "pixel_format", "bitdepth", "backend",
                    "threads", "frame_cnt", "chunks", "extra")
# vmafhip-score's -o argument in a command; each task puts its own
# temporary file there, renamed to the real one when the run succeeds
OUTPUT_SLOT = "\0output\0"


class CatalogueError(Exception):
    pass


@dataclass
class Pair:
    line: int
    reference: str
    distorted: str
    output: str
    log_format: str
    options: list          # vmafhip-score options, the same for every chunk
    frames: int            # the title's frames as counted here; None: unknown
    chunks: int = 1
    requested_chunks: int = None
    part_paths: list = field(default_factory=list)


# ---------------------------------------------------------------------------
# Tasks: they run on the workers (pickled by value with this script)

def run_vmafhip_score(command, output):
    """Runs one vmafhip-score command writing `output` (the OUTPUT_SLOT in
    the command), through a temporary file renamed on success: a run killed
    with its worker, or still running orphaned while its retry runs, never
    leaves a half-written file under the real name."""
    temporary = f"{output}.{uuid.uuid4().hex}.tmp"
    argv = [temporary if a == OUTPUT_SLOT else a for a in command]
    try:
        run = subprocess.run(argv, capture_output=True, text=True)
    except OSError as e:
        raise RuntimeError(f"on {socket.gethostname()}: cannot run "
                           f"{argv[0]!r}: {e}") from None
    if run.returncode != 0:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise RuntimeError(
            f"on {socket.gethostname()}: {shlex.join(argv)} exited "
            f"{run.returncode}: {run.stderr.strip()}")
    os.replace(temporary, output)
    return {"output": output, "stdout": run.stdout,
            "host": socket.gethostname()}


def merge_parts(command, chunk_results, output):
    """Joins the chunks' part files (the chunk tasks' results, in chunk
    order) into the log.  The parts stay until the client has the result
    (remove_parts): a merge retried after its worker died finds them."""
    parts = [r["output"] for r in chunk_results]
    result = run_vmafhip_score(
        command[:2] + parts + command[2:], output)
    result["parts"] = parts
    return result


def remove_parts(result):
    for part in result.get("parts", ()):
        if os.path.exists(part):
            os.unlink(part)


# ---------------------------------------------------------------------------
# The catalogue

def read_catalogue(path):
    """Rows of the catalogue as (line number, {field: value}); CSV with a
    header, or JSON lines (one object a line)."""
    try:
        with open(path, newline="") as f:
            text = f.read()
    except OSError as e:
        raise CatalogueError(f"{path}: {e.strerror}") from None
    first = text.lstrip()[:1]
    if path.endswith((".jsonl", ".json", ".ndjson")) or first == "{":
        return read_json_lines(path, text)
    return read_csv(path, text)


def read_json_lines(path, text):
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise CatalogueError(f"{path}:{number}: not JSON: {e.msg} "
                                 f"(column {e.colno})") from None
        if not isinstance(row, dict):
            raise CatalogueError(f"{path}:{number}: a JSON object "
                                 "{\"reference\": ..., \"distorted\": ...} "
                                 "is wanted")
        for key, value in row.items():
            if isinstance(value, list):
                if key not in ("model", "extra") or not all(
                        isinstance(v, str) for v in value):
                    raise CatalogueError(
                        f"{path}:{number}: field '{key}': a list is taken "
                        "for 'model' and 'extra' only, of strings")
            elif isinstance(value, bool) or not isinstance(
                    value, (str, int)) and value is not None:
                raise CatalogueError(f"{path}:{number}: field '{key}': a "
                                     "string or an integer is wanted")
        rows.append((number, row))
    return rows


def read_csv(path, text):
    reader = csv.DictReader(text.splitlines())
    if not reader.fieldnames:
        raise CatalogueError(
            f"{path}: empty; a header line naming the fields is wanted: "
            f"{', '.join(CATALOGUE_FIELDS)}")
    rows = []
    for row in reader:
        if None in row:
            raise CatalogueError(f"{path}:{reader.line_num}: more cells "
                                 "than the header has fields")
        row = {k: v for k, v in row.items() if v not in (None, "")}
        if row:
            rows.append((reader.line_num, row))
    return rows


def as_arguments(value):
    """A 'model' or 'extra' field as a list: a JSON list as it is, a string
    split as a shell would (quote a path with spaces)."""
    return list(value) if isinstance(value, list) else shlex.split(value)


def y4m_frame_count(path):
    """Frames of a y4m file, walking its FRAME lines (they may carry
    parameters); None if the header is not one this reads."""
    with open(path, "rb") as f:
        header = f.readline()
        if not header.startswith(b"YUV4MPEG2 ") or not header.endswith(b"\n"):
            return None
        tags = {t[:1]: t[1:] for t in header.split()[1:]}
        width, height = int(tags[b"W"]), int(tags[b"H"])
        colour = tags.get(b"C", b"420").decode()
        sample = 2 if re.search(r"p(9|1[0-6])$", colour) else 1
        cw, ch = (width + 1) // 2, (height + 1) // 2
        if colour.startswith("mono"):
            chroma = 0
        elif colour.startswith("444"):
            chroma = 2 * width * height
        elif colour.startswith("422"):
            chroma = 2 * cw * height
        else:
            chroma = 2 * cw * ch
        frame_bytes = (width * height + chroma) * sample
        size = os.fstat(f.fileno()).st_size
        frames = 0
        while f.tell() < size:
            if not f.readline(1024).startswith(b"FRAME"):
                break
            f.seek(frame_bytes, os.SEEK_CUR)
            if f.tell() > size:
                break
            frames += 1
        return frames


def raw_frame_count(path, row):
    """Frames of a raw file of the catalogue's geometry; None where the
    catalogue does not give it all (vmafhip-score then says what lacks)."""
    if not all(k in row for k in ("width", "height", "pixel_format",
                                  "bitdepth")):
        return None
    width, height = int(row["width"]), int(row["height"])
    pixel_format = str(row["pixel_format"])
    sample = 1 if str(row["bitdepth"]) == "8" else 2
    cw = (width + 1) // 2
    chroma = {"420": 2 * cw * ((height + 1) // 2), "422": 2 * cw * height,
              "444": 2 * width * height}[pixel_format]
    return os.path.getsize(path) // ((width * height + chroma) * sample)


def frame_count(path, row):
    """The input's frames; None where this cannot tell (vmafhip-score
    reads the input and says what is wrong with it)."""
    try:
        with open(path, "rb") as f:
            is_y4m = f.read(10) == b"YUV4MPEG2 "
        if is_y4m:
            return y4m_frame_count(path)
        return raw_frame_count(path, row)
    except (OSError, ValueError, KeyError):
        return None


def make_pair(number, row, where, args, base_dir):
    unknown = [k for k in row if k not in CATALOGUE_FIELDS]
    if unknown:
        raise CatalogueError(f"{where}: unknown field '{unknown[0]}'; the "
                             f"fields are {', '.join(CATALOGUE_FIELDS)}")
    for name in ("reference", "distorted"):
        if not row.get(name):
            raise CatalogueError(f"{where}: field '{name}' is missing")
    for name in INTEGER_FIELDS:
        if name in row:
            value = str(row[name])
            if not value.isdigit() or int(value) < 1:
                raise CatalogueError(f"{where}: field '{name}': '{value}' "
                                     "is not a positive integer")
    for name, allowed in (("pixel_format", PIXEL_FORMATS),
                          ("bitdepth", BITDEPTHS), ("backend", BACKENDS),
                          ("format", LOG_FORMATS)):
        if name in row and str(row[name]) not in allowed:
            raise CatalogueError(f"{where}: field '{name}': '{row[name]}' "
                                 f"is not one of {', '.join(allowed)}")

    paths = {}
    for name in ("reference", "distorted"):
        paths[name] = os.path.abspath(os.path.join(base_dir, row[name]))
        if not os.path.isfile(paths[name]):
            raise CatalogueError(f"{where}: field '{name}': "
                                 f"'{paths[name]}' does not exist")

    output = row.get("output")
    log_format = row.get("format")
    if log_format is None:
        extension = os.path.splitext(output or "")[1].lstrip(".").lower()
        log_format = extension if extension in LOG_FORMATS else args.log_format
    if output:
        output = os.path.abspath(os.path.join(base_dir, output))
    else:
        stem = os.path.splitext(os.path.basename(paths["distorted"]))[0]
        output = os.path.join(args.output_dir, f"{stem}.{log_format}")

    options = []
    for model in as_arguments(row.get("model", "")):
        options += ["-m", model]
    for name, flag in (("width", "-w"), ("height", "-h"),
                       ("pixel_format", "-p"), ("bitdepth", "-b"),
                       ("backend", "--backend"), ("threads", "--threads"),
                       ("frame_cnt", "--frame_cnt")):
        if name in row:
            options += [flag, str(row[name])]
    options += as_arguments(row.get("extra", ""))

    frames = None
    counts = [frame_count(paths[n], row) for n in ("reference", "distorted")]
    if None not in counts:
        frames = min(counts)
        if "frame_cnt" in row:
            frames = min(frames, int(row["frame_cnt"]))
    requested = int(row["chunks"]) if "chunks" in row else None
    return Pair(number, paths["reference"], paths["distorted"], output,
                log_format, options, frames, requested_chunks=requested)


def load_pairs(args):
    base_dir = os.path.dirname(os.path.abspath(args.catalogue))
    pairs, outputs = [], {}
    for number, row in read_catalogue(args.catalogue):
        where = f"{args.catalogue}:{number}"
        pair = make_pair(number, row, where, args, base_dir)
        if pair.output in outputs:
            raise CatalogueError(
                f"{where}: log '{pair.output}' is line "
                f"{outputs[pair.output]}'s too; give each pair its own "
                "'output'")
        outputs[pair.output] = number
        pair.chunks = chunk_count(pair, args.chunk_frames)
        pairs.append(pair)
    if not pairs:
        raise CatalogueError(f"{args.catalogue}: no pairs")
    return pairs


def chunk_count(pair, chunk_frames):
    """The catalogue's 'chunks', else one chunk per --chunk-frames frames of
    the title (vmafhip-score splits the frames itself); never more chunks
    than frames."""
    if pair.requested_chunks is not None:
        return pair.requested_chunks
    if not chunk_frames or pair.frames is None:
        return 1
    return max(1, min(pair.frames, math.ceil(pair.frames / chunk_frames)))


# ---------------------------------------------------------------------------
# Submission and results

def submit_pairs(client, pairs, score_bin, work_dir, retries):
    """One future per pair: the whole run, or the merge that depends on its
    chunks' futures. Returns (pair futures, every future)."""
    finals, every = [], []
    for pair in pairs:
        tag = f"{pair.line}-{uuid.uuid4().hex[:8]}"
        base = [score_bin, "-r", pair.reference, "-d", pair.distorted,
                *pair.options, "-q"]
        if pair.chunks == 1:
            command = base + [f"--{pair.log_format}", "-o", OUTPUT_SLOT]
            final = client.submit(run_vmafhip_score, command, pair.output,
                                  key=f"score-{tag}", retries=retries,
                                  pure=False)
        else:
            name = os.path.basename(pair.output)
            chunk_futures = []
            for i in range(1, pair.chunks + 1):
                part = os.path.join(
                    work_dir, f"{name}.{tag}.{i}of{pair.chunks}.part")
                command = base + ["--chunk", f"{i}/{pair.chunks}", "-o",
                                  OUTPUT_SLOT]
                chunk_futures.append(client.submit(
                    run_vmafhip_score, command, part,
                    key=f"chunk-{i}of{pair.chunks}-{tag}", retries=retries,
                    pure=False))
            command = [score_bin, "--merge", f"--{pair.log_format}", "-o",
                       OUTPUT_SLOT, "-q"]
            final = client.submit(merge_parts, command, chunk_futures,
                                  pair.output, key=f"merge-{tag}",
                                  retries=retries, pure=False)
            every += chunk_futures
        finals.append(final)
        every.append(final)
    return finals, every


def pooled_means(log_path, log_format, stdout):
    """{metric: mean} as the log prints it (JSON, XML pooled_metrics);
    CSV and subtitle logs have none, so the run's printed pooled lines."""
    if log_format == "json":
        with open(log_path) as f:
            log = json.load(f, parse_float=str, parse_constant=str)
        return {k: v["mean"] for k, v in log.get("pooled_metrics", {}).items()}
    if log_format == "xml":
        root = ElementTree.parse(log_path).getroot()
        return {m.get("name"): m.get("mean")
                for m in root.iterfind("pooled_metrics/metric")}
    return dict(re.findall(r"^\s+(\S+): mean (\S+) ", stdout, re.M))


def write_summary(path, pairs, outcomes):
    metrics = []
    for outcome in outcomes:
        for name in outcome.get("means", {}):
            if name not in metrics:
                metrics.append(name)
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["line", "reference", "distorted", "log", "chunks",
                         "status", *metrics, "error"])
        for pair, outcome in zip(pairs, outcomes):
            means = outcome.get("means", {})
            writer.writerow([pair.line, pair.reference, pair.distorted,
                             pair.output, pair.chunks,
                             "failed" if "error" in outcome else "ok",
                             *[means.get(m, "") for m in metrics],
                             outcome.get("error", "")])


def find_score_bin(given):
    """--vmafhip-score as given (made absolute), else the name, found on
    each worker's PATH, else the one beside this script."""
    if given:
        return os.path.abspath(given) if os.sep in given else given
    if shutil.which("vmafhip-score"):
        return "vmafhip-score"
    beside = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "vmafhip-score")
    if os.access(beside, os.X_OK):
        return beside
    raise CatalogueError("vmafhip-score is not on PATH nor beside this "
                         "script: give --vmafhip-score PATH")


def parse_arguments(argv):
    p = argparse.ArgumentParser(
        prog="vmafhip-dask",
        description="Score a catalogue of reference/distorted pairs with "
        "vmafhip-score on a Dask cluster: one libvmaf log per pair, as a "
        "single run writes it, and a summary CSV of the pooled scores.")
    p.add_argument("catalogue", help="CSV with a header, or JSON lines; "
                   f"fields: {', '.join(CATALOGUE_FIELDS)}")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="a running cluster's scheduler (tcp://host:8786); "
                   "default: a LocalCluster on this machine")
    p.add_argument("--workers", type=int, metavar="N",
                   help="LocalCluster worker processes, one task each "
                   "(default: the CPUs)")
    p.add_argument("--output-dir", default=".", metavar="DIR",
                   help="where logs without an 'output' field go, named "
                   "after the distorted file (default: .)")
    p.add_argument("--work-dir", metavar="DIR",
                   help="the chunks' part files; on a cluster, a shared "
                   "filesystem every worker sees at the same path "
                   "(default: OUTPUT_DIR/vmafhip-dask-parts)")
    p.add_argument("--summary", metavar="FILE",
                   help="the summary CSV (default: OUTPUT_DIR/summary.csv)")
    p.add_argument("--log-format", choices=LOG_FORMATS, default="json",
                   help="a pair's log format when neither its 'format' nor "
                   "its 'output' extension says (default: json)")
    p.add_argument("--chunk-frames", type=int, metavar="K",
                   help="split titles into chunks of about K frames (a "
                   "pair's 'chunks' field overrides)")
    p.add_argument("--retries", type=int, default=2, metavar="N",
                   help="run a failed task again up to N times (default: 2)")
    p.add_argument("--vmafhip-score", metavar="PATH",
                   help="the vmafhip-score the workers run (default: the "
                   "one on PATH, else beside this script)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar")
    args = p.parse_args(argv)
    if args.chunk_frames is not None and args.chunk_frames < 1:
        p.error("--chunk-frames: a positive number of frames is wanted")
    if args.workers is not None and args.workers < 1:
        p.error("--workers: a positive number is wanted")
    if args.retries < 0:
        p.error("--retries: 0 or more")
    args.output_dir = os.path.abspath(args.output_dir)
    args.work_dir = os.path.abspath(
        args.work_dir or os.path.join(args.output_dir, "vmafhip-dask-parts"))
    args.summary = os.path.abspath(
        args.summary or os.path.join(args.output_dir, "summary.csv"))
    return args


def main(argv):
    args = parse_arguments(argv)
    try:
        score_bin = find_score_bin(args.vmafhip_score)
        pairs = load_pairs(args)
    except CatalogueError as e:
        print(f"vmafhip-dask: {e}", file=sys.stderr)
        return 2
    for directory in {os.path.dirname(p.output) for p in pairs} | {
            args.work_dir, os.path.dirname(args.summary)}:
        os.makedirs(directory, exist_ok=True)

    # imported here so that a catalogue is checked without Dask
    from distributed import Client, LocalCluster, progress, wait

    if args.scheduler:
        cluster = None
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers or os.cpu_count(),
                               threads_per_worker=1, processes=True,
                               dashboard_address=None,
                               # failures are reported below, once a pair's
                               # retries are spent
                               silence_logs=logging.ERROR)
        client = Client(cluster)
    try:
        finals, every = submit_pairs(client, pairs, score_bin, args.work_dir,
                                     args.retries)
        if not args.quiet:
            progress(every)
            print()
        wait(finals)
        outcomes = []
        for pair, future in zip(pairs, finals):
            if future.status == "finished":
                result = future.result()
                remove_parts(result)
                outcomes.append({"means": pooled_means(
                    pair.output, pair.log_format, result["stdout"])})
            else:
                error = future.exception()
                message = f"{type(error).__name__}: {error}"
                outcomes.append({"error": message})
                print(f"vmafhip-dask: {args.catalogue}:{pair.line}: "
                      f"'{pair.distorted}' failed after {args.retries} "
                      f"retries: {message}", file=sys.stderr)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

    write_summary(args.summary, pairs, outcomes)
    failed = sum("error" in o for o in outcomes)
    print(f"vmafhip-dask: {len(pairs) - failed} of {len(pairs)} pairs "
          f"scored; summary in '{args.summary}'",
          file=sys.stderr if failed else sys.stdout)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
