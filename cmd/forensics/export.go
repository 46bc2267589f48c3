package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"forensics/export"
	"forensics/report"
	"forensics/store"
	"forensics/store/backends"
)

// schemaIntro is what timeline schema says before the views: where they
// are served, and what the sqlite3 shell sees instead.
var schemaIntro = []string{
	"The views of `forensics timeline query --sql` (read-only; a shared PostgreSQL store serves all but lines), one table each in the copy `forensics timeline export FILE` writes. Times: time, first, last, start and end are RFC 3339 UTC; t, first_ns, last_ns, start_ns and end_ns are the same times in unix nanoseconds, to compare and subtract.",
	"The sqlite3 shell does not see these views in a timeline file, only its storage tables: sources and findings hold the columns below but the computed ones (first and last; start, end and title); runs, run_sources and run_incidents what each analysis read; event_kinds how many events of each kind each block holds, and when. Since schema 3 the events table is empty there and lines are compressed blocks (event_blocks, blocks) that only forensics decodes: `forensics timeline export FILE` writes a plain SQLite copy in which sqlite3, DuckDB, Datasette or pandas read every view below as a table with exactly these columns.",
}

// schemaExample is the query timeline schema gives as an example of
// relating findings to the lines logged during them, on rows short enough
// for a terminal.
const schemaExample = `SELECT f.rule, l.node, count(*) AS lines
    FROM findings f JOIN lines l ON l.t BETWEEN f.start_ns AND f.end_ns
    GROUP BY 1, 2`

func newTimelineExportCmd() *cobra.Command {
	var dbPath string
	format := newFormatFlag("", export.Formats...)
	cmd := &cobra.Command{
		Use:   "export FILE",
		Short: "Write a plain copy of the timeline that sqlite3, DuckDB, Datasette or pandas read",
		Long: `export writes every row of the documented views (forensics timeline schema) to
FILE, a new file: sources, events, lines and findings, of every incident.

A timeline keeps its events and lines in compressed blocks that only
forensics decodes, so the sqlite3 shell and other tools do not see them in
the timeline itself. The copy has them plainly: with --format sqlite (the
default, or a FILE not ending in .jsonl), a SQLite file where each view is a
table with the same name and columns, indexed by time; with --format jsonl
(or FILE.jsonl), one JSON object per row, its view under "view".`,
		Example: `  forensics timeline export incident.db
  sqlite3 incident.db "SELECT node, kind, count(*) FROM events GROUP BY 1, 2"
  duckdb -c "INSTALL sqlite; LOAD sqlite; SELECT * FROM sqlite_scan('incident.db', 'findings')"
  datasette incident.db
  forensics timeline export --format jsonl incident.jsonl`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("export needs exactly one FILE to write")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := backends.OpenReader(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			f := format.String()
			if f == "" {
				f = export.FormatOf(args[0])
			}
			counts, err := export.Write(cmd.Context(), db, args[0], f)
			if err != nil {
				return &exitError{exitFailed, err}
			}
			var parts []string
			for _, v := range store.Views {
				parts = append(parts, fmt.Sprintf("%d %s", counts[v.Name], v.Name))
			}
			var b strings.Builder
			report.WriteProse(&b, fmt.Sprintf("Wrote %s (%s): %s.", report.Escape(args[0]), f, strings.Join(parts, ", ")), "", "  ", widthOf(cmd.ErrOrStderr()))
			_, err = fmt.Fprint(cmd.ErrOrStderr(), b.String())
			return err
		},
	}
	addDBFlag(cmd, &dbPath, "timeline `FILE` written by analyze")
	format.register(cmd)
	return cmd
}
