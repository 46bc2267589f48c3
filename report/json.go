package report

import (
	"encoding/json"
	"forensics"
	"io"
)

// WriteJSON writes the report as one indented JSON object.
func WriteJSON(w io.Writer, r *Report) error {
	if r.Findings == nil {
		r.Findings = []forensics.Finding{}
	}
	if r.Sources == nil {
		r.Sources = []Source{}
	}
	if r.Skipped == nil {
		r.Skipped = []Skipped{}
	}
	if r.Problems == nil {
		r.Problems = []forensics.Problem{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
