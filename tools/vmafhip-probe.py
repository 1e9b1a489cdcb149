#!/usr/bin/python3
"""vmafhip-probe: a long-running VMAF probe over many channels at once.

Reads a TOML file of channels (a reference and a distorted pipeline
description each, and the vmafhip element's properties), runs one GStreamer
pipeline per channel in one process and one GLib main loop, and serves:

  /              a live dashboard (one panel per channel)
  /metrics       Prometheus metrics (vmafhip_*, label channel)
  /api/channels  the dashboard's JSON
  /healthz       "ok"

A channel whose pipeline ends (EOS) or fails is torn down (its results file
finished) and started again after 1 s, 2 s, 4 s ... up to 30 s; the others
go on. SIGTERM or SIGINT stop every channel cleanly and exit 0.

  vmafhip-probe --config probe.toml [--listen 127.0.0.1:9464] [--gpu auto|N]

The HTTP server is read-only (GET and HEAD) and binds to 127.0.0.1 unless
told otherwise; put it behind a reverse proxy with TLS and authentication
to expose it (docs/probe.md).

Needs PyGObject and GStreamer's introspection data (Debian: python3-gi,
gir1.2-gstreamer-1.0), python3-prometheus-client, the vmafhip plugin
(installed, or on GST_PLUGIN_PATH), and for the dashboard's charts Debian's
libjs-chart.js (without it the page draws plain lines).
"""
import argparse
import collections
import http.server
import io
import json
import math
import os
import re
import signal
import socket
import sys
import threading
import time
import tomllib
import urllib.parse

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, GObject, Gst  # noqa: E402

try:
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.core import (CounterMetricFamily,
                                        GaugeMetricFamily)
    from prometheus_client.exposition import CONTENT_TYPE_LATEST
except ImportError:  # said at startup, with the Debian package's name
    CollectorRegistry = None

DEFAULT_LISTEN = "127.0.0.1:9464"
STATES = ("starting", "running", "restarting", "failed", "stopped")
# how often each channel's bus is read (ms): one wake-up for every channel
# instead of one per message (a frame message per scored frame)
BUS_POLL_MS = 100
# where Debian's libjs-chart.js puts Chart.js (v4 names first, then v3's)
CHART_JS = ("/usr/share/javascript/chart.js/chart.umd.min.js",
            "/usr/share/javascript/chart.js/chart.umd.js",
            "/usr/share/javascript/chart.js/chart.min.js",
            "/usr/share/javascript/chart.js/chart.js")

# [probe] settings, each also allowed in a [[channel]] (but listen, history)
PROBE_KEYS = {
    "listen": str,              # HOST:PORT of the HTTP server
    "history": (int, float),    # seconds of score the dashboard keeps
    "restart-delay": (int, float),      # first delay before a restart
    "restart-max-delay": (int, float),  # the delay doubles up to this
    "restart-reset": (int, float),  # a run this long resets the delay
    "max-restarts": int,        # 0: for ever; else failed after that many
    "stall-timeout": (int, float),  # restart without a message (0: off)
    "max-connections": int,     # concurrent HTTP connections
    "gpu": (str, int),          # "auto" or N: the element's device-id
}
PROBE_DEFAULTS = {
    "history": 300, "restart-delay": 1.0, "restart-max-delay": 30.0,
    "restart-reset": 60.0, "max-restarts": 0, "stall-timeout": 0,
    "max-connections": 32,
}
CHANNEL_ONLY_KEYS = {"name", "reference", "distorted", "renditions",
                     "properties", "gpu"}
PER_CHANNEL_KEYS = ("restart-delay", "restart-max-delay", "restart-reset",
                    "max-restarts", "stall-timeout")
# element properties the probe sets itself, or that name the element
RESERVED = {"name", "parent", "frame-message"}
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
TIME_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?)\s*(ns|us|ms|s|min)\s*$")
TIME_UNITS = {"ns": 1, "us": 1000, "ms": 1000000, "s": Gst.SECOND,
              "min": 60 * Gst.SECOND}

MAX_REQUEST_LINE = 8192     # longer: 414
MAX_HEAD = 8192             # request line and headers together; more: 431
REQUEST_TIMEOUT = 5.0       # seconds for a client to send its request


class ConfigError(Exception):
    pass


# ---------------------------------------------------------------- logging

_log_lock = threading.Lock()
# under systemd, a <N> syslog priority prefix sets each line's level in the
# journal (SyslogLevelPrefix=yes, the default)
_JOURNAL = bool(os.environ.get("JOURNAL_STREAM"))
_PRIORITY = {"error": 3, "warning": 4, "info": 6}


def _logfmt(value):
    if isinstance(value, float):
        value = f"{value:.6g}"
    s = str(value)
    if s and re.fullmatch(r"[A-Za-z0-9_.:/@+,-]+", s):
        return s
    s = s.replace("\\", "\\\\").replace('"', '\\"')
    s = s.replace("\n", " ").replace("\r", " ")
    return f'"{s}"'


def log(level="info", **fields):
    """One line to stderr: key=value pairs (logfmt), journald-friendly."""
    line = " ".join(f"{k.replace('_', '-')}={_logfmt(v)}"
                    for k, v in fields.items())
    if _JOURNAL:
        line = f"<{_PRIORITY.get(level, 6)}>{line}"
    with _log_lock:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


# ---------------------------------------------------------------- config

def parse_listen(text):
    """HOST:PORT, [V6]:PORT or :PORT as (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ConfigError(f"listen address {text!r}: not HOST:PORT")
    host = host.strip("[]") or "127.0.0.1"
    return host, int(port)


def gpu_device(value, where):
    """A gpu setting ("auto" or a GPU index N) as the element's device-id
    (-1 for auto); a ConfigError naming `where` otherwise."""
    if value == "auto":
        return -1
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise ConfigError(f"{where}: gpu = {value!r}: give \"auto\" (each "
                      "channel on the least-loaded GPU) or a GPU index "
                      "(0, 1, ...)")


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def element_value(element, channel, prop, value):
    """The string Gst.util_set_object_arg takes for vmafhip's property
    `prop`, checked against its type and range; a ConfigError naming the
    channel and the property otherwise."""
    where = f"channel {channel!r}: property {prop!r}"
    pspec = element.find_property(prop)
    if pspec is None:
        raise ConfigError(f"{where}: vmafhip has no such property "
                          "(gst-inspect-1.0 vmafhip lists them)")
    if prop in RESERVED:
        raise ConfigError(f"{where}: set by the probe, not in the config")
    if not pspec.flags & GObject.ParamFlags.WRITABLE:
        raise ConfigError(f"{where}: read-only")
    t = pspec.value_type
    fund = GObject.type_fundamental(t)
    if fund == GObject.TYPE_BOOLEAN:
        if isinstance(value, str) and value.lower() in ("true", "false"):
            value = value.lower() == "true"
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {value!r} is not true or false")
        return "true" if value else "false"
    if fund in (GObject.TYPE_INT, GObject.TYPE_UINT, GObject.TYPE_INT64,
                GObject.TYPE_UINT64, GObject.TYPE_LONG, GObject.TYPE_ULONG):
        if isinstance(value, str) and fund == GObject.TYPE_UINT64:
            m = TIME_RE.match(value)   # "2s", "500ms": a time in ns
            if m:
                value = int(round(float(m.group(1))
                                  * TIME_UNITS[m.group(2)]))
        if not isinstance(value, int) or isinstance(value, bool):
            raise ConfigError(f"{where}: {value!r} is not an integer"
                              + (" (or a time such as \"2s\", \"500ms\")"
                                 if fund == GObject.TYPE_UINT64 else ""))
        if not pspec.minimum <= value <= pspec.maximum:
            raise ConfigError(f"{where}: {value} is outside "
                              f"{pspec.minimum}..{pspec.maximum}")
        return str(value)
    if fund in (GObject.TYPE_DOUBLE, GObject.TYPE_FLOAT):
        if not _number(value) or math.isnan(value):
            raise ConfigError(f"{where}: {value!r} is not a number")
        if not pspec.minimum <= value <= pspec.maximum:
            raise ConfigError(f"{where}: {value} is outside "
                              f"{pspec.minimum:g}..{pspec.maximum:g}")
        return repr(float(value))
    if fund == GObject.TYPE_ENUM:
        values = type(pspec.default_value).__enum_values__.values()
        names = [v.value_nick for v in values]
        if isinstance(value, str) and value in names:
            return value
        raise ConfigError(f"{where}: {value!r} is not one of "
                          f"{', '.join(names)}")
    if fund == GObject.TYPE_STRING:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: {value!r} is not a string")
        return value
    raise ConfigError(f"{where}: a property of type {t.name} cannot be set "
                      "from the config")


def report_names(models):
    """The models' report names, as the element gives them (`:name=`, else
    `vmaf`)."""
    if not models:
        return ["vmaf"]
    names = []
    for entry in models.split(","):
        name = None
        for part in entry.split(":"):
            if part.startswith("name="):
                name = part[5:]
        names.append(name or "vmaf")
    return names


def load_config(path, element, gpu=None):
    """The config file as (probe settings, [channel settings]); a
    ConfigError says what is wrong where.  `gpu` (--gpu) takes the place
    of [probe] gpu."""
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"{path}: {e.strerror}")
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: {e}")
    unknown = set(doc) - {"probe", "channel"}
    if unknown:
        raise ConfigError(f"unknown top-level key(s) {sorted(unknown)} "
                          "(expected [probe] and [[channel]])")
    probe = dict(PROBE_DEFAULTS)
    for key, value in doc.get("probe", {}).items():
        if key not in PROBE_KEYS:
            raise ConfigError(f"[probe]: unknown key {key!r} (known: "
                              f"{', '.join(sorted(PROBE_KEYS))})")
        if not isinstance(value, PROBE_KEYS[key]) or isinstance(value, bool):
            raise ConfigError(f"[probe]: {key} = {value!r}: wrong type")
        probe[key] = value
    if gpu is not None:
        probe["gpu"] = gpu
    if "gpu" in probe:
        gpu_device(probe["gpu"], "--gpu" if gpu is not None else "[probe]")
    channels = doc.get("channel", [])
    if not isinstance(channels, list) or not channels:
        raise ConfigError("no [[channel]] in the config")
    seen = set()
    out = []
    for i, ch in enumerate(channels):
        name = ch.get("name")
        label = repr(name) if isinstance(name, str) else f"#{i + 1}"
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise ConfigError(f"channel {label}: name must be 1-64 letters, "
                              "digits, '_', '.', ':' or '-'")
        if name in seen:
            raise ConfigError(f"channel {label}: name used twice")
        seen.add(name)
        for key in ch:
            if key not in CHANNEL_ONLY_KEYS and key not in PER_CHANNEL_KEYS:
                raise ConfigError(
                    f"channel {label}: unknown key {key!r} (element "
                    "properties go in its [channel.properties] table)")
        c = {"name": name}
        for key in ("reference", "distorted"):
            if not isinstance(ch.get(key), str) or not ch[key].strip():
                raise ConfigError(f"channel {label}: {key} (a pipeline "
                                  "description ending in raw video) missing")
            c[key] = ch[key]
        rend = ch.get("renditions", [])
        if not isinstance(rend, list) or not all(
                isinstance(r, str) and r.strip() for r in rend):
            raise ConfigError(f"channel {label}: renditions must be a list "
                              "of pipeline descriptions")
        c["renditions"] = rend
        for key in PER_CHANNEL_KEYS:
            value = ch.get(key, probe[key])
            if not isinstance(value, PROBE_KEYS[key]) \
                    or isinstance(value, bool):
                raise ConfigError(f"channel {label}: {key} = {value!r}: "
                                  "wrong type")
            c[key] = value
        props = ch.get("properties", {})
        if not isinstance(props, dict):
            raise ConfigError(f"channel {label}: properties must be a table")
        c["properties"] = []
        c["force-live"] = None
        for prop, value in props.items():
            text = element_value(element, name, prop, value)
            if prop == "force-live":   # construct-only: in the description
                c["force-live"] = text
            else:
                c["properties"].append((prop, text))
        # gpu: the channel's, else the probe's (a device-id of the
        # channel's properties wins over the probe's)
        if "gpu" in ch and "device-id" in props:
            raise ConfigError(f"channel {label}: gpu and properties' "
                              "device-id both set: give one")
        if "gpu" in ch or ("gpu" in probe and "device-id" not in props):
            device = gpu_device(ch.get("gpu", probe.get("gpu")),
                                f"channel {label}")
            c["properties"].append(("device-id", str(device)))
        out.append(c)
    return probe, out


def launch_description(c):
    """The channel's pipeline: its sources into a vmafhip named v."""
    parts = [f"{c['reference']} ! queue ! v.ref_sink",
             f"{c['distorted']} ! queue ! v.dist_sink"]
    for i, r in enumerate(c["renditions"]):
        parts.append(f"{r} ! queue ! v.dist_sink_{i}")
    live = f" force-live={c['force-live']}" if c["force-live"] else ""
    parts.append(f"vmafhip name=v frame-message=true{live} "
                 "! fakesink sync=false")
    return " ".join(parts)


# ---------------------------------------------------------------- channels

def error_text(msg):
    """An error message as one line: the element, the message and the
    last line of the debug text (where it names the file, the host)."""
    err, debug = msg.parse_error()
    src = msg.src.get_name() if msg.src else "?"
    text = f"{src}: {err.message}"
    last = (debug or "").strip().splitlines()[-1:] or [""]
    if last[0] and len(last[0]) < 300 and "): " not in last[0]:
        text += f" ({last[0].strip()})"
    return text


class PadStats:
    """What one distorted pad of a channel reported."""

    FPS_SPAN = 5.0

    def __init__(self, history):
        self.scores = {}            # model -> last frame's score
        self.frames = 0             # scored, over every run
        self.window = {}            # model -> {mean, min, max, p5}
        self.alarm = {}             # model -> 0/1
        self.alarms = {}            # model -> raised count
        self.lag_frames = None
        self.lag_seconds = None
        self.locked = None          # None: align is not auto
        self.difference = None
        self.last_frame = None      # wall time of the last frame
        self.arrivals = collections.deque()
        self.history = collections.deque(maxlen=int(history))
        self.bucket = None          # [second, sum, n, min]

    def frame(self, now, score):
        self.frames += 1
        self.last_frame = now
        self.arrivals.append(now)
        while self.arrivals and self.arrivals[0] < now - self.FPS_SPAN:
            self.arrivals.popleft()
        if score is None:
            return
        sec = int(now)
        b = self.bucket
        if b is not None and b[0] != sec:
            self.history.append([b[0], b[1] / b[2], b[3]])
            b = None
        if b is None:
            self.bucket = [sec, score, 1, score]
        else:
            b[1] += score
            b[2] += 1
            b[3] = min(b[3], score)

    def fps(self, now, run_start):
        n = sum(1 for t in self.arrivals if t >= now - self.FPS_SPAN)
        span = min(self.FPS_SPAN, now - run_start) if run_start else 0
        return n / span if span > 0.5 else 0.0

    def points(self):
        pts = list(self.history)
        if self.bucket:
            b = self.bucket
            pts.append([b[0], b[1] / b[2], b[3]])
        return pts

    def reset_live(self):
        """At a restart: what the new run finds again."""
        for m in self.alarm:
            self.alarm[m] = 0
        if self.locked is not None:
            self.locked = 0
        self.arrivals.clear()


class Channel:
    def __init__(self, probe, conf):
        self.probe = probe
        self.conf = conf
        self.name = conf["name"]
        self.description = launch_description(conf)
        self.state = "starting"
        self.since = time.time()
        self.reason = ""
        self.restarts = 0
        self.failures = 0           # in a row, for the backoff
        self.delay = float(conf["restart-delay"])
        self.run = 0
        self.run_start = None
        self.last_activity = None
        self.pipeline = None
        self.element = None
        self.bus = None
        self.timer = None
        self.tearing_down = False
        self.models = ["vmaf"]
        self.threshold = None
        self.backend = None         # active-backend, once started
        self.pads = {}
        self.unpaired = {"ref_sink": 0, "dist_sink": 0}   # finished runs
        self.unpaired_now = {"ref_sink": 0, "dist_sink": 0}

    # -- state, under the probe's lock

    def set_state(self, state, reason=None):
        with self.probe.lock:
            self.state = state
            self.since = time.time()
            if reason is not None:
                self.reason = reason

    def pad(self, name):
        p = self.pads.get(name)
        if p is None:
            p = self.pads[name] = PadStats(self.probe.settings["history"])
        return p

    # -- running

    def start(self):
        self.timer = None
        self.run += 1
        self.set_state("starting")
        try:
            pipeline = Gst.parse_launch(self.description)
        except GLib.Error as e:
            self.restart_later("error", f"pipeline: {e.message}")
            return False
        v = pipeline.get_by_name("v")
        for prop, text in self.conf["properties"]:
            if prop == "results-filename":
                text = text.replace("{run}", str(self.run)).replace(
                    "{time}", time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()))
            Gst.util_set_object_arg(v, prop, text)
        self.models = report_names(v.get_property("models"))
        thr = v.get_property("alarm-threshold")
        self.threshold = thr if thr >= 0 else None
        self.pipeline, self.element = pipeline, v
        # read by Probe.drain, every BUS_POLL_MS: no wake-up of the main
        # loop per message
        self.bus = pipeline.get_bus()
        self.tearing_down = False
        self.run_start = self.last_activity = time.time()
        log(channel=self.name, event="starting", run=self.run)
        if pipeline.set_state(Gst.State.PLAYING) == \
                Gst.StateChangeReturn.FAILURE:
            # the error message on the bus says why, if there is one
            msg = self.bus.pop_filtered(Gst.MessageType.ERROR)
            why = "could not start the pipeline"
            if msg:
                why = error_text(msg)
            self.restart_later("error", why)
            return False
        # chosen at the element's start, within set_state
        backend = v.get_property("active-backend")
        with self.probe.lock:
            self.backend = backend
        log(channel=self.name, event="backend", backend=backend or "")
        return False

    def teardown(self):
        """Stop the pipeline (NULL finishes its results files) and take
        the messages it posted on the way."""
        if self.pipeline is None:
            return
        self.tearing_down = True
        self.poll_unpaired()
        # READY first: the element finishes there and posts its pooled
        # messages, which NULL (its bus flushing) would drop unread
        self.pipeline.set_state(Gst.State.READY)
        while True:
            msg = self.bus.pop()
            if msg is None:
                break
            self.on_message(self.bus, msg, self.run)
        self.pipeline.set_state(Gst.State.NULL)
        with self.probe.lock:
            for k in self.unpaired:
                self.unpaired[k] += self.unpaired_now[k]
                self.unpaired_now[k] = 0
            for p in self.pads.values():
                p.reset_live()
        self.pipeline = self.element = self.bus = None

    def restart_later(self, event, reason):
        lasted = time.time() - (self.run_start or time.time())
        self.teardown()
        level = "info" if event == "eos" else "error"
        log(level, channel=self.name, event=event, reason=reason)
        if lasted >= self.conf["restart-reset"]:
            self.failures = 0
            self.delay = float(self.conf["restart-delay"])
        self.failures += 1
        limit = self.conf["max-restarts"]
        if limit and self.failures > limit:
            self.set_state("failed", reason)
            log("error", channel=self.name, event="failed", reason=reason,
                restarts=self.restarts)
            return
        delay = self.delay
        self.delay = min(self.delay * 2, float(self.conf["restart-max-delay"]))
        self.set_state("restarting", reason)
        log("warning", channel=self.name, event="restarting",
            delay=f"{delay:g}s", reason=reason)
        self.timer = GLib.timeout_add(int(delay * 1000), self._restart)

    def _restart(self):
        with self.probe.lock:
            self.restarts += 1
        self.start()
        return False

    def stop(self):
        if self.timer is not None:
            GLib.source_remove(self.timer)
            self.timer = None
        self.teardown()
        self.set_state("stopped")
        log(channel=self.name, event="stopped")

    def poll_unpaired(self):
        v = self.element
        if v is None:
            return
        ref = v.get_property("unpaired-ref-frames")
        dist = v.get_property("unpaired-dist-frames")
        with self.probe.lock:
            self.unpaired_now["ref_sink"] = ref
            self.unpaired_now["dist_sink"] = dist

    def tick(self, now):
        """Once a second from the main loop."""
        if self.pipeline is None or self.tearing_down:
            return
        self.poll_unpaired()
        stall = self.conf["stall-timeout"]
        if stall and self.last_activity and now - self.last_activity > stall:
            self.restart_later("stalled", f"no message from vmafhip for "
                               f"{stall:g} s")

    # -- the bus

    def drain_bus(self):
        """The messages posted since the last call (a message may tear
        the run down: then its bus is gone)."""
        bus = self.bus
        while bus is not None and bus is self.bus:
            msg = bus.pop()
            if msg is None:
                break
            self.on_message(bus, msg, self.run)

    def on_message(self, bus, msg, run):
        if run != self.run:
            return
        t = msg.type
        if t == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s is not None:
                self.on_element(s)
        elif t == Gst.MessageType.EOS:
            if not self.tearing_down:
                self.restart_later("eos", "end of stream")
        elif t == Gst.MessageType.ERROR:
            if not self.tearing_down:
                self.restart_later("error", error_text(msg))
        elif t == Gst.MessageType.WARNING:
            err, _ = msg.parse_warning()
            src = msg.src.get_name() if msg.src else "?"
            log("warning", channel=self.name, event="warning",
                reason=f"{src}: {err.message}")
        elif t == Gst.MessageType.STATE_CHANGED and msg.src == self.pipeline:
            _, new, _ = msg.parse_state_changed()
            if new == Gst.State.PLAYING and self.state == "starting":
                self.set_state("running", "")
                log(channel=self.name, event="running", run=self.run)

    def on_element(self, s):
        name = s.get_name()
        now = time.time()
        if name not in ("VMAF", "vmafhip-alarm", "vmafhip-sync"):
            return
        self.last_activity = now
        ok, pad_name = True, s.get_string("pad") or "dist_sink"
        if name == "VMAF":
            kind = s.get_string("type")
            with self.probe.lock:
                p = self.pad(pad_name)
                if kind == "frame":
                    first = None
                    for m in self.models:
                        ok, val = s.get_double(m)
                        if ok:
                            p.scores[m] = val
                            first = val if first is None else first
                    ok, score = s.get_double("score")
                    p.frame(now, score if ok else first)
                elif kind == "window":
                    for m in self.models:
                        w = {}
                        for stat in ("mean", "min", "max", "p5"):
                            ok, val = s.get_double(f"{m}-{stat}")
                            if ok:
                                w[stat] = val
                        if w:
                            p.window[m] = w
            if kind == "pooled":
                ok, n = s.get_uint("n-frames")
                ok2, score = s.get_double("score")
                log(channel=self.name, event="pooled", pad=pad_name,
                    frames=n if ok else 0,
                    score=round(score, 3) if ok2 else "none",
                    end=s.get_string("end") or "")
        elif name == "vmafhip-alarm":
            state = s.get_string("state")
            model = s.get_string("model") or self.models[0]
            ok, windowed = s.get_double("windowed-score")
            with self.probe.lock:
                p = self.pad(pad_name)
                p.alarm[model] = 1 if state == "raised" else 0
                p.alarms.setdefault(model, 0)
                if state == "raised":
                    p.alarms[model] += 1
            log("warning" if state == "raised" else "info",
                channel=self.name, event="alarm", state=state, pad=pad_name,
                model=model, windowed=round(windowed, 3) if ok else "none")
        elif name == "vmafhip-sync":
            state = s.get_string("state")
            ok, frames = s.get_int("offset-frames")
            ok2, ns = s.get_int64("offset")
            ok3, diff = s.get_double("difference")
            with self.probe.lock:
                p = self.pad(pad_name)
                p.locked = 1 if state in ("locked", "changed") else 0
                if ok:
                    p.lag_frames = frames
                if ok2:
                    p.lag_seconds = ns / Gst.SECOND
                if ok3:
                    p.difference = diff
            log(channel=self.name, event="sync", state=state, pad=pad_name,
                lag_frames=frames if ok else "none")

    # -- reading, under the probe's lock

    def snapshot(self, now):
        pads = []
        for name, p in sorted(self.pads.items()):
            pads.append({
                "pad": name,
                "scores": dict(p.scores),
                "frames": p.frames,
                "window": {m: dict(w) for m, w in p.window.items()},
                "alarm": dict(p.alarm),
                "alarms": dict(p.alarms),
                "lag_frames": p.lag_frames,
                "lag_seconds": p.lag_seconds,
                "locked": p.locked,
                "difference": p.difference,
                "fps": round(p.fps(now, self.run_start)
                             if self.state == "running" else 0.0, 3),
                "last_frame": p.last_frame,
                "points": [[t, round(m, 3), round(lo, 3)]
                           for t, m, lo in p.points()],
            })
        return {
            "name": self.name,
            "state": self.state,
            "since": self.since,
            "reason": self.reason[:300],
            "restarts": self.restarts,
            "models": list(self.models),
            "threshold": self.threshold,
            "backend": self.backend,
            "unpaired": {k: self.unpaired[k] + self.unpaired_now[k]
                         for k in self.unpaired},
            "pads": pads,
        }


# ---------------------------------------------------------------- metrics

class ProbeCollector:
    """prometheus_client collector: the channels' state at each scrape."""

    def __init__(self, probe):
        self.probe = probe

    def collect(self):
        snap = self.probe.snapshot()
        g = {}

        def fam(kind, name, doc, labels):
            if name not in g:
                cls = CounterMetricFamily if kind == "c" else \
                    GaugeMetricFamily
                g[name] = cls("vmafhip_" + name, doc, labels=labels)
            return g[name]

        CP = ["channel", "pad"]
        CPM = ["channel", "pad", "model"]
        fam("g", "channel_state", "1 for the channel's current state "
            "(starting, running, restarting, failed, stopped)",
            ["channel", "state"])
        fam("c", "channel_restarts", "Times the channel's pipeline was "
            "started again after an error, EOS or a stall", ["channel"])
        fam("c", "frames_scored", "Frames scored", CP)
        fam("g", "score", "The last frame's score, per model", CPM)
        fam("g", "window_score_mean", "The last window's mean score", CPM)
        fam("g", "window_score_min", "The last window's lowest score", CPM)
        fam("g", "window_score_p5", "The last window's 5th percentile", CPM)
        fam("g", "alarm", "1 while a quality alarm is raised", CPM)
        fam("c", "alarms", "Quality alarms raised", CPM)
        fam("c", "unpaired_frames", "Frames without a partner (ref_sink: "
            "reference frames, dist_sink: distorted ones)", CP)
        fam("g", "align_lag_frames", "align=auto: the distorted feed's lag "
            "in frames (positive: late)", CP)
        fam("g", "align_lag_seconds", "align=auto: the lag in seconds", CP)
        fam("g", "align_locked", "align=auto: 1 while the lag is locked",
            CP)
        fam("g", "scoring_fps", "Frames scored per second (last 5 s)", CP)
        fam("g", "last_frame_timestamp_seconds",
            "Unix time of the last scored frame", CP)
        for ch in snap["channels"]:
            c = ch["name"]
            for st in STATES:
                g["channel_state"].add_metric(
                    [c, st], 1.0 if ch["state"] == st else 0.0)
            g["channel_restarts"].add_metric([c], ch["restarts"])
            for pad, n in sorted(ch["unpaired"].items()):
                g["unpaired_frames"].add_metric([c, pad], n)
            for p in ch["pads"]:
                lp = [c, p["pad"]]
                g["frames_scored"].add_metric(lp, p["frames"])
                g["scoring_fps"].add_metric(lp, p["fps"])
                if p["last_frame"] is not None:
                    g["last_frame_timestamp_seconds"].add_metric(
                        lp, p["last_frame"])
                for m, v in p["scores"].items():
                    g["score"].add_metric(lp + [m], v)
                for m, w in p["window"].items():
                    for stat in ("mean", "min", "p5"):
                        if stat in w:
                            g["window_score_" + stat].add_metric(lp + [m],
                                                                 w[stat])
                models = set(p["alarm"]) | (
                    set(ch["models"][:1]) if ch["threshold"] is not None
                    else set())
                for m in sorted(models):
                    g["alarm"].add_metric(lp + [m], p["alarm"].get(m, 0))
                    g["alarms"].add_metric(lp + [m], p["alarms"].get(m, 0))
                if p["locked"] is not None:
                    g["align_locked"].add_metric(lp, p["locked"])
                if p["lag_frames"] is not None:
                    g["align_lag_frames"].add_metric(lp, p["lag_frames"])
                if p["lag_seconds"] is not None:
                    g["align_lag_seconds"].add_metric(lp, p["lag_seconds"])
        yield from g.values()


# ---------------------------------------------------------------- HTTP

class ProbeServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64
    allow_reuse_address = True

    def __init__(self, address, probe, max_connections):
        host = address[0]
        if ":" in host:
            self.address_family = socket.AF_INET6
        self.probe = probe
        self.slots = threading.BoundedSemaphore(max_connections)
        super().__init__(address, Handler)

    def process_request(self, request, client_address):
        if not self.slots.acquire(blocking=False):
            # full: a short answer and the connection closed, no thread
            try:
                request.settimeout(1.0)
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\n"
                                b"Connection: close\r\nContent-Length: 0"
                                b"\r\nRetry-After: 1\r\n\r\n")
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            self.slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request, client_address):
        e = sys.exc_info()[1]
        log("warning", event="http-error", client=client_address[0],
            reason=f"{type(e).__name__}: {e}")


class Handler(http.server.BaseHTTPRequestHandler):
    """Read-only: GET and HEAD of a few fixed paths; nothing from the
    request but its method and path is used."""

    server_version = "vmafhip-probe"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    default_request_version = "HTTP/1.0"    # a status line, always
    timeout = REQUEST_TIMEOUT

    def handle(self):
        self.close_connection = True
        self.handle_one_request()

    def read_head(self):
        """The request line and headers, read with a deadline and a size
        limit; (head, status) with status 0 when whole."""
        deadline = time.monotonic() + REQUEST_TIMEOUT
        buf = b""
        while True:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                end = buf.find(b"\n\n")
            first = buf.find(b"\n")
            if (first < 0 and len(buf) > MAX_REQUEST_LINE) \
                    or first > MAX_REQUEST_LINE:
                return buf, 414
            if end >= 0:
                return buf[:end + 2], (431 if end > MAX_HEAD else 0)
            if len(buf) > MAX_HEAD:
                return buf, 431
            left = deadline - time.monotonic()
            if left <= 0:
                return buf, 408
            self.connection.settimeout(left)
            try:
                chunk = self.connection.recv(4096)
            except socket.timeout:
                return buf, 408
            if not chunk:
                return buf, (0 if buf.endswith(b"\n") else 400)
            buf += chunk

    def handle_one_request(self):
        self.requestline = ""
        self.request_version = "HTTP/1.1"
        self.command = ""
        try:
            head, status = self.read_head()
        except OSError:
            return
        if not head.strip():
            return              # nothing asked: just close
        if status:
            self.send_error(status)
            return
        line, _, rest = head.partition(b"\n")
        self.raw_requestline = line + b"\n"
        self.rfile = io.BytesIO(rest + b"\r\n")
        if not self.parse_request():
            return
        if self.command not in ("GET", "HEAD"):
            self.send_response(405)
            self.send_header("Allow", "GET, HEAD")
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            return
        self.route()

    def route(self):
        path = urllib.parse.urlsplit(self.path).path
        probe = self.server.probe
        if path == "/metrics":
            body = generate_latest(probe.registry)
            return self.reply(200, CONTENT_TYPE_LATEST, body)
        if path == "/api/channels":
            body = json.dumps(probe.snapshot(), separators=(",", ":"))
            return self.reply(200, "application/json", body.encode())
        if path in ("/", "/index.html"):
            return self.reply(200, "text/html; charset=utf-8",
                              DASHBOARD_HTML.encode())
        if path == "/static/dashboard.js":
            return self.reply(200, "text/javascript; charset=utf-8",
                              DASHBOARD_JS.encode())
        if path == "/static/chart.js" and probe.chart_js is not None:
            return self.reply(200, "text/javascript; charset=utf-8",
                              probe.chart_js, cache=True)
        if path == "/healthz":
            return self.reply(200, "text/plain; charset=utf-8", b"ok\n")
        self.send_error(404)

    def reply(self, code, ctype, body, cache=False):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control",
                         "max-age=3600" if cache else "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy",
                         "default-src 'self'; style-src 'self' "
                         "'unsafe-inline'; img-src 'self' data:; "
                         "frame-ancestors 'none'; base-uri 'none'; "
                         "form-action 'none'")
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error(self, code, message=None, explain=None):
        self.close_connection = True
        try:
            super().send_error(code, message, explain)
        except OSError:
            pass

    def log_message(self, fmt, *args):
        pass                    # no line per request (scrapes)

    def log_error(self, fmt, *args):
        log("warning", event="http-error", client=self.client_address[0],
            reason=fmt % args)


# ---------------------------------------------------------------- the probe

class Probe:
    def __init__(self, settings, channels, chart_js=CHART_JS):
        self.settings = settings
        self.lock = threading.Lock()
        self.channels = [Channel(self, c) for c in channels]
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(ProbeCollector(self))
        self.chart_js = None
        for path in chart_js:
            try:
                with open(path, "rb") as f:
                    self.chart_js = f.read()
                break
            except OSError:
                continue
        self.loop = GLib.MainLoop()
        self.server = None
        self.stopping = False

    def snapshot(self):
        now = time.time()
        with self.lock:
            return {"now": now, "history": self.settings["history"],
                    "channels": [c.snapshot(now) for c in self.channels]}

    def tick(self):
        now = time.time()
        for c in self.channels:
            c.tick(now)
        return True

    def drain(self):
        for c in self.channels:
            c.drain_bus()
        return True

    def stop(self, signum):
        if self.stopping:
            return True
        self.stopping = True
        log(event="stopping", signal=signal.Signals(signum).name)
        for c in self.channels:
            c.stop()
        self.loop.quit()
        return True

    def run(self, listen):
        host, port = listen
        try:
            self.server = ProbeServer((host, port), self,
                                      self.settings["max-connections"])
        except OSError as e:
            raise ConfigError(f"cannot listen on {host}:{port}: "
                              f"{e.strerror}")
        addr = self.server.server_address
        shown = f"[{addr[0]}]" if ":" in addr[0] else addr[0]
        http_thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.25},
                                       name="http", daemon=True)
        http_thread.start()
        log(event="listening", address=f"http://{shown}:{addr[1]}/",
            channels=len(self.channels),
            chart_js="yes" if self.chart_js else "no (plain lines)")
        for sig in (signal.SIGTERM, signal.SIGINT):
            GLib.unix_signal_add(GLib.PRIORITY_HIGH, sig, self.stop, sig)
        GLib.timeout_add(1000, self.tick)
        GLib.timeout_add(BUS_POLL_MS, self.drain)
        for c in self.channels:
            GLib.idle_add(c.start)
        self.loop.run()
        self.server.shutdown()
        self.server.server_close()
        log(event="stopped")


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="vmafhip-probe", description=__doc__.splitlines()[0],
        epilog="Reference: docs/probe.md")
    p.add_argument("--config", required=True, help="the TOML file")
    p.add_argument("--listen", help="HOST:PORT of the HTTP server "
                   f"(default: [probe] listen, else {DEFAULT_LISTEN}); "
                   "port 0 takes a free one, logged at start")
    p.add_argument("--chart-js", metavar="FILE",
                   help="Chart.js (its UMD build) for the dashboard "
                   "(default: Debian's libjs-chart.js); 'none': plain "
                   "lines drawn by the page itself")
    p.add_argument("--gpu", metavar="auto|N",
                   help="every channel's GPU (the element's device-id), in "
                   "place of [probe] gpu: auto puts each channel on the "
                   "least-loaded GPU, N on GPU N; a channel's own gpu "
                   "still wins")
    p.add_argument("--check", action="store_true",
                   help="check the config (and parse every pipeline), "
                   "then exit")
    args = p.parse_args(argv)

    if CollectorRegistry is None:
        print("vmafhip-probe: python3-prometheus-client is missing "
              "(Debian: apt-get install python3-prometheus-client)",
              file=sys.stderr)
        return 1
    Gst.init(None)
    element = Gst.ElementFactory.make("vmafhip", None)
    if element is None:
        print("vmafhip-probe: no vmafhip element (install the plugin, or "
              "set GST_PLUGIN_PATH to its folder)", file=sys.stderr)
        return 1
    try:
        settings, channels = load_config(args.config, element, args.gpu)
        listen = parse_listen(args.listen or settings.get("listen")
                              or DEFAULT_LISTEN)
        for c in channels:   # every description parses before any runs
            try:
                pl = Gst.parse_launch(launch_description(c))
                pl.set_state(Gst.State.NULL)
            except GLib.Error as e:
                raise ConfigError(f"channel {c['name']!r}: pipeline: "
                                  f"{e.message}")
    except ConfigError as e:
        print(f"vmafhip-probe: {args.config}: {e}", file=sys.stderr)
        return 2
    if args.check:
        print(f"vmafhip-probe: {args.config}: {len(channels)} channel(s), "
              "ok")
        return 0
    chart_js = CHART_JS
    if args.chart_js:
        chart_js = () if args.chart_js == "none" else (args.chart_js,)
        if args.chart_js != "none" and not os.path.isfile(args.chart_js):
            print(f"vmafhip-probe: --chart-js {args.chart_js}: no such "
                  "file", file=sys.stderr)
            return 2
    probe = Probe(settings, channels, chart_js)
    try:
        probe.run(listen)
    except ConfigError as e:
        print(f"vmafhip-probe: {e}", file=sys.stderr)
        return 1
    return 0


# ---------------------------------------------------------------- dashboard

DASHBOARD_HTML = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vmafhip probe</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #f4f5f7;
       color: #1d2330; }
header { padding: 10px 18px; background: #1d2330; color: #fff;
         display: flex; gap: 18px; align-items: baseline; }
header h1 { font-size: 18px; margin: 0; }
header span { opacity: .75; }
#channels { display: grid; gap: 14px; padding: 14px;
            grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); }
.panel { background: #fff; border-radius: 6px; padding: 10px 14px;
         box-shadow: 0 1px 3px rgba(0,0,0,.15); border-top: 4px solid #999; }
.panel.running { border-top-color: #2f9e44; }
.panel.restarting, .panel.starting { border-top-color: #f08c00; }
.panel.failed, .panel.alarm { border-top-color: #e03131; }
.panel h2 { font-size: 16px; margin: 0 0 6px; display: flex;
            justify-content: space-between; }
.badge { font-size: 12px; padding: 1px 8px; border-radius: 10px;
         background: #dee2e6; }
.badge.running { background: #d3f9d8; } .badge.failed { background: #ffc9c9; }
.badge.restarting, .badge.starting { background: #ffe8cc; }
.stats { display: grid; grid-template-columns: repeat(4, 1fr); gap: 4px;
         margin-bottom: 6px; }
.stat b { display: block; font-size: 18px; }
.stat small { color: #667; }
.alarm-on { color: #e03131; font-weight: bold; }
.reason { color: #a61e4d; font-size: 12px; min-height: 1em;
          overflow-wrap: anywhere; }
.chart-box { position: relative; height: 180px; }
canvas.chart { width: 100%; height: 180px; }
</style>
</head>
<body>
<header><h1>vmafhip probe</h1><span id="status">connecting</span></header>
<main id="channels"></main>
<script src="static/chart.js"></script>
<script src="static/dashboard.js"></script>
</body>
</html>
"""

DASHBOARD_JS = r"""'use strict';
const panels = new Map();
let updates = 0;
const haveChart = typeof Chart !== 'undefined';
document.body.dataset.charting = haveChart ? 'chart.js' : 'canvas';

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function fmt(v, digits) {
  return (v === null || v === undefined) ? '\u2013' : v.toFixed(digits);
}
function stat(label) {
  const d = el('div', 'stat');
  const b = el('b', null, '\u2013');
  d.append(b, el('small', null, label));
  return [d, b];
}
const COLORS = ['#1971c2', '#e8590c', '#2f9e44', '#9c36b5', '#0c8599'];

function makePanel(name) {
  const p = el('section', 'panel');
  p.dataset.channel = name;
  const h = el('h2');
  const badge = el('span', 'badge', '');
  h.append(el('span', 'name', name), badge);
  const stats = el('div', 'stats');
  const s = {};
  for (const [k, label] of [['score', 'last score'], ['mean', 'window mean'],
                            ['min', 'window min'], ['alarm', 'alarm'],
                            ['lag', 'lag (frames)'], ['fps', 'frames/s'],
                            ['frames', 'frames'], ['restarts', 'restarts']]) {
    const [d, b] = stat(label);
    stats.append(d);
    s[k] = b;
  }
  const reason = el('div', 'reason');
  const box = el('div', 'chart-box');
  const canvas = el('canvas', 'chart');
  canvas.dataset.points = '0';
  box.append(canvas);
  p.append(h, stats, reason, box);
  document.getElementById('channels').append(p);
  const panel = {p, badge, s, reason, canvas, chart: null};
  if (haveChart) {
    panel.chart = new Chart(canvas, {
      type: 'line',
      data: {datasets: []},
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        parsing: false, normalized: true,
        elements: {point: {radius: 0}, line: {borderWidth: 1.5}},
        scales: {
          x: {type: 'linear', title: {display: true, text: 'seconds ago'},
              ticks: {callback: v => -v}},
          y: {suggestedMin: 0, suggestedMax: 100},
        },
        plugins: {legend: {display: true, labels: {boxWidth: 12}}},
      },
    });
  }
  return panel;
}

function series(ch, now) {
  const out = [];
  ch.pads.forEach((pad, i) => {
    out.push({label: pad.pad + ' ' + (ch.models[0] || 'score'),
              data: pad.points.map(pt => ({x: pt[0] - now, y: pt[1]})),
              color: COLORS[i % COLORS.length]});
  });
  return out;
}

function drawPlain(canvas, sets, history, threshold) {
  const w = canvas.width = canvas.clientWidth || 400;
  const h = canvas.height = canvas.clientHeight || 180;
  const g = canvas.getContext('2d');
  g.clearRect(0, 0, w, h);
  const X = x => (x + history) / history * (w - 30) + 28;
  const Y = y => h - 14 - Math.max(0, Math.min(110, y)) / 110 * (h - 20);
  g.strokeStyle = '#ccc'; g.fillStyle = '#667'; g.font = '10px sans-serif';
  for (const y of [0, 50, 100]) {
    g.beginPath(); g.moveTo(28, Y(y)); g.lineTo(w, Y(y)); g.stroke();
    g.fillText(String(y), 2, Y(y) + 3);
  }
  if (threshold !== null) {
    g.setLineDash([4, 4]); g.strokeStyle = '#e03131';
    g.beginPath(); g.moveTo(28, Y(threshold)); g.lineTo(w, Y(threshold));
    g.stroke(); g.setLineDash([]);
  }
  for (const s of sets) {
    g.strokeStyle = s.color; g.beginPath();
    s.data.forEach((pt, i) => i ? g.lineTo(X(pt.x), Y(pt.y))
                                : g.moveTo(X(pt.x), Y(pt.y)));
    g.stroke();
  }
}

function render(d) {
  const seen = new Set();
  for (const ch of d.channels) {
    seen.add(ch.name);
    let panel = panels.get(ch.name);
    if (!panel) { panel = makePanel(ch.name); panels.set(ch.name, panel); }
    const pad = ch.pads.find(x => x.pad === 'dist_sink') || ch.pads[0];
    const model = ch.models[0];
    const alarmed = ch.pads.some(x => Object.values(x.alarm).some(a => a));
    panel.p.className = 'panel ' + ch.state + (alarmed ? ' alarm' : '');
    panel.p.dataset.state = ch.state;
    panel.badge.className = 'badge ' + ch.state;
    panel.badge.textContent = ch.state;
    const w = pad && pad.window[model];
    panel.s.score.textContent = pad ? fmt(pad.scores[model], 2) : '\u2013';
    panel.s.mean.textContent = w ? fmt(w.mean, 2) : '\u2013';
    panel.s.min.textContent = w ? fmt(w.min, 2) : '\u2013';
    panel.s.alarm.textContent = alarmed ? 'ALARM' :
      (ch.threshold === null ? 'off' : 'ok < ' + ch.threshold);
    panel.s.alarm.className = alarmed ? 'alarm-on' : '';
    panel.s.lag.textContent = !pad || pad.locked === null ? 'n/a' :
      (pad.lag_frames === null ? 'searching' :
       pad.lag_frames + (pad.locked ? '' : ' (searching)'));
    panel.s.fps.textContent = pad ? fmt(pad.fps, 1) : '\u2013';
    panel.s.frames.textContent = pad ? String(pad.frames) : '0';
    panel.s.restarts.textContent = String(ch.restarts);
    panel.reason.textContent = ch.state === 'running' ? '' : ch.reason;
    const sets = series(ch, d.now);
    const points = sets.reduce((n, s) => n + s.data.length, 0);
    // the x axis: the history kept, or less while there is less (60 s+)
    const oldest = sets.reduce((m, s) => s.data.length ?
                               Math.min(m, s.data[0].x) : m, 0);
    const span = Math.min(d.history, Math.max(60, Math.ceil(-oldest)));
    panel.canvas.dataset.points = String(points);
    if (panel.chart) {
      const c = panel.chart;
      c.options.scales.x.min = -span;
      c.options.scales.x.max = 0;
      const ds = sets.map(s => ({label: s.label, data: s.data,
                                 borderColor: s.color,
                                 backgroundColor: s.color}));
      if (ch.threshold !== null)
        ds.push({label: 'threshold', borderColor: '#e03131',
                 backgroundColor: '#e03131', borderDash: [4, 4],
                 data: [{x: -span, y: ch.threshold},
                        {x: 0, y: ch.threshold}]});
      c.data.datasets = ds;
      c.update('none');
    } else {
      drawPlain(panel.canvas, sets, span, ch.threshold);
    }
  }
  for (const [name, panel] of panels)
    if (!seen.has(name)) { panel.p.remove(); panels.delete(name); }
}

async function poll() {
  const status = document.getElementById('status');
  try {
    const r = await fetch('api/channels', {cache: 'no-store'});
    if (!r.ok) throw new Error('HTTP ' + r.status);
    render(await r.json());
    updates += 1;
    document.body.dataset.updates = String(updates);
    status.textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    status.textContent = 'no answer from the probe (' + e.message + ')';
  }
}
poll();
setInterval(poll, 1000);
"""


if __name__ == "__main__":
    sys.exit(main())
