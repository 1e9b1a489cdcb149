"""vmafhip-probe's HTTP side: the Prometheus collector (the channels'
state at each scrape), the server (a bounded number of connections) and
its read-only handler (GET and HEAD of a few fixed paths)."""
import http.server
import io
import json
import socket
import sys
import threading
import time
import urllib.parse

try:
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.core import (CounterMetricFamily,
                                        GaugeMetricFamily)
    from prometheus_client.exposition import CONTENT_TYPE_LATEST
except ImportError:  # said at startup, with the Debian package's name
    CollectorRegistry = None

from .channel import STATES
from .config import log
from .dashboard import DASHBOARD_HTML, DASHBOARD_JS

MAX_REQUEST_LINE = 8192     # longer: 414
MAX_HEAD = 8192             # request line and headers together; more: 431
REQUEST_TIMEOUT = 5.0       # seconds for a client to send its request


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
