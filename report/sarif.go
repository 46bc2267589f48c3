package report

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"forensics"
)

// SARIFSchema is the schema the output declares: SARIF 2.1.0 with its
// approved errata, as OASIS publishes it.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// InputsBase is the uriBaseId of every relative artifact location: the
// folder the inputs were given in (Report.Root), which the file does not
// name, so that it does not carry the analyst's paths.
const InputsBase = "INPUTS"

// FingerprintKey names the partial fingerprint that carries the finding's id.
// A result management system matches results across runs by it: the same
// incident in the same input keeps its id.
const FingerprintKey = "forensicsFindingId/v1"

// WriteSARIF writes the report as a SARIF 2.1.0 log with one run: one
// result per finding, rule metadata from the Doc of the rules that ran, the
// files read as artifacts, and the problems with the inputs as tool
// execution notifications.
//
// Locations. A result's one location (SARIF allows more only when every one
// must be changed) is its first evidence line logged by the subject's node,
// or its first evidence line; every evidence line, in time order, is a
// related location whose message is the evidence note and whose snippet is
// the line. Paths are written as forensics writes them everywhere else, so
// they can be passed to `forensics timeline query --source`: an archive
// member is the archive's path, "!", and the member's path inside it
// (nested archives repeat the "!"), e.g. collectinfo-2022-07-22T004733-ns_1@10.0.0.1.zip!cbcollect_info_ns_1@10.0.0.1_20220722-004733/memcached.log.
// A path under the folder the inputs were given in (Report.Root) is
// written relative to it, with uriBaseId INPUTS; a path outside it stays
// as stored, an absolute one as a file:// URI. Every path is
// percent-encoded into a URI reference.
func WriteSARIF(w io.Writer, r *Report, rules []*forensics.Rule) error {
	log := sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{buildRun(r, rules)}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}

func buildRun(r *Report, rules []*forensics.Rule) sarifRun {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: "forensics", Rules: []sarifRule{}}},
		OriginalURIBaseIDs: map[string]sarifArtifactLocation{
			InputsBase: {Description: &sarifMessage{Text: "The folder that holds every input forensics analyzed: each artifact path is relative to it."}},
		},
		Results:     []sarifResult{},
		Invocations: []sarifInvocation{{ExecutionSuccessful: true}},
	}
	index := map[string]int{}
	for _, rule := range rules {
		index[rule.Name] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleOf(rule))
	}
	for _, s := range r.Sources {
		props := map[string]any{
			"node": s.Node, "format": s.Format, "component": s.Component, "lines": s.Lines, "events": s.Events,
		}
		if s.Release != "" {
			props["release"] = s.Release
		}
		run.Artifacts = append(run.Artifacts, sarifArtifact{
			Location:   artifactLocation(r.rel(s.Path)),
			Length:     s.Bytes,
			Properties: props,
		})
	}
	for _, f := range r.Findings {
		res := sarifResult{
			RuleID:              f.Rule,
			Level:               sarifLevel(f.Severity),
			Message:             sarifMessage{Text: f.Title + "\n\n" + f.Explanation},
			PartialFingerprints: map[string]string{FingerprintKey: f.ID},
			Locations:           []sarifLocation{},
			Properties: sarifResultProperties{
				ID: f.ID, Severity: f.Severity.String(), Subject: f.Subject,
				Start: f.Start.UTC().Format(TimeFormat), End: f.End.UTC().Format(TimeFormat),
				Fixes: f.Fixes, Skew: f.Skew,
			},
		}
		if i, ok := index[f.Rule]; ok {
			res.RuleIndex = &i
		}
		for i, e := range f.Evidence {
			loc := evidenceLocation(r, e)
			loc.ID = i + 1
			res.RelatedLocations = append(res.RelatedLocations, loc)
		}
		if p := primaryEvidence(f); p >= 0 {
			loc := evidenceLocation(r, f.Evidence[p])
			res.Locations = append(res.Locations, loc)
		}
		run.Results = append(run.Results, res)
	}
	for _, p := range r.Problems {
		n := sarifNotification{Level: "warning", Message: sarifMessage{Text: p.Reason}}
		if p.Lost {
			n.Level = "error"
		}
		if p.Path != "" {
			loc := sarifLocation{PhysicalLocation: &sarifPhysicalLocation{ArtifactLocation: artifactLocation(r.rel(p.Path))}}
			if p.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: p.Line}
			}
			n.Locations = []sarifLocation{loc}
		}
		run.Invocations[0].ToolExecutionNotifications = append(run.Invocations[0].ToolExecutionNotifications, n)
	}
	return run
}

// primaryEvidence picks the evidence line a result is located at: the first
// one the subject's node logged, else the first; -1 when there is none.
func primaryEvidence(f forensics.Finding) int {
	if len(f.Evidence) == 0 {
		return -1
	}
	if f.Subject.Node != "" {
		for i, e := range f.Evidence {
			if e.Node == f.Subject.Node {
				return i
			}
		}
	}
	return 0
}

func evidenceLocation(r *Report, e forensics.Evidence) sarifLocation {
	loc := sarifLocation{
		PhysicalLocation: &sarifPhysicalLocation{
			ArtifactLocation: artifactLocation(r.rel(e.Path)),
			Region:           &sarifRegion{StartLine: e.Line, Snippet: &sarifArtifactContent{Text: e.Text}},
		},
		Properties: map[string]any{"time": e.Time.UTC().Format(TimeFormat)},
	}
	if e.Node != "" {
		loc.Properties["node"] = e.Node
	}
	if e.Note != "" {
		loc.Message = &sarifMessage{Text: e.Note}
	}
	if e.Line <= 0 {
		loc.PhysicalLocation.Region = nil
	}
	return loc
}

// artifactLocation writes a display path as a URI reference (see WriteSARIF).
func artifactLocation(path string) sarifArtifactLocation {
	p := escapeURIPath(filepath.ToSlash(path))
	if strings.HasPrefix(p, "/") {
		return sarifArtifactLocation{URI: "file://" + p}
	}
	// A relative reference whose first segment holds a colon would read as
	// a scheme (RFC 3986 section 4.2).
	if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ":") {
		p = "./" + p
	}
	return sarifArtifactLocation{URI: p, URIBaseID: InputsBase}
}

// escapeURIPath percent-encodes what RFC 3986 does not allow in a path:
// it keeps "/" and the path characters (unreserved, sub-delims, ":" and
// "@"), so the "!" between an archive and its member and the "@" of
// ns_1@host stay readable.
func escapeURIPath(p string) string {
	const keep = "-._~!$&'()*+,;=:@/"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// sarifLevel maps a severity to a SARIF level: what fails a build is an
// error, what could go wrong a warning, the rest a note.
func sarifLevel(s forensics.Severity) string {
	switch {
	case s >= forensics.High:
		return "error"
	case s >= forensics.Medium:
		return "warning"
	}
	return "note"
}

func sarifRuleOf(r *forensics.Rule) sarifRule {
	d := r.Doc
	var text, md strings.Builder
	section := func(title, body string) {
		if body == "" {
			return
		}
		if text.Len() > 0 {
			text.WriteString("\n\n")
			md.WriteString("\n\n")
		}
		text.WriteString(title + ": " + body)
		md.WriteString("**" + title + ".** " + mdEscape(body))
	}
	section("Detects", d.Detects)
	section("Why it matters", d.Why)
	section("How to confirm", d.Confirm)
	section("Inputs", d.Inputs)
	section("What to do", d.Fixes)
	out := sarifRule{
		ID:               r.Name,
		ShortDescription: &sarifText{Text: d.Title},
		FullDescription:  &sarifText{Text: d.Detects},
		Help:             &sarifText{Text: text.String(), Markdown: md.String()},
	}
	if d.Title == "" {
		out.ShortDescription = &sarifText{Text: r.Name}
	}
	if d.Detects == "" {
		out.FullDescription = nil
	}
	if text.Len() == 0 {
		out.Help = nil
	}
	return out
}

// The subset of SARIF 2.1.0 forensics writes; field names as in the schema.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                        `json:"tool"`
	OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds,omitempty"`
	Invocations        []sarifInvocation                `json:"invocations"`
	Artifacts          []sarifArtifact                  `json:"artifacts,omitempty"`
	Results            []sarifResult                    `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name  string      `json:"name"`
	Rules []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string     `json:"id"`
	ShortDescription *sarifText `json:"shortDescription,omitempty"`
	FullDescription  *sarifText `json:"fullDescription,omitempty"`
	Help             *sarifText `json:"help,omitempty"`
}

// sarifText is a multiformatMessageString.
type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifArtifact struct {
	Location   sarifArtifactLocation `json:"location"`
	Length     int64                 `json:"length"`
	Properties map[string]any        `json:"properties,omitempty"`
}

type sarifArtifactLocation struct {
	URI         string        `json:"uri,omitempty"`
	URIBaseID   string        `json:"uriBaseId,omitempty"`
	Description *sarifMessage `json:"description,omitempty"`
}

type sarifResult struct {
	RuleID              string                `json:"ruleId"`
	RuleIndex           *int                  `json:"ruleIndex,omitempty"`
	Level               string                `json:"level"`
	Message             sarifMessage          `json:"message"`
	Locations           []sarifLocation       `json:"locations"`
	RelatedLocations    []sarifLocation       `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string     `json:"partialFingerprints"`
	Properties          sarifResultProperties `json:"properties"`
}

// sarifResultProperties carries what SARIF has no field for, with the
// names of the JSON output.
type sarifResultProperties struct {
	ID       string                   `json:"id"`
	Severity string                   `json:"severity"`
	Subject  forensics.FindingSubject `json:"subject"`
	Start    string                   `json:"start"`
	End      string                   `json:"end"`
	Fixes    []forensics.Fix          `json:"fixes,omitempty"`
	Skew     []forensics.Skew         `json:"skew,omitempty"`
}

type sarifLocation struct {
	ID               int                    `json:"id,omitempty"`
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	Message          *sarifMessage          `json:"message,omitempty"`
	Properties       map[string]any         `json:"properties,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifRegion struct {
	StartLine int64                 `json:"startLine"`
	Snippet   *sarifArtifactContent `json:"snippet,omitempty"`
}

type sarifArtifactContent struct {
	Text string `json:"text"`
}
