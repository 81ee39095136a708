#!/usr/bin/env python3
"""Check that every Catch2 test file keeps its names in a namespace of its own.

Usage: tools/check_test_namespaces.py [--root DIR]   (DIR defaults to the repository root)

Unity builds compile several test files as one translation unit, so an anonymous-namespace helper
or a file-wide `using namespace` of one file meets the next file's (docs/testing.md "CI stages and
budget"). Each file under tests/unit/ and tests/scenario/ that has a TEST_CASE must open
`namespace FILE_test {` (or `namespace OUTER::FILE_test {`), FILE being its name without `.cpp`,
before its first TEST_CASE, with no `using namespace` at file scope before it. Prints one line per
file that does not, as FILE:LINE: problem. Exit status 0 when all do, 1 otherwise.
"""
import argparse
import os
import re
import sys


def problems(path, shown, stem):
    lines = open(path, encoding="utf-8").read().split("\n")
    want = re.compile(r"^namespace (?:[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*::)?%s_test \{" % re.escape(stem))
    for i, line in enumerate(lines, 1):
        if want.match(line):
            return []
        if re.match(r"^using namespace ", line):
            return [f"{shown}:{i}: `using namespace` at file scope; put it inside `namespace {stem}_test {{`"]
        if re.match(r"^\s*TEST_CASE\(", line):
            return [f"{shown}:{i}: TEST_CASE before `namespace {stem}_test {{` (the file's own namespace)"]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    a = ap.parse_args()
    out = []
    for sub in ("tests/unit", "tests/scenario"):
        d = os.path.join(a.root, sub)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not name.endswith(".cpp"):
                continue
            p = os.path.join(d, name)
            if "TEST_CASE(" not in open(p, encoding="utf-8").read():
                continue
            out += problems(p, os.path.relpath(p, a.root), name[:-4].replace("-", "_"))
    for line in out:
        print(line)
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
