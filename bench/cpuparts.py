"""Share the CPU samples of one perf record of forensics among its parts.

    perf script -F ip,sym -i perf.data | python3 bench/cpuparts.py CPU FLOOR

CPU is the CPU time (s) of a forensics run and FLOOR that of bench/inflate
on the same zips. A sample belongs to the part of the innermost frame of its
stack that names one (a memmove called by a parser is the parser's), and the
table gives each part's share of the samples, that share of CPU in seconds,
and those seconds against the floor: the last column adds up to the CPU
ratio the bench reports, so it shows which parts keep that ratio above its
target.
"""

import sys

# The first part whose pattern a frame contains, innermost frame first.
PARTS = [
    ("inflate, with the zip's CRC (what bench/inflate does)", ("compress/flate.", "compress/zip.", "hash/crc32.")),
    ("S2 encoding of blocks of lines and events", ("s2.Encode", "s2.encodeBlock")),
    ("S2 decoding of blocks (rules, evidence)", ("s2.Decode", "s2.s2Decode")),
    ("the trail of deflate members: their bytes and points kept (zran)", ("forensics/zran.",)),
    ("garbage collection", ("runtime.gcBgMarkWorker", "runtime.gcAssistAlloc", "runtime.bgsweep", "runtime.bgscavenge")),
    # SQLite is the program's only C: the libc calls (pwrite of the timeline
    # file, memmove) come from it, and perf often cannot walk from its frames
    # back to Go's.
    ("SQLite and writing the timeline file", ("mattn/go-sqlite3", "database/sql.", "sqlite3", "walChecksum",
                                              "pagerWal", "pcache1", "__libc_", "__GI_", "__close", "__memmove_avx",
                                              "__memset_avx")),
    ("events: emitting and encoding", ("ingest.(*parse).emit", "ingest.(*parse).flushEvents", "block.(*EventEncoder)")),
    ("lines into blocks (record encoding, copies)", ("block.(*Builder)", "lineBuffer", "ingest.(*parse).store", "ingest.(*parse).release")),
    ("parsers (formats, times, attributes)", ("forensics/parsers/", "forensics/logtime.")),
    ("reading lines from the inflated stream", ("forensics/lines.",)),
    ("rules", ("forensics/rules/",)),
    ("ingest, the rest (per-line loop, counts)", ("forensics/ingest.",)),
    ("report and the command", ("forensics/report", "forensics/analysis", "main.")),
]
OTHER = "other (runtime start, kernel, unattributed)"


def part(frames):
    for f in frames:
        for name, patterns in PARTS:
            if any(p in f for p in patterns):
                return name
    return OTHER


def samples(lines):
    frames = []
    for line in lines:
        line = line.strip()
        if not line:
            if frames:
                yield frames
            frames = []
            continue
        fields = line.split(None, 1)
        frames.append(fields[1] if len(fields) > 1 else "")
    if frames:
        yield frames


def main():
    cpu, floor = float(sys.argv[1]), float(sys.argv[2])
    counts = {}
    total = 0
    for frames in samples(sys.stdin):
        p = part(frames)
        counts[p] = counts.get(p, 0) + 1
        total += 1
    if total == 0:
        sys.exit("no samples")
    print("| part | share of samples | CPU (s) | × the floor |")
    print("|---|--:|--:|--:|")
    for name, _ in PARTS + [(OTHER, ())]:
        n = counts.get(name, 0)
        if n == 0:
            continue
        s = cpu * n / total
        print(f"| {name} | {100 * n / total:.1f}% | {s:.2f} | {s / floor:.2f} |")
    print(f"| all | 100% | {cpu:.2f} | {cpu / floor:.2f} |")


if __name__ == "__main__":
    main()
