package postgres

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"forensics/store"
)

var _ store.Describer = (*DB)(nil)

// Layout says which engine holds the store and how its tables lie: on
// Citus, which are distributed and by what, their shards, and what each
// node holds.
func (db *DB) Layout(ctx context.Context) (store.Layout, error) {
	l, err := db.layout(ctx)
	if err != nil {
		return l, db.fail("describe", err)
	}
	return l, nil
}

func (db *DB) layout(ctx context.Context) (store.Layout, error) {
	var l store.Layout
	eng, err := engine(ctx, db.pool)
	if err != nil {
		return l, err
	}
	v, err := appliedVersion(ctx, db.pool)
	if err != nil {
		return l, err
	}
	l.Schema = strconv.Itoa(v)
	var version string
	if err := db.pool.QueryRow(ctx, `SELECT version()`).Scan(&version); err != nil {
		return l, err
	}
	switch eng {
	case engineCockroach, engineYugabyte:
		// Untested here (docs/fleet.md): the engine's own words.
		l.Engine, l.Version = map[string]string{engineCockroach: "CockroachDB", engineYugabyte: "YugabyteDB"}[eng], version
		return l, nil
	}
	var server string
	if err := db.pool.QueryRow(ctx, `SHOW server_version`).Scan(&server); err != nil {
		return l, err
	}
	server, _, _ = strings.Cut(server, " ") // "15.20 (Debian 15.20-0+deb12u1)"
	l.Engine, l.Version = "PostgreSQL", server
	rows, err := db.pool.Query(ctx, `SELECT c.relname, pg_total_relation_size(c.oid)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'forensics' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`)
	if err != nil {
		return l, err
	}
	l.Tables, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.TableLayout, error) {
		t := store.TableLayout{Kind: "local"}
		return t, r.Scan(&t.Name, &t.Bytes)
	})
	if err != nil || eng != engineCitus {
		return l, err
	}
	var citus string
	if err := db.pool.QueryRow(ctx, `SELECT citus_version()`).Scan(&citus); err != nil {
		return l, err
	}
	if f := strings.Fields(citus); len(f) > 1 { // "Citus 12.1.12 on x86_64-pc-linux-gnu, compiled by …"
		citus = f[1]
	}
	l.Engine, l.Version = "Citus", citus+" on PostgreSQL "+server
	return l, db.citusLayout(ctx, &l)
}

// citusLayout fills in what Citus distributes, from its metadata, and the
// size of every shard placement (citus_shards asks each worker).
func (db *DB) citusLayout(ctx context.Context, l *store.Layout) error {
	tables := map[string]*store.TableLayout{}
	for i := range l.Tables {
		tables[l.Tables[i].Name] = &l.Tables[i]
	}
	rows, err := db.pool.Query(ctx, `SELECT c.relname, t.citus_table_type, t.distribution_column, t.shard_count
		FROM citus_tables t JOIN pg_class c ON c.oid = t.table_name JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'forensics'`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var name, kind, column string
		var shards int
		if err := rows.Scan(&name, &kind, &column, &shards); err != nil {
			rows.Close()
			return err
		}
		if t := tables[name]; t != nil {
			t.Kind, t.Shards, t.Bytes = kind, shards, 0 // the coordinator's own table holds no rows
			if kind == "distributed" {
				t.Column = column
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	nodes := map[string]*store.NodeLayout{}
	rows, err = db.pool.Query(ctx, `SELECT nodename, nodeport, groupid = 0, isactive FROM pg_dist_node WHERE noderole = 'primary' ORDER BY groupid, nodeid`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var host string
		var port int
		var coordinator, active bool
		if err := rows.Scan(&host, &port, &coordinator, &active); err != nil {
			rows.Close()
			return err
		}
		n := store.NodeLayout{Node: net.JoinHostPort(host, strconv.Itoa(port)), Role: "worker"}
		switch {
		case coordinator:
			n.Role = "coordinator"
		case !active:
			n.Role = "inactive worker"
		}
		l.Nodes = append(l.Nodes, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range l.Nodes {
		nodes[l.Nodes[i].Node] = &l.Nodes[i]
	}
	rows, err = db.pool.Query(ctx, `SELECT c.relname, s.nodename, s.nodeport, count(*), coalesce(sum(s.shard_size), 0)
		FROM citus_shards s JOIN pg_class c ON c.oid = s.table_name JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'forensics' GROUP BY 1, 2, 3`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var table, host string
		var port, shards int
		var bytes int64
		if err := rows.Scan(&table, &host, &port, &shards, &bytes); err != nil {
			return err
		}
		if t := tables[table]; t != nil {
			t.Bytes += bytes
		}
		node := net.JoinHostPort(host, strconv.Itoa(port))
		n := nodes[node]
		if n == nil {
			return fmt.Errorf("shards of %s on %s, which is not a primary node of the cluster", table, node)
		}
		n.Shards += shards
		n.Bytes += bytes
	}
	return rows.Err()
}
