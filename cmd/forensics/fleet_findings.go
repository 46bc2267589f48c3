package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"forensics"
	"forensics/fleet"
	"forensics/report"
	"forensics/store/backends"
)

func newFleetFindingsCmd() *cobra.Command {
	var dbPath, severity, since, until string
	var f fleet.Filter
	format := newFormatFlag("table", "table", "json")
	cmd := &cobra.Command{
		Use:   "findings",
		Short: "List the findings of every incident, filtered",
		Long: `fleet findings lists the findings of every incident's latest analysis,
oldest first: --rule, --severity (at least), --node (the subject's node),
--since and --until (the finding's window overlaps them, RFC 3339), --text
(in the title or the explanation, any case), --incident.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if severity != "" {
				s, err := forensics.ParseSeverity(severity)
				if err != nil {
					return usageErrorf("--severity: %v", err)
				}
				f.MinRank = s.Rank()
			}
			var err error
			if f.Since, err = parseFleetTime("--since", since); err != nil {
				return err
			}
			if f.Until, err = parseFleetTime("--until", until); err != nil {
				return err
			}
			db, err := backends.OpenReader(dbPath)
			if err != nil {
				return err
			}
			defer db.Close()
			out := cmd.OutOrStdout()
			limit := listLimit(cmd, out, f.Limit)
			if f.Limit = limit; limit > 0 {
				f.Limit++ // one more, to tell that there are more
			}
			err = writeFleetFindings(out, format.String(), limit, func(fn func(*fleet.Summary, []byte) error) error {
				return fleet.List(cmd.Context(), db, f, fn)
			})
			if err == errLimit {
				fmt.Fprintf(cmd.ErrOrStderr(), "the first %d findings; --limit 0 lists every one\n", limit)
				err = nil
			}
			return err
		},
	}
	addDBFlag(cmd, &dbPath, "timeline store: a `FILE`, or postgres://…")
	cmd.Flags().StringSliceVar(&f.Rules, "rule", nil, "only findings of this `RULE` (repeat or comma-separate)")
	cmd.Flags().StringVar(&severity, "severity", "", "only findings of this `SEVERITY` or higher")
	cmd.Flags().StringSliceVar(&f.Nodes, "node", nil, "only findings about this `NODE`")
	cmd.Flags().StringVar(&since, "since", "", "only findings whose window ends at or after `TIME` (RFC 3339)")
	cmd.Flags().StringVar(&until, "until", "", "only findings whose window starts before `TIME` (RFC 3339)")
	cmd.Flags().StringVar(&f.Text, "text", "", "only findings whose title or explanation contains `TEXT`")
	cmd.Flags().StringSliceVar(&f.Incidents, "incident", nil, "only this `INCIDENT`")
	addLimitFlag(cmd, &f.Limit, "findings")
	format.register(cmd)
	return cmd
}

func parseFleetTime(flag, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, usageErrorf("%s: want an RFC 3339 time such as 2026-03-01T10:00:00Z", flag)
	}
	return t, nil
}

// writeFleetFindings prints the findings list yields, at most limit of
// them (0: all; errLimit when there were more). JSON is an array of
// fleet.Finding, as json.Encoder with two-space indent and no HTML escaping
// writes it; it is put together from each finding's JSON as the store
// keeps it, so a listing of thousands is not decoded and encoded again.
func writeFleetFindings(out io.Writer, format string, limit int, list func(fn func(*fleet.Summary, []byte) error) error) error {
	bw := bufio.NewWriterSize(out, 64<<10)
	n := 0
	var err error
	more := false
	list0 := list
	list = func(fn func(*fleet.Summary, []byte) error) error {
		err := list0(func(s *fleet.Summary, finding []byte) error {
			if limit > 0 && n == limit {
				more = true
				return errLimit
			}
			return fn(s, finding)
		})
		if err == errLimit {
			err = nil
		}
		return err
	}
	if format == "json" {
		var buf []byte
		err = list(func(s *fleet.Summary, finding []byte) error {
			if n == 0 {
				buf = append(buf[:0], '[')
			} else {
				buf = append(buf[:0], ',')
			}
			n++
			buf = append(buf, "\n  "...)
			buf = appendFleetFinding(buf, s, finding)
			_, err := bw.Write(buf)
			return err
		})
		if err == nil {
			if n == 0 {
				bw.WriteString("[]\n")
			} else {
				bw.WriteString("\n]\n")
			}
		}
	} else {
		tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
		err = list(func(s *fleet.Summary, _ []byte) error {
			if n == 0 {
				fmt.Fprintln(tw, "INCIDENT\tID\tSEVERITY\tRULE\tSTART\tTITLE")
			}
			n++
			_, err := fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", report.Escape(s.Incident), report.Escape(s.ID), s.Severity, report.Escape(s.Rule), s.Start.UTC().Format(time.RFC3339), report.Escape(s.Title))
			return err
		})
		if err == nil {
			if n == 0 {
				fmt.Fprintln(tw, "No findings.")
			}
			err = tw.Flush()
		}
	}
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err == nil && more {
		err = errLimit
	}
	return err
}

// appendFleetFinding appends a fleet.Finding, indented as an element of the
// printed array: {"incident", "run", then the finding's own fields}.
func appendFleetFinding(dst []byte, s *fleet.Summary, finding []byte) []byte {
	name, _ := json.Marshal(s.Incident)
	compact := make([]byte, 0, len(name)+len(finding)+32)
	compact = append(compact, `{"incident":`...)
	compact = append(compact, name...)
	compact = append(compact, `,"run":`...)
	compact = strconv.AppendInt(compact, s.Run, 10)
	if rest := finding[1:]; len(rest) > 0 && rest[0] != '}' {
		compact = append(compact, ',')
		compact = append(compact, rest...)
	} else {
		compact = append(compact, '}')
	}
	return appendIndented(dst, compact, 1)
}

// appendIndented appends compact JSON (as json.Marshal writes it) as
// json.Indent with indent "  " would, starting depth levels in, and with
// <, > and & as themselves, as an Encoder with SetEscapeHTML(false) writes
// them. It does the work of json.Indent without its scanner, which on
// megabytes of findings took most of a listing's time; the input is
// trusted to be valid JSON.
func appendIndented(dst, src []byte, depth int) []byte {
	newline := func(d int) {
		dst = append(dst, '\n')
		for range d {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			dst = append(dst, '"')
			i++
			start := i
			for i < len(src) && src[i] != '"' {
				if src[i] != '\\' {
					i++
					continue
				}
				if i+5 < len(src) && src[i+1] == 'u' && src[i+2] == '0' && src[i+3] == '0' {
					if h := unescapeHTML(src[i+4], src[i+5]); h != 0 {
						dst = append(dst, src[start:i]...)
						dst = append(dst, h)
						i += 6
						start = i
						continue
					}
				}
				i += 2 // an escape: the byte after the backslash is never the closing quote
			}
			dst = append(dst, src[start:i]...)
			dst = append(dst, '"')
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			newline(depth)
		case '}', ']':
			depth--
			newline(depth)
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline(depth)
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// unescapeHTML returns the character json.Marshal's HTML escaping wrote as
// \u00XY, or 0 for any other escape, which stays as written.
func unescapeHTML(x, y byte) byte {
	switch string([]byte{x, y}) {
	case "3c":
		return '<'
	case "3e":
		return '>'
	case "26":
		return '&'
	}
	return 0
}
