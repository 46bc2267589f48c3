package sqlite

import "strings"

// where builds a WHERE clause whose values are all bound arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// in adds "col IN (…)" for the values, when there are any.
func in[T any](w *where, col string, vals []T) {
	if len(vals) == 0 {
		return
	}
	ph := strings.TrimSuffix(strings.Repeat("?,", len(vals)), ",")
	w.add(col+" IN ("+ph+")", anys(vals)...)
}

// sources adds what events and lines are both filtered by: complete
// sources (alias s) of a run, written by one of the components, whose path
// contains one of the strings.
func (w *where) sources(run int64, components, paths []string) {
	w.add("s.complete = 1")
	if run != 0 {
		w.add("s.id IN (SELECT source_id FROM main.run_sources WHERE run_id = ?)", run)
	}
	in(w, "s.component", components)
	if len(paths) > 0 {
		ors := make([]string, len(paths))
		for i, p := range paths {
			ors[i] = "instr(s.path, ?) > 0"
			w.args = append(w.args, p)
		}
		w.conds = append(w.conds, "("+strings.Join(ors, " OR ")+")")
	}
}

func (w *where) String() string { return strings.Join(w.conds, " AND ") }
