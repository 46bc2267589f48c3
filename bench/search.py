#!/usr/bin/env python3
"""The measurements of bench/search.sh on one bundle: its queries timed
with forensics and with ripgrep (median of --runs, after a warm-up run of
each, so that the page cache holds both the timeline and the extracted
files; a search that takes more than 3 s is timed by its first run,
which prints its lines), their lines
compared, and what the index costs. Prints Markdown."""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--dir", required=True, help="the bundle's folder: zips/, extracted/, new.db, BASE.db, *.time")
p.add_argument("--base", required=True, help="the name of the build without the index")
p.add_argument("--runs", type=int, default=5)
p.add_argument("--title", default="")
p.add_argument("--summary", help="append each query's figures to this file, a JSON object a line")
p.add_argument("--no-cost", action="store_true", help="time the queries only, not what the index costs")
a = p.parse_args()

work = os.path.dirname(os.path.abspath(a.dir))
forensics = os.path.join(work, "forensics")
db = os.path.join(a.dir, "new.db")
extracted = os.path.join(a.dir, "extracted")


def run(argv, out=subprocess.DEVNULL):
    r = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE)
    if r.returncode not in (0, 1):  # rg: 1 is no match
        sys.exit(f"{' '.join(argv)}: exit {r.returncode}\n{r.stderr.decode()}")
    return r


def stored_files():
    """The extracted files the timeline holds lines of: a member X.zip!M is extracted/X/M."""
    out = run([forensics, "timeline", "query", "--db", db, "--sql", "SELECT path FROM sources", "--format", "raw"], subprocess.PIPE)
    files = []
    for path in out.stdout.decode().splitlines():
        z, _, member = path.partition(".zip!")
        files.append(os.path.join(extracted, os.path.basename(z), member))
    return files


def rg_count(args, files):
    out = run(["rg", "-c", "--no-filename", *args, *files], subprocess.PIPE)
    return sum(int(n) for n in out.stdout.split())


def rare_id(files):
    """An 8-digit hexadecimal id (with a letter) from the middle of one of
    the largest files, that one to three lines hold."""
    for big in sorted(files, key=os.path.getsize, reverse=True)[:5]:
        with open(big, "rb") as f:
            f.seek(os.path.getsize(big) // 2)
            chunk = f.read(1 << 20).decode("utf-8", "replace")
        tried = 0
        for m in re.finditer(r"(?<![0-9A-Za-z])[0-9a-f]{8}(?![0-9A-Za-z])", chunk):
            tok = m.group(0)
            if not re.search("[a-f]", tok):
                continue
            tried += 1
            if rg_count(["-F", tok], files) <= 3:
                return tok
            if tried > 10:
                break
    sys.exit("no rare 8-digit hexadecimal id in the middle of the largest files")


files = stored_files()
rid = rare_id(files)
queries = [
    # what, forensics' arguments, rg's
    ("rare message", ["--grep", "Stream request requires rollback"], ["-F", "Stream request requires rollback"]),
    ("regexp", ["--regex", "requires rollback to seqno:[0-9]+ because"], ["-e", "requires rollback to seqno:[0-9]+ because"]),
    ("message", ["--grep", "Service 'memcached' exited"], ["-F", "Service 'memcached' exited"]),
    ("either case", ["-i", "--grep", "service 'MEMCACHED' EXITED"], ["-i", "-F", "service 'MEMCACHED' EXITED"]),
    ("8-hex-digit id", ["--grep", rid], ["-F", rid]),
    ("regexp without a literal", ["--regex", "[0-9a-f]{8}-[0-9a-f]{4}-"], ["-e", "[0-9a-f]{8}-[0-9a-f]{4}-"]),
    ("common word", ["--grep", "janitor"], ["-F", "janitor"]),
]


def timed(argv):
    t = time.perf_counter()
    run(argv)
    return time.perf_counter() - t


def shell(argv):
    return " ".join(x if re.fullmatch(r"[-\w.:/@=]+", x) else "'" + x.replace("'", "'\\''") + "'" for x in argv)


print()
print(f"## {a.title}")
print()
print("| query | lines | forensics | rg over the extracted files | rg / forensics | blocks read (of) | same lines as rg |")
print("|---|--:|--:|--:|--:|--:|---|")
failed = False
for what, fargs, rargs in queries:
    fq = [forensics, "timeline", "query", "--db", db, *fargs, "--format", "raw"]
    rq = ["rg", *rargs, extracted]
    # The lines, and how the search read the timeline; this run of
    # forensics is its warm-up.
    t0 = time.perf_counter()
    out = run(fq + ["-v"], subprocess.PIPE)
    first = time.perf_counter() - t0
    slow = first > 3  # a search that reads every block: this run is its time
    timed(rq)  # rg's warm-up
    got = sorted(out.stdout.decode("utf-8", "replace").splitlines())
    stats = out.stderr.decode()
    m = re.search(r"kept (\d+) of the (\d+) block", stats) or re.search(r"each of the (\d+) block", stats)
    read = re.search(r"(\d+) blocks? read line by line", stats)
    total = m.group(m.lastindex) if m else "?"
    blocks = f"{read.group(1) if read else '?'} ({total})"
    want = sorted(run(["rg", "-N", "--no-filename", *rargs, *files], subprocess.PIPE).stdout.decode("utf-8", "replace").splitlines())
    same = got == want
    failed |= not same
    ft, rt = ([first], [timed(rq)]) if slow else ([], [])
    for _ in range(0 if slow else a.runs):
        ft.append(timed(fq))
        rt.append(timed(rq))
    f, r = statistics.median(ft), statistics.median(rt)
    verdict = "yes" if same else f"NO: forensics {len(got)}, rg {len(want)}"
    print(f"| {what}: `{shell(fargs)}` | {len(got)} | {f:.3f} s | {r:.3f} s | {r / f:.1f}× | {blocks} | {verdict} |")
    if a.summary:
        with open(a.summary, "a") as out:
            out.write(json.dumps({"bundle": a.title, "query": what, "args": shell(fargs), "lines": len(got),
                                  "forensics": f, "rg": r, "same": same}) + "\n")


if a.no_cost:
    print()
    print(f"The rare id: `{rid}`.")
    if failed:
        sys.exit("forensics and rg differ on a query's lines")
    sys.exit(0)


def ingest(build):
    """The median wall seconds and peak RSS (MiB) of the build's ingests."""
    runs = []
    for n in (1, 2, 3):
        secs, kb = open(os.path.join(a.dir, f"{build}.time.{n}")).read().split()[-2:]
        runs.append((float(secs), int(kb) / 1024))
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def size(path):
    return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))


def dump(build):
    """The whole timeline printed, line by line: wall seconds and peak RSS (MiB)."""
    binary = forensics if build == "new" else os.path.join(work, "forensics-" + build)
    out = run(["/usr/bin/time", "-f", "%e %M", binary, "timeline", "query", "--db", os.path.join(a.dir, build + ".db"), "--format", "raw"], subprocess.DEVNULL)
    secs, kb = out.stderr.decode().split()[-2:]
    return float(secs), int(kb) / 1024


inputs = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(extracted) for f in fs)
index = run(["sqlite3", db, "SELECT sum(pgsize) FROM dbstat WHERE name IN ('gram_parts', 'gram_segments', 'block_grams')"], subprocess.PIPE)
index = int(index.stdout.decode().strip() or 0)
(bs, bm), (ns, nm) = ingest(a.base), ingest("new")
bsize, nsize = size(os.path.join(a.dir, a.base + ".db")), size(db)
print()
print(f"Extracted files: {inputs / 2**20:.0f} MiB. The rare id: `{rid}`.")
print()
(bd, bdm), (nd, ndm) = dump(a.base), dump("new")
print("| build | ingest | peak RSS | timeline | timeline / input | index | whole timeline, raw: wall, peak RSS |")
print("|---|--:|--:|--:|--:|--:|--:|")
print(f"| {a.base} (no index) | {bs:.1f} s | {bm:.0f} MiB | {bsize / 2**20:.1f} MiB | {bsize / inputs:.3f} | | {bd:.2f} s, {bdm:.0f} MiB |")
print(f"| with the index | {ns:.1f} s | {nm:.0f} MiB | {nsize / 2**20:.1f} MiB | {nsize / inputs:.3f} | {index / 2**20:.1f} MiB, {100 * index / nsize:.1f}% of the timeline | {nd:.2f} s, {ndm:.0f} MiB |")
print(f"| ratio | {ns / bs:.2f} | {nm / bm:.2f} | {nsize / bsize:.3f} | | | {nd / bd:.2f}, {ndm / bdm:.2f} |")
if failed:
    sys.exit("forensics and rg differ on a query's lines")
