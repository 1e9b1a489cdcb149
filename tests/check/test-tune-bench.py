#!/usr/bin/python3
"""scripts/tune-bench.py on the CPU, on a grid small enough for two cores:
a 160x96 title of 12 frames, 2 resolutions x 2 CRFs.  The corpus (one
pipeline per CRF, two renditions) and the file-based baseline give the
same scores and bytes in every cell, both are timed, the ladder is drawn;
with the baseline scaling by another filter the two smaller cells, and
only they, differ and the exit is 1; a missing vmafhip-score is exit 2
naming the option.

Usage: test-tune-bench.py TUNE_BENCH_PY VMAFHIP_TUNE_PY VMAFHIP_SCORE
(GST_PLUGIN_PATH naming the build's plugin).  Exit 77 (skip, said)
without x264enc, avdec_h264 or y4menc unless VMAFHIP_STRICT_TESTS=1.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

BENCH, TUNE, SCORE = sys.argv[1:4]
STRICT = os.environ.get("VMAFHIP_STRICT_TESTS") == "1"
PYTHON = "/usr/bin/python3"


def need_elements():
    for name in ("x264enc", "avdec_h264", "h264parse", "y4menc", "y4mdec"):
        if subprocess.run(["gst-inspect-1.0", "--exists", name]).returncode:
            message = f"test-tune-bench: GStreamer element {name} is not installed"
            if STRICT:
                sys.exit(message + " (strict-tests)")
            print(message + ": skipped")
            sys.exit(77)


def bench(tmp, name, *extra):
    out = os.path.join(tmp, name)
    r = subprocess.run(
        [PYTHON, BENCH, "--small", "--size", "160x96", "--seconds", "0.4",
         "--resolutions", "160x96,96x64", "--crfs", "24,36", "--decoder",
         "avdec_h264", "--backend", "cpu", "--jobs", "2", "--rungs", "2",
         "--tune", TUNE, "--score", SCORE, "--out", out,
         "--work", os.path.join(tmp, name + "-work"), *extra],
        capture_output=True, text=True, timeout=120)
    summary = None
    if os.path.exists(os.path.join(out, "summary.json")):
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
    return r, out, summary


def main():
    need_elements()
    tmp = tempfile.mkdtemp(prefix="vmafhip-tune-bench-")
    begin = time.time()

    r, out, summary = bench(tmp, "equal")
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    assert summary["cells"] == 4 and summary["frames"] == 12, summary
    assert summary["corpus"]["cells"] == 4 and summary["baseline"]["cells"] == 4
    assert summary["equal"] == 4 and summary["differ"] == [], summary
    for side in ("corpus", "baseline"):
        assert summary[side]["wall_s"] > 0 and summary[side]["cells_per_min"] > 0
    assert abs(summary["ratio"] - summary["corpus"]["cells_per_min"]
               / summary["baseline"]["cells_per_min"]) < 0.01, summary
    with open(os.path.join(out, "corpus.jsonl")) as f:
        corpus = [json.loads(line) for line in f]
    with open(os.path.join(out, "baseline.jsonl")) as f:
        baseline = {(b["value"], b["width"]): b for b in map(json.loads, f)}
    # the CRFs' two resolutions shared a pipeline; each row is the file's
    assert len(corpus) == 4 and all(row["renditions"] == 2 for row in corpus)
    for row in corpus:
        b = baseline[(row["value"], row["width"])]
        assert (row["scores"], row["bytes"], row["frames"]) == \
            (b["scores"], b["bytes"], b["frames"]), (row["cell"], b)
    assert "4 of 4 cells equal" in r.stdout, r.stdout
    with open(os.path.join(out, "ladder.txt")) as f:
        assert "rung" in f.read()
    if summary["ladder_plot"]:
        assert os.path.getsize(summary["ladder_plot"]) > 1000
    assert not os.path.exists(os.path.join(tmp, "equal-work")), \
        "the baseline's files were left behind"

    # scaled by another filter, the smaller cells differ (and only they)
    r, out, summary = bench(tmp, "bilinear", "--baseline-scaler", "bilinear")
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert summary["equal"] == 2, summary
    assert sorted((d["crf"], d["size"]) for d in summary["differ"]) == \
        [(24, "96x64"), (36, "96x64")], summary["differ"]
    assert all("vmaf: corpus" in d["what"] and "bytes" not in d["what"]
               for d in summary["differ"]), summary["differ"]
    assert "scales with bilinear" in r.stdout, r.stdout

    r = subprocess.run([PYTHON, BENCH, "--small", "--score",
                        os.path.join(tmp, "no-such-score"), "--out",
                        os.path.join(tmp, "none")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "give --score PATH" in r.stderr, r.stderr
    shutil.rmtree(tmp)
    print(f"test-tune-bench: ok ({time.time() - begin:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
