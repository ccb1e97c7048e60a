#!/usr/bin/env bash
# test/checks/links.sh [FILE.md...]: checks the links of the documentation, without the
# network. Every relative link must name a file or directory of the repository, and every
# #anchor (of the same file, or of another Markdown file) a heading of that file, by
# GitHub's rule: the heading's text lower-cased, spaces turned into '-', every other
# character that is not a letter, digit, '-' or '_' dropped, and "-1", "-2", ... added to
# repeated headings. Explicit anchors (<a name="x">, id="x") count too. External links
# (http:, https:, mailto:, ...) are not fetched. Code blocks and code spans are skipped.
#
# Without arguments it checks README.md, CHANGELOG.md, docs/*.md and every src/**/README.md.
# Prints TAP, one line per file ("ok 3 - docs/queries.md", "not ok 4 - docs/x.md: broken
# link #foo", the other broken links of that file as "#" lines), and exits 1 when any
# file has a broken link. Needs bash and python3 only.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$TOP"

files=("$@")
if ((${#files[@]} == 0)); then
    files=(README.md CHANGELOG.md)
    for f in docs/*.md; do [[ -f $f ]] && files+=("$f"); done
    while IFS= read -r f; do files+=("$f"); done < <(find src -name README.md 2>/dev/null | sort)
fi

exec python3 - "${files[@]}" <<'PYTHON'
import os
import re
import sys
import unicodedata
from urllib.parse import unquote

FENCE = re.compile(r'^ {0,3}(`{3,}|~{3,})')
HEADING = re.compile(r'^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$')
SETEXT = re.compile(r'^ {0,3}(=+|-+)[ \t]*$')
EXPLICIT = re.compile(r'<a\s[^>]*\b(?:name|id)\s*=\s*"([^"]+)"|\bid\s*=\s*"([^"]+)"', re.I)
CODE_SPAN = re.compile(r'(`+)(.+?)\1', re.S)
# [text](target "title") -- the text may hold one level of brackets, the target parentheses
INLINE = re.compile(r'!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)>?(?:\s+"[^"]*")?\s*\)')
REFDEF = re.compile(r'^ {0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s+.*)?$')
HREF = re.compile(r'<a\s[^>]*\bhref\s*=\s*"([^"]+)"', re.I)
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


def lines_outside_code(text):
    """(line number, line) of every line that is not inside a fenced code block."""
    fence = None
    for n, line in enumerate(text.split('\n'), 1):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                continue
            yield n, line
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                and line.strip() == m.group(1):
            fence = None


def rendered(text):
    """A heading's text as GitHub renders it: links by their text, no markup characters."""
    text = CODE_SPAN.sub(lambda m: m.group(2), text)
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)
    text = re.sub(r'<[^>]+>', '', text)
    return text


def slug(text):
    out = []
    for ch in rendered(text).strip().lower():
        if ch == ' ':
            out.append('-')
        elif ch in '-_':
            out.append(ch)
        elif unicodedata.category(ch)[0] in 'LN' or unicodedata.category(ch) == 'Mn':
            out.append(ch)
    return ''.join(out)


anchor_cache = {}


def anchors(path):
    if path not in anchor_cache:
        found, seen = set(), {}
        with open(path, encoding='utf-8') as fh:
            text = fh.read()
        prev = None
        for _, line in lines_outside_code(text):
            m = HEADING.match(line)
            s = SETEXT.match(line)
            title = None
            if m:
                title = m.group(2)
            elif s and prev is not None and prev.strip() and not HEADING.match(prev) \
                    and (s.group(1)[0] == '=' or not prev.lstrip().startswith(('-', '*', '|'))):
                title = prev.strip()
            if title is not None:
                base = slug(title)
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else '%s-%d' % (base, n))
            for a, b in EXPLICIT.findall(line):
                found.add(a or b)
            prev = line
        anchor_cache[path] = found
    return anchor_cache[path]


def links(path):
    """(line number, target) of every link of a Markdown file outside code. Links are
    looked for in whole paragraphs, since a link's text may be broken over lines."""
    with open(path, encoding='utf-8') as fh:
        text = fh.read()
    para, start = [], 0

    def scan(para, start):
        block = CODE_SPAN.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), '\n'.join(para))
        for m in INLINE.finditer(block):
            yield start + block.count('\n', 0, m.start(2)), m.group(2)
        for m in HREF.finditer(block):
            yield start + block.count('\n', 0, m.start(1)), m.group(1)
        for i, line in enumerate(block.split('\n')):
            m = REFDEF.match(line)
            if m:
                yield start + i, m.group(2)

    last = None
    for n, line in lines_outside_code(text):
        if not line.strip() or (last is not None and n != last + 1):
            yield from scan(para, start)
            para = []
        if line.strip():
            if not para:
                start = n
            para.append(line)
        last = n
    yield from scan(para, start)


def check(path):
    broken = []
    base = os.path.dirname(path)
    for n, target in links(path):
        if not target or SCHEME.match(target) or target.startswith('//'):
            continue
        file_part, _, anchor = target.partition('#')
        file_part = unquote(file_part.split('?', 1)[0])
        if file_part.startswith('/'):
            dest = os.path.normpath(file_part.lstrip('/'))
        elif file_part:
            dest = os.path.normpath(os.path.join(base, file_part))
        else:
            dest = path
        if dest.startswith('..'):
            broken.append((n, target, 'outside the repository'))
            continue
        if not os.path.exists(dest):
            broken.append((n, target, 'no such file %s' % dest))
            continue
        if anchor:
            anchor = unquote(anchor)
            if dest.endswith('.md') and os.path.isfile(dest):
                if anchor not in anchors(dest):
                    broken.append((n, target, 'no heading #%s in %s' % (anchor, dest)))
            elif not re.fullmatch(r'L\d+(-L\d+)?', anchor):
                broken.append((n, target, 'anchor #%s of a file that is not Markdown' % anchor))
    return broken


files = sys.argv[1:]
print('1..%d' % len(files))
failed = 0
for i, path in enumerate(files, 1):
    if not os.path.isfile(path):
        print('not ok %d - %s: no such file' % (i, path))
        failed += 1
        continue
    broken = check(path)
    if not broken:
        print('ok %d - %s' % (i, path))
        continue
    failed += 1
    n, target, why = broken[0]
    more = ' (and %d more)' % (len(broken) - 1) if len(broken) > 1 else ''
    print('not ok %d - %s: broken link %s%s' % (i, path, target, more))
    for n, target, why in broken:
        print('#   %s:%d: %s: %s' % (path, n, target, why))
sys.exit(1 if failed else 0)
PYTHON
