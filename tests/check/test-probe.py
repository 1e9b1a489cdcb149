#!/usr/bin/python3
"""vmafhip-probe (tools/vmafhip-probe.py) as a service (issue 37).

One probe, three channels of tiny live videotestsrc frames scored on the
CPU: "steady" runs for ever, "flaky" ends (EOS) after 20 frames and
"broken" reads a file that does not exist.  Checked:
  - /metrics has both scoring channels' vmafhip_ series, and steady's
    frames-scored counter grows between two scrapes;
  - flaky and broken are restarted (state restarting, restart counters
    growing), flaky scoring again after each restart, while steady goes on;
  - malformed requests (garbage bytes, a 100 KiB header, a 20 KiB request
    line, POST/PUT/DELETE, a path with .., 40 idle connections) get an
    error status or a closed connection, and /metrics answers afterwards;
  - SIGTERM: exit 0, and every results file (steady's, each of flaky's
    runs) is complete JSON with its pooled section;
  - a config with an unknown property is refused at start, naming the
    channel and the property.

Usage: test-probe.py tools/vmafhip-probe.py (GST_PLUGIN_PATH names the
built plugin). Exit 77 (skip) without PyGObject or prometheus_client.
"""
import glob
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "probe_common", os.path.join(here, "test-probe-common.py"))
pc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pc)

TEST = "test-probe"
script = sys.argv[1]
pc.need_gst(TEST)
t0 = time.monotonic()
tmp = pc.tmpdir("probe")

# -- a bad config is refused at start, naming the channel and property
bad = os.path.join(tmp, "bad.toml")
with open(bad, "w") as f:
    f.write(pc.channel("cam1", pc.live(), pc.live(), windw="1s"))
out = subprocess.run([sys.executable, script, "--config", bad, "--check"],
                     capture_output=True, text=True, timeout=60)
assert out.returncode == 2, (out.returncode, out.stderr)
assert "'cam1'" in out.stderr and "'windw'" in out.stderr, out.stderr
with open(bad, "w") as f:
    f.write(pc.channel("cam1", pc.live(), pc.live())
            .replace('backend = "cpu"', 'backend = "gpu"'))
out = subprocess.run([sys.executable, script, "--config", bad, "--check"],
                     capture_output=True, text=True, timeout=60)
assert out.returncode == 2 and "'backend'" in out.stderr \
    and "auto, cpu, hip" in out.stderr, out.stderr

# -- the probe
steady_json = os.path.join(tmp, "steady.json")
config = ("[probe]\nrestart-delay = 0.3\nrestart-max-delay = 1.0\n\n"
          + pc.channel("steady", pc.live(),
                       pc.live(extra="") + " ! videobalance contrast=0.8",
                       window="1s", window_interval="500ms",
                       alarm_threshold=100.5, alarm_duration="300ms",
                       results_filename=steady_json)
          + pc.channel("flaky", pc.live("snow", "num-buffers=20"),
                       pc.live("snow", "num-buffers=20"),
                       results_filename=os.path.join(tmp,
                                                     "flaky-{run}.json"))
          + pc.channel("broken", "filesrc location=" + os.path.join(
              tmp, "missing.yuv") + " ! rawvideoparse width=160 height=90 "
              "format=i420 framerate=25/1", pc.live()))
probe = pc.Probe(script, config, tmp)
try:
    def scoring(m):
        return (pc.value(m, "vmafhip_frames_scored_total", channel="steady")
                or 0) >= 10 and (pc.value(
                    m, "vmafhip_channel_restarts_total", channel="flaky")
                    or 0) >= 1
    m1 = probe.wait_for("steady scoring, flaky restarted", scoring)
    time.sleep(1.5)
    m2 = probe.metrics()
    for ch in ("steady", "flaky"):
        for name in ("vmafhip_frames_scored_total", "vmafhip_score",
                     "vmafhip_scoring_fps", "vmafhip_unpaired_frames_total",
                     "vmafhip_channel_restarts_total"):
            assert pc.value(m2, name, channel=ch) is not None, (ch, name)
    f1 = pc.value(m1, "vmafhip_frames_scored_total", channel="steady",
                  pad="dist_sink")
    f2 = pc.value(m2, "vmafhip_frames_scored_total", channel="steady",
                  pad="dist_sink")
    assert f2 >= f1 + 20, (f1, f2)         # 1.5 s at 25 fps
    assert pc.value(m2, "vmafhip_channel_state", channel="steady",
                    state="running") == 1
    s = pc.value(m2, "vmafhip_score", channel="steady", model="vmaf")
    assert 0 < s < 100, s
    assert pc.value(m2, "vmafhip_window_score_mean", channel="steady",
                    model="vmaf") is not None
    assert pc.value(m2, "vmafhip_window_score_min", channel="steady",
                    model="vmaf") is not None
    # the threshold is above every score: the alarm is raised
    m = probe.wait_for("steady's alarm", lambda m: pc.value(
        m, "vmafhip_alarm", channel="steady", model="vmaf") == 1)
    assert pc.value(m, "vmafhip_alarms_total", channel="steady") >= 1
    assert abs(pc.value(m, "vmafhip_scoring_fps", channel="steady")
               - 25) < 5, m
    # broken never runs: restarting between attempts, counter growing
    seen_restarting = set()
    restarts = {}
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        m = probe.metrics()
        for ch in ("flaky", "broken"):
            if pc.value(m, "vmafhip_channel_state", channel=ch,
                        state="restarting") == 1:
                seen_restarting.add(ch)
            restarts.setdefault(ch, []).append(pc.value(
                m, "vmafhip_channel_restarts_total", channel=ch))
        if seen_restarting == {"flaky", "broken"} and all(
                r[-1] > r[0] for r in restarts.values()):
            break
        time.sleep(0.1)
    assert seen_restarting == {"flaky", "broken"}, (seen_restarting,
                                                    probe.text())
    assert all(r[-1] > r[0] for r in restarts.values()), restarts
    m3 = probe.metrics()
    # flaky scored again after its restarts; steady went on all along
    assert pc.value(m3, "vmafhip_frames_scored_total", channel="flaky") \
        > 20, m3
    f3 = pc.value(m3, "vmafhip_frames_scored_total", channel="steady")
    assert f3 > f2, (f2, f3)
    assert pc.value(m3, "vmafhip_channel_state", channel="steady",
                    state="running") == 1
    log = probe.text()
    assert "channel=flaky event=eos" in log, log
    assert "channel=flaky event=restarting" in log, log
    assert "channel=broken event=error" in log and "missing.yuv" in log, log
    assert "channel=steady event=alarm state=raised" in log, log

    # -- malformed requests
    def raw(data, shut=True, timeout=10):
        """Sends data; the status line ('' for a closed connection)."""
        s = socket.create_connection(("127.0.0.1", probe.port), timeout)
        try:
            try:
                s.sendall(data)
                if shut:
                    s.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            buf = b""
            while True:
                try:
                    chunk = s.recv(65536)
                except OSError:
                    break
                if not chunk:
                    break
                buf += chunk
            return buf.split(b"\r\n", 1)[0].decode("latin-1"), buf
        finally:
            s.close()

    status, _ = raw(bytes(range(256)) * 4)
    assert status == "" or " 400 " in status, status
    status, _ = raw(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: "
                    + b"a" * (100 * 1024) + b"\r\n\r\n")
    assert status == "" or " 431 " in status, status
    status, _ = raw(b"GET /" + b"a" * (20 * 1024) + b" HTTP/1.1\r\n\r\n")
    assert status == "" or " 414 " in status, status
    for method in ("POST", "PUT", "DELETE", "OPTIONS"):
        status, buf = raw(f"{method} /metrics HTTP/1.1\r\nHost: x\r\n"
                          "Content-Length: 3\r\n\r\nabc".encode())
        assert " 405 " in status and b"Allow: GET, HEAD" in buf, \
            (method, status)
    status, buf = raw(b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n")
    assert " 404 " in status and b"root:" not in buf, status
    status, buf = raw(b"GET /static/../../../etc/passwd HTTP/1.0\r\n\r\n")
    assert " 404 " in status and b"root:" not in buf, status
    status, buf = raw(b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    assert " 200 " in status and buf.endswith(b"\r\n\r\n"), buf[-200:]
    status, _ = raw(b"GET /metrics HTTP/9.9\r\n\r\n")
    assert status == "" or status.split()[1] in ("400", "505"), status
    # more idle connections than the probe takes: the rest are told 503
    idle = [socket.create_connection(("127.0.0.1", probe.port), 5)
            for _ in range(40)]
    time.sleep(0.5)
    status, buf = raw(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    assert " 503 " in status, status
    for s in idle:
        s.close()
    time.sleep(0.5)
    st, headers, body = probe.get("/metrics")
    assert st == 200 and b"vmafhip_frames_scored_total" in body, st
    assert headers["Content-Type"].startswith("text/plain"), headers
    st, _, body = probe.get("/api/channels")
    api = json.loads(body)
    assert [c["name"] for c in api["channels"]] == ["steady", "flaky",
                                                    "broken"], api
    assert "videotestsrc" not in body.decode() \
        and "rawvideoparse" not in body.decode()   # no pipeline shown
    st, _, body = probe.get("/healthz")
    assert st == 200, st
finally:
    rc = probe.stop()
print(probe.text())
assert rc == 0, rc
log = probe.text()
assert "event=stopping signal=SIGTERM" in log and "event=stopped" in log, log

# -- every results file is finished: valid JSON with its pooled section
files = [steady_json] + sorted(glob.glob(os.path.join(tmp, "flaky-*.json")))
assert len(files) >= 3, files
for path in files:
    with open(path) as f:
        doc = json.load(f)
    if path == files[-1] and not doc.get("frames"):
        continue    # flaky's last run, stopped before its first frame
    assert "vmaf" in doc["pooled_metrics"], path
    assert len(doc["frames"]) > 0, path
steady = json.load(open(steady_json))
assert len(steady["frames"]) >= f3, (len(steady["frames"]), f3)
for path in files[1:-1]:        # flaky's finished runs: 20 frames each
    assert len(json.load(open(path))["frames"]) == 20, path
shutil.rmtree(tmp)
print(f"{TEST}: ok ({time.monotonic() - t0:.1f} s)")
