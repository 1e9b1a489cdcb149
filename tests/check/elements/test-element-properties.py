#!/usr/bin/env python3
"""The element's properties against its reference (docs/element.md).

Every property vmafhip itself installs has a row in the Properties table of
docs/element.md, and every row there names one of them; each blurb (what
gst-inspect-1.0 prints) is short: one or two lines, the details are in the
docs. Fails naming each property that disagrees.

    test-element-properties.py DOCS/element.md
"""
import re
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst  # noqa: E402

# gst-inspect-1.0 indents a blurb by about 28 columns: two lines of an
# 80-column terminal
BLURB_MAX = 110


def documented(path):
    """The property names of the Properties table (its first column)."""
    names, inside = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                inside = line.strip().lower().endswith("properties")
                continue
            m = re.match(r"\| `([a-z0-9-]+)` \|", line)
            if inside and m:
                names.append(m.group(1))
    return names


def main():
    Gst.init(None)
    element = Gst.ElementFactory.make("vmafhip", None)
    if element is None:
        print("test-element-properties: the vmafhip element is not found "
              "(GST_PLUGIN_PATH)", file=sys.stderr)
        return 1
    own_type = GObject.type_from_name("GstVmafHip")
    specs = {p.name: p for p in element.list_properties()
             if p.owner_type == own_type}
    docs = documented(sys.argv[1])
    problems = []
    if not docs:
        problems.append("no Properties table found in " + sys.argv[1])
    for name in sorted(set(specs) - set(docs)):
        problems.append(f"{name}: a property without a row in the docs")
    for name in sorted(set(docs) - set(specs)):
        problems.append(f"{name}: a row in the docs but no such property")
    for name in sorted({d for d in docs if docs.count(d) > 1}):
        problems.append(f"{name}: more than one row in the docs")
    for name, spec in sorted(specs.items()):
        blurb = spec.blurb or ""
        if not blurb:
            problems.append(f"{name}: no blurb")
        elif len(blurb) > BLURB_MAX:
            problems.append(f"{name}: blurb of {len(blurb)} characters "
                            f"(at most {BLURB_MAX}): {blurb!r}")
    for p in problems:
        print("test-element-properties:", p, file=sys.stderr)
    print(f"{len(specs)} properties, {len(docs)} rows in the docs, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
