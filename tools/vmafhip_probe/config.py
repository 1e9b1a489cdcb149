"""vmafhip-probe's config: the TOML file's [probe] and [[channel]]
settings checked (each vmafhip property against its type and range), each
channel's pipeline description, and the one-line logfmt log."""
import math
import os
import re
import sys
import threading
import tomllib

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst  # noqa: E402

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
