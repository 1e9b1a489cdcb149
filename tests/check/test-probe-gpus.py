#!/usr/bin/python3
"""vmafhip-probe's gpu setting ([probe] gpu, a channel's gpu, --gpu) on
two mock GPUs (the mock HIP runtime, VMAFHIP_HIP_LIBRARY; two devices with
VH_MOCK_HIP_DEVICES=2, set here).  Checked:
  - the config: gpu = "auto" or an index is accepted, anything else
    refused naming the channel and what gpu takes; a channel's gpu and its
    properties' device-id together refused; --gpu of another kind refused;
  - two channels with gpu = "auto" (backend hip) run on the two GPUs, as
    /api/channels' backend says; --gpu 1 puts a channel without its own
    gpu on GPU 1.

Usage: test-probe-gpus.py tools/vmafhip-probe.py (GST_PLUGIN_PATH names
the built plugin). Exit 77 (skip) without PyGObject or prometheus_client.
"""
import importlib.util
import json
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

TEST = "test-probe-gpus"
script = sys.argv[1]
os.environ["VH_MOCK_HIP_DEVICES"] = "2"
pc.need_gst(TEST)
tmp = pc.tmpdir("probe-gpus")


def hip_channel(name, gpu=None, **props):
    text = pc.channel(name, pc.live(), pc.live(), **props).replace(
        'backend = "cpu"', 'backend = "hip"')
    if gpu is not None:
        gpu = (f'"{gpu}"' if isinstance(gpu, str)
               else str(gpu).lower() if isinstance(gpu, bool) else gpu)
        text = text.replace("[channel.properties]",
                            f"gpu = {gpu}\n[channel.properties]")
    return text


def check(config, *args):
    path = os.path.join(tmp, "check.toml")
    with open(path, "w") as f:
        f.write(config)
    return subprocess.run([sys.executable, script, "--config", path,
                           "--check", *args],
                          capture_output=True, text=True, timeout=60)


# -- the config
for gpu in ("auto", 0, 1, "1"):
    out = check(hip_channel("cam1", gpu))
    assert out.returncode == 0, (gpu, out.stderr)
for gpu in ("bogus", -1, "-1", 1.5, True):
    out = check(hip_channel("cam1", gpu))
    assert out.returncode == 2, (gpu, out.returncode, out.stderr)
    assert "'cam1'" in out.stderr and "gpu" in out.stderr, out.stderr
    if not isinstance(gpu, (float, bool)):
        assert 'give "auto"' in out.stderr, out.stderr
out = check(hip_channel("cam1", "auto", device_id=1))
assert out.returncode == 2 and "both set" in out.stderr, out.stderr
out = check("[probe]\ngpu = \"x\"\n" + hip_channel("cam1"))
assert out.returncode == 2 and "[probe]" in out.stderr, out.stderr
out = check(hip_channel("cam1"), "--gpu", "two")
assert out.returncode == 2 and "--gpu" in out.stderr, out.stderr
# a device-id of the channel's own wins over the probe's gpu
out = check("[probe]\ngpu = \"auto\"\n" + hip_channel("cam1", device_id=0))
assert out.returncode == 0, out.stderr


def backends(probe, names):
    """{channel: active-backend} once every channel in names has one."""
    deadline = time.monotonic() + 30
    while True:
        status, _, body = probe.get("/api/channels")
        assert status == 200, status
        doc = json.loads(body)
        chans = doc["channels"] if isinstance(doc, dict) else doc
        got = {c["name"]: c.get("backend") for c in chans}
        if all(got.get(n) for n in names):
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"no backend for {names}: {got}\n"
                                 + probe.text())
        time.sleep(0.2)


# -- two channels, gpu = "auto": one on each GPU
probe = pc.Probe(script, hip_channel("a", "auto") + hip_channel("b", "auto"),
                 tmp, name="auto")
try:
    got = backends(probe, ["a", "b"])
    devices = sorted(g.split(", device ")[1][:1] for g in got.values())
    assert devices == ["0", "1"], got
    assert all("(auto: the least loaded of 2 GPUs)" in g
               for g in got.values()), got
finally:
    assert probe.stop() == 0, probe.text()

# -- --gpu 1: a channel without its own gpu on GPU 1; one with gpu = 0 on 0
probe = pc.Probe(script, hip_channel("c") + hip_channel("d", 0), tmp,
                 name="index", args=("--gpu", "1"))
try:
    got = backends(probe, ["c", "d"])
    assert got["c"].endswith(", device 1"), got
    assert got["d"].endswith(", device 0"), got
finally:
    assert probe.stop() == 0, probe.text()

shutil.rmtree(tmp, ignore_errors=True)
print(f"{TEST}: ok")
