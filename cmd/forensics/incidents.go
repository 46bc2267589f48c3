package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"forensics/report"
	"forensics/store"
	"forensics/store/backends"
)

// allIncidents is the --incident value that reads every incident at once.
const allIncidents = "all"

// addIncidentFlag adds --incident to a command that reads the timeline.
func addIncidentFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "incident", "", "read this `INCIDENT` (see forensics incidents; all: every one) instead of the latest")
	cmd.RegisterFlagCompletionFunc("incident", completeIncidents)
}

// scope is the run a command reads: the latest run of the chosen incident,
// or 0 for every incident.
type scope struct {
	run    int64
	name   string
	other  int      // incidents in the timeline besides the one read
	inputs []string // of the incident's latest run, as given to analyze
}

// root is the folder the incident's inputs were given in, which reports
// show paths relative to (report.InputRoot).
func (s scope) root() string { return report.InputRoot(s.inputs) }

// resolveScope picks the run a command reads: --run when given, else the
// latest run of --incident (the latest incident by default); --incident all
// reads everything.
func resolveScope(ctx context.Context, db store.Reader, incident string, run int64) (scope, error) {
	if run != 0 {
		return scope{run: run}, nil
	}
	incs, err := db.Incidents(ctx)
	if err != nil {
		return scope{}, err
	}
	if incident == allIncidents {
		return scope{name: allIncidents}, nil
	}
	if len(incs) == 0 {
		if incident != "" {
			return scope{}, &exitError{exitFailed, fmt.Errorf("no incident %q in %s: it holds no analysis yet", incident, db.Name())}
		}
		return scope{}, nil
	}
	if incident == "" {
		last := incs[len(incs)-1]
		return scope{run: last.Latest, name: last.Name, other: len(incs) - 1, inputs: last.Inputs}, nil
	}
	for _, inc := range incs {
		if inc.Name == incident {
			return scope{run: inc.Latest, name: inc.Name, other: len(incs) - 1, inputs: inc.Inputs}, nil
		}
	}
	var names []string
	for _, inc := range incs {
		names = append(names, fmt.Sprintf("%q", inc.Name))
	}
	return scope{}, &exitError{exitFailed, fmt.Errorf("no incident %q in %s; it holds %s (forensics incidents)", incident, db.Name(), strings.Join(names, ", "))}
}

// note tells on stderr which incident was read when the timeline holds
// others, so that no answer silently mixes or hides incidents.
func (s scope) note(w io.Writer) {
	if s.other > 0 && s.name != "" {
		fmt.Fprintf(w, "incident %q (%s in this timeline; --incident NAME picks one, --incident all reads every one; forensics incidents lists them)\n",
			s.name, report.Plural(s.other, "other", "others"))
	}
}

func newIncidentsCmd() *cobra.Command {
	var dbPath string
	format := newFormatFlag("table")
	cmd := &cobra.Command{
		Use:   "incidents",
		Short: "List the incidents analysed into the timeline",
		Long: `incidents lists the incidents of the timeline, the latest last (marked *).
Each analysis belongs to an incident: analyze --incident NAME, or one named
after its inputs (their common folder, or the first input). findings, show,
timeline query and report read the latest incident unless --incident names
another (or all).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := backends.OpenReader(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			incs, err := db.Incidents(cmd.Context())
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if format.String() == "json" {
				if incs == nil {
					incs = []store.Incident{}
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(incs)
			}
			if len(incs) == 0 {
				_, err := fmt.Fprintf(out, "No incidents: %s holds no analysis yet.\n", dbPath)
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "  INCIDENT\tRUNS\tLATEST RUN\tANALYSED (UTC)\tSOURCES\tFINDINGS")
			for i, inc := range incs {
				mark := " "
				if i == len(incs)-1 {
					mark = "*"
				}
				fmt.Fprintf(tw, "%s %s\t%d\t%d\t%s\t%d\t%d\n", mark, report.Escape(inc.Name), len(inc.Runs), inc.Latest,
					inc.Started.UTC().Format("2006-01-02 15:04:05"), inc.Sources, inc.Findings)
			}
			return tw.Flush()
		},
	}
	addDBFlag(cmd, &dbPath, "timeline `FILE` written by analyze")
	format.register(cmd)
	return cmd
}

func completeIncidents(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	out := []string{allIncidents + "\tevery incident"}
	db := timelineFor(cmd)
	if db == nil {
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	defer db.Close()
	incs, _ := db.Incidents(cmd.Context())
	for _, inc := range incs {
		out = append(out, inc.Name)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
