package store

import "context"

// Layout says which engine keeps a timeline and how its tables lie, for
// `forensics version --store`: an administrator checks with it that a
// shared store is distributed as intended. Its JSON names are a contract.
type Layout struct {
	Engine  string        `json:"engine"`  // "SQLite", "PostgreSQL", "Citus"
	Version string        `json:"version"` // the engine's: "3.46.1", "15.20", "12.1.12 on PostgreSQL 15.20"
	Schema  string        `json:"schema"`  // the version of the timeline schema
	Tables  []TableLayout `json:"tables,omitempty"`
	Nodes   []NodeLayout  `json:"nodes,omitempty"` // the servers holding shards
}

// TableLayout is one table of a timeline.
type TableLayout struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`             // "local", "distributed", "reference"
	Column string `json:"column,omitempty"` // the distribution column
	Shards int    `json:"shards,omitempty"`
	Bytes  int64  `json:"bytes"` // on disk, indexes and TOAST included, every copy counted
}

// NodeLayout is one server of a distributed store.
type NodeLayout struct {
	Node   string `json:"node"` // host:port, as the cluster names it
	Role   string `json:"role"` // "coordinator", "worker"
	Shards int    `json:"shards"`
	Bytes  int64  `json:"bytes"`
}

// Describer is a Reader that can say how it is laid out.
type Describer interface {
	Layout(ctx context.Context) (Layout, error)
}
