"""Shared by the vmafhip-probe tests (test-probe*.py): skipping, starting and
stopping a probe, reading its metrics.  Loaded with importlib (the name has
dashes, as the tests' own).

A missing dependency skips the test (exit 77, meson: SKIP) with a loud
message; with strict tests (VMAFHIP_STRICT_TESTS=1, set by meson's
strict-tests option) it fails instead, as tests/check/test-util.c does."""
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

STRICT = os.environ.get("VMAFHIP_STRICT_TESTS") == "1"
# tiny live frames: each channel costs little on a busy 2-core machine
CAPS = "video/x-raw,format=I420,width=160,height=90,framerate=25/1"


def missing(test, what):
    """A dependency is missing: skip (77), or fail with strict tests."""
    verdict = "FAILED (strict-tests)" if STRICT else "SKIPPED"
    print(f"\n*** {test}: {verdict}: {what} ***\n", file=sys.stderr,
          flush=True)
    sys.exit(1 if STRICT else 77)


def need_gst(test):
    """PyGObject, GStreamer, prometheus_client and the vmafhip element."""
    try:
        import gi
        gi.require_version("Gst", "1.0")
        from gi.repository import Gst
    except (ImportError, ValueError) as e:
        missing(test, f"{e} (Debian: python3-gi, gir1.2-gstreamer-1.0)")
    try:
        import prometheus_client  # noqa: F401
    except ImportError as e:
        missing(test, f"{e} (Debian: python3-prometheus-client)")
    Gst.init(None)
    if Gst.ElementFactory.find("vmafhip") is None:
        # the plugin is built by meson before the test: not a skip
        sys.exit(f"{test}: no vmafhip element on GST_PLUGIN_PATH "
                 f"({os.environ.get('GST_PLUGIN_PATH')})")


def live(pattern="ball", extra=""):
    """A live videotestsrc description ending in raw video."""
    return (f"videotestsrc is-live=true pattern={pattern} {extra} ! {CAPS}")


def channel(name, reference, distorted, **props):
    """A [[channel]] table in TOML."""
    out = [f'[[channel]]', f'name = "{name}"',
           f"reference = '{reference}'", f"distorted = '{distorted}'",
           "[channel.properties]", 'backend = "cpu"', "threads = 1"]
    for k, v in props.items():
        k = k.replace("_", "-")
        if isinstance(v, str):
            out.append(f'{k} = "{v}"')
        elif isinstance(v, bool):
            out.append(f"{k} = {'true' if v else 'false'}")
        else:
            out.append(f"{k} = {v}")
    return "\n".join(out) + "\n"


class Probe:
    """A vmafhip-probe process on 127.0.0.1, a free port (--listen :0,
    read back from its log)."""

    def __init__(self, script, config_text, tmp, name="probe", args=()):
        self.tmp = tmp
        self.config = os.path.join(tmp, f"{name}.toml")
        with open(self.config, "w") as f:
            f.write(config_text)
        self.log_path = os.path.join(tmp, f"{name}.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [sys.executable, script, "--config", self.config,
             "--listen", "127.0.0.1:0", *args],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.url = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            m = re.search(r"event=listening address=(http://[0-9.]+:\d+)/",
                          self.text())
            if m:
                self.url = m.group(1)
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        if self.url is None:
            self.kill()
            raise AssertionError("the probe did not start:\n" + self.text())
        self.port = int(self.url.rsplit(":", 1)[1])

    def text(self):
        with open(self.log_path) as f:
            return f.read()

    def get(self, path, timeout=10):
        """(status, headers, body) of a GET."""
        try:
            with urllib.request.urlopen(self.url + path,
                                        timeout=timeout) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def metrics(self):
        """{(name, ((label, value), ...)): value} from /metrics."""
        from prometheus_client.parser import text_string_to_metric_families
        status, _, body = self.get("/metrics")
        assert status == 200, status
        out = {}
        for fam in text_string_to_metric_families(body.decode()):
            for s in fam.samples:
                out[(s.name, tuple(sorted(s.labels.items())))] = s.value
        return out

    def wait_for(self, what, check, timeout=30):
        """Polls /metrics until check(metrics) is true; the metrics."""
        deadline = time.monotonic() + timeout
        while True:
            m = self.metrics()
            if check(m):
                return m
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; "
                                     f"log:\n{self.text()}")
            time.sleep(0.2)

    def stop(self, timeout=30):
        """SIGTERM; the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        finally:
            self.log.close()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def value(m, name, **labels):
    """A sample's value, None when absent."""
    want = tuple(sorted(labels.items()))
    for (n, ls), v in m.items():
        if n == name and all(item in ls for item in want):
            return v
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tmpdir(test):
    return tempfile.mkdtemp(prefix=f"vmafhip-{test}-")
