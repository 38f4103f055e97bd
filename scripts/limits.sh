#!/usr/bin/env bash
# Prints issue 42's limits and where the tree stands against each: lines of
# the page's JS (www/*.js), lines of memviz-wasm/src, the functions the
# module exports through #[wasm_bindgen] (memviz-wasm's and memviz-worker's,
# linked into it: methods of #[wasm_bindgen] impl blocks and #[wasm_bindgen]
# free functions), and those of them named *_json.
# Always exits 0: it reports; the lead decides.
cd "$(dirname "$0")/.." || exit 0
python3 - <<'PY' || true
import glob, os, re

LIMITS = {'js': 2000, 'wasm_lines': 800, 'exports': 25, 'json': 0}

def lines(path):
    with open(path, encoding='utf-8') as f:
        return sum(1 for _ in f)

def verdict(n, limit):
    return 'ok' if n <= limit else f'OVER by {n - limit}'

def code(line):
    """The line without its string literals and // comment (for brace counting)."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])'", "''", line)
    return line.split('//', 1)[0]

def exports(path):
    """(name, line) of each fn exported through #[wasm_bindgen] in one file."""
    out = []
    src = open(path, encoding='utf-8').read().split('\n')
    i = 0
    while i < len(src):
        if not re.match(r'\s*#\[wasm_bindgen\b', src[i]) or 'skip' in src[i]:
            i += 1
            continue
        # The item the attribute is on: skip further attributes and doc comments.
        j = i + 1
        while j < len(src) and re.match(r'\s*(#\[|///|//)', src[j]):
            j += 1
        item = src[j] if j < len(src) else ''
        m = re.match(r'\s*pub\s+(?:async\s+)?fn\s+(\w+)', item)
        if m:
            out.append((m.group(1), j + 1))
        elif re.match(r'\s*impl\b', item):
            depth, k = 0, j
            while k < len(src):
                c = code(src[k])
                if k > j and depth == 1:
                    m = re.match(r'\s*pub\s+(?:async\s+)?fn\s+(\w+)', c)
                    if m:
                        out.append((m.group(1), k + 1))
                depth += c.count('{') - c.count('}')
                if depth == 0 and '}' in c:
                    break
                k += 1
            j = k
        i = j + 1
    return out

js = sorted(glob.glob('www/*.js'))
js_lines = {f: lines(f) for f in js}
js_total = sum(js_lines.values())
print(f"www/*.js lines: {js_total} (limit {LIMITS['js']}: {verdict(js_total, LIMITS['js'])})")
for f, n in sorted(js_lines.items(), key=lambda x: -x[1]):
    print(f'  {n:6} {f}')

rs = sorted(glob.glob('crates/memviz-wasm/src/**/*.rs', recursive=True))
rs_lines = {f: lines(f) for f in rs}
rs_total = sum(rs_lines.values())
print(f"crates/memviz-wasm/src lines: {rs_total} (limit {LIMITS['wasm_lines']}: {verdict(rs_total, LIMITS['wasm_lines'])})")
for f, n in sorted(rs_lines.items(), key=lambda x: -x[1]):
    print(f'  {n:6} {f}')

# The module's exports: memviz-wasm's and those of the crates it links in (the decode worker's).
linked = sorted(glob.glob('crates/memviz-worker/src/**/*.rs', recursive=True))
print(f"crates/memviz-worker/src lines (linked into the module, not limited): {sum(lines(f) for f in linked)}")
ex = [(f, name, line) for f in rs + linked for name, line in exports(f)]
print(f"#[wasm_bindgen] pub fn exports: {len(ex)} (limit {LIMITS['exports']}: {verdict(len(ex), LIMITS['exports'])})")
by_file = {}
for f, name, _ in ex:
    by_file.setdefault(f, []).append(name)
for f, names in sorted(by_file.items(), key=lambda x: -len(x[1])):
    print(f'  {len(names):4} {f}: {" ".join(names)}')

js_ex = [(f, name, line) for f, name, line in ex if name.endswith('_json')]
print(f"_json exports: {len(js_ex)} (limit {LIMITS['json']}: {verdict(len(js_ex), LIMITS['json'])})")
for f, name, line in js_ex:
    print(f'  {f}:{line} {name}')
PY
exit 0
