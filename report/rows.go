package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// RowFormats are the formats of a timeline query's rows.
var RowFormats = []string{"table", "json", "jsonl", "csv", "raw"}

// Row is one row of a timeline query: a line, with its event details when
// it is one.
type Row struct {
	Time     string            `json:"time"`
	Node     string            `json:"node"`
	Source   string            `json:"source"`
	Line     int64             `json:"line"`
	Zone     string            `json:"zone"`
	Flags    []string          `json:"flags,omitempty"` // backwards (the clock went back), cut (a piece of a longer line), parse-error
	Kinds    []string          `json:"kinds,omitempty"`
	Evidence bool              `json:"evidence,omitempty"`
	Bucket   string            `json:"bucket,omitempty"`
	VB       *int              `json:"vb,omitempty"`
	Range    int64             `json:"range,omitempty"`
	Keyspace string            `json:"keyspace,omitempty"`
	Shard    string            `json:"shard,omitempty"`
	Table    string            `json:"table,omitempty"`
	Attrs    map[string]string `json:"attrs,omitempty"`
	Text     string            `json:"text"`
}

// RowWriter writes the rows of a timeline query in one of RowFormats,
// streaming where the format allows it.
type RowWriter struct {
	w      io.Writer
	format string
	term   bool // w is a terminal: asked once, not for every row
	n      int
	buf    *bufio.Writer // when buffered
	tab    *tabwriter.Writer
	csv    *csv.Writer
	enc    *json.Encoder

	// The table format's cells of the last row's node and source, which
	// most rows share with the row before.
	node, nodeCell     string
	source, sourceCell string
	line               []byte
}

// NewRowWriter returns a writer of rows in format to w; terminal says
// whether w is a terminal. When buffered and not on a terminal (where each
// row shows as it is found), rows go through a buffer that Flush and Close
// write out: nothing else may write to w meanwhile. Writing each row of a
// dump of millions of lines on its own took most of its time.
func NewRowWriter(w io.Writer, format string, terminal, buffered bool) *RowWriter {
	rw := &RowWriter{w: w, format: format, term: terminal}
	if buffered && !rw.term {
		rw.buf = bufio.NewWriterSize(w, 64<<10)
		rw.w = rw.buf
	}
	switch format {
	case "json", "jsonl":
		rw.enc = json.NewEncoder(rw.w)
		rw.enc.SetEscapeHTML(false)
	case "csv":
		rw.csv = csv.NewWriter(rw.w)
	}
	return rw
}

// Flush writes out what the buffer holds.
func (rw *RowWriter) Flush() error {
	if rw.buf == nil {
		return nil
	}
	return rw.buf.Flush()
}

// Write writes a row.
func (rw *RowWriter) Write(r *Row) error {
	if rw.format == "raw" {
		return rw.Raw(r.Text)
	}
	rw.n++
	switch rw.format {
	case "jsonl":
		return rw.enc.Encode(r)
	case "json":
		sep := ",\n"
		if rw.n == 1 {
			sep = "[\n"
		}
		if _, err := io.WriteString(rw.w, sep); err != nil {
			return err
		}
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = rw.w.Write(b)
		return err
	case "csv":
		if rw.n == 1 {
			rw.csv.Write([]string{"time", "node", "source", "line", "zone", "flags", "kinds", "evidence", "text"})
		}
		return rw.csv.Write([]string{r.Time, r.Node, r.Source, strconv.FormatInt(r.Line, 10), r.Zone,
			strings.Join(r.Flags, " "), strings.Join(r.Kinds, " "), strconv.FormatBool(r.Evidence), r.Text})
	}
	mark := " "
	switch {
	case r.Evidence:
		mark = "*"
	case len(r.Flags) > 0 && r.Flags[0] == "backwards":
		mark = "<" // the clock went back: kept in file order
	}
	kinds := strings.Join(r.Kinds, ",")
	if kinds == "" {
		kinds = "-"
	}
	if r.Node != rw.node {
		rw.node, rw.nodeCell = r.Node, Escape(r.Node)
	}
	if r.Source != rw.source {
		rw.source, rw.sourceCell = r.Source, ClipName(shortSource(r.Source), 160)
	}
	// Appended by hand, not by fmt: a dump writes millions of rows.
	b := append(rw.line[:0], mark...)
	b = append(b, ' ')
	b = append(b, r.Time...)
	b = append(b, "  "...)
	b = appendCell(b, rw.nodeCell, 20)
	b = append(b, ' ')
	b = appendCell(b, kinds, 28)
	b = append(b, ' ')
	b = append(b, rw.sourceCell...)
	b = append(b, ':')
	b = strconv.AppendInt(b, r.Line, 10)
	b = append(b, "  "...)
	b = append(b, Clip(r.Text, 400)...)
	b = append(b, '\n')
	rw.line = b
	_, err := rw.w.Write(b)
	return err
}

// appendCell appends s padded with spaces to width characters, as %-*s does.
func appendCell(b []byte, s string, width int) []byte {
	b = append(b, s...)
	for n := utf8.RuneCountInString(s); n < width; n++ {
		b = append(b, ' ')
	}
	return b
}

// Raw writes a row of the raw format, which is a line's text alone.
func (rw *RowWriter) Raw(text string) error {
	rw.n++
	if rw.term { // raw lines are for pipes; on a terminal they are neutralised too
		text = Escape(text)
	}
	if _, err := io.WriteString(rw.w, text); err != nil {
		return err
	}
	_, err := io.WriteString(rw.w, "\n")
	return err
}

// SQLRow writes a row of a query in SQL, its columns named by cols.
func (rw *RowWriter) SQLRow(cols []string, vals []any) error {
	rw.n++
	switch rw.format {
	case "json", "jsonl":
		obj := make(map[string]any, len(cols))
		for i, c := range cols {
			obj[c] = vals[i]
		}
		if rw.format == "jsonl" {
			return rw.enc.Encode(obj)
		}
		sep := ",\n"
		if rw.n == 1 {
			sep = "[\n"
		}
		b, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		_, err = io.WriteString(rw.w, sep+string(b))
		return err
	case "csv":
		if rw.n == 1 {
			rw.csv.Write(cols)
		}
		rec := make([]string, len(vals))
		for i, v := range vals {
			rec[i] = sqlText(v)
		}
		return rw.csv.Write(rec)
	case "raw":
		rec := make([]string, len(vals))
		for i, v := range vals {
			rec[i] = sqlText(v)
			if rw.term {
				rec[i] = Escape(rec[i])
			}
		}
		_, err := fmt.Fprintln(rw.w, strings.Join(rec, "\t"))
		return err
	}
	if rw.tab == nil {
		rw.tab = tabwriter.NewWriter(rw.w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(rw.tab, strings.Join(cols, "\t"))
	}
	rec := make([]string, len(vals))
	for i, v := range vals {
		rec[i] = Clip(sqlText(v), 200)
	}
	if _, err := fmt.Fprintln(rw.tab, strings.Join(rec, "\t")); err != nil {
		return err
	}
	// The table's columns are measured a thousand rows at a time: a query
	// of millions of rows is printed as it comes, not held until its end.
	if rw.n%sqlTableRows == 0 {
		return rw.tab.Flush()
	}
	return nil
}

const sqlTableRows = 1000

func sqlText(v any) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(v)
}

// Rows counts the rows written so far.
func (rw *RowWriter) Rows() int { return rw.n }

// Close ends the output (the closing bracket of JSON, the table's
// columns) and flushes it.
func (rw *RowWriter) Close() error {
	var err error
	switch {
	case rw.format == "json":
		end := "\n]\n"
		if rw.n == 0 {
			end = "[]\n"
		}
		_, err = io.WriteString(rw.w, end)
	case rw.format == "csv":
		rw.csv.Flush()
		err = rw.csv.Error()
	case rw.tab != nil:
		err = rw.tab.Flush()
	}
	if ferr := rw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// shortSource drops the archive and the node's folder from a path for the
// table, where the node has its own column.
func shortSource(p string) string {
	if i := strings.LastIndexByte(p, '!'); i >= 0 {
		p = p[i+1:]
	}
	if i := strings.Index(p, "cbcollect_info_"); i >= 0 {
		if j := strings.IndexByte(p[i:], '/'); j >= 0 {
			return p[i+j+1:]
		}
	}
	return p
}
