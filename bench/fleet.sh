#!/usr/bin/env bash
# bench/fleet.sh measures the shared PostgreSQL store: analyze of a bench
# bundle into PostgreSQL against the same analyze into SQLite (wall time,
# peak RSS), fleet findings over many stored incidents, and fleet grep
# throughput over the stored lines. It prints a Markdown table.
#
# usage: FORENSICS_BENCH_POSTGRES=postgres://… bench/fleet.sh [--size SIZE] [--incidents N] [WORKDIR]
#
#   FORENSICS_BENCH_POSTGRES  a server where the role may create databases;
#               the bench creates (and drops first) the database forensics_bench
#   --size      uncompressed size of the bundle (default 256MiB)
#   --incidents incidents in the store for fleet findings (default 1000):
#               three bundled cases analysed, then their runs and findings
#               copied in SQL under new incident names
set -euo pipefail
cd "$(dirname "$0")/.."

size=256MiB incidents=1000
while [[ $# -gt 0 ]]; do
	case $1 in
	--size) size=$2; shift 2 ;;
	--incidents) incidents=$2; shift 2 ;;
	*) break ;;
	esac
done
work=${1:-${BENCH_DIR:-bench/out}}
server=${FORENSICS_BENCH_POSTGRES:?set FORENSICS_BENCH_POSTGRES to a postgres:// DSN}
mkdir -p "$work/bin"
go build -o "$work/bin/forensics" ./cmd/forensics
go build -o "$work/bin/gen" ./bench/gen
f=$work/bin/forensics

dir=$work/fleet-$size
if [[ ! -d $dir/zips ]]; then
	mkdir -p "$dir"
	"$work/bin/gen" -out "$dir/zips" -size "$size" -nodes 4 -seed 1 > "$dir/gen.txt"
fi
db() { psql "$server" -qtAX "$@"; }
dsn=$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/forensics_bench").geturl())' "$server")
db -c 'DROP DATABASE IF EXISTS forensics_bench WITH (FORCE)' -c 'CREATE DATABASE forensics_bench'

measure() { # label, command…: prints "label|wall s|peak RSS MiB"
	local label=$1; shift
	/usr/bin/time -f '%e %M' -o "$dir/time" "$@" > /dev/null 2> "$dir/stderr" || { cat "$dir/stderr"; exit 1; }
	read -r wall rss < "$dir/time"
	echo "| $label | $wall s | $((rss / 1024)) MiB |"
}

echo "| step | wall | peak RSS |"
echo "|---|---|---|"
rm -f "$dir/sqlite.db"*
measure "analyze $size into SQLite" "$f" analyze --db "$dir/sqlite.db" --format json "$dir"/zips/*
measure "analyze $size into PostgreSQL" "$f" analyze --store "$dsn" --format json "$dir"/zips/*

for c in testdata/couchbase/seed testdata/crdb/clock-offset testdata/vitess/both-deny; do
	"$f" analyze --store "$dsn" --format json "$c" > /dev/null
done
copies=$(( (incidents - 4) / 3 + 1 ))
psql "$dsn" -qtAX <<SQL
INSERT INTO forensics.incidents (incident_id, name)
	SELECT i.incident_id + g * 7919, i.name || '-' || g FROM forensics.incidents i, generate_series(1, $copies) g
	WHERE i.name IN ('seed', 'clock-offset', 'both-deny');
INSERT INTO forensics.runs (incident_id, id, started, args, signature, heartbeat)
	SELECT r.incident_id + g * 7919, r.id + g * 1000000, r.started, r.args, r.signature, r.heartbeat
	FROM forensics.runs r JOIN forensics.incidents i USING (incident_id), generate_series(1, $copies) g
	WHERE i.name IN ('seed', 'clock-offset', 'both-deny');
INSERT INTO forensics.findings (incident_id, run_id, id, rule, severity, rank, node, shape, start_ns, end_ns, title, body, explanation)
	SELECT f.incident_id + g * 7919, f.run_id + g * 1000000, f.id, f.rule, f.severity, f.rank, f.node, f.shape,
		f.start_ns + g * 86400000000000, f.end_ns + g * 86400000000000, f.title, f.body, f.explanation
	FROM forensics.findings f JOIN forensics.incidents i USING (incident_id), generate_series(1, $copies) g
	WHERE i.name IN ('seed', 'clock-offset', 'both-deny');
ANALYZE;
SQL
stored=$(psql "$dsn" -qtAX -c 'SELECT count(*) FROM forensics.incidents')
nfind=$(psql "$dsn" -qtAX -c 'SELECT count(*) FROM forensics.findings')
measure "starting the binary (forensics version), the floor of every command" "$f" version
measure "fleet findings, all ($stored incidents, $nfind findings, JSON)" "$f" fleet findings --db "$dsn" --format json
measure "fleet findings, all, table" "$f" fleet findings --db "$dsn"
measure "fleet findings --rule cb-dcp-rollback-to-zero --severity high" "$f" fleet findings --db "$dsn" --rule cb-dcp-rollback-to-zero --severity high
measure "fleet findings --text rollback --limit 20" "$f" fleet findings --db "$dsn" --text rollback --limit 20

bytes=$(psql "$dsn" -qtAX -c 'SELECT sum(bytes) FROM forensics.sources WHERE complete')
stored=$(psql "$dsn" -qtAX -c 'SELECT pg_size_pretty(sum(length(data))) FROM forensics.blocks')
measure "fleet grep 'no-such-text-anywhere' ($((bytes / 1048576)) MiB of lines, $stored of blocks)" "$f" fleet grep --db "$dsn" 'no-such-text-anywhere'
grepwall=$wall # measure leaves the wall time of the step in wall
measure "fleet grep --rule cb-dcp-rollback-to-zero (the windows of its findings)" "$f" fleet grep --db "$dsn" --rule cb-dcp-rollback-to-zero 'no-such-text-anywhere'
echo
echo "fleet grep throughput: $(python3 -c "print(round($bytes / 1048576 / $grepwall))") MiB/s of stored lines"
