#!/usr/bin/env python3
"""Check `nicsim report`'s page as a browser rendered it (tests/report/browser_test.sh).

  check_page.py dom DOM.html         the DOM Chromium serialised (--dump-dom): every section, every
                                     plot's series drawn, no script, no broken image
  check_page.py png SHOT.png         the screenshot is a real picture, not blank
  check_page.py same A.html B.html   the two pages are byte-identical apart from the 'generated' line

Exit 0 when the check passes, 1 with the reasons on stderr otherwise.
"""
import struct
import sys
import zlib
from html.parser import HTMLParser


class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack = []        # open elements: (tag, attrs)
        self.sections = []     # (id, class)
        self.divs = {}         # section id -> set of div classes
        self.plots = []        # {'id', 'series': [{'name', 'kind', 'marks'}]}
        self.imgs = []
        self.scripts = 0
        self.summary_rows = 0
        self.verdicts = set()

    def cur_section(self):
        for tag, a in reversed(self.stack):
            if tag == 'section':
                return a.get('id', '')
        return None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        void = tag in ('img', 'meta', 'br', 'circle', 'rect', 'line', 'polyline', 'path', 'link', 'input')
        if tag == 'section':
            self.sections.append((a.get('id', ''), a.get('class', '')))
        if tag == 'div' and self.cur_section() is not None:
            self.divs.setdefault(self.cur_section(), set()).add(a.get('class', ''))
        if tag == 'svg' and 'plot' in a.get('class', '').split():
            self.plots.append({'id': a.get('id', ''), 'series': []})
        if tag == 'g' and a.get('class') == 'series' and self.plots:
            self.plots[-1]['series'].append({'name': a.get('data-series', ''), 'kind': a.get('data-kind', ''), 'marks': 0})
        if tag in ('circle', 'polyline', 'rect', 'path') and self.plots and self.plots[-1]['series'] and \
                any(t == 'g' and x.get('class') == 'series' for t, x in self.stack):
            self.plots[-1]['series'][-1]['marks'] += 1
        if tag == 'img':
            self.imgs.append(a.get('src', ''))
        if tag == 'script':
            self.scripts += 1
        if tag == 'tr' and a.get('class') in ('pass', 'miss', 'fail', 'error'):
            self.verdicts.add(a['class'])
        if not void:
            self.stack.append((tag, a))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break


def check_dom(path):
    d = Dom()
    d.feed(open(path, encoding='utf-8').read())
    problems = []
    ids = [s[0] for s in d.sections]
    if 'summary' not in ids:
        problems.append('no summary section')
    seeds = [s for s in d.sections if 'seed' in s[1].split()]
    if not seeds:
        problems.append('no seed section')
    for sid, _ in seeds:
        for part in ('hardware', 'references', 'plots', 'gaps'):
            if part not in d.divs.get(sid, set()):
                problems.append(f'section {sid}: no {part} part')
    if not d.plots:
        problems.append('no plot')
    for p in d.plots:
        if not p['series']:
            problems.append(f"plot {p['id']}: no series")
        for s in p['series']:
            if s['marks'] == 0:
                problems.append(f"plot {p['id']}: series '{s['name']}' draws nothing")
        kinds = {s['kind'] for s in p['series']}
        if kinds and kinds != {'bar'} and not {'reference', 'model'} <= kinds:
            problems.append(f"plot {p['id']}: reference and model series expected, found {sorted(kinds)}")
    for src in d.imgs:
        if not src.startswith('data:'):
            problems.append(f'image {src!r} is not inline (would be broken offline)')
    if d.scripts:
        problems.append(f'{d.scripts} script elements (the page must need none)')
    print(f'dom: {len(d.sections)} sections, {len(seeds)} seed sections, {len(d.plots)} plots, '
          f"{sum(len(p['series']) for p in d.plots)} series, verdict rows {sorted(d.verdicts)}")
    return problems, d


def png_pixels(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('not a PNG')
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, typ = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError(f'unexpected PNG format depth {depth} colour type {ctype}')
            bpp = 3 if ctype == 2 else 4
        elif typ == b'IDAT':
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    i = 0
    while i < len(raw):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, len(rows), bpp, rows


def check_png(path):
    w, h, bpp, rows = png_pixels(path)
    colours, non_white, total = set(), 0, 0
    for r in rows[::4]:
        for x in range(0, w * bpp, bpp * 4):
            px = r[x:x + 3]
            colours.add(px)
            total += 1
            if px != b'\xff\xff\xff':
                non_white += 1
    frac = non_white / max(1, total)
    print(f'png: {w}x{h}, {len(colours)} colours sampled, {100 * frac:.1f}% not white')
    problems = []
    if len(colours) < 8:
        problems.append(f'only {len(colours)} colours: the screenshot looks blank')
    if frac < 0.01:
        problems.append(f'{100 * frac:.2f}% of the screenshot is not white: blank')
    return problems


def check_same(a, b):
    la = [l for l in open(a, encoding='utf-8').read().split('\n') if 'class="generated"' not in l]
    lb = [l for l in open(b, encoding='utf-8').read().split('\n') if 'class="generated"' not in l]
    if la != lb:
        for i, (x, y) in enumerate(zip(la, lb)):
            if x != y:
                return [f'pages differ at line {i + 1}:\n  {x[:200]}\n  {y[:200]}']
        return [f'pages differ in length: {len(la)} vs {len(lb)} lines']
    print(f'same: {len(la)} lines identical apart from the generated line')
    return []


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    what = sys.argv[1]
    if what == 'dom':
        problems, _ = check_dom(sys.argv[2])
    elif what == 'png':
        problems = check_png(sys.argv[2])
    elif what == 'same':
        problems = check_same(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for p in problems:
        print(f'check_page {what}: {p}', file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
