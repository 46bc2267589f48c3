package forensics

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Severity ranks findings; a higher value is more severe, so severities
// compare directly. The names are part of the output contract.
type Severity int

const (
	Info Severity = iota
	Low
	Medium
	High
	Critical
)

var severityNames = [...]string{"info", "low", "medium", "high", "critical"}

// severityAliases are names accepted when a severity is read, for the
// Vitess rules' "warning" (what could go wrong), which ranks with medium:
// findings stored and --fail-on values written before it was one value.
var severityAliases = map[string]Severity{"warning": Medium}

func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// Rank is the severity as a number (info 0 … critical 4). Severities
// compare directly; Rank is kept for store/postgres, which keeps the number
// in a column, and the fleet's filter of findings (store.FindingFilter),
// which compares it there.
func (s Severity) Rank() int { return int(s) }

// ParseSeverity reads a severity name or alias.
func ParseSeverity(name string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(n, name) {
			return Severity(i), nil
		}
	}
	if s, ok := severityAliases[strings.ToLower(name)]; ok {
		return s, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want one of %s)", name, strings.Join(severityNames[:], ", "))
}

func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// Evidence is one line that supports a finding.
type Evidence struct {
	Path string    `json:"source"`
	Line int64     `json:"line"`
	Time time.Time `json:"time"`
	Node string    `json:"node,omitempty"`
	Note string    `json:"note,omitempty"` // what this line shows, in a few words
	Text string    `json:"text"`
}

// EvidenceOf quotes an event as evidence, with a note saying what it shows.
// A rule that quotes part of an entry (the first line, one line of a
// document) sets Line and Text on the result.
func EvidenceOf(e *Event, note string) Evidence {
	return Evidence{Path: e.Path, Line: e.Line, Time: e.Time, Node: e.Node, Note: note, Text: e.Text}
}

// Fix is one thing to do about a finding. Steps are prose; Commands are
// exact command lines with the real names filled in, in the order to run them.
type Fix struct {
	Title    string   `json:"title"`
	Steps    []string `json:"steps,omitempty"`
	Commands []string `json:"commands,omitempty"`
}

// Skew is an estimate of how far one node's clock is ahead of another's,
// from an effect logged before its cause.
type Skew struct {
	Ahead  string        `json:"ahead"`  // the node whose clock reads later
	Behind string        `json:"behind"` // the node it is compared with
	By     time.Duration `json:"by_ns"`  // at least this much
	Basis  string        `json:"basis"`  // the pair of lines that shows it

	// The two lines, quoted: the cause, logged on Ahead before the effect
	// could happen, and the effect, logged on Behind (kv-stream-before-traffic).
	Cause  *Evidence `json:"cause,omitempty"`
	Effect *Evidence `json:"effect,omitempty"`
}

// Finding is a failure a rule recognised in the timeline.
type Finding struct {
	ID          string         `json:"id"` // stable: the same incident in the same input gets the same id
	Rule        string         `json:"rule"`
	Severity    Severity       `json:"severity"`
	Title       string         `json:"title"`
	Subject     FindingSubject `json:"subject"`
	Start       time.Time      `json:"start"`
	End         time.Time      `json:"end"`
	Explanation string         `json:"explanation"`
	Evidence    []Evidence     `json:"evidence"`
	Fixes       []Fix          `json:"fixes"`
	Skew        []Skew         `json:"skew,omitempty"`
}

// Fingerprint derives the finding's stable id from what identifies the
// incident: the rule, the subject and the start time.
func (f *Finding) Fingerprint() string {
	subject, _ := json.Marshal(f.Subject)
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d", f.Rule, subject, f.Start.UnixNano())
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// SortEvidence puts evidence in timeline order: time, then source, then line.
func SortEvidence(ev []Evidence) {
	slices.SortStableFunc(ev, func(a, b Evidence) int { return a.Position().Compare(b.Position()) })
}

// Span returns the times of the earliest and the latest evidence line that
// has a time; zero times when none has.
func Span(ev []Evidence) (first, last time.Time) {
	for _, e := range ev {
		if e.Time.IsZero() {
			continue
		}
		if first.IsZero() || e.Time.Before(first) {
			first = e.Time
		}
		if e.Time.After(last) {
			last = e.Time
		}
	}
	return first, last
}

// IDLen is the length of a finding id: hex digits of the fingerprint.
const IDLen = 12

// ValidID reports whether id is a finding id: IDLen lowercase hex digits,
// as Fingerprint makes them. An id read back from a timeline is shown in
// tables, links and suggested commands; anything else in its place is not
// a finding id.
func ValidID(id string) bool {
	if len(id) != IDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ValidIDPrefix reports whether p can start a finding id, as a user types
// one (show, --around, extract): 1 to IDLen hex digits, either case.
func ValidIDPrefix(p string) bool {
	if len(p) == 0 || len(p) > IDLen {
		return false
	}
	return ValidID(strings.ToLower(p) + "000000000000"[:IDLen-len(p)])
}

// ValidRuleName reports whether name is a rule name as rules are named:
// lowercase letters, digits and -._/ , at most 100 bytes.
func ValidRuleName(name string) bool {
	if len(name) == 0 || len(name) > 100 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._/", c) >= 0) {
			return false
		}
	}
	return true
}
