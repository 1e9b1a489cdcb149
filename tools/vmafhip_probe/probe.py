"""vmafhip-probe's service: every channel in one GLib main loop, the
HTTP server on a thread of its own, SIGTERM and SIGINT."""
import signal
import threading
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib  # noqa: E402

from .channel import Channel  # noqa: E402
from .config import ConfigError, log  # noqa: E402
from .server import (CollectorRegistry, ProbeCollector,  # noqa: E402
                     ProbeServer)

# how often each channel's bus is read (ms): one wake-up for every channel
# instead of one per message (a frame message per scored frame)
BUS_POLL_MS = 100
# where Debian's libjs-chart.js puts Chart.js (v4 names first, then v3's)
CHART_JS = ("/usr/share/javascript/chart.js/chart.umd.min.js",
            "/usr/share/javascript/chart.js/chart.umd.js",
            "/usr/share/javascript/chart.js/chart.min.js",
            "/usr/share/javascript/chart.js/chart.js")


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
