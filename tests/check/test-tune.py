#!/usr/bin/python3
"""vmafhip-tune on the CPU (issue 39): a 2-resolution x 3-CRF x264enc
corpus whose every row equals a separate vmafhip-score run of the same
(kept) encode and whose bitrate is the kept stream's size, the same rows
whether the cells share pipelines (by CRF, the default; all six) or run one
pipeline each, a failing rendition that cell's failure alone; `recommend`
picks what scanning the whole grid picks; an interrupted sweep resumes
without redoing finished cells and survives a cut-short last line; clear
errors (exit 2) for an unknown encoder, a missing plugin, a value out of
range, an unreadable source; a failed cell is recorded and the exit is 1;
the scene-cut detector and `recommend --per-shot` on two patterns joined;
queues of 2 frames grown to an encoder's 70-frame look-ahead (not the
whole title), the rows those of queues the title fits in.

Usage: test-tune.py VMAFHIP_TUNE_PY VMAFHIP_SCORE (GST_PLUGIN_PATH naming
the build's plugin).  Exit 77 (skip, said) without x264enc, avdec_h264 or
y4menc unless VMAFHIP_STRICT_TESTS=1.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TUNE, SCORE = sys.argv[1], sys.argv[2]
STRICT = os.environ.get("VMAFHIP_STRICT_TESTS") == "1"
PYTHON = "/usr/bin/python3"
FPS = 30
COMMON = ["--preset", "ultrafast", "--backend", "cpu", "--quiet", "--jobs", "2"]

sys.path.insert(0, os.path.dirname(os.path.abspath(TUNE)))


def need_elements():
    for name in ("x264enc", "avdec_h264", "h264parse", "y4menc", "y4mdec"):
        if subprocess.run(["gst-inspect-1.0", "--exists", name]).returncode:
            message = f"test-tune: GStreamer element {name} is not installed"
            if STRICT:
                sys.exit(message + " (strict-tests)")
            print(message + ": skipped")
            sys.exit(77)


def run(args, check=True, env=None, **kw):
    r = subprocess.run(args, capture_output=True, text=True, timeout=120,
                       env=env, **kw)
    if check:
        assert r.returncode == 0, f"{args}: {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


def tune(*args, check=True, env=None):
    return run([PYTHON, TUNE, *args], check=check, env=env)


def make_y4m(path, pattern, frames, size="160x96"):
    w, h = size.split("x")
    run(["gst-launch-1.0", "-q", "videotestsrc", f"num-buffers={frames}",
         f"pattern={pattern}", "!",
         f"video/x-raw,format=I420,width={w},height={h},framerate={FPS}/1",
         "!", "y4menc", "!", "filesink", f"location={path}"])


def join_y4m(parts, path):
    """Y4M files of the same size as one: the first header, every frame."""
    with open(path, "wb") as out:
        for i, part in enumerate(parts):
            data = open(part, "rb").read()
            out.write(data if i == 0 else data[data.index(b"\n") + 1:])


def to_raw(src, dst, parse=None):
    """Decode SRC (y4m, or an elementary stream with PARSE: "h264" or
    "h265") to raw I420."""
    head = ["filesrc", f"location={src}", "!"]
    head += [f"{parse}parse", "!", f"avdec_{parse}"] if parse else ["y4mdec"]
    run(["gst-launch-1.0", "-q", *head, "!", "video/x-raw,format=I420", "!",
         "filesink", f"location={dst}"])


def rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def score(ref_raw, dist_raw, width, height, log):
    args = [SCORE, "-r", ref_raw, "-d", dist_raw, "-w", "160", "-h", "96",
            "-p", "420", "-b", "8", "--backend", "cpu", "--json", "-o", log, "-q"]
    if (width, height) != (160, 96):
        args += ["--dis_width", str(width), "--dis_height", str(height),
                 "--scaler", "bicubic"]
    run(args)
    with open(log) as f:
        return {k: v["mean"] for k, v in json.load(f)["pooled_metrics"].items()}


def test_corpus_equals_score(tmp, source):
    """Every row equals vmafhip-score on the kept encode; bitrate is the
    kept stream's size."""
    corpus = os.path.join(tmp, "grid.jsonl")
    keep = os.path.join(tmp, "encodes")
    tune("corpus", "--corpus", corpus, "--source", source, "--resolution",
         "160x96", "--resolution", "96x64", "--values", "22,30,38",
         "--keep-encodes", keep, *COMMON)
    got = rows(corpus)
    assert len(got) == 6, got
    ref_raw = os.path.join(tmp, "ref.yuv")
    to_raw(source, ref_raw)
    for row in got:
        assert row["frames"] == 12 and row["fps"] == FPS, row
        assert row["source"] == source and row["model"] == "vmaf_v0.6.1", row
        assert "x264enc" in row["pipeline"] and "vmafhip" in row["pipeline"]
        assert row["versions"]["gstreamer"] and row["versions"]["x264enc"]
        stream = [os.path.join(keep, f) for f in os.listdir(keep)
                  if f"crf={row['value']}_{row['width']}x" in f]
        assert len(stream) == 1, (row["cell"], os.listdir(keep))
        assert os.path.getsize(stream[0]) == row["bytes"], row
        assert row["bitrate_kbps"] == row["bytes"] * 8 / (12 / FPS) / 1000
        dist_raw = stream[0] + ".yuv"
        to_raw(stream[0], dist_raw, parse="h264")
        expect = score(ref_raw, dist_raw, row["width"], row["height"],
                       stream[0] + ".json")
        assert row["scores"] == expect, (row["cell"], row["scores"], expect)
    by_size = {(r["width"], r["value"]): r for r in got}
    assert by_size[(96, 30)]["scores"]["vmaf"] < by_size[(160, 30)]["scores"]["vmaf"]
    test_grouping(tmp, source, got)

    # x265enc: one smaller cell the same way
    if subprocess.run(["gst-inspect-1.0", "--exists", "x265enc"]).returncode == 0:
        corpus = os.path.join(tmp, "x265.jsonl")
        keep = os.path.join(tmp, "x265")
        tune("corpus", "--corpus", corpus, "--source", source, "--encoder",
             "x265enc", "--resolution", "96x64", "--values", "32",
             "--keep-encodes", keep, *COMMON)
        row, = rows(corpus)
        stream = os.path.join(keep, os.listdir(keep)[0])
        assert stream.endswith(".h265") and os.path.getsize(stream) == row["bytes"]
        to_raw(stream, stream + ".yuv", parse="h265")
        expect = score(ref_raw, stream + ".yuv", 96, 64, stream + ".json")
        assert row["scores"] == expect, (row["scores"], expect)
    elif STRICT:
        sys.exit("test-tune: x265enc is not installed (strict-tests)")
    print("corpus: every row equals vmafhip-score on the kept encode")


SAME = ("scores", "bytes", "frames", "bitrate_kbps", "width", "height", "value")


def same_rows(a, b):
    """Rows of the same cells from two sweeps: every measured field equal."""
    a, b = ({r["cell"]: r for r in rows} for rows in (a, b))
    assert sorted(a) == sorted(b), (sorted(a), sorted(b))
    for key in a:
        for field in SAME:
            assert a[key][field] == b[key][field], (key, field, a[key][field],
                                                     b[key][field])


def test_grouping(tmp, source, grouped):
    """The default sweep (above: the two resolutions of a CRF in one
    pipeline, on dist_sink and dist_sink_0) against one pipeline per cell
    and one pipeline for all six: the same rows; a rendition whose encoder
    fails is that cell's failure alone."""
    for row in grouped:
        assert row["renditions"] == 2 and row["pipeline"].count("x264enc name=enc") == 2
        assert "v.dist_sink_0" in row["pipeline"], row["pipeline"]
    grid = ["--source", source, "--resolution", "160x96", "--resolution",
            "96x64", "--values", "22,30,38", *COMMON]
    alone = os.path.join(tmp, "alone.jsonl")
    tune("corpus", "--corpus", alone, "--one-pipeline-per-cell", *grid)
    assert all(r["renditions"] == 1 and "dist_sink_0" not in r["pipeline"]
               for r in rows(alone))
    same_rows(grouped, rows(alone))
    together = os.path.join(tmp, "together.jsonl")
    tune("corpus", "--corpus", together, "--group-values", *grid)
    assert all(r["renditions"] == 6 and "v.dist_sink_4" in r["pipeline"]
               for r in rows(together))
    same_rows(grouped, rows(together))

    # x264 refuses an odd size: that rendition fails, the others are run
    # again without it and are what they are alone
    failing = os.path.join(tmp, "odd.jsonl")
    r = tune("corpus", "--corpus", failing, "--source", source, "--resolution",
             "160x96", "--resolution", "95x63", "--resolution", "96x64",
             "--values", "30", *COMMON, check=False)
    assert r.returncode == 1 and "1 cell(s) failed" in r.stderr, r.stderr
    error, = rows(failing + ".errors")
    assert error["cell"].endswith("|95x63") and "enc1" in error["error"], error
    assert all(r["renditions"] == 2 for r in rows(failing))
    same_rows(rows(failing), [r for r in grouped if r["value"] == 30])

    # which cell a message is about
    from vmafhip_tune import pipeline
    assert pipeline.pad_in("dist_sink_1 is not scored: 80x40", 3) == 2
    assert pipeline.pad_in("dist_sink's results file ...", 3) == 0
    assert pipeline.pad_in("dist_sink_7 is not scored", 3) is None
    assert pipeline.pad_in("dist_sink and dist_sink_0 differ", 3) is None
    assert pipeline.rendition_log("/x/scores.json", 2) == \
        "/x/scores.dist_sink_1.json"
    # the element's word on a pad: a rendition left out or ended in error
    # fails its cell; a jump it handles does not
    from gi.repository import GLib, Gst
    element = Gst.ElementFactory.make("identity", "v")
    watch = pipeline.Watch(3)
    for text in ("dist_sink_1 is not scored: it is 80x40", "dist_sink_0 "
                 "jumped by +0:00:00.5 at 0:00:02.5"):
        error = GLib.Error.new_literal(Gst.stream_error_quark(), text,
                                       int(Gst.StreamError.FORMAT))
        watch(Gst.Message.new_warning(element, error, ""))
    watch(Gst.Message.new_element(element, Gst.Structure.new_from_string(
        "VMAF, type=(string)pooled, pad=(string)dist_sink_0, end=(string)error")))
    watch(Gst.Message.new_element(element, Gst.Structure.new_from_string(
        "VMAF, type=(string)pooled, pad=(string)dist_sink, end=(string)eos")))
    assert list(watch.warnings) == [2] and watch.ends == {1: "error", 0: "eos"}, \
        (watch.warnings, watch.ends)
    print("grouping: per cell, per CRF and all in one pipeline give the same "
          "rows; a failing rendition is its cell's failure")


def test_recommend_matches_grid(tmp, source):
    grid_path = os.path.join(tmp, "full.jsonl")
    values = "24:44"
    tune("corpus", "--corpus", grid_path, "--source", source,
         "--values", values, *COMMON)
    grid = {r["value"]: r for r in rows(grid_path)}
    assert sorted(grid) == list(range(24, 45)), sorted(grid)
    crfs = sorted(grid)
    vmaf = [grid[c]["scores"]["vmaf"] for c in crfs]
    for i, target in ((5, vmaf[5]), (12, vmaf[12] - 0.001), (None, 101.0)):
        best = max((c for c in crfs if grid[c]["scores"]["vmaf"] >= target),
                   default=None)
        path = os.path.join(tmp, f"rec-{i}.jsonl")
        out = tune("recommend", "--corpus", path, "--source", source,
                   "--range", values, "--target-vmaf", str(target),
                   "--json", *COMMON)
        shot = json.loads(out.stdout)[0]["shots"][0]
        if best is None:
            assert not shot["reached"] and shot["value"] == 24, shot
        else:
            assert shot["reached"] and shot["value"] == best, (target, best, shot)
            # the bisection's probes are the grid's cells, not the grid
            assert shot["probes"] <= 5 and len(rows(path)) == shot["probes"]
            assert shot["vmaf"] == grid[best]["scores"]["vmaf"]
    # a bitrate target: the best quality (lowest CRF) at or under it
    rate = grid[30]["bitrate_kbps"]
    best = min(c for c in crfs if grid[c]["bitrate_kbps"] <= rate)
    out = tune("recommend", "--corpus", os.path.join(tmp, "rate.jsonl"),
               "--source", source, "--range", values, "--target-bitrate",
               str(rate), "--json", *COMMON)
    assert json.loads(out.stdout)[0]["shots"][0]["value"] == best
    # resumed: a second run over the grid's corpus runs no cell
    out = tune("recommend", "--corpus", grid_path, "--source", source,
               "--range", values, "--target-vmaf", str(vmaf[5]), "--json",
               *COMMON)
    assert len(rows(grid_path)) == len(crfs)
    print("recommend: the grid's choice for three VMAF targets and a bitrate")


def test_resume(tmp, source):
    corpus = os.path.join(tmp, "resume.jsonl")
    grid = ["corpus", "--corpus", corpus, "--source", source, "--resolution",
            "160x96", "--resolution", "80", "--values", "26:32:2"]
    env = dict(os.environ, VMAFHIP_TUNE_TEST_KILL_AFTER="3")
    r = tune(*grid, *COMMON[:-1], "1", check=False, env=env)
    assert r.returncode == -signal.SIGKILL, (r.returncode, r.stderr)
    first = open(corpus).read().splitlines()
    assert len(first) == 3, first
    with open(corpus, "a") as f:      # a row cut short by the kill
        f.write('{"cell": "half a row')
    remaining = tune(*grid, "--dry-run").stdout.split()
    assert len(remaining) == 5 and not set(remaining) & \
        {json.loads(line)["cell"] for line in first}, remaining
    tune(*grid, *COMMON)
    lines = open(corpus).read().splitlines()
    assert lines[:3] == first, "finished rows were rewritten"
    cells = [json.loads(line)["cell"] for line in lines]
    assert len(cells) == 8 and len(set(cells)) == 8, cells
    # the kill came within a CRF's pipeline of two: its other cell ran
    # alone on resuming, the untouched CRFs two by two
    half = json.loads(first[2])
    other, = [r for r in rows(corpus)[3:] if r["value"] == half["value"]]
    assert other["renditions"] == 1 and half["renditions"] == 2, (half, other)
    assert all(r["renditions"] == 2 for r in rows(corpus)[3:]
               if r["cell"] != other["cell"])
    assert tune(*grid, "--dry-run").stdout == ""

    # Ctrl-C mid-sweep: exit 130, every written row whole, then resumed
    corpus2 = os.path.join(tmp, "sigint.jsonl")
    grid2 = ["corpus", "--corpus", corpus2, "--source", source,
             "--values", "20:43"]
    proc = subprocess.Popen([PYTHON, TUNE, *grid2, *COMMON[:-1], "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(corpus2) and len(rows(corpus2)) >= 2:
            proc.send_signal(signal.SIGINT)
            break
        time.sleep(0.01)
    proc.communicate(timeout=60)
    assert proc.returncode in (130, 0), proc.returncode
    done = len(rows(corpus2))
    tune(*grid2, *COMMON)
    cells = [r["cell"] for r in rows(corpus2)]
    assert len(cells) == 24 and len(set(cells)) == 24, cells
    print(f"resume: killed after 3 of 8, {done} of 24 at Ctrl-C "
          f"(exit {proc.returncode}); each cell once")


def test_errors(tmp, source):
    corpus = os.path.join(tmp, "err.jsonl")
    base = ["corpus", "--corpus", corpus, "--source", source]

    def fails(args, text, status=2, env=None):
        r = tune(*base, *args, check=False, env=env)
        assert r.returncode == status and text in r.stderr, (args, r.returncode, r.stderr)

    fails(["--encoder", "x999enc", "--values", "20"], "unknown encoder 'x999enc'")
    fails(["--values", "70"], "x264enc crf=70 is out of range (0..50)")
    fails(["--knob", "cq", "--values", "20"], "x264enc has no knob 'cq'")
    r = tune("corpus", "--corpus", corpus, "--source", os.path.join(tmp, "none.y4m"),
             "--values", "20", check=False)
    assert r.returncode == 2 and "no such readable file" in r.stderr, r.stderr
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(tmp, "no-plugins"))
    fails(["--values", "20"], "GStreamer element vmafhip is not installed", env=env)
    if subprocess.run(["gst-inspect-1.0", "--exists", "nvh264enc"]).returncode:
        fails(["--encoder", "nvh264enc", "--values", "20"],
              "GStreamer element nvh264enc is not installed (Debian package: "
              "gstreamer1.0-plugins-bad)")
    # a failing cell: recorded beside the corpus, the others go on, exit 1
    r = tune(*base, "--values", "30", "--resolution", "160x96",
             "--resolution", "96x64", "--model", "no_such_model", *COMMON,
             check=False)
    assert r.returncode == 1 and "2 cell(s) failed" in r.stderr, r.stderr
    errors = rows(corpus + ".errors")
    assert len(errors) == 2 and "no_such_model" in errors[0]["error"], errors
    assert "vmafhip" in errors[0]["pipeline"]
    assert not os.path.exists(corpus) or not rows(corpus)
    print("errors: exit 2 with the reason; a failed cell recorded, exit 1")


def test_shots(tmp):
    from vmafhip_tune import shots
    parts = []
    for pattern, frames in (("smpte", 9), ("ball", 7)):
        parts.append(os.path.join(tmp, f"{pattern}.y4m"))
        make_y4m(parts[-1], pattern, frames)
    joined = os.path.join(tmp, "two-shots.y4m")
    join_y4m(parts, joined)
    assert shots.detect(joined) == [(0, 9), (9, 7)], shots.detect(joined)
    # the detector's rule on made-up differences
    assert shots.cuts([0, 3, 50, 2, 60, 1, 1, 1, 45], 20, 2) == [0, 2, 4, 8]
    assert shots.cuts([0, 3, 50, 2, 60], 20, 4) == [0, 4]
    assert shots.shots([0, 2, 4], 6) == [(0, 2), (2, 2), (4, 2)]

    corpus = os.path.join(tmp, "shots.jsonl")
    args = ["recommend", "--corpus", corpus, "--source", joined,
            "--target-vmaf", "90", "--range", "20:44", "--per-shot",
            "--json", *COMMON]
    report = json.loads(tune(*args).stdout)[0]
    got = [(s["shot"], s["start"], s["frames"]) for s in report["shots"]]
    assert got == [(0, 0, 9), (1, 9, 7)], got
    # the title's pooled score: the mean of every frame of the chosen encodes
    scores = []
    for s in report["shots"]:
        row = next(r for r in rows(corpus) if r["cell"] == s["cell"])
        assert row["shot_start"] == s["start"] and row["shot_frames"] == s["frames"]
        with open(row["log"]) as f:
            scores += [fr["metrics"]["vmaf"] for fr in json.load(f)["frames"]]
    assert len(scores) == 16 and report["title"]["frames"] == 16
    assert report["title"]["vmaf"] == sum(scores) / 16, report["title"]
    text = tune(*args[:-len(COMMON) - 1], *COMMON).stdout
    assert "shot 0 frames 0-8" in text and "shot 1 frames 9-15" in text, text
    assert "whole title" in text, text
    print(f"shots: cut at frame 9; per-shot {report['knob']} "
          f"{[s['value'] for s in report['shots']]}")


def test_bounded_queues(tmp):
    """The queues hold a bounded number of frames, grown to the encoder's
    delay: an encoder that returns its first frame only after 70 more
    (x264's look-ahead) behind queues of 2 frames deadlocks unless the
    reference queue grows; it grows to 128, not the title's 240 frames,
    and the rows equal those of queues the title fits in."""
    source = os.path.join(tmp, "long.y4m")
    make_y4m(source, "ball", 240)
    slow = ["--source", source, "--resolution", "160x96", "--resolution",
            "80x48", "--values", "30", "--set", "rc-lookahead=70",
            "--preset", "medium", "--backend", "cpu", "--quiet"]
    found = {}
    for frames in (2, 512):
        corpus = os.path.join(tmp, f"queues{frames}.jsonl")
        tune("corpus", "--corpus", corpus, "--queue-frames", str(frames),
             *slow)
        found[frames] = rows(corpus)
    small, big = found[2], found[512]
    assert len(small) == 2 and all(r["frames"] == 240 for r in small), small
    for r in small:
        assert 70 < r["queue_frames"] < 240, r["queue_frames"]
        assert "max-size-buffers=2 " in r["pipeline"], r["pipeline"]
    assert all(r["queue_frames"] == 512 for r in big)
    for a, b in zip(small, big):
        assert (a["width"], a["scores"], a["bytes"]) == \
            (b["width"], b["scores"], b["bytes"]), (a, b)
    r = tune("corpus", "--corpus", os.path.join(tmp, "q0.jsonl"),
             "--queue-frames", "0", *slow, check=False)
    assert r.returncode == 2 and "--queue-frames" in r.stderr and \
        "1 to 8192" in r.stderr, r.stderr
    print(f"queues: from 2 frames grown to {small[0]['queue_frames']} for "
          "a 70-frame look-ahead, rows equal to 512-frame queues")


def main():
    need_elements()
    tmp = tempfile.mkdtemp(prefix="vmafhip-tune-")
    source = os.path.join(tmp, "ball.y4m")
    make_y4m(source, "ball", 12)
    begin = time.time()
    test_corpus_equals_score(tmp, source)
    test_recommend_matches_grid(tmp, source)
    test_resume(tmp, source)
    test_errors(tmp, source)
    test_shots(tmp)
    test_bounded_queues(tmp)
    shutil.rmtree(tmp)
    print(f"test-tune: ok ({time.time() - begin:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
