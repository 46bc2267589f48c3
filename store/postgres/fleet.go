package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"forensics"
	"forensics/store/fleet"
)

var _ fleet.Finder = (*DB)(nil)

var _ fleet.Lister = (*DB)(nil)

// fleetQuery selects findings across incidents in SQL, each incident's
// latest run, with fleet.Filter.Match's meaning: the conditions go to the
// server so that a store of thousands of incidents sends only the answer.
func fleetQuery(f fleet.Filter, cols string) (string, []any) {
	var w where
	in(&w, "i.name", f.Incidents)
	in(&w, "f.rule", f.Rules)
	if f.MinRank > 0 {
		w.add("f.rank >= ?", f.MinRank)
	}
	in(&w, "f.node", f.Nodes)
	if !f.Since.IsZero() {
		w.add("f.end_ns >= ?", f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		w.add("f.start_ns < ?", f.Until.UnixNano())
	}
	if f.Text != "" {
		p := w.arg(f.Text)
		if prefilter(f.Text) {
			// Text that JSON writes as itself is in the stored body as it
			// is: a cheap test on the text rules out most findings before
			// any body is parsed as JSON for its explanation.
			w.conds = append(w.conds, "strpos(lower(f.body), lower("+p+")) > 0")
		}
		w.conds = append(w.conds, "(strpos(lower(f.title), lower("+p+")) > 0 OR strpos(lower(f.body::jsonb->>'explanation'), lower("+p+")) > 0)")
	}
	if f.Shape != "" {
		w.add("f.shape = ?", f.Shape)
	}
	q := `SELECT ` + cols + ` FROM forensics.findings f
		JOIN (SELECT incident_id, max(id) AS run FROM forensics.runs GROUP BY incident_id) l ON l.incident_id = f.incident_id AND l.run = f.run_id
		JOIN forensics.incidents i ON i.incident_id = f.incident_id
		WHERE ` + w.String() + ` ORDER BY f.start_ns, f.rule, f.id, i.name`
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return q, w.args
}

// jsonEscaped are the characters json.Marshal may write as an escape in a
// stored finding: quote, backslash, HTML's <, > and &, control characters,
// U+2028 and U+2029 (and invalid UTF-8, which prefilter checks).
const jsonEscaped = "\"\\<>&\u2028\u2029\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"

// prefilter reports whether text appears in a stored finding's JSON as it
// is wherever it appears in the finding.
func prefilter(text string) bool {
	return utf8.ValidString(text) && !strings.ContainsAny(text, jsonEscaped)
}

// FleetFindings filters findings across incidents in SQL.
func (db *DB) FleetFindings(ctx context.Context, f fleet.Filter) ([]fleet.Finding, error) {
	q, args := fleetQuery(f, `i.name, f.run_id, f.body`)
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, db.fail("read findings", err)
	}
	defer rows.Close()
	var out []fleet.Finding
	for rows.Next() {
		var fi fleet.Finding
		var body string
		if err := rows.Scan(&fi.Incident, &fi.Run, &body); err != nil {
			return nil, db.fail("read findings", err)
		}
		if err := json.Unmarshal([]byte(body), &fi.Finding); err != nil {
			return nil, fmt.Errorf("stored finding: %w", err)
		}
		out = append(out, fi)
	}
	if err := rows.Err(); err != nil {
		return nil, db.fail("read findings", err)
	}
	return out, nil
}

// ListFindings lists the findings FleetFindings returns, from the stored
// columns and each finding's stored JSON, which is not decoded.
func (db *DB) ListFindings(ctx context.Context, f fleet.Filter, fn func(s *fleet.Summary, finding []byte) error) error {
	q, args := fleetQuery(f, `i.name, f.run_id, f.id, f.rule, f.severity, f.start_ns, f.title, f.body`)
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return db.fail("read findings", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s fleet.Summary
		var severity string
		var start int64
		if err := rows.Scan(&s.Incident, &s.Run, &s.ID, &s.Rule, &severity, &start, &s.Title, nil); err != nil {
			return db.fail("read findings", err)
		}
		if s.Severity, err = forensics.ParseSeverity(severity); err != nil {
			return fmt.Errorf("stored finding %s: %w", s.ID, err)
		}
		s.Start = time.Unix(0, start).UTC()
		if err := fn(&s, rows.RawValues()[7]); err != nil { // the body as sent: text, in the binary format too
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return db.fail("read findings", err)
	}
	return nil
}
