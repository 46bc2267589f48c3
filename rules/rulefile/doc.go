// Package rulefile reads rules written as data: a YAML file that says which
// events a rule reads (Sigma's selections), how it groups them and what
// makes a finding (a count in a sliding window, a sustained condition, a
// sequence, an absence; Sigma's correlations), and how the finding is
// written: title, explanation, subject, evidence and fixes, as templates
// over the group's fields, counts, times and values. docs/rules.md is the
// reference of the schema.
//
// A rule file becomes a forensics.Rule like any other: it reads the
// timeline through its Pass, in one cursor over the kinds it names, and
// reports through it. It has no other way out: it cannot run a program,
// open a file or write anywhere, and every word of a fix command is
// quoted for the shell (package shell), names from the evidence checked
// first where the rule asks (package names).
//
// Everything a template or condition names is resolved when the file is
// loaded: a field that does not exist is an error then, with the file,
// line and field, not when a finding is written.
package rulefile
