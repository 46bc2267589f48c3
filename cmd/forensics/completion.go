package main

import (
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"forensics/parsers"
	"forensics/report"
	"forensics/rules"
	"forensics/store"
	"forensics/store/backends"
)

// Shell completion: cobra's `forensics completion bash|zsh|fish|powershell`
// writes the script; these functions give it the names only forensics knows.
// Those that read the timeline use the --db already typed on the line and
// stay silent when there is no timeline: a completion never prints an error.

func completeRules(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, r := range rules.All {
		out = append(out, r.Name+"\t"+r.Doc.Title)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeRuleArg completes the one RULE argument of rules explain.
func completeRuleArg(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return completeRules(cmd, args, toComplete)
}

func completeKinds(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, k := range parsers.Kinds() {
		out = append(out, string(k.Kind)+"\t"+k.Doc)
	}
	sort.Strings(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}

// timelineFor opens the timeline named by the command's --db, or nil.
func timelineFor(cmd *cobra.Command) store.Reader {
	path := defaultDB
	if f := cmd.Flags().Lookup("db"); f != nil {
		path = f.Value.String()
	}
	db, err := backends.OpenReader(path)
	if err != nil {
		return nil
	}
	return db
}

// completeFindings completes a finding id with the findings of the latest
// analysis, each described by its rule and subject.
func completeFindings(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 && cmd.Flags().Lookup("around") == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	db := timelineFor(cmd)
	if db == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer db.Close()
	fs, err := db.Findings(cmd.Context(), 0)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, f := range fs {
		if strings.HasPrefix(f.ID, toComplete) {
			out = append(out, f.ID+"\t"+f.Rule+": "+report.SubjectLine(f.Finding, rules.All))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeNodes completes --node with the nodes of the timeline.
func completeNodes(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	db := timelineFor(cmd)
	if db == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer db.Close()
	srcs, err := db.Sources(cmd.Context(), 0)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range srcs {
		if s.Node != "" && !seen[s.Node] {
			seen[s.Node] = true
			out = append(out, s.Node)
		}
	}
	sort.Strings(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}

// defaultDB is the timeline a command reads and writes when --db (and
// FORENSICS_STORE) does not name one.
const defaultDB = "forensics.db"

// addDBFlag adds --db, the timeline file, completed with SQLite files.
// A shared store (postgres://…) is named the same way; --store is its
// other name, and FORENSICS_STORE the default.
func addDBFlag(cmd *cobra.Command, p *string, usage string) {
	cmd.Flags().StringVar(p, "db", storeFromEnv(defaultDB), usage)
	cmd.Flags().SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "store" {
			name = "db"
		}
		return pflag.NormalizedName(name)
	})
	cmd.RegisterFlagCompletionFunc("db", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"db", "sqlite", "sqlite3"}, cobra.ShellCompDirectiveFilterFileExt
	})
}
