#!/usr/bin/python3
"""vmafhip-probe scraped by Prometheus (issue 37).

Two probes (one channel of tiny live frames each; probe-1's alarm
threshold above every score) and Debian's prometheus on 127.0.0.1, free
ports, a temporary TSDB, scraping both every second with the shipped
alert rules (docs/examples/vmafhip-alerts.yml) loaded:
  - both probes' vmafhip_frames_scored_total come back through the query
    API (/api/v1/query), one series per instance, growing;
  - the rules load and evaluate (health ok), and VmafhipQualityAlarm is
    pending or firing for probe-1's channel, not for probe-2's;
  - promtool accepts the rules file and the scrape example
    (docs/examples/prometheus.yml).

Usage: test-probe-prometheus.py tools/vmafhip-probe.py ALERTS.yml
PROMETHEUS.yml (GST_PLUGIN_PATH names the built plugin). Exit 77 (skip)
without prometheus, PyGObject or prometheus_client; with strict tests
they are required.
"""
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "probe_common", os.path.join(here, "test-probe-common.py"))
pc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pc)

TEST = "test-probe-prometheus"
script, alerts, scrape_example = sys.argv[1:4]
pc.need_gst(TEST)
prometheus = shutil.which("prometheus") or (
    "/usr/bin/prometheus" if os.path.exists("/usr/bin/prometheus") else None)
if prometheus is None:
    pc.missing(TEST, "prometheus not found (Debian: prometheus)")
promtool = shutil.which("promtool")
t0 = time.monotonic()
tmp = pc.tmpdir("probe-prometheus")

if promtool:
    out = subprocess.run([promtool, "check", "rules", alerts],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "4 rules found" in out.stdout, \
        (out.stdout, out.stderr)
    example = os.path.join(tmp, "example.yml")
    with open(scrape_example) as f, open(example, "w") as g:
        g.write(f.read().replace("/etc/prometheus/vmafhip-alerts.yml",
                                 os.path.abspath(alerts)))
    out = subprocess.run([promtool, "check", "config", example],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, (out.stdout, out.stderr)

probes = []
prom = None
try:
    probes.append(pc.Probe(script, pc.channel(
        "cam-1", pc.live(), pc.live() + " ! videobalance contrast=0.8",
        window="1s", alarm_threshold=100.5, alarm_duration="300ms"), tmp,
        name="probe-1"))
    probes.append(pc.Probe(script, pc.channel(
        "cam-2", pc.live("smpte"), pc.live("smpte"), window="1s",
        alarm_threshold=10), tmp, name="probe-2"))
    port = pc.free_port()
    config = os.path.join(tmp, "prometheus.yml")
    targets = ", ".join(f"'127.0.0.1:{p.port}'" for p in probes)
    with open(config, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                f"rule_files: ['{os.path.abspath(alerts)}']\n"
                "scrape_configs:\n  - job_name: vmafhip\n"
                f"    static_configs:\n      - targets: [{targets}]\n")
    prom_log = open(os.path.join(tmp, "prometheus.log"), "w")
    prom = subprocess.Popen(
        [prometheus, f"--config.file={config}",
         f"--storage.tsdb.path={os.path.join(tmp, 'tsdb')}",
         f"--web.listen-address=127.0.0.1:{port}",
         "--web.console.templates=" + tmp,
         "--web.console.libraries=" + tmp],
        stdout=prom_log, stderr=subprocess.STDOUT,
        # the server is not vmafhip's: not under the sanitizer runtime the
        # sanitizer pass preloads for the probes
        env={k: v for k, v in os.environ.items() if k != "LD_PRELOAD"})
    api = f"http://127.0.0.1:{port}/api/v1/"

    def get(path, **params):
        url = api + path + ("?" + urllib.parse.urlencode(params)
                            if params else "")
        with urllib.request.urlopen(url, timeout=5) as r:
            doc = json.load(r)
        assert doc["status"] == "success", doc
        return doc["data"]

    def frames():
        """{instance: value} of vmafhip_frames_scored_total."""
        data = get("query", query="vmafhip_frames_scored_total")
        return {r["metric"]["instance"]: (r["metric"]["channel"],
                                          float(r["value"][1]))
                for r in data["result"]}

    deadline = time.monotonic() + 40
    first = None
    while time.monotonic() < deadline:
        try:
            first = frames()
            if len(first) == 2:
                break
        except OSError:
            pass            # prometheus still starting
        if prom.poll() is not None:
            break
        time.sleep(0.5)
    with open(prom_log.name) as f:
        log = f.read()
    assert first and len(first) == 2, (first, log[-3000:])
    want = {f"127.0.0.1:{p.port}": f"cam-{i + 1}"
            for i, p in enumerate(probes)}
    assert {k: v[0] for k, v in first.items()} == want, (first, want)
    time.sleep(2.5)
    second = frames()
    for inst in want:
        assert second[inst][1] > first[inst][1], (first, second)

    # the shipped rules load and evaluate; cam-1's alarm is an alert
    deadline = time.monotonic() + 30
    while True:
        groups = get("rules")["groups"]
        rules = {r["name"]: r for g in groups for r in g["rules"]}
        alerts_now = [a for a in get("alerts")["alerts"]
                      if a["labels"]["alertname"] == "VmafhipQualityAlarm"]
        if alerts_now and all(r.get("health") == "ok"
                              for r in rules.values()):
            break
        assert time.monotonic() < deadline, (rules, alerts_now)
        time.sleep(0.5)
    assert set(rules) == {"VmafhipQualityAlarm", "VmafhipChannelDown",
                          "VmafhipNotScoring", "VmafhipProbeDown"}, rules
    assert {a["labels"]["channel"] for a in alerts_now} == {"cam-1"}, \
        alerts_now
    assert alerts_now[0]["state"] in ("pending", "firing"), alerts_now
finally:
    if prom is not None:
        prom.send_signal(signal.SIGTERM)
        try:
            prom_rc = prom.wait(30)
        except subprocess.TimeoutExpired:
            prom.kill()
            prom_rc = prom.wait()
    rcs = [p.stop() for p in probes]
assert rcs == [0, 0], rcs
assert prom_rc == 0, prom_rc
shutil.rmtree(tmp)
print(f"{TEST}: ok ({time.monotonic() - t0:.1f} s)")
