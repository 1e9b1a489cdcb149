"""vmafhip-probe's channels: one GStreamer pipeline each, its bus
messages into per-pad figures (PadStats), restarts with backoff."""
import collections
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

from .config import launch_description, log, report_names  # noqa: E402

STATES = ("starting", "running", "restarting", "failed", "stopped")


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
