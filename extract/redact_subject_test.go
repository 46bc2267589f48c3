package extract

import (
	"context"
	"path/filepath"
	"testing"

	"forensics"
	"forensics/store"
	"forensics/store/sqlite"
)

// A detail the rule declares a name is replaced by a pseudonym of its
// kind wherever it stands; undeclared, it is text like any other.
func TestRedactorLearnsDeclaredDetails(t *testing.T) {
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cell := forensics.Detail{Key: "cell", Type: forensics.DetailText, Redact: forensics.NameHost}
	peers := forensics.Detail{Key: "peers", Type: forensics.DetailList, Redact: forensics.NameHost}
	note := forensics.Detail{Key: "note", Type: forensics.DetailText}
	rule := &forensics.Rule{Name: "redact-test", Details: []forensics.Detail{cell, peers, note}}
	f := store.StoredFinding{Finding: forensics.Finding{Rule: rule.Name, Subject: forensics.FindingSubject{Keyspace: "commerce",
		Details: forensics.Details{cell.Text("zone1"), peers.List([]string{"pod-a", "pod-b"}), note.Text("secretnote")}}}}
	in := "tablet zone1-0000000101 of commerce on pod-b; secretnote"
	red, err := NewRedactor(context.Background(), db, f, rule)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := red.Text(in), "tablet host3.example-0000000101 of keyspace1 on host2.example; secretnote"; got != want {
		t.Errorf("declared:\n got %q\nwant %q", got, want)
	}
	red, err = NewRedactor(context.Background(), db, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := red.Text(in), "tablet zone1-0000000101 of keyspace1 on pod-b; secretnote"; got != want {
		t.Errorf("no rule:\n got %q\nwant %q", got, want)
	}
}
