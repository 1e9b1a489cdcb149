#!/usr/bin/env python3
"""vmafhip-monitor.py and vmafhip-plot.py on a short pipeline: the live
probe prints a line per window and the alarm (a threshold above every
score raises one), keeps every message as JSON lines, and the plot tool
draws them, and the pipeline's results file, as SVG.  Exits 77 (meson:
SKIP) with a loud message where PyGObject, GStreamer's introspection data
or matplotlib are missing."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

monitor, plot = sys.argv[1], sys.argv[2]
try:
    import gi  # noqa: F401
    gi.require_version("Gst", "1.0")
    import matplotlib  # noqa: F401
except (ImportError, ValueError) as e:
    print(f"test-monitor-tools: SKIPPED: {e} (Debian: python3-gi, "
          "gir1.2-gstreamer-1.0, python3-matplotlib)", file=sys.stderr)
    sys.exit(77)

tmp = tempfile.mkdtemp(prefix="vmafhip-monitor-tools-")
jsonl = os.path.join(tmp, "run.jsonl")
results = os.path.join(tmp, "results.json")
pipeline = (
    "videotestsrc num-buffers=100 pattern=zone-plate kx2=20 ky2=20 kt=1 "
    "! video/x-raw,width=176,height=144,framerate=25/1,format=I420 ! tee "
    "name=t t. ! queue ! v.ref_sink t. ! queue ! videobalance contrast=0.8 "
    f"! v.dist_sink vmafhip name=v backend=cpu results-filename={results} "
    "! fakesink")
out = subprocess.run([sys.executable, monitor, "--pipeline", pipeline,
                      "--window", "1", "--window-interval", "0.5",
                      "--alarm-threshold", "100.5", "--alarm-duration",
                      "0.4", "--interval", "2", "--jsonl", jsonl],
                     capture_output=True, text=True, timeout=300)
print(out.stdout)
print(out.stderr, file=sys.stderr)
assert out.returncode == 0, out.returncode
lines = out.stdout.splitlines()
windows = [ln for ln in lines if "vmaf: mean" in ln]
# 4 s: full at 1 s, then every 0.5 s up to 4 s
assert len(windows) == 7, windows
assert sum("*** alarm raised" in ln for ln in lines) == 1, lines
assert any(ln.startswith("pooled over 100 frames") for ln in lines), lines
assert sum(ln.startswith("interval") for ln in lines) == 2, lines

records = [json.loads(ln) for ln in open(jsonl)]
kinds = [r.get("type", r["name"]) for r in records]
assert kinds[0] == "vmafhip-monitor", kinds[:2]
assert kinds.count("frame") == 100, kinds.count("frame")
assert kinds.count("window") == 7 and kinds.count("interval") == 2, kinds
assert kinds.count("vmafhip-alarm") == 1, kinds
alarm = next(r for r in records if r["name"] == "vmafhip-alarm")
frames = {r["index"]: r["score"] for r in records if r.get("type") == "frame"}
assert alarm["state"] == "raised" and alarm["threshold"] == 100.5, alarm
assert frames[alarm["worst-index"]] == alarm["worst-score"], alarm

for source, extra in ((jsonl, []), (results, ["--window", "1",
                                             "--interval", "2"])):
    svg = os.path.join(tmp, os.path.basename(source) + ".svg")
    out = subprocess.run([sys.executable, plot, source, "-o", svg] + extra,
                         capture_output=True, text=True, timeout=300)
    print(out.stdout, out.stderr)
    assert out.returncode == 0, out.returncode
    text = open(svg).read()
    assert text.lstrip().startswith("<?xml") and "<svg" in text, source
    assert "windowed mean" in text and "intervals" in text, source
    assert "100 frames" in out.stdout, out.stdout
# the time axis comes from the file: the element's frames carry their time
# (25 fps here); a file without times (the CLI's, libvmaf's) is refused
# without --fps, and drawn at the rate given with it
spec = importlib.util.spec_from_file_location("vmafhip_plot", plot)
plot_mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot_mod)
doc = json.load(open(results))
run = plot_mod.read_results(doc, results, None, 1, 2)
assert abs(run["frames"][-1][0] - 99.5 / 25) < 1e-6, run["frames"][-1]
assert abs(run["windows"][0][0] - 1.0) < 1e-6, run["windows"][0]
assert [round(a, 6) for a, _, _ in run["intervals"]] == [0, 2], \
    run["intervals"]
untimed = {"frames": [{k: v for k, v in fr.items() if k != "time"}
                      for fr in doc["frames"]]}
try:
    plot_mod.read_results(untimed, "cli.json", None, 0, 0)
    raise AssertionError("a file without times was drawn without --fps")
except SystemExit as e:
    assert "--fps" in str(e), e
run = plot_mod.read_results(untimed, "cli.json", 30, 0, 0)
assert abs(run["frames"][-1][0] - 99.5 / 30) < 1e-9, run["frames"][-1]
shutil.rmtree(tmp)  # kept where an assertion failed, to look at
print("test-monitor-tools: ok")
