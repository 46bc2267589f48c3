package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"forensics/store"
	"time"

	"forensics"
)

var _ store.Finder = (*DB)(nil)

var _ store.Lister = (*DB)(nil)

// fleetQuery selects findings across incidents in SQL, each incident's
// latest run, with store.FindingFilter.Match's meaning: the conditions go to the
// server so that a store of thousands of incidents sends only the answer.
func fleetQuery(f store.FindingFilter, cols string) (string, []any) {
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
		w.conds = append(w.conds, "(strpos(lower(f.title), lower("+p+")) > 0 OR strpos(lower(f.explanation), lower("+p+")) > 0)")
	}
	if f.Shape != "" {
		w.add("f.shape = ?", f.Shape)
	}
	q := `SELECT ` + cols + ` FROM forensics.findings f
		JOIN (SELECT incident_id, max(id) AS run FROM forensics.runs r WHERE ` + doneRun + ` GROUP BY incident_id) l ON l.incident_id = f.incident_id AND l.run = f.run_id
		JOIN forensics.incidents i ON i.incident_id = f.incident_id
		WHERE ` + w.String() + ` ORDER BY f.start_ns, f.rule, f.id, i.name`
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return q, w.args
}

// FleetFindings filters findings across incidents in SQL.
func (db *DB) FleetFindings(ctx context.Context, f store.FindingFilter) ([]store.IncidentFinding, error) {
	q, args := fleetQuery(f, `i.name, f.run_id, f.body`)
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, db.fail("read findings", err)
	}
	defer rows.Close()
	var out []store.IncidentFinding
	for rows.Next() {
		var fi store.IncidentFinding
		var body []byte
		if err := rows.Scan(&fi.Incident, &fi.Run, &body); err != nil {
			return nil, db.fail("read findings", err)
		}
		fi.Incident = fromPG(fi.Incident)
		if fi.Finding, err = store.DecodeFinding(body); err != nil {
			return nil, err
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
func (db *DB) ListFindings(ctx context.Context, f store.FindingFilter, fn func(s *store.FindingSummary, finding []byte) error) error {
	q, args := fleetQuery(f, fmt.Sprintf(`i.name, f.run_id, f.id, f.rule, f.severity, f.start_ns, f.title, octet_length(f.body), CASE WHEN octet_length(f.body) <= %d THEN f.body END`, store.MaxFindingJSON))
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return db.fail("read findings", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s store.FindingSummary
		var severity string
		var start, size int64
		if err := rows.Scan(&s.Incident, &s.Run, &s.ID, &s.Rule, &severity, &start, &s.Title, &size, nil); err != nil {
			return db.fail("read findings", err)
		}
		s.Incident, s.Rule, s.Title = fromPG(s.Incident), fromPG(s.Rule), fromPG(s.Title)
		body := rows.RawValues()[8] // the body as sent: text, in the binary format too
		if body == nil {
			return fmt.Errorf("stored finding %q of incident %q: %d bytes, more than a finding takes (%d): the store was changed by something else than forensics", s.ID, s.Incident, size, store.MaxFindingJSON)
		}
		// Checked as every stored finding is (store.DecodeFinding); written
		// again only when the check took a command out of it.
		var fi forensics.Finding
		if err := json.Unmarshal(body, &fi); err != nil {
			return fmt.Errorf("incident %q: stored finding %q: %w", s.Incident, s.ID, err)
		}
		changed, err := store.VetFinding(&fi)
		if err != nil {
			return fmt.Errorf("incident %q: %w", s.Incident, err)
		}
		if fi.ID != s.ID || fi.Rule != s.Rule {
			return fmt.Errorf("incident %q: stored finding %q: its columns and its JSON disagree: the store was changed by something else than forensics", s.Incident, s.ID)
		}
		if changed {
			if body, err = json.Marshal(&fi); err != nil {
				return err
			}
		}
		if s.Severity, err = forensics.ParseSeverity(severity); err != nil {
			return fmt.Errorf("stored finding %s: %w", s.ID, err)
		}
		s.Start = time.Unix(0, start).UTC()
		if err := fn(&s, body); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return db.fail("read findings", err)
	}
	return nil
}
