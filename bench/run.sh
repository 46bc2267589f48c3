#!/usr/bin/env bash
# bench/run.sh measures forensics against the tools support engineers use
# on the same evidence, on one generated bundle (bench/gen), and prints a
# Markdown table of the results.
#
# usage: bench/run.sh [--size SIZE] [--runs N] [--crdb SHARE] [--profile NAME | --dense] [--big] [--big-size SIZE] [--perf] [--no-lnav] [WORKDIR]
#
#   WORKDIR     where the bundle, the binaries and the timelines go
#               (default $BENCH_DIR, else bench/out; keep it out of git)
#   --size      uncompressed size of the bundle (default 1GiB)
#   --runs      runs of each command; the table gives the median (default 3)
#   --crdb      share of the bundle that is a cockroach debug zip (default 0.1; 0: none)
#   --profile   what the bundle holds besides its size (bench/gen -profile):
#               default, or dense (DCP stream churn, hundreds of restarts,
#               many rotations, more multi-line entries)
#   --dense     run everything twice: on the default profile, then on the
#               dense one, each with its own table
#   --big       also analyze a bigger bundle (4 GiB), to compare peak memory
#               and time per MB with --size
#   --big-size  the size of that bundle (default 4GiB; 10GiB for the
#               linearity target)
#   --perf      also profile one forensics analyze and list where its CPU
#               time and its allocations go in each phase (ingest, rules,
#               report; go tool pprof, from FORENSICS_PHASES=DIR), and with
#               perf where its CPU time goes (by part of the program against
#               the inflate floor, and inclusive, by function)
#   --no-lnav   skip lnav (when it cannot be installed)
#
# On the same zips, one after another: the decompression floors (unzip -p to
# /dev/null, one zip after another, then one unzip per core; and
# bench/inflate, forensics' own deflate decoder, one zip per core), grep -c of a
# rare message over the extracted files, lnav over the extracted files and
# over the zips, and forensics analyze (zips in, findings out, timeline
# stored in a fresh --db), then forensics analyze again on the same DB.
# Each command runs --runs times on a warm page cache; wall and CPU time
# are the medians, peak RSS the largest seen (/usr/bin/time -v: the biggest
# single process of the command, not a sum). forensics also reports the
# peak RSS, wall and CPU time of each of its phases (FORENSICS_PHASES=1;
# see profile/profile.go), and the table gives them. MB are 10^6 bytes of
# uncompressed input. A run of forensics that does not report the buried incidents
# (kv-stream-before-traffic, and crdb-nlhe-pingpong with --crdb > 0)
# fails the script, however fast it was.
set -euo pipefail

size=1GiB bigsize=4GiB runs=${BENCH_RUNS:-3} crdb=0.1 big=0 lnav=1 perf=0 profile=default dense=0
work=${BENCH_DIR:-}
args=("$@")
while (($#)); do
	case $1 in
	--profile) profile=$2; shift 2 ;;
	--dense) dense=1; shift ;;
	--size) size=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--crdb) crdb=$2; shift 2 ;;
	--big) big=1; shift ;;
	--big-size) big=1; bigsize=$2; shift 2 ;;
	--perf) perf=1; shift ;;
	--no-lnav) lnav=0; shift ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown flag $1" >&2; exit 2 ;;
	*) work=$1; shift ;;
	esac
done

if ((dense)); then
	rest=()
	for a in "${args[@]}"; do [[ $a == --dense ]] || rest+=("$a"); done
	"$0" "${rest[@]}" --profile default
	exec "$0" "${rest[@]}" --profile dense
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
work=${work:-$repo/bench/out}
mkdir -p "$work"
work=$(cd "$work" && pwd)
cd "$repo"

log() { printf '%s\n' "$*" >&2; }
die() { log "run.sh: $*"; exit 1; }

# need installs a Debian package when its command is missing.
need() { # command package
	command -v "$1" > /dev/null && return 0
	log "installing $2"
	local sudo=
	[[ $(id -u) == 0 ]] || sudo=sudo
	$sudo apt-get install -y "$2" > /dev/null 2>&1 ||
		{ $sudo apt-get update > /dev/null 2>&1 && $sudo apt-get install -y "$2" > /dev/null 2>&1; } ||
		return 1
}

need unzip unzip || die "unzip is missing and could not be installed"
need /usr/bin/time time || die "/usr/bin/time is missing and could not be installed"
need python3 python3-minimal || die "python3 is missing and could not be installed"
if ((lnav)) && ! need lnav lnav; then
	log "lnav could not be installed: its rows are left out"
	lnav=0
fi

log "building forensics and the generator"
mkdir -p "$work/bin"
go build -o "$work/bin/forensics" ./cmd/forensics
go build -o "$work/bin/gen" ./bench/gen
go build -o "$work/bin/inflate" ./bench/inflate
# The C decoders' floors (ISA-L, libdeflate), beside klauspost's, when their
# libraries can be installed: forensics -tags isal inflates with ISA-L.
cgofloors=0
if { [[ -f /usr/include/isa-l.h ]] || need no-isa-l-header libisal-dev; } &&
	{ [[ -f /usr/include/libdeflate.h ]] || need no-libdeflate-header libdeflate-dev; } &&
	go build -tags cgoinflate -o "$work/bin/inflate-cgo" ./bench/inflate 2> /dev/null &&
	go build -tags isal -o "$work/bin/forensics-isal" ./cmd/forensics 2> /dev/null; then
	cgofloors=1
else
	log "libisal-dev or libdeflate-dev missing: the C decoders' floors are left out"
fi
forensics=$work/bin/forensics

# generate writes a bundle into $work/<size>-<profile>/zips unless the same one is
# there already.
generate() { # size
	local dir=$work/$1-$profile params="-size $1 -nodes 4 -seed 1 -crdb $crdb -profile $profile"
	if [[ -f $dir/params && $(< "$dir/params") == "$params" ]]; then
		log "bundle $1: reusing $dir/zips"
		return
	fi
	log "bundle $1: generating"
	rm -rf "$dir"
	mkdir -p "$dir"
	"$work/bin/gen" -out "$dir/zips" $params > "$dir/gen.txt"
	echo "$params" > "$dir/params"
}

# measure runs a command $runs times under /usr/bin/time -v and sets wall
# (median seconds), best (the fastest run), cpu (median user + system
# seconds), rss (largest, MB) and out (the last run's stdout file). The
# setup and post commands, if given, run untimed before and after each run.
measure() { # name setup post command...
	local name=$1 setup=$2 post=$3
	shift 3
	local walls=() cpus=() users=() rsss=() i t
	out=$work/runs/$name.out
	for ((i = 0; i < runs; i++)); do
		if [[ -n $setup ]]; then eval "$setup"; fi
		t=$work/runs/$name.time
		/usr/bin/time -v -o "$t" "$@" > "$out" 2> "$work/runs/$name.err" ||
			die "$name failed: $(tail -3 "$work/runs/$name.err")"
		walls+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (j = 1; j <= n; j++) s = s * 60 + p[j]; print s}' "$t")")
		cpus+=("$(awk -F': ' '/(User|System) time \(seconds\)/ {s += $2} END {print s}' "$t")")
		users+=("$(awk -F': ' '/User time \(seconds\)/ {print $2}' "$t")")
		# KiB to MB. forensics resets the kernel's high-water mark at each
		# of its phases (profile/profile.go), which is what /usr/bin/time
		# reports: its peak is the largest of its phases' peaks.
		rsss+=("$(awk -F': ' '/Maximum resident set size/ {kb = $2} END {print int(kb * 1024 / 1e6)}' "$t")")
		rsss[-1]=$(awk -v m="${rsss[-1]}" '/^forensics phase/ {for (i = 4; i <= NF; i++) if (split($i, kv, "=") == 2 && kv[1] == "peak_rss_mb" && kv[2] + 0 > m) m = kv[2] + 0} END {print m}' "$work/runs/$name.err")
		log "  $name run $((i + 1)): ${walls[-1]} s, cpu ${cpus[-1]} s, ${rsss[-1]} MB"
		if [[ -n $post ]]; then eval "$post"; fi
	done
	wall=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	best=$(printf '%s\n' "${walls[@]}" | sort -g | awk 'NR == 1')
	cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	user=$(printf '%s\n' "${users[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	rss=$(printf '%s\n' "${rsss[@]}" | sort -g | tail -1)
}

# check fails the script unless a forensics --format json output reports
# the buried incidents.
check() { # json-file
	local want=kv-stream-before-traffic
	if [[ $crdb != 0 ]]; then want+=,crdb-nlhe-pingpong; fi
	python3 - "$1" "$want" << 'EOF' || die "forensics missed a buried incident: the run does not count"
import json, sys
found = {f["rule"] for f in json.load(open(sys.argv[1]))["findings"]}
missing = [r for r in sys.argv[2].split(",") if r not in found]
if missing:
    print("missing findings: " + ", ".join(missing) + "; found: " + (", ".join(sorted(found)) or "none"), file=sys.stderr)
    sys.exit(1)
EOF
}

rows=()
row() { # tool input note
	local mbs lps
	mbs=$(awk -v b="$bytes" -v w="$wall" 'BEGIN {printf "%.0f", b / 1e6 / w}')
	lps=$(awk -v l="$lines" -v w="$wall" 'BEGIN {printf "%.2f M", l / 1e6 / w}')
	rows+=("| $1 | $2 | $wall | $best | $cpu | $mbs | $lps | $rss | $3 |")
	eval "wall_$4=$wall cpu_$4=$cpu user_$4=$user rss_$4=$rss"
}

# analyze measures forensics on a bundle: fresh timelines, then again on
# the last one.
analyze() { # key zips...
	local key=$1
	shift
	db=$work/runs/timeline-$key.db
	rm -f "$work/runs/forensics-$key.phases"
	measure "forensics-$key" "rm -f '$db' '$db-wal' '$db-shm'" 'check "$out"; grep "^forensics phase" "$work/runs/$name.err" >> "$work/runs/$name.phases" || true' \
		env FORENSICS_PHASES=1 "$forensics" analyze -q --db "$db" --format json "$@"
	findings=$(python3 -c 'import json,sys; print(", ".join(f["rule"] + " (" + f["severity"] + ")" for f in json.load(open(sys.argv[1]))["findings"]))' "$out")
}

mkdir -p "$work/runs"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
generate "$size"
dir=$work/$size-$profile
zips=("$dir"/zips/*.zip)

log "extracting the zips"
rm -rf "$dir/extracted"
mkdir -p "$dir/extracted"
for z in "${zips[@]}"; do
	unzip -q "$z" -d "$dir/extracted/$(basename "$z" .zip)"
done
mapfile -t files < <(find "$dir/extracted" -type f | sort)
read -r lines bytes < <(cat "${files[@]}" | wc -lc)
zipbytes=$(cat "${zips[@]}" | wc -c)
cat "${zips[@]}" "${files[@]}" > /dev/null # warm the page cache

rare='Stream request requires rollback'
log "measuring ($runs runs each)"
measure unzip-seq "" "" bash -c 'for z; do unzip -p "$z"; done > /dev/null' _ "${zips[@]}"
row "\`unzip -p\`, one zip after another" zips "decompression floor, 1 core" seq
measure unzip-par "" "" bash -c 'printf "%s\0" "$@" | xargs -0 -n1 -P"$(nproc)" unzip -p > /dev/null' _ "${zips[@]}"
row "\`unzip -p\`, one per core ($(nproc))" zips "decompression floor" par
measure inflate "" "" "$work/bin/inflate" "${zips[@]}"
row "\`bench/inflate\` (klauspost/compress), one zip per core" zips "forensics' decoder alone: the CPU floor" inflate
if ((cgofloors)); then
	measure inflate-isal "" "" "$work/bin/inflate-cgo" -decoder isal "${zips[@]}"
	row "\`bench/inflate -decoder isal\` (Intel ISA-L), one zip per core" zips "the decoder of forensics built with -tags isal" isal
	measure inflate-libdeflate "" "" "$work/bin/inflate-cgo" -decoder libdeflate "${zips[@]}"
	row "\`bench/inflate -decoder libdeflate\`, one zip per core" zips "whole members in memory: not a streaming decoder" libdeflate
fi
measure grep "" "" grep -rcF "$rare" "$dir/extracted"
row "\`grep -c '$rare'\`" extracted "$(awk -F: '{s += $NF} END {print s}' "$out") lines" grep
if ((lnav)); then
	lnavq=';SELECT count(*) FROM all_logs'
	# A fresh HOME and TMPDIR each run: lnav keeps what it extracts from
	# archives in TMPDIR and would reuse it.
	fresh="rm -rf '$work/runs/lnav' && mkdir -p '$work/runs/lnav/home' '$work/runs/lnav/tmp'"
	measure lnav-ex "$fresh" "" env HOME="$work/runs/lnav/home" TMPDIR="$work/runs/lnav/tmp" lnav -n -c "$lnavq" "${files[@]}"
	n=$(awk 'NR == 2 {print $1}' "$out")
	row "lnav \`$lnavq\`" extracted "$n log lines recognised" lnavex
	measure lnav-zip "$fresh" "" env HOME="$work/runs/lnav/home" TMPDIR="$work/runs/lnav/tmp" lnav -n -c "$lnavq" "${zips[@]}"
	n=$(awk 'NR == 2 {print $1}' "$out")
	row "lnav \`$lnavq\`" zips "$n log lines recognised" lnavzip
	rm -rf "$work/runs/lnav"
fi
analyze first "${zips[@]}"
row "\`forensics analyze\`, fresh timeline" zips "$findings" first
dbsize=$(du -cb "$db"* | tail -1 | cut -f1)
measure forensics-again "" 'check "$out"' "$forensics" analyze -q --db "$db" --format json "${zips[@]}"
row "\`forensics analyze\` again, same timeline" zips "content recognised, not read again" again
measure forensics-dump "" "" bash -c '"$1" timeline query --db "$2" --format raw > /dev/null' _ "$forensics" "$db"
row "\`forensics timeline query --format raw\`: every line, merged in time order" timeline "against \`unzip -p\`, which prints them file after file" dump
measure forensics-table "" "" bash -c '"$1" timeline query --db "$2" > /dev/null' _ "$forensics" "$db"
row "\`forensics timeline query\`: the same, as the table's rows" timeline "time, node, kinds, file and line of each line" table
if ((cgofloors)); then
	idb=$work/runs/timeline-isal.db
	measure forensics-isal "rm -f '$idb' '$idb-wal' '$idb-shm'" 'check "$out"' "$work/bin/forensics-isal" analyze -q --db "$idb" --format json "${zips[@]}"
	row "\`forensics analyze\` built with -tags isal, fresh timeline" zips "inflates with Intel ISA-L (README, Performance)" isalfirst
	rm -f "$idb" "$idb-wal" "$idb-shm"
fi

if ((big)); then
	generate "$bigsize"
	bigzips=("$work/$bigsize-$profile"/zips/*.zip)
	bigbytes=$(awk '/^total/ {print $3}' "$work/$bigsize-$profile/gen.txt")
	analyze big "${bigzips[@]}"
	wall_big=$wall user_big=$user rss_big=$rss
	rm -f "$db" "$db-wal" "$db-shm"
	db=$work/runs/timeline-first.db
fi
if ((perf)); then
	log "profiling one run by phase with go tool pprof"
	pdb=$work/runs/timeline-perf.db
	pprofs=$work/runs/pprof
	rm -rf "$pdb" "$pdb-wal" "$pdb-shm" "$pprofs"
	mkdir -p "$pprofs"
	FORENSICS_PHASES=$pprofs "$forensics" analyze -q --db "$pdb" --format json "${zips[@]}" > /dev/null 2> "$pprofs/phases.txt" ||
		die "profiled run failed: $(tail -3 "$pprofs/phases.txt")"
	rm -f "$pdb" "$pdb-wal" "$pdb-shm"
	if command -v perf > /dev/null; then
		log "profiling one run with perf"
		pdb=$work/runs/timeline-perf.db
		rm -f "$pdb" "$pdb-wal" "$pdb-shm"
		perf record -q -F 997 -g -o "$work/runs/perf.data" -- "$forensics" analyze -q --db "$pdb" --format json "${zips[@]}" > /dev/null 2>&1 ||
			{ log "perf record failed"; perf=0; }
		rm -f "$pdb" "$pdb-wal" "$pdb-shm"
	else
		log "perf is not installed: no profile"
		perf=0
	fi
fi
rm -f "$work/runs/timeline-first.db"*

# phases prints a row per phase from the "forensics phase" lines of the runs.
phases() { # file
	[[ -f $1 ]] || return 0
	awk '{
		name = $3; sub(/:$/, "", name)
		if (!(name in seen)) { seen[name] = 1; order[++n] = name }
		for (i = 4; i <= NF; i++) { split($i, kv, "="); v[name, kv[1], ++c[name, kv[1]]] = kv[2] }
	}
	function med(name, key,   k, m, a, i, j, t) {
		m = c[name, key]
		for (i = 1; i <= m; i++) a[i] = v[name, key, i]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int((m + 1) / 2)]
	}
	function max(name, key,   i, m) {
		m = 0
		for (i = 1; i <= c[name, key]; i++) if (v[name, key, i] + 0 > m) m = v[name, key, i] + 0
		return m
	}
	END { for (i = 1; i <= n; i++) printf "| %s | %s | %s | %s |\n", order[i], max(order[i], "peak_rss_mb"), med(order[i], "wall_s"), med(order[i], "cpu_s") }' "$1"
}

# byphase lists, for each phase of the profiled run, the functions that
# take its CPU time and those that allocate during it (the allocation
# profile counts from the start of the run, so each phase's is the
# difference from the one before).
byphase() {
	local base= ph
	echo
	echo "The profiled run, by phase: $(tr '\n' ' ' < "$pprofs/phases.txt")"
	for ph in ingest rules report; do
		[[ -f $pprofs/$ph.cpu.pprof ]] || continue
		echo
		echo "CPU time of the $ph phase (go tool pprof -top, flat and cumulative):"
		echo
		echo '```'
		go tool pprof -top -nodecount=25 "$work/bin/forensics" "$pprofs/$ph.cpu.pprof" 2> /dev/null | sed -n '/^Duration\|^ *flat/,$p'
		echo '```'
		echo
		echo "Allocations of the $ph phase (bytes allocated, -sample_index=alloc_space):"
		echo
		echo '```'
		go tool pprof -top -nodecount=15 -sample_index=alloc_space ${base:+-base "$base"} "$work/bin/forensics" "$pprofs/$ph.allocs.pprof" 2> /dev/null | sed -n '/^ *flat/,$p'
		echo '```'
		base=$pprofs/$ph.allocs.pprof
	done
}

load_end=$(cut -d' ' -f1-3 /proc/loadavg)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
model=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
commit=$(git rev-parse --short HEAD 2> /dev/null || echo unknown)
git diff --quiet HEAD 2> /dev/null || commit+=" (modified)"

report=$work/results-$(date -u +%Y%m%d-%H%M%S).md
{
	echo "### forensics vs grep and lnav, $profile profile, $(date -u +'%Y-%m-%d %H:%M UTC')"
	echo
	echo "Machine: $(nproc) cores ($model), $mem RAM, $(uname -sr); forensics $commit, $(go version | cut -d' ' -f3)$( ((lnav)) && echo ", $(lnav -V)"), $(unzip -v | awk 'NR == 1 {print $1, $2}')."
	echo
	echo "Load average (1, 5, 15 min) before: $load_start; after: $load_end. Other work on the machine skews the figures: compare runs made at a low load."
	echo
	echo "Input: \`go run ./bench/gen $(< "$dir/params")\`: ${#zips[@]} zips, $(ratio "$zipbytes" 1e6) MB zipped, $(ratio "$bytes" 1e6) MB in $lines lines unzipped ($(ratio "$bytes" "$zipbytes")×). Warm page cache; wall and CPU (user + system) time are the median of $runs runs, fastest the quickest run; MB/s and lines/s are per second of median wall time; peak RSS is the largest of the runs."
	echo
	echo "| command | input | wall (s) | fastest (s) | CPU (s) | MB/s | lines/s | peak RSS (MB) | notes |"
	echo "|---|---|--:|--:|--:|--:|--:|--:|---|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "| ratio | value | target |"
	echo "|---|--:|---|"
	if ((lnav)); then
		echo "| forensics / lnav, zips (wall) | $(ratio "$wall_first" "$wall_lnavzip") | ≤ 0.67 (1.5× faster) |"
		echo "| forensics / lnav, extracted (wall) | $(ratio "$wall_first" "$wall_lnavex") | ≤ 0.83 (1.2× faster) |"
	fi
	echo "| forensics / parallel unzip floor (wall) | $(ratio "$wall_first" "$wall_par") | ≤ 1.3 |"
	echo "| forensics / bench/inflate (CPU) | $(ratio "$cpu_first" "$cpu_inflate") | ≤ 2 |"
	echo "| forensics / unzip (CPU) | $(ratio "$cpu_first" "$cpu_seq") | |"
	echo "| forensics timeline query --format raw / unzip -p one zip after another (wall) | $(ratio "$wall_dump" "$wall_seq") | |"
	echo "| forensics again / first run (wall) | $(ratio "$wall_again" "$wall_first") | < 0.05 |"
	echo "| timeline DB / uncompressed input | $(ratio "$dbsize" "$bytes") ($(ratio "$dbsize" 1e6) MB) | ≤ 0.5 |"
	echo "| forensics peak RSS | $rss_first MB | ≤ 150 MB |"
	if ((big)); then
		echo "| forensics peak RSS, $bigsize / $size | $(ratio "$rss_big" "$rss_first") ($rss_big MB vs $rss_first MB) | < 1.2 (flat) |"
		echo "| forensics wall, $bigsize / $size | $(ratio "$wall_big" "$wall_first") ($wall_big s, $(ratio "$bigbytes" "$(awk -v w="$wall_big" 'BEGIN {print w * 1e6}')") MB/s) | ≈ $(ratio "$bigbytes" "$bytes") (the size ratio) |"
		echo "| forensics wall per input MB, $bigsize / $size | $(awk -v wb="$wall_big" -v bb="$bigbytes" -v w="$wall_first" -v b="$bytes" 'BEGIN {printf "%.2f", wb / bb / (w / b)}') | 1 ± 0.1 (linear) |"
		echo "| forensics user CPU per input MB, $bigsize / $size | $(awk -v ub="$user_big" -v bb="$bigbytes" -v u="$user_first" -v b="$bytes" 'BEGIN {printf "%.2f", ub / bb / (u / b)}') | 1 ± 0.1 (linear; system time is the kernel's, README) |"
	fi
	echo
	echo "forensics by phase (FORENSICS_PHASES=1; peak RSS the largest of the runs, wall and CPU the median):"
	echo
	echo "| phase | peak RSS (MB) | wall (s) | CPU (s) |"
	echo "|---|--:|--:|--:|"
	phases "$work/runs/forensics-first.phases"
	if ((big)); then
		echo
		echo "$bigsize, by phase:"
		echo
		echo "| phase | peak RSS (MB) | wall (s) | CPU (s) |"
		echo "|---|--:|--:|--:|"
		phases "$work/runs/forensics-big.phases"
	fi
	if ((perf)); then
		byphase
		echo
		echo "Where the CPU of \`forensics analyze\` goes, by part (perf, one run: each sample counts for the innermost frame that names a part; seconds are that share of the median CPU above, and the last column those seconds against bench/inflate's):"
		echo
		perf script -F ip,sym -i "$work/runs/perf.data" 2> /dev/null | python3 bench/cpuparts.py "$cpu_first" "$cpu_inflate" || true
		echo
		echo "Where \`forensics analyze\` spends its CPU time (perf, one run; inclusive share of samples, by function):"
		echo
		echo '```'
		perf report -i "$work/runs/perf.data" --children --sort sym -g none --stdio 2> /dev/null |
			grep -E '^ +[0-9.]+%' | grep -E 'forensics/|compress/(flate|zstd)|gcBgMarkWorker|sqlite3_step|syscall' |
			grep -vE 'forensics/cmd|main\.' | awk 'NR <= 25 {$2 = ""; $3 = ""; print}' || true
		echo '```'
	fi
} > "$report"
cat "$report"
log "written to $report"
