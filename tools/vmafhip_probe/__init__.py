"""vmafhip-probe's package (docs/probe.md).

- config: the TOML file's [probe] and [[channel]] settings checked (each
  vmafhip property against its type and range), each channel's pipeline
  description, the logfmt log lines
- channel: one pipeline per channel, its bus messages into per-pad figures
  (PadStats), restarts with backoff, stalls
- server: the Prometheus collector, the HTTP server (bounded connections)
  and its read-only handler
- dashboard: the live page and its script
- probe: every channel in one GLib main loop, the HTTP thread, SIGTERM
- cli: the command line (--config, --listen, --gpu, --chart-js, --check)
"""
