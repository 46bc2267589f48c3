package vitess

import (
	"encoding/json"
	"fmt"

	"forensics"
)

// The types below are the shapes of the "doc" attribute of the topology
// events, one per kind. They are a stable interface: fields are added, never
// renamed. Both encodings vtctldclient has used (protojson field names or
// camelCase, enum names or numbers, int64 as strings or numbers) end up the
// same here: enum values are names ("PRIMARY"; MASTER, the old name of the
// same value, is read as PRIMARY), key ranges are hex as Vitess writes them
// in shard names ("-80", "80-", "-" for the whole range), tablet aliases are
// "cell-0000000100".

// RoutingRules is the doc of vitess.routing_rules.
type RoutingRules struct {
	// Rules maps from_table ("t1", "src.t1", "t1@replica") to its first
	// to_table ("dst.t1"). MoveTables always writes exactly one.
	Rules map[string]string `json:"rules"`
	// Targets lists all to_tables of the rules that have more than one.
	Targets map[string][]string `json:"targets,omitempty"`
}

// ShardRoutingRules is the doc of vitess.shard_routing_rules.
type ShardRoutingRules struct {
	Rules []ShardRoutingRule `json:"rules"`
}

// ShardRoutingRule sends the queries for Shard of FromKeyspace to ToKeyspace.
type ShardRoutingRule struct {
	FromKeyspace string `json:"from_keyspace"`
	ToKeyspace   string `json:"to_keyspace"`
	Shard        string `json:"shard"`
}

// Keyspaces is the doc of vitess.keyspaces.
type Keyspaces struct {
	Keyspaces []Keyspace `json:"keyspaces"`
}

// Keyspace is one keyspace record.
type Keyspace struct {
	Name             string `json:"name"`
	KeyspaceType     string `json:"keyspace_type,omitempty"` // "NORMAL", "SNAPSHOT"
	BaseKeyspace     string `json:"base_keyspace,omitempty"`
	DurabilityPolicy string `json:"durability_policy,omitempty"`
	SidecarDBName    string `json:"sidecar_db_name,omitempty"`
}

// Shard is the doc of vitess.shard: a shard record.
type Shard struct {
	Keyspace       string          `json:"keyspace"`
	Name           string          `json:"name"`
	KeyRange       string          `json:"key_range"`
	PrimaryAlias   string          `json:"primary_alias,omitempty"`
	PrimaryServing bool            `json:"primary_serving"`
	TabletControls []TabletControl `json:"tablet_controls"`
}

// TabletControl is what tablets of one type must deny. A tablet applies the
// control of its own type whose Cells include its cell; no Cells means all
// cells. DeniedTables holds table names or /regexp/.
type TabletControl struct {
	TabletType   string   `json:"tablet_type"` // "PRIMARY", "REPLICA", "RDONLY", …
	Cells        []string `json:"cells"`
	DeniedTables []string `json:"denied_tables"`
	Frozen       bool     `json:"frozen"`
}

// Control returns the shard's control for a tablet type, or nil.
func (s Shard) Control(tabletType string) *TabletControl {
	for i := range s.TabletControls {
		if s.TabletControls[i].TabletType == tabletType {
			return &s.TabletControls[i]
		}
	}
	return nil
}

// SrvKeyspaces is the doc of vitess.srv_keyspace: a keyspace's serving graph
// in each cell.
type SrvKeyspaces struct {
	// Keyspace is the keyspace named on the command line echoed before the
	// document, or in a file named srv_keyspace_<cell>_<keyspace>.json;
	// "" when neither names it (the document itself does not).
	Keyspace string                 `json:"keyspace"`
	Cells    map[string]SrvKeyspace `json:"cells"`
}

// SrvKeyspace is a keyspace's serving graph in one cell.
type SrvKeyspace struct {
	Partitions []Partition `json:"partitions"`
}

// Partition is the serving shards of one tablet type.
type Partition struct {
	ServedType     string               `json:"served_type"`
	Shards         []ShardReference     `json:"shards"`
	TabletControls []ShardTabletControl `json:"tablet_controls,omitempty"`
}

// ShardReference is a serving shard.
type ShardReference struct {
	Name     string `json:"name"`
	KeyRange string `json:"key_range"`
}

// ShardTabletControl is a Reshard query service control in the serving graph.
type ShardTabletControl struct {
	Name                 string `json:"name"`
	KeyRange             string `json:"key_range"`
	QueryServiceDisabled bool   `json:"query_service_disabled"`
}

// SrvVSchemas is the doc of vitess.srv_vschema: the serving VSchema vtgate
// uses, per cell.
type SrvVSchemas struct {
	// Cells maps the cell to its SrvVSchema. A single GetSrvVSchema output
	// is filed under the cell named on the echoed command line or in a file
	// named srv_vschema_<cell>.json, else under "".
	Cells map[string]SrvVSchema `json:"cells"`
}

// SrvVSchema is one cell's serving VSchema.
type SrvVSchema struct {
	Keyspaces         []string           `json:"keyspaces"`
	RoutingRules      map[string]string  `json:"routing_rules"` // as RoutingRules.Rules
	ShardRoutingRules []ShardRoutingRule `json:"shard_routing_rules,omitempty"`
	// KeyspaceRoutingRules maps from_keyspace to to_keyspace (multi-tenant MoveTables).
	KeyspaceRoutingRules map[string]string `json:"keyspace_routing_rules,omitempty"`
}

// Workflow is the doc of vitess.workflow.
type Workflow struct {
	Name            string   `json:"name"`
	Source          string   `json:"source"` // source keyspace
	SourceShards    []string `json:"source_shards"`
	Target          string   `json:"target"` // target keyspace
	TargetShards    []string `json:"target_shards"`
	WorkflowType    string   `json:"workflow_type,omitempty"` // "MoveTables", "Reshard", …
	WorkflowSubType string   `json:"workflow_sub_type,omitempty"`
	// Tables are the tables the streams copy (their filter rules), sorted.
	Tables []string `json:"tables"`
	// Frozen: some stream's message is FROZEN (writes were switched).
	Frozen bool `json:"frozen"`
	// StoppedForCutover: some stream's message is "stopped for cutover"
	// (a writes switch stopped it and did not finish).
	StoppedForCutover bool            `json:"stopped_for_cutover"`
	Shards            []WorkflowShard `json:"shards"`
}

// WorkflowShard is one target shard of a workflow.
type WorkflowShard struct {
	Shard          string          `json:"shard"`
	Tablet         string          `json:"tablet"` // the primary that runs the streams
	PrimaryServing bool            `json:"primary_serving"`
	TabletControls []TabletControl `json:"tablet_controls"` // the target shard's
	Streams        []Stream        `json:"streams"`
}

// Stream is one VReplication stream.
type Stream struct {
	ID             int64    `json:"id"`
	Shard          string   `json:"shard"`
	Tablet         string   `json:"tablet"`
	State          string   `json:"state"`   // "Running", "Stopped", "Copying", "Error"
	Message        string   `json:"message"` // "FROZEN", "stopped for cutover", an error
	SourceKeyspace string   `json:"source_keyspace"`
	SourceShard    string   `json:"source_shard"`
	Tables         []string `json:"tables"`
	DBName         string   `json:"db_name,omitempty"`
	Position       string   `json:"position,omitempty"`
}

// WorkflowStatus is the doc of vitess.workflow_status.
type WorkflowStatus struct {
	Keyspace string `json:"keyspace"` // target keyspace
	// Workflow is known from the text output and from an echoed command
	// line; the JSON output does not name it.
	Workflow     string         `json:"workflow"`
	TrafficState string         `json:"traffic_state"` // "Reads Not Switched. Writes Switched", …
	Streams      []StatusStream `json:"streams"`
	Tables       []string       `json:"tables,omitempty"` // tables with a copy state
}

// StatusStream is one stream in a status output.
type StatusStream struct {
	Shard       string `json:"shard"` // "dst/-80"
	ID          int64  `json:"id"`
	Tablet      string `json:"tablet"`
	SourceShard string `json:"source_shard,omitempty"`
	Position    string `json:"position,omitempty"`
	Status      string `json:"status"`
	Info        string `json:"info,omitempty"`
}

// WorkflowList is the doc of vitess.workflow_list: which workflows a
// keyspace has, by name.
type WorkflowList struct {
	// Keyspace is the keyspace named on the echoed command line (--keyspace
	// of Workflow list, the argument of GetWorkflows) or in a file named
	// workflow_list_<keyspace>.json; "" when neither names it.
	Keyspace  string   `json:"keyspace"`
	Workflows []string `json:"workflows"`
}

// DecodeWorkflowList reads the doc of a vitess.workflow_list event.
func DecodeWorkflowList(ev *forensics.Event) (WorkflowList, error) {
	return decodeDoc[WorkflowList](ev, KindWorkflowList)
}

// SwitchResult is the doc of vitess.switch_result.
type SwitchResult struct {
	Command       string   `json:"command"` // "SwitchTraffic", "ReverseTraffic"
	Keyspace      string   `json:"keyspace"`
	Workflow      string   `json:"workflow"`
	Summary       string   `json:"summary"`
	StartState    string   `json:"start_state,omitempty"`
	CurrentState  string   `json:"current_state,omitempty"`
	DryRun        bool     `json:"dry_run"`
	DryRunResults []string `json:"dry_run_results,omitempty"`
}

// DecodeRoutingRules reads the doc of a vitess.routing_rules event.
func DecodeRoutingRules(ev *forensics.Event) (RoutingRules, error) {
	return decodeDoc[RoutingRules](ev, KindRoutingRules)
}

// DecodeShardRoutingRules reads the doc of a vitess.shard_routing_rules event.
func DecodeShardRoutingRules(ev *forensics.Event) (ShardRoutingRules, error) {
	return decodeDoc[ShardRoutingRules](ev, KindShardRoutingRules)
}

// DecodeKeyspaces reads the doc of a vitess.keyspaces event.
func DecodeKeyspaces(ev *forensics.Event) (Keyspaces, error) {
	return decodeDoc[Keyspaces](ev, KindKeyspaces)
}

// DecodeShard reads the doc of a vitess.shard event.
func DecodeShard(ev *forensics.Event) (Shard, error) {
	return decodeDoc[Shard](ev, KindShard)
}

// DecodeSrvKeyspaces reads the doc of a vitess.srv_keyspace event.
func DecodeSrvKeyspaces(ev *forensics.Event) (SrvKeyspaces, error) {
	return decodeDoc[SrvKeyspaces](ev, KindSrvKeyspace)
}

// DecodeSrvVSchemas reads the doc of a vitess.srv_vschema event.
func DecodeSrvVSchemas(ev *forensics.Event) (SrvVSchemas, error) {
	return decodeDoc[SrvVSchemas](ev, KindSrvVSchema)
}

// DecodeWorkflow reads the doc of a vitess.workflow event.
func DecodeWorkflow(ev *forensics.Event) (Workflow, error) {
	return decodeDoc[Workflow](ev, KindWorkflow)
}

// DecodeWorkflowStatus reads the doc of a vitess.workflow_status event.
func DecodeWorkflowStatus(ev *forensics.Event) (WorkflowStatus, error) {
	return decodeDoc[WorkflowStatus](ev, KindWorkflowStatus)
}

// DecodeSwitchResult reads the doc of a vitess.switch_result event.
func DecodeSwitchResult(ev *forensics.Event) (SwitchResult, error) {
	return decodeDoc[SwitchResult](ev, KindSwitchResult)
}

// decodeDoc reads the doc of an event of the given kind.
func decodeDoc[T any](ev *forensics.Event, kind forensics.Kind) (T, error) {
	var d T
	if ev.Kind != kind {
		return d, fmt.Errorf("event is %s, not %s", ev.Kind, kind)
	}
	doc := ev.Attr(AttrDoc)
	if doc == "" {
		return d, fmt.Errorf("%s event at %s:%d has no doc", kind, ev.Path, ev.Line)
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return d, fmt.Errorf("%s event at %s:%d: %w", kind, ev.Path, ev.Line, err)
	}
	return d, nil
}
