#!/usr/bin/env bash
# bench/fleet.sh measures the shared store on each server it is given, in
# one run on one machine: analyze of a bench bundle into it against the
# same analyze into SQLite run just before (wall time, peak RSS), fleet
# findings and fleet similar over many stored incidents, and fleet grep
# over the lines of several bundles. On a Citus cluster it also prints
# where the rows went: shards, rows and bytes per worker. It prints
# Markdown tables.
#
# usage: FORENSICS_BENCH_POSTGRES='postgres://… [postgres://…]' bench/fleet.sh [--size SIZE] [--incidents N] [--bundles N] [--shards N] [WORKDIR]
#
#   FORENSICS_BENCH_POSTGRES  servers, separated by spaces, where the role
#               may create databases; the bench creates (and drops first)
#               the database forensics_bench on each. A server whose
#               database has the Citus extension and workers in its
#               metadata is benched as that cluster: forensics_bench is
#               made on every node, with the extension, and the workers
#               added to it (bench/citus.sh starts such a cluster)
#   --size      uncompressed size of the bundle (default 256MiB)
#   --incidents incidents in the store for fleet findings and fleet similar
#               (default 1000): three bundled cases analysed, then their
#               runs and findings copied in SQL under new incident names
#   --bundles   incidents holding the bundle's lines, for fleet grep
#               (default 10): the bundle analysed that many times, under
#               as many incident names, each time after the same analyze
#               into a new SQLite file
#   --shards    on Citus, the shards of each distributed table (default:
#               the cluster's citus.shard_count, 32 unless set)
set -euo pipefail
cd "$(dirname "$0")/.."

size=256MiB incidents=1000 bundles=10 shards=
while [[ $# -gt 0 ]]; do
	case $1 in
	--size) size=$2; shift 2 ;;
	--incidents) incidents=$2; shift 2 ;;
	--bundles) bundles=$2; shift 2 ;;
	--shards) shards=$2; shift 2 ;;
	*) break ;;
	esac
done
work=${1:-${BENCH_DIR:-bench/out}}
read -ra servers <<< "${FORENSICS_BENCH_POSTGRES:?set FORENSICS_BENCH_POSTGRES to one or more postgres:// DSNs}"
command -v hyperfine > /dev/null || { echo "fleet.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
mkdir -p "$work/bin"
go build -o "$work/bin/forensics" ./cmd/forensics
go build -o "$work/bin/gen" ./bench/gen
f=$work/bin/forensics

dir=$work/fleet-$size
if [[ ! -d $dir/zips ]]; then
	mkdir -p "$dir"
	"$work/bin/gen" -out "$dir/zips" -size "$size" -nodes 4 -seed 1 > "$dir/gen.txt"
fi

# dsnOf DSN DATABASE [HOST:PORT] prints DSN naming that database (and server).
dsnOf() {
	python3 - "$@" <<'PY'
import sys, urllib.parse as u
p = u.urlparse(sys.argv[1])
netloc = p.netloc
if len(sys.argv) > 3:
    netloc = (netloc.rsplit("@", 1)[0] + "@" if "@" in netloc else "") + sys.argv[3]
print(p._replace(netloc=netloc, path="/" + sys.argv[2]).geturl())
PY
}
q() { psql "$1" -qtAX -v ON_ERROR_STOP=1 "${@:2}"; }

# benchDB SERVER makes an empty forensics_bench on SERVER (on every node
# of a Citus cluster) and sets dsn, engine and workers.
benchDB() {
	local server=$1
	workers=()
	if [[ $(q "$server" -c "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')") == t ]]; then
		mapfile -t workers < <(q "$server" -c "SELECT nodename || ':' || nodeport FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' AND isactive ORDER BY nodeid")
	fi
	dsn=$(dsnOf "$server" forensics_bench)
	q "$server" -c 'DROP DATABASE IF EXISTS forensics_bench WITH (FORCE)' -c 'CREATE DATABASE forensics_bench'
	if [[ ${#workers[@]} -eq 0 ]]; then
		engine="PostgreSQL $(q "$server" -c 'SHOW server_version' | cut -d' ' -f1)"
		return
	fi
	# Citus 12.1 does not propagate CREATE DATABASE, and its metadata is
	# per database: the database is made on every node, as an
	# administrator does.
	local w coordinator
	for w in "${workers[@]}"; do
		q "$(dsnOf "$server" postgres "$w")" -c 'DROP DATABASE IF EXISTS forensics_bench WITH (FORCE)' -c 'CREATE DATABASE forensics_bench'
		q "$(dsnOf "$server" forensics_bench "$w")" -c 'CREATE EXTENSION citus'
	done
	coordinator=$(q "$server" -c "SELECT format('%L, %s', nodename, nodeport) FROM pg_dist_node WHERE groupid = 0")
	q "$dsn" -c 'CREATE EXTENSION citus' -c "SELECT citus_set_coordinator_host($coordinator)" > /dev/null
	[[ -z $shards ]] || q "$dsn" -c "ALTER DATABASE forensics_bench SET citus.shard_count = $shards"
	for w in "${workers[@]}"; do
		q "$dsn" -c "SELECT citus_add_node('${w%:*}', ${w##*:})" > /dev/null
	done
	engine="Citus $(q "$dsn" -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'"), ${#workers[@]} workers, $(q "$dsn" -c 'SHOW citus.shard_count') shards"
}

# measure LABEL COMMAND… runs the command once and prints a row: label,
# wall time, peak RSS; it leaves the wall time in wall.
measure() {
	local label=$1 rss; shift
	/usr/bin/time -f '%e %M' -o "$dir/time" "$@" > /dev/null 2> "$dir/stderr" || { cat "$dir/stderr" >&2; exit 1; }
	read -r wall rss < "$dir/time"
	echo "| $label | $wall s | $((rss / 1024)) MiB |"
}

# query LABEL COMMAND… runs a read-only command 7 times (after one warm-up)
# and prints a row: label, median wall time (min–max), peak RSS of one run.
query() {
	local label=$1 rss; shift
	hyperfine -N -w 1 -r 7 --export-json "$dir/hf.json" -- "$(printf '%q ' "$@")" > /dev/null 2>&1 || { "$@" > /dev/null; exit 1; }
	/usr/bin/time -f '%M' -o "$dir/time" "$@" > /dev/null 2>&1
	rss=$(cat "$dir/time")
	echo "| $label | $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.0f ms (%.0f–%.0f)" % (r["median"]*1e3, r["min"]*1e3, r["max"]*1e3))' "$dir/hf.json") | $((rss / 1024)) MiB |"
}

median() { python3 -c 'import statistics,sys; print("%.2f" % statistics.median(map(float, sys.argv[1:])))' "$@"; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start; bundle: bench/gen -size $size -nodes 4 -seed 1"
for server in "${servers[@]}"; do
	benchDB "$server"
	echo
	echo "## $engine"
	echo
	echo "| step | wall | peak RSS |"
	echo "|---|---|---|"
	ratios=() walls=()
	for i in $(seq "$bundles"); do
		rm -f "$dir/sqlite.db"*
		measure "analyze $size into SQLite ($i)" "$f" analyze --db "$dir/sqlite.db" --format json "$dir"/zips/* > "$dir/row"
		sqlite=$wall
		[[ $i -eq 1 ]] && cat "$dir/row"
		measure "analyze $size into $engine, incident bundle-$i of $bundles" "$f" analyze --store "$dsn" --incident "bundle-$i" --format json "$dir"/zips/* > "$dir/row"
		[[ $i -eq 1 ]] && cat "$dir/row"
		ratios+=("$(python3 -c "print($wall / $sqlite)")") walls+=("$wall")
	done
	echo "| analyze into $engine, median of $bundles (each right after the same into SQLite) | $(median "${walls[@]}") s | |"

	for c in testdata/couchbase/seed testdata/crdb/clock-offset testdata/vitess/both-deny; do
		"$f" analyze --store "$dsn" --format json "$c" > /dev/null
	done
	copies=$(( (incidents - bundles - 3) / 3 + 1 ))
	if [[ $copies -gt 0 ]]; then
		q "$dsn" <<SQL
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
	fi
	stored=$(q "$dsn" -c 'SELECT count(*) FROM forensics.incidents')
	nfind=$(q "$dsn" -c 'SELECT count(*) FROM forensics.findings')
	id=$(q "$dsn" -c "SELECT f.id FROM forensics.findings f JOIN forensics.incidents i USING (incident_id) WHERE i.name = 'seed' AND f.rule = 'kv-stream-before-traffic' LIMIT 1")
	query "starting the binary (forensics version), the floor of every command" "$f" version
	query "fleet findings, all ($stored incidents, $nfind findings, JSON)" "$f" fleet findings --db "$dsn" --format json
	query "fleet findings, all, table" "$f" fleet findings --db "$dsn"
	query "fleet findings --rule cb-dcp-rollback-to-zero --severity high" "$f" fleet findings --db "$dsn" --rule cb-dcp-rollback-to-zero --severity high
	query "fleet findings --text rollback --limit 20" "$f" fleet findings --db "$dsn" --text rollback --limit 20
	query "fleet similar (the seed's kv-stream-before-traffic: $(( $("$f" fleet similar --db "$dsn" --format json "$id" | grep -c '"rule"') )) others)" "$f" fleet similar --db "$dsn" --format json "$id"

	bytes=$(q "$dsn" -c 'SELECT sum(bytes) FROM forensics.sources WHERE complete')
	blocks=$(q "$dsn" -c 'SELECT pg_size_pretty(sum(length(data))) FROM forensics.blocks')
	names=$(seq -f 'bundle-%g' -s, "$bundles")
	measure "fleet grep 'no-such-text-anywhere' --incident bundle-1,… ($bundles bundles: $((bytes / 1048576)) MiB of lines, $blocks of blocks)" "$f" fleet grep --db "$dsn" --incident "$names" 'no-such-text-anywhere'
	grepwall=$wall
	measure "fleet grep 'no-such-text-anywhere', every incident ($stored)" "$f" fleet grep --db "$dsn" 'no-such-text-anywhere'
	measure "fleet grep --rule cb-dcp-rollback-to-zero (the windows of its findings)" "$f" fleet grep --db "$dsn" --rule cb-dcp-rollback-to-zero 'no-such-text-anywhere'

	# The server's side of fleet findings: planning and execution of its
	# query (store/postgres fleetQuery, no filter), and on Citus how many
	# tasks (shards) it fans out to.
	plan=$(q "$dsn" -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT i.name, f.run_id, f.body FROM forensics.findings f
		JOIN (SELECT incident_id, max(id) AS run FROM forensics.runs GROUP BY incident_id) l ON l.incident_id = f.incident_id AND l.run = f.run_id
		JOIN forensics.incidents i ON i.incident_id = f.incident_id ORDER BY f.start_ns, f.rule, f.id, i.name" | awk '/Task Count/ { tasks = "; " $1 " " $2 " " $3 } /^ *Planning Time/ { p = $3 } /^ *Execution Time/ { e = $3 } END { printf "planning %s ms, execution %s ms%s", p, e, tasks }')
	echo
	echo "fleet findings' query on the server: $plan"
	echo "analyze ÷ SQLite, $bundles pairs: median $(median "${ratios[@]}")×, $(python3 -c 'import sys; v=sorted(map(float, sys.argv[1:])); print("%.2f–%.2f×" % (v[0], v[-1]))' "${ratios[@]}")"
	echo "fleet grep throughput: $(python3 -c "print(round($bytes / 1048576 / $grepwall))") MiB/s of stored lines"

	if [[ ${#workers[@]} -gt 0 ]]; then
		echo
		echo "Shard placement after the load (rows counted on each shard):"
		echo
		echo "| table | node | shards | rows | size |"
		echo "|---|---|--:|--:|--:|"
		q "$dsn" -F ' | ' <<'SQL' | sed 's/^/| /; s/$/ |/'
SELECT c.relname, s.nodename || ':' || s.nodeport, count(*), sum(r.result::bigint), pg_size_pretty(sum(s.shard_size))
FROM citus_tables t
JOIN pg_class c ON c.oid = t.table_name
CROSS JOIN LATERAL run_command_on_shards(t.table_name, 'SELECT count(*) FROM %s') r
JOIN citus_shards s ON s.shardid = r.shardid
WHERE t.citus_table_type = 'distributed' AND c.relnamespace = 'forensics'::regnamespace
GROUP BY 1, 2 ORDER BY 1, 2;
SQL
	fi
done
