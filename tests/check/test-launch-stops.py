#!/usr/bin/env python3
"""vmafhip stopped as gst-launch-1.0 users stop it (issue 33).

Each case runs gst-launch-1.0 as a program, as a user would, and checks
the results file and the exit status:
  - Ctrl-C (SIGINT) without -e on a live pipeline: the file parses, with
    its frames and a pooled section;
  - an upstream error on the distorted branch (identity error-after=50):
    the run fails, and the file parses with every frame paired before it;
  - the results file on a full disk (/dev/full): the run exits non-zero;
    with write-failure=warn it goes on and exits 0;
  - a resolution change on dist_sink (a concat of a 320x180 and a 160x90
    segment): all 120 frames scored, two segments, exit 0;
  - a ladder (dist_sink and a dist_sink_0 rung) stopped with SIGINT
    without -e: both pads' files parse with their pooled sections;
  - an upstream error on a rung's branch: the run fails, and both pads'
    files parse with the frames paired before it;
  - SIGKILL: the streamed file is cut; vmafhip-score --repair finishes it
    with every complete frame and a pooled section.

Usage: test-launch-stops.py VMAFHIP_SCORE (GST_PLUGIN_PATH names the built
plugin)
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

LAUNCH = shutil.which("gst-launch-1.0")
SIZE = "video/x-raw,format=I420,width=160,height=90,framerate=25/1"


def pipeline(src, dist_extra, props):
    """ref and dist from one source (dist through dist_extra)."""
    return (f"{src} ! {SIZE} ! tee name=t "
            f"t. ! queue ! v.ref_sink "
            f"t. ! queue ! {dist_extra} videobalance saturation=0.5 ! v.dist_sink "
            f"vmafhip name=v backend=cpu threads=1 {props} ! fakesink")


def ladder(src, rung_extra, path):
    """ref, dist and a dist_sink_0 rung (80x45, through rung_extra) from one
    source."""
    return (f"{src} ! {SIZE} ! tee name=t "
            "t. ! queue ! v.ref_sink "
            "t. ! queue ! videobalance saturation=0.5 ! v.dist_sink "
            f"t. ! queue ! {rung_extra} videoscale ! "
            "video/x-raw,width=80,height=45 ! v.dist_sink_0 "
            f"vmafhip name=v backend=cpu threads=1 results-filename={path} "
            "! fakesink")


def run(args, **kw):
    return subprocess.run([LAUNCH] + args, capture_output=True, text=True,
                          timeout=120, **kw)


def load_results(path):
    with open(path) as f:
        data = json.load(f)
    frames = data["frames"]
    pooled = data["pooled_metrics"]
    assert frames, f"{path}: no frame"
    assert pooled and all("mean" in v for v in pooled.values()), \
        f"{path}: no pooled section"
    nums = [fr["frameNum"] for fr in frames]
    assert nums == list(range(len(nums))), f"{path}: frames {nums}"
    return frames, pooled


def start_live(desc, path):
    """gst-launch-1.0 on desc, once the streamed file holds some frames."""
    proc = subprocess.Popen([LAUNCH] + desc.split(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if os.path.exists(path) and os.path.getsize(path) > 20000:
            break
        time.sleep(0.1)
    return proc


def check_sigint(tmp):
    path = os.path.join(tmp, "sigint.json")
    desc = pipeline("videotestsrc is-live=true pattern=ball", "",
                    f"results-filename={path}")
    proc = start_live(desc, path)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    frames, pooled = load_results(path)
    print(f"SIGINT without -e: rc {proc.returncode}, {len(frames)} frames, "
          f"pooled {sorted(pooled)}")


def check_ladder_sigint(tmp):
    path = os.path.join(tmp, "ladder.json")
    rung = os.path.join(tmp, "ladder.dist_sink_0.json")
    desc = ladder("videotestsrc is-live=true pattern=ball", "", path)
    proc = start_live(desc, path)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    frames, _ = load_results(path)
    rung_frames, _ = load_results(rung)
    print(f"ladder, SIGINT without -e: {len(frames)} and {len(rung_frames)} "
          "frames, both files finished")


def check_ladder_upstream_error(tmp):
    path = os.path.join(tmp, "ladder-error.json")
    rung = os.path.join(tmp, "ladder-error.dist_sink_0.json")
    desc = ladder("videotestsrc num-buffers=120 pattern=ball",
                  "identity error-after=50 !", path)
    r = run(desc.split())
    assert r.returncode != 0, "an upstream error must fail the run"
    frames, _ = load_results(path)
    rung_frames, _ = load_results(rung)
    assert 40 <= len(rung_frames) <= 49, \
        f"{len(rung_frames)} rung frames after the error"
    print(f"ladder, upstream error on the rung: rc {r.returncode}, "
          f"{len(frames)} and {len(rung_frames)} frames, both files finished")


def check_sigkill_repair(tmp, score):
    path = os.path.join(tmp, "killed.json")
    desc = pipeline("videotestsrc is-live=true pattern=ball", "",
                    f"results-filename={path}")
    proc = start_live(desc, path)
    proc.kill()
    proc.communicate(timeout=60)
    try:
        load_results(path)
        raise AssertionError("a file finished after SIGKILL?")
    except ValueError:
        pass                    # cut short, as expected
    r = subprocess.run([score, "--repair", path], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    frames, pooled = load_results(path)
    mean = sum(f["metrics"]["vmaf"] for f in frames) / len(frames)
    assert abs(pooled["vmaf"]["mean"] - mean) < 1e-5, (pooled, mean)
    assert all("refFrameNum" in f for f in frames)
    print(f"SIGKILL, then --repair: {len(frames)} frames, pooled mean "
          f"{pooled['vmaf']['mean']:.6f}")


def check_upstream_error(tmp):
    path = os.path.join(tmp, "error.json")
    desc = pipeline("videotestsrc num-buffers=120 pattern=ball",
                    "identity error-after=50 !", f"results-filename={path}")
    r = run(desc.split())
    assert r.returncode != 0, "an upstream error must fail the run"
    frames, _ = load_results(path)
    # the 50th distorted buffer errors out: at most 49 pairs, and the
    # element has paired nearly all of them (queues may hold a few)
    assert 40 <= len(frames) <= 49, f"{len(frames)} frames after the error"
    print(f"upstream error: rc {r.returncode}, {len(frames)} frames")


def check_full_disk():
    desc = pipeline("videotestsrc num-buffers=30", "",
                    "results-filename=/dev/full")
    r = run(desc.split())
    assert r.returncode != 0, "a full disk must fail the run:\n" + r.stdout
    text = r.stdout + r.stderr
    assert "write-failure=warn" in text, text
    desc = pipeline("videotestsrc num-buffers=30", "",
                    "results-filename=/dev/full write-failure=warn")
    r = run(desc.split())
    assert r.returncode == 0, "write-failure=warn keeps going:\n" + r.stdout \
        + r.stderr
    print("full disk: fails by default, goes on with write-failure=warn")


def check_resolution_change(tmp):
    path = os.path.join(tmp, "concat.json")
    size = "video/x-raw,format=I420,framerate=25/1"
    desc = (f"videotestsrc num-buffers=120 ! {size},width=320,height=180 ! "
            "v.ref_sink concat name=c ! v.dist_sink "
            f"videotestsrc num-buffers=60 ! {size},width=320,height=180 ! c. "
            f"videotestsrc num-buffers=60 ! {size},width=160,height=90 ! c. "
            f"vmafhip name=v backend=cpu threads=1 results-filename={path} "
            "! fakesink")
    r = run(desc.split())
    assert r.returncode == 0, r.stdout + r.stderr
    with open(path) as f:
        data = json.load(f)
    nums = [fr["frameNum"] for fr in data["frames"]]
    assert nums == list(range(120)), nums
    segs = [(s["first_frame"], s["last_frame"]) for s in data["segments"]]
    assert segs == [(0, 59), (60, 119)], segs
    print("resolution change: 120 frames, segments", segs)


def main():
    score = sys.argv[1] if len(sys.argv) > 1 else None
    if not score or not os.access(score, os.X_OK):
        print("usage: test-launch-stops.py VMAFHIP_SCORE")
        return 2
    if not LAUNCH:
        print("gst-launch-1.0 is missing (gstreamer1.0-tools)")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        check_sigint(tmp)
        check_upstream_error(tmp)
        check_full_disk()
        check_resolution_change(tmp)
        check_ladder_sigint(tmp)
        check_ladder_upstream_error(tmp)
        check_sigkill_repair(tmp, score)
    return 0


if __name__ == "__main__":
    sys.exit(main())
