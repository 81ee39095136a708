#!/usr/bin/env python3
"""Check that every relative link in the documentation resolves.

For each Markdown file under --root (README.md files, docs/, bench/, tests/; build directories,
.git and the checker's own fixture left out), every inline link or image `[text](target)` and
every reference definition `[label]: target` outside code (fenced blocks and `code spans`) must
name a file or directory that exists inside the repository; a `#anchor` must be a heading of the
target Markdown file, as GitHub spells heading anchors (lower case, punctuation dropped, spaces
to hyphens, -1, -2 ... for repeats). Links with a scheme (https:, mailto:) are not checked.

Prints one line per broken link, `FILE:LINE: link 'TARGET': REASON`, sorted, and exits 1 when
there is any; exits 0 (with a count on stderr) when every link resolves.

ctest runs it on the repository (`doc_links`) and on tests/doc_links/fixture, whose planted broken
links it must report exactly as tests/doc_links/expected.txt lists them
(`doc_links_catch_planted_links`).
"""
import argparse
import os
import re
import sys
import urllib.parse

SKIP_DIRS = {".git", "node_modules"}
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
# An inline link or image: [text](target "title"); the target may be wrapped in <...>.
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_files(root, exclude):
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")
                         and os.path.normpath(os.path.join(rel, x)) not in exclude)
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.normpath(os.path.join(rel, f))


def lines_outside_code(text):
    """(line number, line) for every line outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
                continue
            if mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):].strip():
                fence = None
                continue
        if fence is None:
            yield n, line


def slug(heading):
    """GitHub's anchor for a heading's text."""
    s = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    s = s.replace("`", "").lower()
    s = re.sub(r"<[^>]+>", "", s)  # inline HTML tags
    s = "".join(c for c in s if c.isalnum() or c in "-_ ")
    return s.replace(" ", "-")


_anchor_cache = {}


def anchors(path):
    if path not in _anchor_cache:
        seen, out = {}, set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for _, line in lines_outside_code(text):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            k = seen.get(base, 0)
            seen[base] = k + 1
            out.add(base if k == 0 else f"{base}-{k}")
        for m in re.finditer(r"<a\s+(?:name|id)=\"([^\"]+)\"", text):  # explicit HTML anchors
            out.add(m.group(1))
        _anchor_cache[path] = out
    return _anchor_cache[path]


def check_target(root, src, target):
    """None when `target` (as written in file `src`, relative to root) resolves, else the reason."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if SCHEME.match(target) or target.startswith("//"):
        return None
    path, _, frag = target.partition("#")
    path = urllib.parse.unquote(path)
    if path.startswith("/"):
        return "absolute path (links must be relative to the file)"
    full = os.path.normpath(os.path.join(root, os.path.dirname(src), path)) if path else os.path.join(root, src)
    rel = os.path.relpath(full, root)
    if rel == ".." or rel.startswith(".." + os.sep):
        return "leaves the repository (a fresh clone does not have it)"
    if not os.path.exists(full):
        return f"no such file: {rel}"
    if frag:
        if not full.endswith(".md") or os.path.isdir(full):
            return f"an anchor into {rel}, which is not a Markdown file"
        if urllib.parse.unquote(frag) not in anchors(full):
            return f"no heading with anchor #{frag} in {rel}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=".", help="repository root (default: .)")
    ap.add_argument("--exclude", action="append", default=["tests/doc_links/fixture"],
                    help="a directory (relative to root) to leave out; repeatable")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    exclude = {os.path.normpath(x) for x in a.exclude}
    problems, nfiles, nlinks = [], 0, 0
    for src in markdown_files(root, exclude):
        nfiles += 1
        with open(os.path.join(root, src), encoding="utf-8") as f:
            text = f.read()
        for n, line in lines_outside_code(text):
            bare = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
            targets = [m.group(1) for m in INLINE.finditer(bare)]
            m = REFDEF.match(bare)
            if m:
                targets.append(m.group(1))
            for t in targets:
                nlinks += 1
                why = check_target(root, src, t)
                if why:
                    problems.append(f"{src}:{n}: link '{t}': {why}")
    for p in sorted(problems):
        print(p)
    print(f"check_links: {nfiles} Markdown files, {nlinks} links, {len(problems)} broken", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
