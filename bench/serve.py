#!/usr/bin/env python3
"""The measurements of bench/serve.sh on one timeline: forensics serve's
answers to the page's requests (first paint, searches, a whole incident
paged through) against the same questions asked of forensics timeline
query, and the server's peak memory. Prints Markdown."""

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

p = argparse.ArgumentParser()
p.add_argument("--forensics", required=True)
p.add_argument("--db", required=True)
p.add_argument("--runs", type=int, default=5)
p.add_argument("--title", default="")
p.add_argument("--scroll", action="store_true", help="also page through the whole incident (minutes per GiB) for the server's peak memory")
p.add_argument("--page", type=int, default=200, help="lines a page when scrolling (the page's own is 200)")
a = p.parse_args()

srv = url = pid = None
hwm_max = 0


def start():
    """A fresh server: its counts are cached for a minute, and each
    measure is of a first ask."""
    global srv, url, pid, hwm_max
    if srv:
        hwm_max = max(hwm_max, rss("VmHWM"))
        srv.terminate()
        srv.wait()
    srv = subprocess.Popen([a.forensics, "serve", "--db", a.db, "--addr", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True)
    url = srv.stdout.readline().split(" at ")[-1].strip()
    pid = srv.pid


def rss(field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def get(path, **params):
    q = urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(url + path + ("?" + q if q else ""), timeout=600) as r:
        body = r.read()
    return json.loads(body) if path.startswith("api/") else body


def parallel(calls):
    out = [None] * len(calls)
    done = [0.0] * len(calls)
    t0 = time.perf_counter()

    def one(i, c):
        out[i] = get(*c[:1], **c[1])
        done[i] = time.perf_counter() - t0

    ts = [threading.Thread(target=one, args=(i, c)) for i, c in enumerate(calls)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out, done


def first_paint():
    """The page's requests in the page's order (app.js start()): the page,
    its four assets, kinds, incidents, findings, then summary, histogram and
    the first page of lines side by side. Returns the time to the lines
    (the table painted) and to all three."""
    t0 = time.perf_counter()
    get("")
    parallel([("app.css", {}), ("swimlane.css", {}), ("swimlane.js", {}), ("app.js", {})])
    get("api/kinds")
    get("api/incidents")
    get("api/findings")
    t1 = time.perf_counter() - t0
    _, done = parallel([("api/summary", {}), ("api/histogram", {"by": "component"}), ("api/lines", {"limit": 200})])
    return t1 + done[2], t1 + max(done)


def cli(*args):
    t = time.perf_counter()
    subprocess.run([a.forensics, "timeline", "query", "--db", a.db, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t


def timed(path, **params):
    t = time.perf_counter()
    get(path, **params)
    return time.perf_counter() - t


def median(f, runs=a.runs, fresh=False):
    def one():
        if fresh:
            start()
        return f()

    one()  # warm the page cache
    return statistics.median([one() for _ in range(runs)])


def ms(s):
    return f"{s * 1000:.0f} ms"


print()
print(f"## {a.title}")
print()
start()
while True:
    try:
        incs = get("api/incidents")
        break
    except OSError:
        time.sleep(0.1)
print(f"timeline {a.db}: {incs[-1]['sources']} sources, {incs[-1]['findings']} findings")
print()
print("| measure | forensics serve | baseline: forensics timeline query | ratio |")
print("|---|---|---|---|")
paint = []
for _ in range(a.runs + 1):
    start()
    paint.append(first_paint())
paint = paint[1:]
table = statistics.median(x[0] for x in paint)
whole = statistics.median(x[1] for x in paint)
base = median(lambda: cli("--limit", "200"))
print(f"| first paint: the page, its assets and the first 200 lines | {ms(table)} | {ms(base)} (`--limit 200`) | {table / base:.2f} |")
print(f"| the page complete: also the filters' counts and the histogram | {ms(whole)} | | |")

queries = [
    ("rare message", {"q": "Stream request requires rollback"}, ["--grep", "Stream request requires rollback"]),
    ("regexp", {"q": "requires rollback to seqno:[0-9]+ because", "mode": "regexp"}, ["--regex", "requires rollback to seqno:[0-9]+ because"]),
    ("either case", {"q": "service 'MEMCACHED' EXITED", "mode": "fold"}, ["-i", "--grep", "service 'MEMCACHED' EXITED"]),
    ("common word", {"q": "janitor"}, ["--grep", "janitor"]),
]
for what, params, args in queries:
    s = median(lambda: timed("api/lines", limit=200, **params))
    h = median(lambda: timed("api/histogram", **params), fresh=True)
    b = median(lambda: cli("--limit", "200", *args))
    print(f"| search, {what}: first 200 lines | {ms(s)} | {ms(b)} | {s / b:.2f} |")
    print(f"| search, {what}: its histogram (every match) | {ms(h)} | | |")

if not a.scroll:
    hwm = max(hwm_max, rss("VmHWM"))
    srv.terminate()
    srv.wait()
    print(f"| server's peak memory (VmHWM), the most of any server above | {hwm / 2**20:.0f} MiB | | |")
    sys.exit(0)

# A browser scrolling through the whole incident: every page forward, as
# the table fetches them, then 50 pages back from the end.
peak = [0]
stop = threading.Event()


def sample():
    while not stop.is_set():
        peak[0] = max(peak[0], rss("VmRSS"))
        time.sleep(0.05)


start()
th = threading.Thread(target=sample)
th.start()
t0 = time.perf_counter()
lines = pages = 0
nxt = ""
last = None
while True:
    pg = get("api/lines", limit=a.page, after=nxt) if nxt else get("api/lines", limit=a.page)
    lines += len(pg["lines"])
    pages += 1
    if pg["lines"]:
        last = pg["lines"][0]["pos"]
    nxt = pg["next"]
    if not nxt:
        break
scroll = time.perf_counter() - t0
t0 = time.perf_counter()
back = 0
for _ in range(50):
    pg = get("api/lines", limit=a.page, before=last)
    if not pg["lines"]:
        break
    back += 1
    last = pg["lines"][0]["pos"]
backward = (time.perf_counter() - t0) / max(back, 1)
stop.set()
th.join()
hwm = rss("VmHWM")
srv.terminate()
srv.wait()
t = time.perf_counter()
r = subprocess.run(["/usr/bin/time", "-f", "%M", a.forensics, "timeline", "query", "--db", a.db, "--format", "raw"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
cli_all = time.perf_counter() - t
cli_rss = int(r.stderr.strip().splitlines()[-1]) * 1024
print(f"| the whole incident paged forward: {lines:,} lines in {pages:,} pages of {a.page} | {scroll:.1f} s ({ms(scroll / pages)} a page) | {cli_all:.1f} s (`--format raw`, one process) | {scroll / cli_all:.2f} |")
print(f"| a page backward (`before=`), 50 pages from the end | {ms(backward)} | | |")
print(f"| server's peak memory (VmHWM) through it all | {hwm / 2**20:.0f} MiB (sampled RSS {peak[0] / 2**20:.0f} MiB) | {cli_rss / 2**20:.0f} MiB (`--format raw`) | {hwm / cli_rss:.2f} |")
