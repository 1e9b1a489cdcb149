#!/usr/bin/env python3
"""vmafhip-plot: per-frame VMAF with the windowed mean, alarms and intervals.

Reads a live run's messages (the JSON lines of vmafhip-monitor.py --jsonl)
or a results file (results-filename=..., libvmaf's JSON format) and draws
the first model's per-frame score over time, the rolling window's mean,
the alarm threshold, the spans of raised alarms and the interval bounds
with each interval's mean.  From a results file (no messages), the
windowed mean is computed here from the frames (--window, --fps), the
intervals are the file's own (the element's `interval`) or computed with
--interval; the alarms are not.

  vmafhip-plot.py run.jsonl -o run.svg
  vmafhip-plot.py vmaf.json --fps 25 --window 2 --interval 4 -o vmaf.png

The output format follows the file name (.svg, .png, .pdf).  Needs
matplotlib (Debian: python3-matplotlib).
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

NS = 1e9


def read_messages(path):
    """Frames (t, score), windows, intervals, alarms and settings from a
    vmafhip-monitor JSON-lines file."""
    run = {"frames": [], "windows": [], "intervals": [], "alarms": [],
           "settings": {}, "model": None}
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            kind = d.get("type") if d.get("name") == "VMAF" else d.get("name")
            if kind == "vmafhip-monitor":
                run["settings"] = d
            elif kind == "frame":
                t = (d["running-time"] + d.get("duration", 0) / 2) / NS
                run["frames"].append((t, d["score"]))
            elif kind == "window":
                run["windows"].append(((d["running-time"] + d["duration"])
                                       / NS, d["score"]))
                run["model"] = run["model"] or next(
                    (k[:-5] for k in d if k.endswith("-mean")), None)
            elif kind == "interval":
                run["intervals"].append((d["running-time"] / NS,
                                         (d["running-time"] + d["duration"])
                                         / NS, d["score"]))
            elif kind == "vmafhip-alarm":
                run["alarms"].append(d)
                run["model"] = d.get("model", run["model"])
    return run


def read_results(doc, path, fps, window, interval):
    """The same from a results file (parsed: doc): the first model's
    per-frame scores; windows computed from them; the element's intervals
    as written in the file, or computed with --interval."""
    frames = doc.get("frames", [])
    if not frames:
        sys.exit(f"vmafhip-plot: {path} has no frames")
    names = list(frames[0]["metrics"])
    model = next((n for n in names if n.startswith("vmaf")), names[0])
    run = {"frames": [], "windows": [], "intervals": [], "alarms": [],
           "settings": {}, "model": model}
    for fr in frames:
        if model in fr["metrics"]:
            run["frames"].append(((fr["frameNum"] + 0.5) / fps,
                                  fr["metrics"][model]))
    scores = [s for _, s in run["frames"]]
    if window > 0:
        n = max(1, int(round(window * fps)))
        for i in range(n - 1, len(scores)):
            run["windows"].append(((i + 1) / fps,
                                   sum(scores[i - n + 1:i + 1]) / n))
    if interval <= 0:
        for iv in doc.get("intervals", []):
            if model in iv["metrics"]:
                run["intervals"].append((iv["start"], iv["end"],
                                         iv["metrics"][model]["mean"]))
    else:
        n = max(1, int(round(interval * fps)))
        for k in range(0, len(scores), n):
            part = scores[k:k + n]
            run["intervals"].append((k / fps, (k + len(part)) / fps,
                                     sum(part) / len(part)))
    return run


def plot(run, out, title):
    fig, ax = plt.subplots(figsize=(10, 4.2))
    if run["frames"]:
        t, s = zip(*run["frames"])
        ax.plot(t, s, lw=0.8, color="0.55", label="per frame")
    if run["windows"]:
        t, s = zip(*run["windows"])
        ax.plot(t, s, lw=2, color="tab:blue", label="windowed mean")
    threshold = run["settings"].get("alarm-threshold", -1)
    if threshold is not None and threshold >= 0:
        ax.axhline(threshold, color="tab:red", ls=":", lw=1,
                   label=f"alarm threshold {threshold:g}")
    raised = None
    for a in run["alarms"]:
        if a["state"] == "raised":
            raised = a["running-time"] / NS
        elif raised is not None:
            end = (a["running-time"] + a["duration"]) / NS
            ax.axvspan(raised, end, color="tab:red", alpha=0.15, lw=0,
                       label="alarm")
            raised = None
    if raised is not None:
        end = run["frames"][-1][0] if run["frames"] else raised
        ax.axvspan(raised, end, color="tab:red", alpha=0.15, lw=0,
                   label="alarm")
    for k, (start, end, mean) in enumerate(run["intervals"]):
        ax.axvline(start, color="0.3", ls="--", lw=0.7,
                   label="intervals" if k == 0 else None)
        ax.text((start + end) / 2, 2, f"{mean:.1f}", ha="center",
                va="bottom", fontsize=8, color="0.3")
    ax.set_ylim(0, 102)
    ax.set_xlabel("running time (s)")
    ax.set_ylabel(run["model"] or "VMAF")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    seen = {}
    for h, lab in zip(handles, labels):
        seen.setdefault(lab, h)
    ax.legend(seen.values(), seen.keys(), loc="center left", fontsize=8)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("input", help="vmafhip-monitor JSON lines, or a results "
                   "file (JSON)")
    p.add_argument("-o", "--output", required=True,
                   help="the picture: .svg, .png or .pdf")
    p.add_argument("--fps", type=float, default=25.0,
                   help="results file: its frame rate (default 25)")
    p.add_argument("--window", type=float, default=0,
                   help="results file: window in seconds to average")
    p.add_argument("--interval", type=float, default=0,
                   help="results file: interval in seconds to pool")
    p.add_argument("--title", default="vmafhip")
    args = p.parse_args(argv)
    # a results file is one JSON document; the probe's output, one per line
    with open(args.input) as f:
        text = f.read()
    if not text.strip():
        sys.exit(f"vmafhip-plot: {args.input} is empty")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        doc = None
    if isinstance(doc, dict) and "frames" in doc:
        run = read_results(doc, args.input, args.fps, args.window,
                           args.interval)
    else:
        run = read_messages(args.input)
    if not run["frames"] and not run["windows"]:
        sys.exit(f"vmafhip-plot: no scores in {args.input}")
    plot(run, args.output, args.title)
    print(f"vmafhip-plot: {len(run['frames'])} frames, "
          f"{len(run['windows'])} windows, {len(run['intervals'])} "
          f"intervals, {len(run['alarms'])} alarm messages -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
