package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// enumFlag is a flag whose value is one of a fixed set (--format, --tz):
// one type, so every command checks, documents and completes it the same way.
type enumFlag struct {
	value   string
	allowed []string
	meta    string // the placeholder in --help
}

// tableOrJSON is what a command prints unless it says otherwise: a table
// for people, JSON for programs.
var tableOrJSON = []string{"table", "json"}

// newFormatFlag is every command's --format: def and the allowed values,
// tableOrJSON when none are given.
func newFormatFlag(def string, allowed ...string) *enumFlag {
	if len(allowed) == 0 {
		allowed = tableOrJSON
	}
	return &enumFlag{value: def, allowed: allowed, meta: "FORMAT"}
}

func (f *enumFlag) String() string { return f.value }
func (f *enumFlag) Type() string   { return f.meta }

func (f *enumFlag) Set(v string) error {
	for _, a := range f.allowed {
		if strings.EqualFold(v, a) {
			f.value = a
			return nil
		}
	}
	return fmt.Errorf("want %s", orList(f.allowed))
}

// register adds the flag as --format to cmd, with its completion.
func (f *enumFlag) register(cmd *cobra.Command) {
	cmd.Flags().Var(f, "format", "output format: "+orList(f.allowed))
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(f.allowed, cobra.ShellCompDirectiveNoFileComp))
}

// orList writes "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// sizeFlag is a byte count written the way people write sizes (1TiB,
// 500MiB, 2GB, or a plain number of bytes).
type sizeFlag struct{ n *int64 }

var sizeUnits = []struct {
	suffix string
	n      int64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1},
}

func (f sizeFlag) Type() string { return "SIZE" }

func (f sizeFlag) String() string {
	if f.n == nil {
		return ""
	}
	return formatSize(*f.n)
}

func formatSize(n int64) string {
	for _, u := range sizeUnits {
		if n >= u.n && n%u.n == 0 && u.n > 1 {
			return strconv.FormatInt(n/u.n, 10) + " " + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (f sizeFlag) Set(v string) error {
	s := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range sizeUnits {
		if len(s) > len(u.suffix) && strings.EqualFold(s[len(s)-len(u.suffix):], u.suffix) {
			mult, s = u.n, strings.TrimSpace(s[:len(s)-len(u.suffix)])
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || (mult > 1 && n > (1<<62)/mult) {
		return fmt.Errorf("want a size such as 1TiB, 500MiB or 2GB")
	}
	*f.n = n * mult
	return nil
}

// optionalInt is an integer flag that may be absent (--vb: vbucket 0 is a
// real vbucket, so 0 cannot mean "any").
type optionalInt struct {
	set bool
	n   int
}

func (o *optionalInt) Type() string { return "N" }

func (o *optionalInt) String() string {
	if !o.set {
		return ""
	}
	return strconv.Itoa(o.n)
}

func (o *optionalInt) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("want a number, 0 or more")
	}
	o.set, o.n = true, n
	return nil
}
