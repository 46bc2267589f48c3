package report

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Recognise tells whether head, the first bytes of a file, is an output
// forensics wrote — a report in one of its formats, or the findings JSON of
// `forensics findings` — and which, so that a report saved next to the
// evidence is never read as evidence. It goes by the structure each writer
// gives its output, never by the file's name: the Markdown title, the HTML
// generator tag, the SARIF $schema, the first keys of the JSON contract.
func Recognise(head []byte) (what string, ok bool) {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	switch {
	case bytes.HasPrefix(trimmed, []byte(markdownTitle)):
		return "a Markdown report forensics wrote", true
	case bytes.HasPrefix(trimmed, []byte("<")) && bytes.Contains(head, []byte(htmlGenerator)):
		return "an HTML report forensics wrote", true
	case len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '['):
		return recogniseJSON(trimmed)
	}
	return "", false
}

// markdownTitle starts the first line of WriteMarkdown's output.
const markdownTitle = "# forensics: "

// htmlGenerator is the meta tag of the HTML report's head.
const htmlGenerator = `<meta name="generator" content="forensics">`

// recogniseJSON reads the first tokens of a JSON document, which may be cut
// anywhere: a SARIF log opens with its $schema; the report with its
// "findings", then "sources"; a list of findings with objects whose first
// keys are "id" and "rule".
func recogniseJSON(head []byte) (string, bool) {
	d := json.NewDecoder(bytes.NewReader(head))
	tok := func() json.Token {
		t, err := d.Token()
		if err != nil {
			return nil
		}
		return t
	}
	isFinding := func() bool {
		return tok() == json.Delim('{') && tok() == "id" && isString(tok()) && tok() == "rule"
	}
	switch tok() {
	case json.Delim('{'):
		switch tok() {
		case "$schema":
			schema, _ := tok().(string)
			if !strings.Contains(schema, "sarif") {
				return "", false
			}
			if bytes.Contains(head, []byte(`"name": "forensics"`)) {
				return "a SARIF report forensics wrote", true
			}
			return "a SARIF report of another tool", true
		case "findings":
			if tok() != json.Delim('[') {
				return "", false
			}
			if d.More() {
				if !isFinding() {
					return "", false
				}
			} else if tok() != json.Delim(']') || tok() != "sources" {
				return "", false
			}
			return "a JSON report forensics wrote", true
		}
	case json.Delim('['):
		if isFinding() {
			return "the JSON findings forensics wrote", true
		}
	}
	return "", false
}

func isString(t json.Token) bool {
	_, ok := t.(string)
	return ok
}
