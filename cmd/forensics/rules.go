package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/report"
	"forensics/rules"
)

func newRulesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rules and explain what they detect",
	}
	cmd.AddCommand(newRulesListCmd(), &cobra.Command{
		Use:   "explain RULE",
		Short: "Explain a rule: what it detects and why, how to confirm it, what to do",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("explain needs exactly one RULE name (see forensics rules list)")
			}
			return nil
		},
		ValidArgsFunction: completeRuleArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib := loadLibrary(cmd)
			lib.warn(cmd.ErrOrStderr())
			r, ok := lib.rules.Lookup(args[0])
			if !ok {
				return usageErrorf("no rule named %q (see forensics rules list)", args[0])
			}
			out := cmd.OutOrStdout()
			_, err := fmt.Fprint(out, explainRule(r, lib.rules.Origin(r), proseWidth(out)))
			return err
		},
	}, newRulesTestCmd())
	return cmd
}

// ruleDoc is a rule's documentation as --format json writes it; the names
// are a contract.
type ruleDoc struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	Detects string   `json:"detects,omitempty"`
	Why     string   `json:"why,omitempty"`
	Confirm string   `json:"confirm,omitempty"`
	Inputs  string   `json:"inputs,omitempty"`
	Fixes   string   `json:"fixes,omitempty"`
	Kinds   []string `json:"kinds,omitempty"`
	Origin  string   `json:"origin"` // "built-in", "built-in rules/…/NAME.yaml", or the path of the user's rule file
}

func newRulesListCmd() *cobra.Command {
	format := newFormatFlag("table")
	var full bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every rule with its title and what it detects",
		Long: `list prints every rule: its name, its title, what it detects and where it
comes from (built into forensics, in Go or as a rule file, or a rule file of
yours from --rules-dir or FORENSICS_RULES_PATH). --full prints each rule's
whole documentation, as 'forensics rules explain RULE' does; --format json
gives all of it to programs. A rule file that does not load is reported with
its file, line and field, and list exits 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			lib := loadLibrary(cmd)
			lib.warn(cmd.ErrOrStderr())
			if err := writeRuleList(out, lib, format.String(), full); err != nil {
				return err
			}
			if len(lib.errs) > 0 {
				return &exitError{exitFailed, nil}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&full, "full", false, "print each rule's whole documentation")
	format.register(cmd)
	return cmd
}

// writeRuleList writes the rules of the library as a list, the whole
// documentation of each (full) or JSON.
func writeRuleList(out io.Writer, lib *library, format string, full bool) error {
	all := lib.rules.Rules
	if format == "json" {
		docs := []ruleDoc{}
		for _, r := range all {
			d := ruleDoc{Name: r.Name, Title: r.Doc.Title, Detects: strings.TrimSpace(r.Doc.Detects), Why: strings.TrimSpace(r.Doc.Why),
				Confirm: strings.TrimSpace(r.Doc.Confirm), Inputs: strings.TrimSpace(r.Doc.Inputs), Fixes: strings.TrimSpace(r.Doc.Fixes),
				Origin: lib.rules.Origin(r)}
			for _, k := range r.Kinds {
				d.Kinds = append(d.Kinds, string(k))
			}
			docs = append(docs, d)
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(docs)
	}
	var b strings.Builder
	width := proseWidth(out)
	for i, r := range all {
		if full {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(explainRule(r, lib.rules.Origin(r), width))
			continue
		}
		report.WriteProse(&b, r.Name+" — "+r.Doc.Title, "", "    ", width)
		if d := firstParagraph(r.Doc.Detects); d != "" {
			report.WriteProse(&b, d, "    ", "    ", width)
		}
		if o := lib.rules.Origin(r); o != rules.OriginGo {
			report.WriteProse(&b, "from "+o, "    ", "    ", width)
		}
	}
	if !full {
		b.WriteString("\n")
		report.WriteProse(&b, "forensics rules explain RULE (or rules list --full) prints why it matters, how to confirm it by hand, the evidence it needs and what to do.", "", "", width)
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// explainRule writes a rule's documentation for a reader, wrapped to width.
func explainRule(r *forensics.Rule, origin string, width int) string {
	var b strings.Builder
	report.WriteProse(&b, r.Name+" — "+r.Doc.Title, "", "    ", width)
	for _, sec := range []struct{ head, text string }{
		{"What it detects", r.Doc.Detects},
		{"Why it matters", r.Doc.Why},
		{"How to confirm it by hand", r.Doc.Confirm},
		{"Evidence it needs", r.Doc.Inputs},
		{"What to do", r.Doc.Fixes},
	} {
		if sec.text == "" {
			continue
		}
		fmt.Fprintf(&b, "\n%s\n", sec.head)
		// The docs are wrapped in the source; a blank line ends a paragraph.
		for i, para := range strings.Split(strings.TrimSpace(sec.text), "\n\n") {
			if i > 0 {
				b.WriteString("\n")
			}
			report.WriteProse(&b, para, "  ", "  ", width)
		}
	}
	if len(r.Kinds) > 0 {
		var kinds []string
		for _, k := range r.Kinds {
			kinds = append(kinds, string(k))
		}
		b.WriteString("\nEvent kinds read\n")
		report.WriteProse(&b, strings.Join(kinds, ", "), "  ", "  ", width)
	}
	b.WriteString("\nWritten\n")
	report.WriteProse(&b, originWords(origin), "  ", "  ", width)
	return b.String()
}

// firstParagraph is the text up to the first blank line, on one line.
func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

// originWords says where a rule was written, for explain.
func originWords(origin string) string {
	if origin == rules.OriginGo {
		return "in Go, built into forensics"
	}
	if f, ok := strings.CutPrefix(origin, "built-in "); ok {
		return "as a rule file built into forensics (" + f + ")"
	}
	return "as the rule file " + origin
}
