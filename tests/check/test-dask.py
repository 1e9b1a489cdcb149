#!/usr/bin/python3
"""vmafhip-dask (tools/vmafhip-dask.py) on a Dask LocalCluster of 2 worker
processes:

* a three-pair catalogue (a y4m pair in 3 chunks with JSON, a y4m pair with
  vmaf_v0.6.1neg and PSNR in XML, a raw pair in CSV): every log equal byte
  for byte to a vmafhip-score run's but for the fps (a measured rate), the
  summary's means those of the logs;
* a worker killed while it scores a chunk (the nanny restarts it, the
  scheduler runs the chunk again) and a vmafhip-score that fails once
  (retried): the logs still equal;
* a pair that fails for good: the others' logs and summary rows written,
  the failure named, exit 1;
* a cluster started as on several machines (dask-scheduler, a
  dask-worker in another folder) through --scheduler: the log equal;
* malformed catalogues refused before any cluster starts, naming the
  line and the field.

Content: made here (a moving pattern, and the same quantized with noise).
Usage: test-dask.py VMAFHIP_DASK VMAFHIP_SCORE. Exit 77 (skip, said)
without Python's distributed, unless VMAFHIP_STRICT_TESTS=1: then it
fails.
"""
import csv
import importlib
import json
import math
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

STRICT = os.environ.get("VMAFHIP_STRICT_TESTS") == "1"
W, H = 96, 64


def write_video(path, frames, distorted, y4m=True, seed=1):
    rng = random.Random(seed)
    with open(path, "wb") as f:
        if y4m:
            f.write(f"YUV4MPEG2 W{W} H{H} F25:1 Ip A1:1 C420jpeg\n".encode())
        for t in range(frames):
            luma = bytearray()
            for y in range(H):
                for x in range(W):
                    v = 128 + 60 * math.sin((x + 3 * t) / 7) * math.cos(
                        (y - 2 * t) / 5) + 20 * math.sin((x * y + 11 * t) / 50)
                    if distorted:
                        v = round(v / 24) * 24 + rng.gauss(0, 6)
                    luma.append(min(255, max(0, round(v))))
            chroma = bytes(128 + (x + y + t) % 16 for y in range(H // 2)
                           for x in range(W // 2))
            if y4m:
                f.write(b"FRAME\n")
            f.write(bytes(luma) + chroma + chroma)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=180,
                          **kw)


def without_fps(path):
    with open(path) as f:
        return re.sub(r'"fps": [^,]*,|fps="[^"]*" *', "fps", f.read())


def check(condition, message):
    if not condition:
        print(f"test-dask: FAILED: {message}", file=sys.stderr)
        sys.exit(1)


class Test:
    def __init__(self, tool, score_bin, root):
        self.tool, self.score_bin, self.root = tool, score_bin, root
        self.video = lambda name: os.path.join(root, name)
        write_video(self.video("a-ref.y4m"), 12, False)
        write_video(self.video("a-dis.y4m"), 12, True)
        write_video(self.video("b-ref.y4m"), 8, False, seed=2)
        write_video(self.video("b-dis.y4m"), 8, True, seed=3)
        write_video(self.video("c-ref.yuv"), 8, False, y4m=False)
        write_video(self.video("c-dis.yuv"), 8, True, y4m=False, seed=4)
        # the whole-title runs every log must equal
        self.expected = {}
        for name, args in self.pair_args().items():
            out = self.video(f"direct-{name}")
            r = run([score_bin, *args, "-o", out, "-q"])
            check(r.returncode == 0, f"direct run {name}: {r.stderr}")
            self.expected[name] = (without_fps(out), r.stdout)

    def pair_args(self):
        v = self.video
        return {
            "a.json": ["-r", v("a-ref.y4m"), "-d", v("a-dis.y4m"), "--json"],
            "b.xml": ["-r", v("b-ref.y4m"), "-d", v("b-dis.y4m"),
                      "-m", "version=vmaf_v0.6.1neg", "--feature", "psnr",
                      "--xml"],
            "c.csv": ["-r", v("c-ref.yuv"), "-d", v("c-dis.yuv"), "-w",
                      str(W), "-h", str(H), "-p", "420", "-b", "8", "--csv"],
        }

    def dask(self, catalogue, out_dir, *extra):
        return run(["/usr/bin/python3", self.tool, catalogue, "--workers", "2",
                    "--output-dir", out_dir, *extra])

    def check_logs(self, out_dir, names, what):
        for name in names:
            log = os.path.join(out_dir, name)
            check(os.path.exists(log), f"{what}: no log {log}")
            check(without_fps(log) == self.expected[name][0],
                  f"{what}: {log} differs from the vmafhip-score run's")
        parts = os.path.join(out_dir, "vmafhip-dask-parts")
        check(not os.listdir(parts), f"{what}: parts left in {parts}")

    def check_summary(self, out_dir, names, what):
        with open(os.path.join(out_dir, "summary.csv")) as f:
            rows = {os.path.basename(r["log"]): r for r in csv.DictReader(f)}
        for name in names:
            row, log = rows[name], os.path.join(out_dir, name)
            check(row["status"] == "ok", f"{what}: {name} not ok: {row}")
            if name.endswith(".json"):
                with open(log) as f:
                    pooled = json.load(f, parse_float=str)["pooled_metrics"]
                means = {k: v["mean"] for k, v in pooled.items()}
            elif name.endswith(".xml"):
                root = ElementTree.parse(log).getroot()
                means = {m.get("name"): m.get("mean")
                         for m in root.iterfind("pooled_metrics/metric")}
            else:       # a CSV log has no pooled values: the run's printed
                means = dict(re.findall(r"^\s+(\S+): mean (\S+) ",
                                        self.expected[name][1], re.M))
            check(len(means) > 1 or name.endswith(".csv"),
                  f"{what}: {name}: too few pooled metrics {means}")
            for metric, mean in means.items():
                check(row[metric] == mean, f"{what}: summary {name} {metric}"
                      f" = {row[metric]!r}, the log's {mean!r}")

    def test_catalogue(self):
        catalogue = self.video("catalogue.csv")
        with open(catalogue, "w") as f:
            f.write("reference,distorted,output,model,width,height,"
                    "pixel_format,bitdepth,chunks,extra\n"
                    "a-ref.y4m,a-dis.y4m,out1/a.json,,,,,,3,\n"
                    "b-ref.y4m,b-dis.y4m,out1/b.xml,version=vmaf_v0.6.1neg,"
                    ",,,,,--feature psnr\n"
                    f"c-ref.yuv,c-dis.yuv,out1/c.csv,,{W},{H},420,8,,\n")
        out = self.video("out1")
        r = self.dask(catalogue, out, "--vmafhip-score", self.score_bin)
        check(r.returncode == 0, f"catalogue run: {r.stdout}{r.stderr}")
        check("100% Completed" in r.stdout, f"no progress bar: {r.stdout}")
        names = ["a.json", "b.xml", "c.csv"]
        self.check_logs(out, names, "catalogue")
        self.check_summary(out, names, "catalogue")
        with open(os.path.join(out, "summary.csv")) as f:
            chunks = {os.path.basename(r["log"]): r["chunks"]
                      for r in csv.DictReader(f)}
        check(chunks == {"a.json": "3", "b.xml": "1", "c.csv": "1"},
              f"chunks {chunks}")

    def test_worker_dies(self):
        # A vmafhip-score that kills its Dask worker (its parent process)
        # the first time it scores chunk 2/3, and fails once on the raw
        # pair; each first time recorded in a marker file
        killed = self.video("killed-worker")
        failed = self.video("failed-once")
        wrapper = self.video("vmafhip-score-wrapper")
        with open(wrapper, "w") as f:
            f.write(f"""#!/usr/bin/python3
import os, signal, sys, time
def first(marker, text):
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return False
    os.write(fd, text.encode())
    os.close(fd)
    return True
args = sys.argv[1:]
if "--chunk" in args and args[args.index("--chunk") + 1] == "2/3":
    with open(f"/proc/{{os.getppid()}}/cmdline", "rb") as f:
        parent = f.read().replace(b"\\0", b" ").decode()
    if first({killed!r}, parent):
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(30)
        sys.exit(1)
if "-w" in args and first({failed!r}, "failed"):
    sys.exit("wrapper: failing once")
os.execv({self.score_bin!r}, [{self.score_bin!r}] + args)
""")
        os.chmod(wrapper, 0o755)
        catalogue = self.video("catalogue.jsonl")
        with open(catalogue, "w") as f:
            for row in ({"reference": "a-ref.y4m", "distorted": "a-dis.y4m",
                         "output": "out2/a.json"},
                        {"reference": "c-ref.yuv", "distorted": "c-dis.yuv",
                         "output": "out2/c.csv", "width": W, "height": H,
                         "pixel_format": "420", "bitdepth": 8}):
                f.write(json.dumps(row) + "\n")
        out = self.video("out2")
        r = self.dask(catalogue, out, "--vmafhip-score", wrapper,
                      "--chunk-frames", "4", "--retries", "1", "-q")
        check(r.returncode == 0, f"worker-dies run: {r.stdout}{r.stderr}")
        check(os.path.exists(killed), "no worker was killed")
        with open(killed) as f:
            parent = f.read()
        check("python" in parent, f"killed {parent!r}, not a Dask worker")
        check(os.path.exists(failed), "the raw pair did not fail once")
        self.check_logs(out, ["a.json", "c.csv"], "worker dies")
        self.check_summary(out, ["a.json", "c.csv"], "worker dies")

    def test_failed_pair(self):
        # a distorted y4m whose header vmafhip-score refuses
        broken = self.video("broken.y4m")
        with open(broken, "wb") as f:
            f.write(b"YUV4MPEG2 W0 H0\nFRAME\n")
        catalogue = self.video("catalogue-failing.csv")
        with open(catalogue, "w") as f:
            f.write("reference,distorted,output\n"
                    "a-ref.y4m,broken.y4m,out3/broken.json\n"
                    "a-ref.y4m,a-dis.y4m,out3/a.json\n")
        out = self.video("out3")
        r = self.dask(catalogue, out, "--vmafhip-score", self.score_bin,
                      "--retries", "1", "-q")
        check(r.returncode == 1, f"failing pair: exit {r.returncode}")
        check("catalogue-failing.csv:2:" in r.stderr and "broken.y4m" in
              r.stderr and "1 of 2 pairs scored" in r.stderr,
              f"failure not named: {r.stderr}")
        check(not os.path.exists(os.path.join(out, "broken.json")),
              "a failed pair left a log")
        check(without_fps(os.path.join(out, "a.json")) ==
              self.expected["a.json"][0], "the other pair's log differs")
        with open(os.path.join(out, "summary.csv")) as f:
            status = [(r["status"], bool(r["error"]))
                      for r in csv.DictReader(f)]
        check(status == [("failed", True), ("ok", False)],
              f"summary status {status}")

    def test_scheduler(self):
        # a cluster started as on several machines: dask-scheduler and a
        # dask-worker in another folder (the paths must be absolute)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        address = f"tcp://127.0.0.1:{port}"
        cli = [sys.executable, "-m"]
        processes = [subprocess.Popen(
            cli + ["distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                   "--port", str(port), "--no-dashboard"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
        try:
            processes.append(subprocess.Popen(
                cli + ["distributed.cli.dask_worker", address, "--nworkers",
                       "1", "--nthreads", "2", "--no-dashboard"],
                cwd="/", stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
            catalogue = self.video("catalogue-cluster.csv")
            with open(catalogue, "w") as f:
                f.write("reference,distorted,output\n"
                        "a-ref.y4m,a-dis.y4m,out5/a.json\n")
            out = self.video("out5")
            r = run(["/usr/bin/python3", self.tool, catalogue, "--scheduler",
                     address, "--output-dir", out, "--chunk-frames", "6",
                     "--vmafhip-score", self.score_bin, "-q"])
            check(r.returncode == 0, f"--scheduler run: {r.stdout}{r.stderr}")
            self.check_logs(out, ["a.json"], "--scheduler")
            self.check_summary(out, ["a.json"], "--scheduler")
            with open(os.path.join(out, "summary.csv")) as f:
                chunks = [row["chunks"] for row in csv.DictReader(f)]
            check(chunks == ["2"], f"--scheduler: chunks {chunks}, not 2")
        finally:
            for process in reversed(processes):
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()

    def test_malformed(self):
        cases = [
            ("m1.csv", "reference,distorted\na-ref.y4m,\n",
             "m1.csv:2: field 'distorted' is missing"),
            ("m2.csv", "reference,distorted,colour\na-ref.y4m,a-dis.y4m,red\n",
             "m2.csv:2: unknown field 'colour'"),
            ("m3.jsonl", '{"reference": "a-ref.y4m", "distorted": '
             '"a-dis.y4m"}\n{"reference": "a-ref.y4m", "distorted": '
             '"a-dis.y4m", "output": "x.json", "bitdepth": 9}\n',
             "m3.jsonl:2: field 'bitdepth': '9' is not one of 8, 10, 12"),
            ("m4.jsonl", '{"reference": "a-ref.y4m",\n',
             "m4.jsonl:1: not JSON"),
            ("m5.csv", "reference,distorted,chunks\na-ref.y4m,a-dis.y4m,two\n",
             "m5.csv:2: field 'chunks': 'two' is not a positive integer"),
            ("m6.csv", "reference,distorted\nnone.y4m,a-dis.y4m\n",
             "m6.csv:2: field 'reference': "),
            ("m7.csv", "reference,distorted\na-ref.y4m,a-dis.y4m\n"
             "b-ref.y4m,a-dis.y4m\n", "m7.csv:3: log "),
        ]
        for name, text, message in cases:
            path = self.video(name)
            with open(path, "w") as f:
                f.write(text)
            r = self.dask(path, self.video("out4"), "--vmafhip-score",
                          self.score_bin)
            check(r.returncode == 2 and message in r.stderr,
                  f"{name}: exit {r.returncode}, {r.stderr!r}, "
                  f"not {message!r}")


def main():
    tool, score_bin = sys.argv[1], sys.argv[2]
    try:
        importlib.import_module("distributed")
    except ImportError:
        verdict = "FAILED (strict-tests)" if STRICT else "SKIPPED"
        print(f"test-dask: {verdict}: Python's distributed is missing "
              "(Debian: python3-distributed)", file=sys.stderr)
        sys.exit(1 if STRICT else 77)
    with tempfile.TemporaryDirectory(prefix="vmafhip-dask-") as root:
        test = Test(tool, score_bin, root)
        test.test_malformed()
        test.test_catalogue()
        test.test_worker_dies()
        test.test_failed_pair()
        test.test_scheduler()
    print("test-dask: catalogue, worker killed, retries, a failed pair, "
          "a dask-scheduler's cluster, malformed catalogues: all as expected")


if __name__ == "__main__":
    main()
