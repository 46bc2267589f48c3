#!/usr/bin/env bash
# bench/citus.sh runs the shared store on a real Citus cluster on this
# machine. It builds and installs Citus from a source tree (the project
# does not vendor it), starts a coordinator, two workers and a plain
# PostgreSQL server of the same version on free loopback ports, runs the
# shared-store tests against both (FORENSICS_TEST_CITUS beside
# FORENSICS_TEST_POSTGRES: the storetest suite, the cross-backend findings
# comparison, kill -9 mid-load, the roles, concurrent analyses), then
# bench/fleet.sh on both in one run, and stops every server it started.
#
# usage: bench/citus.sh [--no-build] [--no-tests] [--no-bench] [--size SIZE] [--incidents N] [--bundles N] [--shards N] SRC [WORKDIR]
#
#   SRC         a Citus source tree (git clone https://github.com/citusdata/citus,
#               a tag such as v12.1.12, or a release tarball) that supports the
#               PostgreSQL installed; it is configured and built in place
#   WORKDIR     where fleet.sh keeps its bundle and binaries (default bench/out)
#   --no-build  use the Citus already installed into that PostgreSQL
#   --size, --incidents, --bundles, --shards: passed to bench/fleet.sh
#               (default here: 1GiB, 1000, 10, and Citus' 32 shards)
#
# The servers run as user postgres when the script runs as root (initdb
# refuses root), with fsync off, under a temporary folder that is removed
# at the end. PG_CONFIG picks the PostgreSQL (default: the newest in
# /usr/lib/postgresql). On Debian the build's packages are installed with
# apt-get, the server headers at exactly the version of the server
# installed, so nothing installed is upgraded.
set -euo pipefail
cd "$(dirname "$0")/.."

build=1 tests=1 bench=1 fleet=(--size 1GiB --incidents 1000 --bundles 10)
while [[ $# -gt 0 ]]; do
	case $1 in
	--no-build) build=0; shift ;;
	--no-tests) tests=0; shift ;;
	--no-bench) bench=0; shift ;;
	--size | --incidents | --bundles | --shards) fleet+=("$1" "$2"); shift 2 ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) break ;;
	esac
done
src=${1:?usage: bench/citus.sh [options] SRC [WORKDIR] (SRC: a Citus source tree)}
work=${2:-bench/out}
src=$(cd "$src" && pwd)
[[ -f $src/configure && -d $src/src/backend/distributed ]] || { echo "$src is not a Citus source tree" >&2; exit 1; }

pgconfig=${PG_CONFIG:-$(ls -d /usr/lib/postgresql/*/bin/pg_config 2>/dev/null | sort -V | tail -1)}
[[ -x $pgconfig ]] || { echo "no pg_config: install PostgreSQL's server, or set PG_CONFIG" >&2; exit 1; }
bin=$("$pgconfig" --bindir)
major=$("$pgconfig" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')

if [[ $build == 1 ]] && command -v dpkg-query > /dev/null; then
	# The server headers must be those of the server installed: a newer
	# postgresql-server-dev-N would upgrade postgresql-N under running
	# servers (their new backends then fail to load the old modules).
	server=$(dpkg-query -W -f '${Version}' "postgresql-$major" 2>/dev/null || true)
	want=(liblz4-dev libzstd-dev libkrb5-dev make gcc)
	[[ -n $server ]] && want+=("postgresql-server-dev-$major=$server")
	missing=()
	for p in "${want[@]}"; do
		v=
		[[ $p == *=* ]] && v=${p#*=}
		[[ $(dpkg-query -W -f '${Status} ${Version}' "${p%%=*}" 2>/dev/null) == "install ok installed $v"* ]] || missing+=("$p")
	done
	if [[ ${#missing[@]} -gt 0 ]]; then
		echo "installing ${missing[*]}" >&2
		apt-get install -y --no-upgrade "${missing[@]}" > /dev/null || { apt-get update > /dev/null && apt-get install -y --no-upgrade "${missing[@]}" > /dev/null; }
	fi
fi
if [[ $build == 1 ]]; then
	echo "building Citus in $src against $pgconfig" >&2
	(
		cd "$src"
		grep -qs "^PG_CONFIG:=$pgconfig\$" Makefile.global || ./configure --without-libcurl PG_CONFIG="$pgconfig" > configure.out
		make -s -j"$(nproc)" > /dev/null
		make -s install > /dev/null
	)
fi

# The servers: a coordinator and two workers with Citus, and plain
# PostgreSQL, each on a free loopback port.
base=$(mktemp -d /tmp/forensics-citus.XXXXXX)
as=()
if [[ $(id -u) == 0 ]]; then
	chown postgres: "$base"
	as=(runuser -u postgres --)
fi
mapfile -t ports < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1", 0))
for s in ss: print(s.getsockname()[1])
for s in ss: s.close()')
names=(coordinator worker1 worker2 postgresql)
started=()
stop() {
	local d
	for d in "${started[@]}"; do
		"${as[@]}" "$bin/pg_ctl" -D "$d" -m fast -w stop > /dev/null 2>&1 ||
			"${as[@]}" "$bin/pg_ctl" -D "$d" -m immediate -w stop > /dev/null 2>&1 || true
	done
	rm -rf "$base"
}
trap stop EXIT
trap 'exit 130' INT TERM
for i in 0 1 2 3; do
	d=$base/${names[i]}
	"${as[@]}" "$bin/initdb" -D "$d" -A trust -U postgres --no-sync > /dev/null
	[[ ${names[i]} == postgresql ]] || echo "shared_preload_libraries = 'citus'" >> "$d/postgresql.conf"
	"${as[@]}" "$bin/pg_ctl" -D "$d" -w -l "$d.log" -o "-p ${ports[i]} -k $base -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start > /dev/null
	started+=("$d")
done
dsn() { echo "postgres://postgres@127.0.0.1:$1/postgres?sslmode=disable"; }
coordinator=$(dsn "${ports[0]}") plain=$(dsn "${ports[3]}")
for i in 0 1 2; do
	psql "$(dsn "${ports[i]}")" -qtAX -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION citus'
done
psql "$coordinator" -qtAX -v ON_ERROR_STOP=1 -c "SELECT citus_set_coordinator_host('127.0.0.1', ${ports[0]})" \
	-c "SELECT citus_add_node('127.0.0.1', ${ports[1]})" -c "SELECT citus_add_node('127.0.0.1', ${ports[2]})" > /dev/null
echo "Citus $(psql "$coordinator" -qtAX -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'") ($(psql "$coordinator" -qtAX -c 'SELECT citus_version()' | cut -d, -f1)) on $(psql "$coordinator" -qtAX -c 'SELECT version()' | cut -d, -f1):" \
	"coordinator 127.0.0.1:${ports[0]}, workers 127.0.0.1:${ports[1]} and :${ports[2]}; plain PostgreSQL 127.0.0.1:${ports[3]}"

if [[ $tests == 1 ]]; then
	export FORENSICS_TEST_POSTGRES=$plain FORENSICS_REQUIRE_POSTGRES=1 FORENSICS_TEST_CITUS=$coordinator FORENSICS_REQUIRE_CITUS=1
	echo "tests on Citus and PostgreSQL (FORENSICS_TEST_CITUS=$coordinator)"
	# -v so that the Citus subtests are listed by name: the suite is
	# only proof if they ran.
	go test -count=1 -v ./store/... ./fleet/... > "$base/test.out" 2>&1 || { grep -E '^\s*--- FAIL|^(FAIL|ok)' "$base/test.out"; grep -B2 -A20 -- '--- FAIL' "$base/test.out" | head -100; exit 1; }
	go test -count=1 -v -run '^TestStore' ./cmd/forensics >> "$base/test.out" 2>&1 || { grep -E '^\s*--- FAIL|^(FAIL|ok)' "$base/test.out"; grep -B2 -A20 -- '--- FAIL' "$base/test.out" | head -100; exit 1; }
	grep -E '^(ok|FAIL)' "$base/test.out"
	echo "Citus subtests passed: $(grep -cE -- '--- PASS: .*/citus( |/)' "$base/test.out"), skipped: $(grep -cE -- '--- SKIP: .*/citus( |/)' "$base/test.out"); for example:"
	grep -E -- '--- PASS: [^/]+/citus ' "$base/test.out" | sed 's/^ *//' | head -20
	unset FORENSICS_TEST_POSTGRES FORENSICS_REQUIRE_POSTGRES FORENSICS_TEST_CITUS FORENSICS_REQUIRE_CITUS
fi

if [[ $bench == 1 ]]; then
	FORENSICS_BENCH_POSTGRES="$plain $coordinator" bench/fleet.sh "${fleet[@]}" "$work"
fi
