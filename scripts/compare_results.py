#!/usr/bin/env python3
"""Compare the metrics and counters of two sets of nicsim results, exactly.

Usage: scripts/compare_results.py BEFORE_DIR AFTER_DIR [--renamed-nics]

Each DIR holds result.json files (as scripts/run_all_scenarios.sh writes them, one per scenario
at the same relative path). Prints one line per result and per difference; exit status 0 when
every result.json in BEFORE has a twin in AFTER with identical `metrics`, identical `counters`
and the same `status`, else 1.

--renamed-nics: BEFORE predates the scenario naming scheme of result counters (core/result_names.h):
NIC counters were named after the SystemC instance ("alpha_eth1.port0.interrupts",
"alpha_eth1.port1.x", "alpha_eth0.x" for a one-port NIC); they are renamed mechanically to the
scenario names ("alpha.eth1.interrupts", "alpha.eth1:1.x", "alpha.eth0.x") before comparing.
Values are never touched.
"""
import json
import os
import re
import sys

PORT = re.compile(r"^([A-Za-z0-9-]+)_([A-Za-z0-9-]+)\.port(\d+)(?=\.|$)")
ONE_PORT = re.compile(r"^([A-Za-z0-9-]+)_([A-Za-z0-9-]+)(?=\.|$)")


def scenario_name(counter):
    m = PORT.match(counter)
    if m:
        host, nic, port = m.groups()
        return f"{host}.{nic}" + ("" if port == "0" else f":{port}") + counter[m.end():]
    return ONE_PORT.sub(r"\1.\2", counter)


def results(root):
    for dirpath, _, files in sorted(os.walk(root)):
        if "result.json" in files:
            yield os.path.relpath(dirpath, root)


def main(argv):
    rename = "--renamed-nics" in argv
    args = [a for a in argv if a != "--renamed-nics"]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    before, after = args
    bad = 0
    found = 0
    for rel in results(before):
        found += 1
        a = json.load(open(os.path.join(before, rel, "result.json")))
        bpath = os.path.join(after, rel, "result.json")
        if not os.path.isfile(bpath):
            print(f"{rel}: missing in {after}")
            bad += 1
            continue
        b = json.load(open(bpath))
        ca = a.get("counters", {})
        if rename:
            ca = {scenario_name(k): v for k, v in ca.items()}
        diffs = []
        if a.get("status") != b.get("status"):
            diffs.append(f"status {a.get('status')} -> {b.get('status')}")
        if a.get("metrics") != b.get("metrics"):
            ma, mb = a.get("metrics", {}), b.get("metrics", {})
            for k in sorted(set(ma) | set(mb)):
                if ma.get(k) != mb.get(k):
                    diffs.append(f"metric {k}: {str(ma.get(k))[:80]} -> {str(mb.get(k))[:80]}")
        cb = b.get("counters", {})
        for k in sorted(set(ca) | set(cb)):
            if ca.get(k) != cb.get(k):
                diffs.append(f"counter {k}: {ca.get(k)} -> {cb.get(k)}")
        print(f"{rel}: {'same' if not diffs else str(len(diffs)) + ' differences'} "
              f"({len(a.get('metrics', {}))} metrics, {len(cb)} counters)")
        for d in diffs[:40]:
            print("  " + d)
        bad += bool(diffs)
    if not found:
        print(f"no result.json under {before}", file=sys.stderr)
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
