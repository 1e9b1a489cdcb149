#!/usr/bin/env python3
"""probe-load: how fast vmafhip-probe scores N channels, and what the probe
itself (Python, HTTP) costs while it does.

A benchmark program, not a test.  It writes a TOML config of N channels
(docs/probe.md), starts tools/vmafhip-probe.py on it (port 0, Chart.js
off), waits until every channel scores, lets it warm up, and then over a
steady window of --seconds:

  - scrapes /metrics once a second, as Prometheus would, and takes each
    channel's rate from vmafhip_frames_scored_total between the first and
    the last scrape of the window;
  - reads the CPU time of every thread of the probe's process
    (/proc/PID/task/*/stat, schedstat), and of the whole process
    (/proc/PID/stat, which keeps the time of threads that ended), at the
    window's two ends.

The probe's own overhead is the CPU time of its Python side: the main
thread (the GLib main loop: bus messages into Python, the 1 s tick), the
HTTP server's thread and the short-lived thread of each request.  Python
3.11 gives its threads no OS name, so the probe runs under a small
bootstrap (python -c, then runpy: the probe's file is not changed) that
lists the OS thread id of every live threading.Thread, and adds the CPU
time of each one that ends (time.thread_time_ns), in a file this program
reads; it also names them "py-<name>" (prctl) for top and ps.
Everything else in the process (GStreamer streaming threads, the
element's workers, the GPU driver's threads) is the scoring's.

Run it with the Python that runs the probe (on the GPU machine the one
scripts/pack-python-runtime.sh packs, with a GStreamer runtime from
../shared/device/pack-gst-runtime):

  . .gstrt/env.sh && . .pyrt/python-env.sh &&
  GST_PLUGIN_PATH=$PWD/build/gst/vmafhip python3 scripts/probe-load.py \\
      --channels 16 --size 1920x1080 --backend hip --fps 0 --seconds 20

(--fps 0: the element's own speed; --fps 25: the overhead at 16 x 25 fps.)

The first line of output:
  channels=N size=WxH per-channel-fps=MIN/MEDIAN/MAX total-fps=X \\
      probe-overhead-core-pct=Y
then detail lines (per channel, CPU split, the threads, the scrapes).

Sources (--source): "imagefreeze" (the default where the element exists:
one frame rendered once by videotestsrc, then pushed again and again from
memory by imagefreeze, so the sources cost next to nothing; the distorted
one is the same picture scaled to half size and back once, so the score is
a real one) or "videotestsrc" (a solid-colour frame filled every time).
With --fps F each source is live at F frames a second (imagefreeze
is-live=true / videotestsrc is-live=true); with --fps 0 they push as fast
as the element takes frames.

--element-bench PATH: afterwards, vmafhip-element-bench with the same
count (--instances N), size, backend, model and threads, its total beside
the probe's.  Exit status: 0 when every channel ran the window through
without a restart and the probe stopped cleanly, 1 otherwise.
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CLK_TCK = os.sysconf("SC_CLK_TCK")

# Runs the probe's file as __main__ after naming Python's threads and
# counting the CPU time of those that end (see the docstring).
BOOTSTRAP = r"""
import os, runpy, sys, threading, time
_acct = os.environ.get("VMAFHIP_LOAD_ACCT")
_ended = [0]
_live = set()
_lock = threading.Lock()
_inner = threading.Thread._bootstrap_inner
try:
    import ctypes
    _prctl = ctypes.CDLL(None).prctl
except Exception:
    _prctl = None
def _name(text):
    b = text.encode()[:15]
    if _prctl is not None and _prctl(15, ctypes.c_char_p(b), 0, 0, 0) == 0:
        return                          # PR_SET_NAME
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/comm",
                  "wb") as f:
            f.write(b)
    except OSError:
        pass
def _write():
    # the CPU time of the Python threads that ended, and the live ones' ids
    if _acct:
        with open(_acct + ".tmp", "w") as f:
            f.write(f"{_ended[0]}\n{' '.join(map(str, sorted(_live)))}\n")
        os.replace(_acct + ".tmp", _acct)
def _bootstrap_inner(self):
    tid = threading.get_native_id()
    _name("py-" + self.name)
    with _lock:
        _live.add(tid)
        _write()
    try:
        _inner(self)
    finally:
        spent = time.thread_time_ns()
        with _lock:
            _ended[0] += spent
            _live.discard(tid)
            _write()
threading.Thread._bootstrap_inner = _bootstrap_inner
sys.argv = sys.argv[1:]
sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
runpy.run_path(sys.argv[0], run_name="__main__")
"""

METRIC_RE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)\{([^}]*)\}\s+(\S+)")
LABEL_RE = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_size(text):
    m = re.fullmatch(r"(\d+)x(\d+)", text)
    if not m or int(m.group(1)) < 16 or int(m.group(2)) < 16:
        raise argparse.ArgumentTypeError(f"{text!r}: not WxH")
    w, h = int(m.group(1)), int(m.group(2))
    if w % 2 or h % 2:
        raise argparse.ArgumentTypeError(f"{text!r}: I420 wants even sizes")
    return w, h


def toml_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def toml_value(text):
    """KEY=VALUE's value as TOML: booleans, integers, floats, else a string."""
    if text in ("true", "false"):
        return text
    if re.fullmatch(r"-?\d+", text):
        return text
    if re.fullmatch(r"-?\d+\.\d*(e-?\d+)?", text):
        return text
    return toml_str(text)


# ---------------------------------------------------------------- config

def sources(args):
    """(reference, distorted) descriptions of one channel."""
    w, h = args.size
    rate = args.fps if args.fps > 0 else 25     # the timestamps' rate
    live = "true" if args.fps > 0 else "false"
    raw = f"video/x-raw,format=I420,width={w},height={h}"
    if args.source == "imagefreeze":
        ref = (f"videotestsrc num-buffers=1 pattern=smpte ! {raw} ! "
               f"imagefreeze is-live={live} ! video/x-raw,framerate={rate}/1")
        small = (f"video/x-raw,format=I420,width={w // 4 * 2},"
                 f"height={h // 4 * 2}")
        dist = (f"videotestsrc num-buffers=1 pattern=smpte ! {small} ! "
                f"videoscale ! {raw} ! imagefreeze is-live={live} ! "
                f"video/x-raw,framerate={rate}/1")
    else:
        ref = (f"videotestsrc is-live={live} pattern=solid-color "
               f"foreground-color=0xff808080 ! {raw},framerate={rate}/1")
        dist = (f"videotestsrc is-live={live} pattern=solid-color "
                f"foreground-color=0xff747474 ! {raw},framerate={rate}/1")
    return ref, dist


def write_config(path, args):
    ref, dist = sources(args)
    props = [("backend", toml_str(args.backend)),
             ("model-filename", toml_str(args.model))]
    if args.threads is not None:
        props.append(("threads", str(args.threads)))
    for kv in args.property:
        k, _, v = kv.partition("=")
        props.append((k.strip(), toml_value(v.strip())))
    lines = ["[probe]", "restart-delay = 1.0", "max-restarts = 3",
             "stall-timeout = 0", ""]
    for i in range(args.channels):
        lines += ["[[channel]]", f"name = \"ch{i:02d}\"",
                  f"reference = {toml_str(ref)}",
                  f"distorted = {toml_str(dist)}",
                  "[channel.properties]"]
        lines += [f"{k} = {v}" for k, v in props]
        lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


# ---------------------------------------------------------------- /proc

def read_task(pid, tid):
    """(comm, cpu ns from schedstat or ticks, cpu ticks) of one thread."""
    base = f"/proc/{pid}/task/{tid}"
    with open(f"{base}/stat") as f:
        stat = f.read()
    comm = stat[stat.index("(") + 1:stat.rindex(")")]
    fields = stat[stat.rindex(")") + 2:].split()
    ticks = int(fields[11]) + int(fields[12])       # utime + stime
    try:
        with open(f"{base}/schedstat") as f:
            ns = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        ns = ticks * 1_000_000_000 // CLK_TCK
    return comm, ns, ticks


def sample_cpu(pid, acct):
    """Every live thread's CPU time, the process's (ended threads
    included) and what the ended Python threads spent."""
    tasks = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            tasks[int(tid)] = read_task(pid, tid)
        except (OSError, ValueError):
            pass                        # ended meanwhile
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split()
    group_ns = (int(fields[11]) + int(fields[12])) * 1_000_000_000 // CLK_TCK
    ended, py_tids = 0, set()
    try:
        with open(acct) as f:
            lines = f.read().split("\n")
        ended = int(lines[0] or 0)
        py_tids = {int(t) for t in lines[1].split()}
    except (OSError, ValueError, IndexError):
        pass
    return {"t": time.monotonic(), "tasks": tasks, "group_ns": group_ns,
            "py_ended_ns": ended, "py_tids": py_tids}


PY_TIDS = set()     # every Python thread id the bootstrap listed


def is_python(pid, tid, comm):
    """The main thread, and the threading.Threads (listed by the
    bootstrap; named py-* where the system lets it)."""
    return tid == pid or tid in PY_TIDS or comm.startswith("py-")


def thread_kind(comm):
    """A thread's name with its numbers folded, to group alike ones."""
    return re.sub(r"\d+", "N", comm)


def cpu_window(pid, c0, c1):
    """CPU seconds of the window, split into the Python side and the rest."""
    PY_TIDS.update(c0["py_tids"], c1["py_tids"])
    per = {}                    # tid -> (comm, delta ns), for the table
    for tid, (comm, ns, _) in c1["tasks"].items():
        before = c0["tasks"].get(tid)
        # a thread born in the window: all its time is the window's
        per[tid] = (comm, max(ns - before[1], 0) if before else ns)
    gone_native = [c0["tasks"][t][0] for t in c0["tasks"]
                   if t not in c1["tasks"]
                   and not is_python(pid, t, c0["tasks"][t][0])]
    py_live0 = sum(ns for tid, (comm, ns, _) in c0["tasks"].items()
                   if is_python(pid, tid, comm))
    py_live1 = sum(ns for tid, (comm, ns, _) in c1["tasks"].items()
                   if is_python(pid, tid, comm))
    # Python side = live Python threads + those that ended (counted by the
    # bootstrap), at each end
    py = (py_live1 + c1["py_ended_ns"]) - (py_live0 + c0["py_ended_ns"])
    main = per.get(pid, ("", 0))[1]
    # the HTTP server's thread: the Python thread (not main) alive at both
    # ends; the requests' threads live a few ms each
    http = sum(d for tid, (comm, d) in per.items()
               if tid != pid and tid in c0["tasks"]
               and is_python(pid, tid, comm))
    requests = py - main - http
    group = c1["group_ns"] - c0["group_ns"]
    native = group - py
    # what no live thread and no ended Python thread explains: threads of
    # the scoring side that ended, and the ticks' rounding
    unexplained = group - sum(d for _, d in per.values()) - (
        c1["py_ended_ns"] - c0["py_ended_ns"])
    return {"unexplained": unexplained / 1e9, "python": py / 1e9,
            "main": main / 1e9, "http": http / 1e9,
            "requests": requests / 1e9, "process": group / 1e9,
            "native": native / 1e9, "per": per, "gone_native": gone_native}


# ---------------------------------------------------------------- metrics

def scrape(url):
    """(seconds taken, monotonic midpoint, {channel: {...}}, body size) of
    one /metrics."""
    t0 = time.monotonic()
    with urllib.request.urlopen(url, timeout=10) as r:
        body = r.read().decode()
    t1 = time.monotonic()
    ch = {}
    for line in body.splitlines():
        m = METRIC_RE.match(line)
        if not m:
            continue
        name, labels, value = m.group(1), dict(LABEL_RE.findall(
            m.group(2))), float(m.group(3))
        c = labels.get("channel")
        if c is None:
            continue
        d = ch.setdefault(c, {"frames": 0.0, "restarts": 0.0, "state": "?",
                              "unpaired": 0.0})
        if name == "vmafhip_frames_scored_total":
            d["frames"] += value
        elif name == "vmafhip_channel_restarts_total":
            d["restarts"] = value
        elif name == "vmafhip_channel_state" and value == 1.0:
            d["state"] = labels.get("state", "?")
        elif name == "vmafhip_unpaired_frames_total":
            d["unpaired"] += value
    return t1 - t0, (t0 + t1) / 2, ch, len(body)


# ---------------------------------------------------------------- the run

class Probe:
    def __init__(self, args, config, acct, env):
        cmd = [args.python, "-c", BOOTSTRAP, args.probe, "--config", config,
               "--listen", "127.0.0.1:0", "--chart-js", "none"]
        env = dict(env, VMAFHIP_LOAD_ACCT=acct)
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.url = None
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for line in self.proc.stderr:
            line = line.rstrip("\n")
            self.lines.append(line)
            m = re.search(r"event=listening address=(http://\S+?)/? ", line)
            if m and not self.url:
                self.url = m.group(1).rstrip("/") + "/metrics"
                self.ready.set()
        self.ready.set()

    def events(self, pattern):
        return [ln for ln in self.lines if re.search(pattern, ln)]

    def stop(self, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.reader.join(5)
        return self.proc.returncode


def have_element(python, env, name):
    code = ("import gi, sys; gi.require_version('Gst', '1.0'); "
            "from gi.repository import Gst; Gst.init(None); "
            f"sys.exit(0 if Gst.ElementFactory.find({name!r}) else 1)")
    return subprocess.run([python, "-c", code], env=env,
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def plugin_dirs(args):
    """Extra GStreamer plugin folders: --plugin-path, and the Python
    runtime's gst-plugins/ (imagefreeze, scripts/pack-python-runtime.sh)."""
    cands = list(args.plugin_path)
    if os.environ.get("VMAFHIP_PYRT"):
        cands.append(os.path.join(os.environ["VMAFHIP_PYRT"], "gst-plugins"))
    cands.append(os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(args.python))), "gst-plugins"))
    out = []
    for d in cands:
        d = os.path.abspath(d)
        if os.path.isdir(d) and d not in out:
            out.append(d)
    return out


def element_bench(args):
    cmd = [args.element_bench, "--instances", str(args.channels),
           "--size", f"{args.size[0]}x{args.size[1]}",
           "--backend", args.backend,
           "--frames", str(args.element_bench_frames),
           "--model", args.model]
    if args.threads is not None:
        cmd += ["--threads", str(args.threads)]
    print("element-bench-command=" + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=args.env)
    out = r.stdout.strip().splitlines()
    line = out[-1] if out else ""
    if r.returncode or not line:
        print(f"element-bench failed (exit {r.returncode}): "
              f"{r.stderr.strip()[-500:]}")
        return None
    print("element-bench-output: " + line)
    steady = re.search(r"steady (\d+) fps", line)
    e2e = re.search(r": (\d+) fps", line)
    return (float(steady.group(1)) if steady else None,
            float(e2e.group(1)) if e2e else None)


def main(argv=None):
    p = argparse.ArgumentParser(
        description="vmafhip-probe under load: per-channel and total "
        "scoring rate, and the probe's own CPU overhead",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--channels", type=int, default=16)
    p.add_argument("--size", type=parse_size, default=(1920, 1080),
                   metavar="WxH")
    p.add_argument("--fps", type=int, default=0,
                   help="each source live at F frames/s (0: as fast as "
                   "the element takes them)")
    p.add_argument("--seconds", type=float, default=20.0,
                   help="the measured window")
    p.add_argument("--warmup", type=float, default=5.0,
                   help="seconds between every channel scoring and the "
                   "window")
    p.add_argument("--start-timeout", type=float, default=180.0,
                   help="seconds for every channel to score its first frame")
    p.add_argument("--scrape-interval", type=float, default=1.0)
    p.add_argument("--backend", default="hip",
                   choices=("hip", "cpu", "auto"))
    p.add_argument("--model", default="vmaf_v0.6.1",
                   help="the element's model-filename")
    p.add_argument("--threads", type=int,
                   help="the element's threads (default: its own, 0 = one "
                   "per CPU)")
    p.add_argument("--property", action="append", default=[],
                   metavar="KEY=VALUE", help="another vmafhip property, "
                   "for every channel")
    p.add_argument("--source", default="auto",
                   choices=("auto", "imagefreeze", "videotestsrc"))
    p.add_argument("--probe", default=os.path.join(REPO, "tools",
                                                   "vmafhip-probe.py"))
    p.add_argument("--python", default=sys.executable,
                   help="the interpreter that runs the probe")
    p.add_argument("--plugin-path", action="append", default=[],
                   metavar="DIR", help="more GStreamer plugins for the "
                   "probe (GST_PLUGIN_PATH, prepended)")
    p.add_argument("--element-bench", metavar="PATH",
                   help="also run vmafhip-element-bench --instances N")
    p.add_argument("--element-bench-frames", type=int, default=600)
    p.add_argument("--keep", metavar="DIR",
                   help="write the config and the probe's log there")
    args = p.parse_args(argv)
    if not 1 <= args.channels <= 256:
        p.error("--channels: 1..256")
    if args.fps < 0:
        p.error("--fps: 0 or more")

    env = dict(os.environ)
    extra = plugin_dirs(args)
    if extra:
        env["GST_PLUGIN_PATH"] = os.pathsep.join(
            extra + ([env["GST_PLUGIN_PATH"]] if env.get("GST_PLUGIN_PATH")
                     else []))
    args.env = env
    if args.source == "auto":
        args.source = "imagefreeze" if have_element(
            args.python, env, "imagefreeze") else "videotestsrc"

    work = args.keep or tempfile.mkdtemp(prefix="probe-load-")
    os.makedirs(work, exist_ok=True)
    config = os.path.join(work, "probe.toml")
    acct = os.path.join(work, "py-ended-ns")
    if os.path.exists(acct):
        os.unlink(acct)
    write_config(config, args)

    probe = Probe(args, config, acct, env)
    pid = probe.proc.pid
    try:
        probe.ready.wait(60)
        if not probe.url:
            raise SystemExit("the probe did not start:\n"
                             + "\n".join(probe.lines[-20:]))
        # every channel scoring
        deadline = time.monotonic() + args.start_timeout
        names = [f"ch{i:02d}" for i in range(args.channels)]
        t_start = time.monotonic()
        while True:
            if probe.proc.poll() is not None:
                raise SystemExit("the probe exited:\n"
                                 + "\n".join(probe.lines[-20:]))
            _, _, ch, _ = scrape(probe.url)
            waiting = [n for n in names if ch.get(n, {}).get("frames", 0) < 1]
            if not waiting:
                break
            failed = [n for n in names if ch.get(n, {}).get("state")
                      in ("failed", "restarting")]
            if failed or time.monotonic() > deadline:
                raise SystemExit(
                    f"channels not scoring after "
                    f"{time.monotonic() - t_start:.0f} s: {waiting[:8]} "
                    f"(failed/restarting: {failed[:8]})\n"
                    + "\n".join(probe.events("error|warning")[-10:]))
            time.sleep(0.5)
        t_scoring = time.monotonic() - t_start
        # warm-up, scraped as in the window
        t = time.monotonic()
        while time.monotonic() < t + args.warmup:
            scrape(probe.url)
            time.sleep(args.scrape_interval)

        # the window: a scrape, then the CPU; ... a scrape each interval
        # ...; the last scrape, then the CPU: the CPU window holds one
        # scrape per interval
        lat, t0, s0, size = scrape(probe.url)
        c0 = sample_cpu(pid, acct)
        own0 = time.process_time()
        lats = []
        k = 1
        n_scrapes = round(args.seconds / args.scrape_interval)
        tk = t0
        while k <= n_scrapes:
            tk = t0 + k * args.scrape_interval
            time.sleep(max(0.0, tk - time.monotonic()))
            lat, t1, s1, size = scrape(probe.url)
            lats.append(lat)
            k += 1
        own = time.process_time() - own0
        c1 = sample_cpu(pid, acct)
        window = t1 - t0
        cpu_span = c1["t"] - c0["t"]
        status = {}
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    k2, _, v = line.partition(":")
                    status[k2] = v.strip()
        except OSError:
            pass
    except OSError as e:        # a scrape or /proc failed: the probe died?
        raise SystemExit(f"probe-load: {e}; the probe's last lines:\n"
                         + "\n".join(probe.lines[-20:]))
    finally:
        stop_rc = probe.stop()
        with open(os.path.join(work, "probe.log"), "w") as f:
            f.write("\n".join(probe.lines) + "\n")

    cpu = cpu_window(pid, c0, c1)
    fps = {}
    for n in names:
        a, b = s0.get(n, {}), s1.get(n, {})
        fps[n] = (b.get("frames", 0) - a.get("frames", 0)) / window
    rates = sorted(fps.values())
    total = sum(rates)
    frames = sum(s1.get(n, {}).get("frames", 0) - s0.get(n, {}).get(
        "frames", 0) for n in names)
    restarts = sum(s1.get(n, {}).get("restarts", 0) - s0.get(n, {}).get(
        "restarts", 0) for n in names)
    not_running = [n for n in names if s1.get(n, {}).get("state")
                   != "running"]
    overhead = 100.0 * cpu["python"] / cpu_span
    w, h = args.size
    print(f"channels={args.channels} size={w}x{h} per-channel-fps="
          f"{rates[0]:.1f}/{statistics.median(rates):.1f}/{rates[-1]:.1f} "
          f"total-fps={total:.1f} probe-overhead-core-pct={overhead:.2f}")
    print(f"detail: backend={args.backend} model={args.model} "
          f"source={args.source} fps-limit={args.fps or 'none'} "
          f"threads={args.threads if args.threads is not None else 'default'}"
          f" window={window:.2f}s cpu-window={cpu_span:.2f}s "
          f"scrapes={len(lats)} (every {args.scrape_interval:g} s) "
          f"frames-in-window={frames:.0f} restarts-in-window={restarts:.0f}"
          f" all-scoring-after={t_scoring:.1f}s warmup={args.warmup:g}s "
          f"cpus={os.cpu_count()}")
    print(f"detail: probe-overhead: python-side={cpu['python']:.3f} "
          f"cpu-s = {overhead:.2f} % of one core (main thread, GLib loop "
          f"and bus messages {100 * cpu['main'] / cpu_span:.2f} %, "
          f"http server thread {100 * cpu['http'] / cpu_span:.2f} %, "
          f"request threads {100 * cpu['requests'] / cpu_span:.2f} %); "
          f"per scored frame {1e6 * cpu['python'] / max(frames, 1):.1f} us; "
          f"per scrape {1e3 * cpu['requests'] / max(len(lats), 1):.2f} "
          f"ms of request thread")
    print(f"detail: process-cpu={cpu['process'] / cpu_span:.2f} cores "
          f"(scoring side: GStreamer, element, driver threads "
          f"{cpu['native'] / cpu_span:.2f} cores; not in any live thread: "
          f"{cpu['unexplained'] / cpu_span:+.3f} cores); max-rss="
          f"{status.get('VmHWM', '?')} threads={status.get('Threads', '?')}")
    if cpu["gone_native"]:
        print(f"detail: note: {len(cpu['gone_native'])} non-Python "
              "thread(s) ended in the window (counted in the process's "
              "and the scoring side's time, not in the table): "
              f"{sorted(set(cpu['gone_native']))[:8]}")
    kinds = {}
    for tid, (comm, d) in cpu["per"].items():
        side = "py" if is_python(pid, tid, comm) else "native"
        key = (side, "main" if tid == pid else thread_kind(comm))
        n, s = kinds.get(key, (0, 0))
        kinds[key] = (n + 1, s + d)
    top = sorted(kinds.items(), key=lambda kv: -kv[1][1])[:12]
    print("detail: threads (cores): " + ", ".join(
        f"{side}:{name} x{n} {s / 1e9 / cpu_span:.3f}"
        for (side, name), (n, s) in top))
    print(f"detail: scrape latency ms min/median/max="
          f"{1e3 * min(lats):.1f}/{1e3 * statistics.median(lats):.1f}/"
          f"{1e3 * max(lats):.1f} body={size} bytes; this program (the "
          f"scraper, another process) {100 * own / cpu_span:.2f} % of a core")
    for n in names:
        b = s1.get(n, {})
        print(f"channel={n} fps={fps[n]:.2f} frames={b.get('frames', 0):.0f}"
              f" state={b.get('state', '?')} restarts="
              f"{b.get('restarts', 0):.0f} "
              f"unpaired={b.get('unpaired', 0):.0f}")
    errors = probe.events(r"event=(error|restarting|failed)")
    print(f"detail: probe exit={stop_rc} errors={len(errors)} "
          f"log={os.path.join(work, 'probe.log')}")
    for line in errors[:5]:
        print("detail: " + line)
    ok = stop_rc == 0 and not not_running and restarts == 0 and total > 0
    if args.element_bench:
        eb = element_bench(args)
        if eb:
            steady, e2e = eb
            ratio = f" probe/element-bench={total / steady:.3f}" \
                if steady else ""
            print(f"element-bench instances={args.channels} size={w}x{h} "
                  f"total-fps={steady if steady else float('nan'):.0f} "
                  f"(steady; end-to-end {e2e if e2e else float('nan'):.0f})"
                  f" probe-total-fps={total:.1f}{ratio}")
    if not ok:
        print(f"detail: warning: not clean (channels not running: "
              f"{not_running[:8]}, restarts {restarts:.0f}, exit {stop_rc})")
    rc = 0 if ok else 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
