package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/report"
	"forensics/store"
	"forensics/store/backends"
)

func newFindingsCmd() *cobra.Command {
	var dbPath, incident string
	var run int64
	var limit int
	format := newFormatFlag("table")
	cmd := &cobra.Command{
		Use:   "findings",
		Short: "List the findings of the latest analysis of an incident",
		Long: `findings lists the findings of the latest analysis of the latest incident
(--incident picks another, see 'forensics incidents'; --run a run by id).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := backends.OpenReader(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			sc, err := resolveScope(cmd.Context(), db, incident, run)
			if err != nil {
				return err
			}
			sc.note(cmd.ErrOrStderr())
			out := cmd.OutOrStdout()
			limit := listLimit(cmd, out, limit)
			all := sc.run == 0 && sc.name == allIncidents
			return writeFindingList(out, cmd.ErrOrStderr(), format.String(), limit, loadLibrary(cmd).rules.Rules, func(fn func(store.StoredFinding) error) error {
				return db.EachFinding(cmd.Context(), sc.run, all, fn)
			})
		},
	}
	addDBFlag(cmd, &dbPath, "timeline `FILE` written by analyze")
	cmd.Flags().Int64Var(&run, "run", 0, "the analysis run, by `ID` (default: the latest of the incident)")
	addLimitFlag(cmd, &limit, "findings")
	addIncidentFlag(cmd, &incident)
	format.register(cmd)
	return cmd
}

// findingsPage is how many findings one table holds: a listing of more is
// printed as tables of this many, so that it holds one page of rows, not
// all of them.
const findingsPage = 1000

// writeFindingList prints the findings each yields, one at a time: as a
// JSON array, or as tables of findingsPage rows; after limit (0: no
// limit) it stops and says on stderr that there are more.
func writeFindingList(out, stderr io.Writer, format string, limit int, rules []*forensics.Rule, each func(fn func(store.StoredFinding) error) error) error {
	bw := bufio.NewWriterSize(out, 64<<10)
	n := 0
	var page []forensics.Finding
	var elem bytes.Buffer // one element of the JSON array, as json.Encoder indents it in the array
	enc := json.NewEncoder(&elem)
	enc.SetIndent("  ", "  ")
	enc.SetEscapeHTML(false)
	flush := func() error {
		if len(page) == 0 {
			return nil
		}
		err := report.WriteFindingsTable(bw, page, rules, layoutFor(out, false))
		page = page[:0]
		return err
	}
	err := each(func(f store.StoredFinding) error {
		if limit > 0 && n == limit {
			return errLimit
		}
		n++
		if format == "json" {
			elem.Reset()
			if err := enc.Encode(&f.Finding); err != nil {
				return err
			}
			sep := ",\n  "
			if n == 1 {
				sep = "[\n  "
			}
			bw.WriteString(sep)
			_, err := bw.Write(bytes.TrimSuffix(elem.Bytes(), []byte("\n")))
			return err
		}
		if page = append(page, f.Finding); len(page) == findingsPage {
			return flush()
		}
		return nil
	})
	more := err == errLimit
	if more {
		err = nil
	}
	if err == nil {
		switch {
		case format == "json" && n == 0:
			bw.WriteString("[]\n")
		case format == "json":
			bw.WriteString("\n]\n")
		case n == 0:
			bw.WriteString("No findings.\n")
		default:
			err = flush()
		}
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err == nil && more {
		fmt.Fprintf(stderr, "the first %d findings; --limit 0 lists every one\n", limit)
	}
	return err
}

func newShowCmd() *cobra.Command {
	var dbPath, incident string
	var window time.Duration
	var limit int
	var wide, verbose bool
	cmd := &cobra.Command{
		Use:   "show FINDING",
		Short: "Show a finding, its evidence whole, and what the nodes logged around it",
		Long: `show prints a stored finding (by id or id prefix, see 'forensics findings'):
its explanation, evidence and fixes, then the events recognised on every node
from --window before it starts to --window after it ends, in time order, with
the evidence marked '*'. 'forensics timeline query --around FINDING' shows
every line of that window, recognised or not.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("show needs exactly one FINDING id")
			}
			return nil
		},
		ValidArgsFunction: completeFindings,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := backends.OpenReader(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			sc, err := resolveScope(cmd.Context(), db, incident, 0)
			if err != nil {
				return err
			}
			f, err := db.FindingIn(cmd.Context(), sc.run, args[0])
			if err != nil {
				return &exitError{exitFailed, err}
			}
			out := cmd.OutOrStdout()
			l := layoutFor(out, verbose)
			l.Whole, l.Root = true, sc.root()
			if wide {
				l.Width, l.Wide = 0, true
			}
			if err := report.WriteFindings(out, []forensics.Finding{f.Finding}, loadLibrary(cmd).rules.Rules, l); err != nil {
				return err
			}
			return writeContext(cmd.Context(), out, db, f, window, limit, l)
		},
	}
	addDBFlag(cmd, &dbPath, "timeline `FILE` written by analyze")
	cmd.Flags().DurationVar(&window, "window", 2*time.Second, "context before the start and after the end (a `DURATION` such as 5s)")
	cmd.Flags().IntVar(&limit, "limit", 300, "at most `N` rows of context")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "name evidence by its full path")
	addWideFlag(cmd, &wide)
	addIncidentFlag(cmd, &incident)
	return cmd
}
