#!/usr/bin/python3
"""vmafhip-probe's live dashboard in headless Chromium (issue 37).

A probe with two channels of tiny live frames; Chromium loads the page
twice, a few seconds apart (--dump-dom):
  - both channels' panels, their names and a chart canvas each;
  - Chart.js (Debian's libjs-chart.js, served by the probe) draws it;
  - the charts' data grew between the two loads (the page writes each
    chart's number of points in data-points, its number of updates in
    the body's data-updates);
  - with --chart-js none the page draws plain lines itself.
VMAFHIP_PROBE_SCREENSHOT=FILE also saves a screenshot there (how
docs/images/probe-dashboard.png is made).

Usage: test-probe-dashboard.py tools/vmafhip-probe.py (GST_PLUGIN_PATH
names the built plugin). Exit 77 (skip) without chromium, PyGObject,
prometheus_client or libjs-chart.js; with strict tests they are required.
"""
import html.parser
import importlib.util
import os
import shutil
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "probe_common", os.path.join(here, "test-probe-common.py"))
pc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pc)

TEST = "test-probe-dashboard"
script = sys.argv[1]
pc.need_gst(TEST)
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if chromium is None:
    pc.missing(TEST, "chromium not found (Debian: chromium)")
t0 = time.monotonic()
tmp = pc.tmpdir("probe-dashboard")


class Dom(html.parser.HTMLParser):
    """The panels (data-channel), their names and charts' data-points."""

    def __init__(self, text):
        super().__init__()
        self.panels = {}
        self.current = None
        self.in_name = False
        self.body = {}
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "section" and "data-channel" in a:
            self.current = self.panels[a["data-channel"]] = {
                "state": a.get("data-state"), "name": "", "points": None}
        elif tag == "span" and a.get("class") == "name" and self.current:
            self.in_name = True
        elif tag == "canvas" and self.current is not None:
            self.current["points"] = int(a.get("data-points", "-1"))

    def handle_endtag(self, tag):
        self.in_name = False

    def handle_data(self, data):
        if self.in_name and self.current is not None:
            self.current["name"] += data


def chromium_run(url, *extra):
    out = subprocess.run(
        [chromium, "--headless", "--disable-gpu", "--no-sandbox",
         "--no-first-run", "--disable-extensions", "--hide-scrollbars",
         f"--user-data-dir={os.path.join(tmp, 'chromium')}",
         "--virtual-time-budget=5000", *extra, url],
        capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    return out.stdout


config = (pc.channel("studio-a", pc.live(), pc.live() + " ! videobalance "
                     "contrast=0.8", window="1s", alarm_threshold=70,
                     alarm_duration="500ms")
          + pc.channel("studio-b", pc.live("smpte"), pc.live("smpte")
                       + " ! videobalance saturation=0.5", window="1s"))
probe = pc.Probe(script, config, tmp)
if "chart-js=yes" not in probe.text():
    probe.stop()
    pc.missing(TEST, "Chart.js not found (Debian: libjs-chart.js)")
try:
    probe.wait_for("both channels scoring", lambda m: all(
        (pc.value(m, "vmafhip_frames_scored_total", channel=c) or 0) >= 25
        for c in ("studio-a", "studio-b")))
    first = Dom(chromium_run(probe.url + "/", "--dump-dom"))
    assert set(first.panels) == {"studio-a", "studio-b"}, first.panels
    for name, p in first.panels.items():
        assert p["name"] == name, p
        assert p["state"] == "running", p
        assert p["points"] >= 1, p
    assert first.body.get("data-charting") == "chart.js", first.body
    assert int(first.body.get("data-updates", "0")) >= 1, first.body
    time.sleep(3)
    second = Dom(chromium_run(probe.url + "/", "--dump-dom"))
    for name in first.panels:
        assert second.panels[name]["points"] \
            >= first.panels[name]["points"] + 2, (first.panels,
                                                  second.panels)
    shot = os.environ.get("VMAFHIP_PROBE_SCREENSHOT")
    if shot:
        chromium_run(probe.url + "/", "--window-size=1280,560",
                     f"--screenshot={os.path.abspath(shot)}")
        assert os.path.getsize(shot) > 10000, shot
        print(f"{TEST}: screenshot in {shot}")
finally:
    rc = probe.stop()
assert rc == 0, (rc, probe.text())

# without Chart.js: the page draws the lines itself
probe = pc.Probe(script, pc.channel("plain", pc.live(), pc.live()), tmp,
                 name="plain", args=("--chart-js", "none"))
try:
    assert "chart-js=\"no" in probe.text(), probe.text()
    probe.wait_for("scoring", lambda m: (pc.value(
        m, "vmafhip_frames_scored_total", channel="plain") or 0) >= 25)
    st, _, _ = probe.get("/static/chart.js")
    assert st == 404, st
    dom = Dom(chromium_run(probe.url + "/", "--dump-dom"))
    assert dom.body.get("data-charting") == "canvas", dom.body
    assert dom.panels["plain"]["points"] >= 1, dom.panels
finally:
    rc = probe.stop()
assert rc == 0, (rc, probe.text())
shutil.rmtree(tmp)
print(f"{TEST}: ok ({time.monotonic() - t0:.1f} s)")
