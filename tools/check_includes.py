#!/usr/bin/env python3
"""Check nicsim's layering: every project #include must follow the dependency rules.

Usage: tools/check_includes.py [--root DIR]      (DIR defaults to the repository root)

Reads every .h/.cpp under the layer folders of DIR (core/, models/, drivers-sim/, platforms/,
cli/, bench/), resolves each `#include "..."` or `#include <...>` that names a project file (a
path starting with a layer folder, or a quoted path relative to the including file that exists),
and prints one line per include that crosses a rule:

    models/nic/e1000/e1000.cpp:5: #include "platforms/testbed.h": models/ may include only core/, models/

Exit status: 0 when every include follows the rules, 1 when at least one crosses a rule, 2 on a
usage error (DIR has none of the layer folders). The rules and the reason for each are in
docs/developers.md ("Dependency rules"); RULES below is their only machine-readable copy.
"""
import argparse
import os
import re
import sys

# Layer folder -> (project prefixes it may include, exact headers it may include besides).
# A prefix ends with "/"; a header is a full path. Checked in this order; first match wins.
RULES = {
    "core/": (["core/"], []),
    "models/": (["core/", "models/"], []),
    # Software sees only what a real kernel sees of its hardware: the CPU it runs on, the PCI
    # function it drives (config space, BARs) and the host's memory/interrupt/FSB face.
    "drivers-sim/": (["core/", "drivers-sim/"], [
        "models/cpu/cpu.h",
        "models/bus/pci.h",
        "models/bus/irq.h",
        "models/host/host_face.h",
    ]),
    "platforms/": (["core/", "models/", "drivers-sim/", "platforms/"], []),
    "bench/": (["core/", "models/", "drivers-sim/", "platforms/", "bench/"], []),
    "cli/": (["core/", "models/", "drivers-sim/", "platforms/", "cli/"], []),
}
LAYERS = tuple(RULES)
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def project_path(root, including, spelled, quoted):
    """The root-relative path an include names inside the project, or None for an outside header."""
    if quoted:
        rel = os.path.normpath(os.path.join(os.path.dirname(including), spelled))
        if not rel.startswith("..") and os.path.isfile(os.path.join(root, rel)):
            if rel.startswith(LAYERS) or not os.path.isfile(os.path.join(root, spelled)):
                return rel.replace(os.sep, "/")
    norm = os.path.normpath(spelled).replace(os.sep, "/")
    if norm.startswith(LAYERS) or norm.startswith(("tests/", "tools/")):
        return norm
    return None


def allowed(layer, target):
    prefixes, headers = RULES[layer]
    return target.startswith(tuple(prefixes)) or target in headers


def check(root):
    """Yield (file, line, spelled, message) for every include that crosses a rule."""
    for layer in LAYERS:
        base = os.path.join(root, layer)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith((".h", ".hpp", ".cpp", ".cc")):
                    continue
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, text in enumerate(f, 1):
                        m = INCLUDE.match(text)
                        if not m:
                            continue
                        quoted = m.group(1) == '"'
                        target = project_path(root, rel, m.group(2), quoted)
                        if target is None or allowed(layer, target):
                            continue
                        prefixes, headers = RULES[layer]
                        may = ", ".join(prefixes + headers)
                        spelled = f'"{m.group(2)}"' if quoted else f"<{m.group(2)}>"
                        yield rel, lineno, spelled, f"{layer} may include only {may}"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--root", default=os.path.dirname(here), help="tree to check (default: the repository)")
    args = ap.parse_args(argv)
    if not any(os.path.isdir(os.path.join(args.root, l)) for l in LAYERS):
        print(f"check_includes: {args.root} has none of {', '.join(LAYERS)}", file=sys.stderr)
        return 2
    bad = 0
    for rel, lineno, spelled, msg in check(args.root):
        print(f"{rel}:{lineno}: #include {spelled}: {msg}")
        bad += 1
    if bad:
        print(f"check_includes: {bad} include(s) cross the dependency rules (docs/developers.md)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
