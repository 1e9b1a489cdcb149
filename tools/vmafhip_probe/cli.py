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
import os
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

from .config import (ConfigError, launch_description,  # noqa: E402
                     load_config, parse_listen)
from .probe import CHART_JS, Probe  # noqa: E402
from .server import CollectorRegistry  # noqa: E402

DEFAULT_LISTEN = "127.0.0.1:9464"


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
