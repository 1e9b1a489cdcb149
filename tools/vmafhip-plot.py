#!/usr/bin/env python3
"""vmafhip-plot: per-frame VMAF with the windowed mean, alarms and intervals.

Reads a live run's messages (the JSON lines of vmafhip-monitor.py --jsonl)
or a results file (results-filename=..., libvmaf's JSON format) and draws
the first model's per-frame score over time, the rolling window's mean,
the alarm threshold, the spans of raised alarms and the interval bounds
with each interval's mean.  From a results file (no messages), the
windowed mean is computed here from the frames (--window), the intervals
are the file's own (the element's `interval`) or computed with
--interval; the alarms are not.  The time axis comes from the file: the
element writes each frame's `time`; a file without it (vmafhip-score's,
libvmaf's) needs its frame rate given (--fps), and is refused without.

  vmafhip-plot.py run.jsonl -o run.svg
  vmafhip-plot.py element.json --window 2 --interval 4 -o vmaf.png
  vmafhip-plot.py cli.json --fps 30 --window 2 -o vmaf.png

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


def frame_times(frames, path, fps):
    """Each frame's start and duration in seconds: the file's `time` (the
    element's), else frameNum / fps (refused without --fps)."""
    if all("time" in fr for fr in frames):
        starts = [float(fr["time"]) for fr in frames]
        steps = sorted(b - a for a, b in zip(starts, starts[1:]) if b > a)
        duration = steps[len(steps) // 2] if steps else (
            1.0 / fps if fps else 0.04)
        if fps and steps and abs(duration * fps - 1) > 0.01:
            print(f"vmafhip-plot: {path}: its frames are {1 / duration:.3f} "
                  f"fps apart, not {fps:g} (--fps): the file's times are "
                  "used", file=sys.stderr)
        return starts, duration
    if not fps:
        sys.exit(f"vmafhip-plot: {path} has no per-frame times (a file of "
                 "vmafhip-score or libvmaf): give its frame rate with --fps")
    return [fr["frameNum"] / fps for fr in frames], 1.0 / fps


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
    starts, duration = frame_times(frames, path, fps)
    scored = [(t, fr["metrics"][model]) for t, fr in zip(starts, frames)
              if model in fr["metrics"]]
    run["frames"] = [(t + duration / 2, s) for t, s in scored]
    if window > 0:
        # the frames that start within the window ending with each frame's
        # end, once a whole window has gone by
        first = scored[0][0] if scored else 0
        lo = 0
        for i, (t, _) in enumerate(scored):
            end = t + duration
            while scored[lo][0] < end - window - 1e-9:
                lo += 1
            if end - first >= window - 1e-9:
                part = [s for _, s in scored[lo:i + 1]]
                run["windows"].append((end, sum(part) / len(part)))
    if interval <= 0:
        for iv in doc.get("intervals", []):
            if model in iv["metrics"]:
                run["intervals"].append((iv["start"], iv["end"],
                                         iv["metrics"][model]["mean"]))
    elif scored:
        first = scored[0][0]
        bins = {}
        for t, s in scored:
            bins.setdefault(int((t - first + 1e-9) // interval), []).append(s)
        for k in sorted(bins):
            part = bins[k]
            run["intervals"].append((first + k * interval,
                                     first + (k + 1) * interval,
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
    p.add_argument("--fps", type=float, default=None,
                   help="results file without per-frame times "
                   "(vmafhip-score's, libvmaf's): its frame rate")
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
