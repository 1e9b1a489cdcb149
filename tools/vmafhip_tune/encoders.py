"""The encoders vmafhip-tune drives, one table entry each.

An entry names the GStreamer factory, its quality knobs (how a knob value
becomes element properties, the knob's range, and whether a lower value
means better quality), the fixed settings every cell gets, the parser
that frames its elementary stream and the decoders that can read it back,
first choice first.  `check_plugins` looks every element up in the
GStreamer registry before a sweep starts, so a missing plugin is one
clear message naming its Debian package rather than a failed cell.
"""

from dataclasses import dataclass

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


class ConfigError(Exception):
    """A setting the sweep cannot run with (exit status 2)."""


@dataclass(frozen=True)
class Knob:
    name: str              # the knob's name in cell keys and rows: "crf"
    low: float             # its range, both ends included
    high: float
    lower_is_better: bool  # True: a lower value means better quality
    properties: tuple      # ((property, value template), ...): "{v}" is the value
    integer: bool = True

    def settings(self, value):
        """The element properties that set this knob to VALUE."""
        text = str(int(value)) if self.integer else repr(float(value))
        return [(prop, template.format(v=text))
                for prop, template in self.properties]

    def check(self, value, encoder):
        if not self.low <= value <= self.high:
            raise ConfigError(
                f"{encoder} {self.name}={format_value(value)} is out of range "
                f"({format_value(self.low)}..{format_value(self.high)})")
        if self.integer and value != int(value):
            raise ConfigError(f"{encoder} {self.name} takes whole numbers, "
                              f"not {value}")


@dataclass(frozen=True)
class Encoder:
    factory: str
    knobs: tuple           # the first is the default knob
    fixed: tuple           # ((property, value), ...) every cell sets
    parser: str
    stream_caps: str       # after the parser: a stream a file can hold
    decoders: tuple        # first installed one is used
    extension: str         # of a kept elementary stream
    preset_property: str   # what --preset sets ("" where none)
    default_preset: str
    package: str           # the Debian package holding the plugin

    def knob(self, name=None):
        if name is None:
            return self.knobs[0]
        for knob in self.knobs:
            if knob.name == name:
                return knob
        names = ", ".join(k.name for k in self.knobs)
        raise ConfigError(f"{self.factory} has no knob {name!r} "
                          f"(it has: {names})")


def nvenc(codec):
    """nvh264enc or nvh265enc: the two differ only in their codec's name."""
    return Encoder(
        factory=f"nv{codec}enc",
        knobs=(Knob("qp", 0, 51, True, (("rc-mode", "cqp"), ("qp-const", "{v}"))),
               Knob("bitrate", 1, 2048000, False,
                    (("rc-mode", "vbr"), ("bitrate", "{v}")))),
        fixed=(),
        parser=f"{codec}parse",
        stream_caps=f"video/x-{codec},stream-format=byte-stream,alignment=au",
        decoders=(f"nv{codec}dec", f"avdec_{codec}"),
        extension=codec,
        preset_property="preset", default_preset="default",
        package="gstreamer1.0-plugins-bad")


ENCODERS = {
    # pass=qual: quantizer is x264's CRF; pass=quant: a constant QP
    "x264enc": Encoder(
        factory="x264enc",
        knobs=(Knob("crf", 0, 50, True, (("pass", "qual"), ("quantizer", "{v}"))),
               Knob("qp", 0, 50, True, (("pass", "quant"), ("quantizer", "{v}"))),
               Knob("bitrate", 1, 2048000, False, (("pass", "cbr"), ("bitrate", "{v}")))),
        fixed=(),
        parser="h264parse",
        stream_caps="video/x-h264,stream-format=byte-stream,alignment=au",
        decoders=("avdec_h264", "openh264dec", "nvh264dec"),
        extension="h264",
        preset_property="speed-preset", default_preset="medium",
        package="gstreamer1.0-plugins-ugly"),
    "x265enc": Encoder(
        factory="x265enc",
        knobs=(Knob("crf", 0, 51, True, (("option-string", "crf={v}"),)),
               Knob("qp", 0, 51, True, (("qp", "{v}"),)),
               Knob("bitrate", 1, 102400, False, (("bitrate", "{v}"),))),
        fixed=(),
        parser="h265parse",
        stream_caps="video/x-h265,stream-format=byte-stream,alignment=au",
        decoders=("avdec_h265", "libde265dec", "nvh265dec"),
        extension="h265",
        preset_property="speed-preset", default_preset="medium",
        package="gstreamer1.0-plugins-bad"),
    # libaom: GStreamer 1.22's av1enc has no cq-level, so the constant
    # quality mode (end-usage=q) gets its quantizer pinned by min = max
    "av1enc": Encoder(
        factory="av1enc",
        knobs=(Knob("qp", 0, 63, True, (("end-usage", "q"), ("min-quantizer", "{v}"),
                                        ("max-quantizer", "{v}"))),
               Knob("bitrate", 1, 1000000, False,
                    (("end-usage", "vbr"), ("target-bitrate", "{v}")))),
        fixed=(),
        parser="av1parse",
        stream_caps="video/x-av1,stream-format=obu-stream,alignment=tu",
        decoders=("av1dec", "dav1ddec"),
        extension="obu",
        preset_property="cpu-used", default_preset="6",
        package="gstreamer1.0-plugins-bad"),
    # NVENC (nvcodec): constant QP; present only where the GPU encodes
    "nvh264enc": nvenc("h264"),
    "nvh265enc": nvenc("h265"),
}

# Where the other elements a cell needs come from on Debian
PACKAGES = {
    "avdec_h264": "gstreamer1.0-libav", "avdec_h265": "gstreamer1.0-libav",
    "openh264dec": "gstreamer1.0-plugins-bad",
    "libde265dec": "gstreamer1.0-plugins-bad",
    "nvh264dec": "gstreamer1.0-plugins-bad", "nvh265dec": "gstreamer1.0-plugins-bad",
    "av1dec": "gstreamer1.0-plugins-bad", "dav1ddec": "gstreamer1.0-plugins-bad",
    "h264parse": "gstreamer1.0-plugins-bad", "h265parse": "gstreamer1.0-plugins-bad",
    "av1parse": "gstreamer1.0-plugins-bad",
    "videotestsrc": "gstreamer1.0-plugins-base",
    "videoscale": "gstreamer1.0-plugins-base",
    "videoconvert": "gstreamer1.0-plugins-base",
    "decodebin": "gstreamer1.0-plugins-base",
    "appsink": "gstreamer1.0-plugins-base",
    "tee": "gstreamer1.0 (core)", "queue": "gstreamer1.0 (core)",
    "filesink": "gstreamer1.0 (core)", "filesrc": "gstreamer1.0 (core)",
    "vmafhip": "vmafhip (the plugin: gstreamer1.0-vmafhip, or GST_PLUGIN_PATH "
               "set to a build's gst/vmafhip)",
}


def format_value(value):
    """A knob value as cell keys print it: 23, 2.5."""
    return str(int(value)) if float(value) == int(value) else repr(float(value))


def have_element(name):
    return Gst.ElementFactory.find(name) is not None


def missing_message(name, package):
    return (f"GStreamer element {name} is not installed "
            f"(Debian package: {package})")


def lookup(name):
    encoder = ENCODERS.get(name)
    if encoder is None:
        raise ConfigError(f"unknown encoder {name!r}; vmafhip-tune knows: "
                          + ", ".join(sorted(ENCODERS)))
    return encoder


def check_plugins(encoder, decoder=None, extra=()):
    """The decoder to use for ENCODER; ConfigError naming what is missing."""
    if not have_element(encoder.factory):
        raise ConfigError(missing_message(encoder.factory, encoder.package))
    needed = [encoder.parser, "vmafhip", "tee", "queue", "videoscale",
              "videoconvert", *extra]
    for name in needed:
        if not have_element(name):
            raise ConfigError(missing_message(name, PACKAGES.get(name, "?")))
    if decoder:
        if not have_element(decoder):
            raise ConfigError(missing_message(decoder, PACKAGES.get(decoder, "?")))
        return decoder
    for name in encoder.decoders:
        if have_element(name):
            return name
    raise ConfigError(
        f"no decoder for {encoder.factory}'s stream is installed (any of "
        + ", ".join(encoder.decoders) + "; Debian: "
        + PACKAGES.get(encoder.decoders[0], "?") + ")")


def plugin_version(factory_name):
    factory = Gst.ElementFactory.find(factory_name)
    if factory is None:
        return None
    plugin = factory.get_plugin()
    return plugin.get_version() if plugin else None


def table_rows():
    """(factory, knob, range, direction, properties) rows for --list-encoders."""
    rows = []
    for encoder in ENCODERS.values():
        for knob in encoder.knobs:
            props = " ".join(f"{p}={t.format(v='N')}" for p, t in knob.properties)
            rows.append((encoder.factory, knob.name,
                         f"{format_value(knob.low)}..{format_value(knob.high)}",
                         "lower=better" if knob.lower_is_better else "higher=better",
                         props))
    return rows
