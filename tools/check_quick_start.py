#!/usr/bin/env python3
"""README.md's Quick start must say what CI does.

The first code block under README.md's "## Quick start" holds the two set-up commands of a fresh
machine: `./setup.sh`, then the test command. The test command must appear verbatim as a line of
.ci/run (which runs it after `./setup.sh --deps-only`), and setup.sh must exist and accept the
options the README names. Prints what differs and exits 1; exits 0 when they agree.
"""
import os
import re
import sys


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    m = re.search(r"^## Quick start\n(.*?)(?=^## )", readme, re.S | re.M)
    if not m:
        print("README.md: no '## Quick start' section")
        return 1
    block = re.search(r"^```[a-z]*\n(.*?)^```", m.group(1), re.S | re.M)
    if not block:
        print("README.md Quick start: no code block")
        return 1
    cmds = [line.strip() for line in block.group(1).splitlines() if line.strip()]
    problems = []
    if len(cmds) != 2 or cmds[0] != "./setup.sh":
        problems.append(f"README.md Quick start: expected `./setup.sh` and the test command, found {cmds}")
    ci = open(os.path.join(root, ".ci/run"), encoding="utf-8").read().splitlines()
    if len(cmds) == 2 and cmds[1] not in (line.strip() for line in ci):
        problems.append(f"README.md Quick start's test command is not a line of .ci/run: {cmds[1]}")
    setup = open(os.path.join(root, "setup.sh"), encoding="utf-8").read()
    for opt in re.findall(r"`\./setup\.sh (--[a-z-]+)`|`(--[a-z-]+)` after", m.group(1)):
        o = opt[0] or opt[1]
        if o not in setup:
            problems.append(f"README.md Quick start names setup.sh option {o}, which setup.sh does not handle")
    if not any("./setup.sh --deps-only" in line for line in ci):
        problems.append(".ci/run does not start with ./setup.sh --deps-only as README.md says")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
