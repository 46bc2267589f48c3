// Package store keeps a timeline: the sources read, their events and
// lines, the runs and their findings. Its interfaces (Backend, Reader,
// Writer, LineBuffer) are all that ingest, analysis, report and the
// commands use; store/sqlite and store/postgres implement them,
// store/backends lists them, store/block holds the line and event blocks
// both keep, and store/storetest is the suite both pass. It imports the
// domain and zran (a line buffer follows a deflate member's trail), nothing
// else of the program.
package store

import (
	"context"
	"errors"
	"iter"
	"regexp"
	"time"

	"forensics"
	"forensics/zran"
)

// The interfaces below are what a timeline backend implements; ingest,
// analysis, report and the commands use nothing else. They speak of
// sources, events, lines and findings, never of how a backend encodes them:
// the SQLite backend's compressed line blocks stay inside store/sqlite.

// ErrLoaded means a source with the same content was already read into the timeline.
var ErrLoaded = errors.New("already in the timeline")

// ErrNotTimeline means the location given as --db holds something else; it is left as it is.
var ErrNotTimeline = errors.New("not a forensics timeline")

// Reader is the read side of a timeline. It may be used by several
// goroutines at once: rules read side by side.
type Reader interface {
	// Name says where the timeline is, for messages: a file path, or a
	// connection string without its credentials.
	Name() string

	// Sources returns the complete sources of a run (all of them when run is 0), by path.
	Sources(ctx context.Context, run int64) ([]forensics.Source, error)

	// Events returns a cursor over the events the filter selects, in
	// timeline order (forensics.Compare). Rows are read as the cursor
	// advances, not collected first. Each event yielded is the caller's:
	// it is not reused. An error ends the sequence.
	Events(ctx context.Context, f EventFilter) iter.Seq2[*forensics.Event, error]

	// Lines returns a cursor over the stored lines the filter selects,
	// merged across sources in timeline order (time, source path, line).
	// In a window (Since and Until both set) every line is in time order;
	// without one, lines stream and keep their file's order where its
	// clock went backwards. The line yielded is reused once the loop
	// body returns.
	Lines(ctx context.Context, f LineFilter) iter.Seq2[*Line, error]

	// Search calls fn with a page of the lines a search selects (those
	// its LineFilter selects, in the order Lines gives them) from after
	// s.After, at most s.Limit of them, until fn returns false. It says
	// where the next page starts and how it read the timeline. The line
	// is reused once fn returns.
	Search(ctx context.Context, s Search, fn func(*Line) bool) (SearchResult, error)

	// LatestRun returns the id of the most recent analysis run, or 0 when there is none.
	LatestRun(ctx context.Context) (int64, error)

	// Findings returns the findings of a run (the latest when run is 0), in time order.
	Findings(ctx context.Context, run int64) ([]StoredFinding, error)

	// EachFinding calls fn with each finding Findings (or, with all,
	// AllFindings) returns, in the same order, reading them one at a
	// time, until fn returns an error: a listing holds one finding, not
	// all of them.
	EachFinding(ctx context.Context, run int64, all bool, fn func(StoredFinding) error) error

	// FindingIn returns the finding of a run (of any run when run is 0, the
	// most recent) whose id starts with prefix. A prefix matching two
	// findings, or none, is an error that says so.
	FindingIn(ctx context.Context, run int64, prefix string) (StoredFinding, error)

	// AllFindings returns the findings of every incident, each from the
	// latest run that found it, in time order.
	AllFindings(ctx context.Context) ([]StoredFinding, error)

	// Incidents lists the incidents of the timeline, the latest last.
	Incidents(ctx context.Context) ([]Incident, error)

	// QuerySQL runs a read-only query written by the user against the
	// documented views (Views) and calls fn with each row.
	QuerySQL(ctx context.Context, query string, args []any, fn func(cols []string, vals []any) error) error

	Close() error
}

// Backend is a timeline open for writing: one analysis at a time writes
// to it, through the Writer of its run.
type Backend interface {
	Reader

	// Keys returns the keys of the complete sources, to skip content already read.
	Keys(ctx context.Context) (map[string]bool, error)

	// NewRun records an analysis run over the given inputs (removing what
	// an interrupted run left incomplete) and returns the writer for it.
	NewRun(ctx context.Context, inputs []string) (Writer, error)

	// Signature identifies what the run's findings depend on: the content
	// of its sources and the rules (rulesID names them and the build).
	Signature(ctx context.Context, run int64, rulesID string) (string, error)

	// PriorFindings returns the findings of the latest earlier run with the
	// same signature, and whether there was one.
	PriorFindings(ctx context.Context, run int64, signature string) ([]forensics.Finding, bool, error)

	// OpenReader opens a read-only view of the same timeline for the rules,
	// which read side by side while the writer stays open.
	OpenReader() (Reader, error)

	// Reindex indexes every block of lines the index of blocks does not
	// cover (written before it, or by a build whose index differs), a
	// thousand blocks a transaction, and says what it did (forensics
	// timeline reindex). Until then searches read those blocks whatever
	// they look for.
	Reindex(ctx context.Context) (Reindexed, error)
}

// Writer adds one run's sources, events, lines and findings. It is used by
// one goroutine, except LineBuffer, which reading goroutines call. A
// source becomes visible to readers only when EndSource marks it complete,
// so a run that is interrupted leaves no half-read source behind, and the
// next run reads that source again. While the writer holds writes not yet
// committed, reads through its Backend may wait for them (SQLite has one
// connection for writing): read before writing, after Commit, or through
// OpenReader. SetIncident comes before the first source.
type Writer interface {
	// Run returns the id of the run the writer records.
	Run() int64

	// SetIncident names the incident the run analyses.
	SetIncident(name string) error

	// Loaded looks up a complete source by its key and adds it to the run.
	Loaded(key string) (forensics.Source, bool, error)

	// BeginSource records a source about to be read and sets its ID; it
	// returns ErrLoaded when a source with the same key is complete. A
	// source whose key is not known until it has been read has Key "".
	BeginSource(src *forensics.Source) error

	// LineBuffer returns a buffer for the lines of one source. It is safe
	// to call from any goroutine; the buffer is then used by one. The
	// backend prepares lines for storage there (the SQLite backend
	// compresses them), so that work runs in parallel on the reading
	// goroutines and not in the single writer.
	LineBuffer() LineBuffer

	// AddLines stores a batch of consecutive lines of a source and releases it.
	AddLines(src int64, b LineBatch) error

	// AddEvents stores events of a source. The writer does not keep evs.
	AddEvents(src int64, evs []forensics.Event) error

	// EndSource records a source's accounting and makes it visible. If its
	// key turns out to be one already loaded, the new copy is removed and
	// ErrLoaded returned.
	EndSource(src *forensics.Source) error

	// AbortSource removes a source and everything stored of it.
	AbortSource(src int64) error

	// SaveFindings stores the findings of the run, replacing any saved before for it.
	SaveFindings(fs []forensics.Finding) error

	// SetSignature records the run's signature, once its findings are saved.
	SetSignature(signature string) error

	// Commit makes what was written so far durable.
	Commit() error

	// Rollback abandons what was written since the last commit.
	Rollback()

	// Discard removes the run, for a run that read nothing, so the latest
	// run stays the latest analysis; a timeline that the open of this
	// backend created is removed again when the backend is closed.
	Discard() error

	// Close commits and ends the writer.
	Close() error
}

// LineTextWriter is a Writer that stores the text of an event only once
// when it is the whole text of the line the event was recognised on: the
// stored line gives it back, and readers see the same Text. Ingest uses it
// when the backend offers it; AddEvents stays for everything else.
type LineTextWriter interface {
	Writer
	// AddEventsOnLines stores events like AddEvents. onLine[i] says that
	// evs[i].Text is the whole text of line evs[i].Line, as handed to the
	// source's LineBuffer; onLine may be shorter than evs (false for the rest).
	AddEventsOnLines(src int64, evs []forensics.Event, onLine []bool) error
}

// LineBuffer collects consecutive lines of one source, as read.
type LineBuffer interface {
	// Add appends line n. Text is copied; a cut line (Flags.Cut) goes on
	// in the next record under the same number.
	Add(l *NewLine)
	// Full reports whether the buffer holds enough lines to hand over.
	Full() bool
	// Empty reports whether no line was added since the last Batch.
	Empty() bool
	// Batch prepares the lines added so far for AddLines and empties the buffer.
	Batch() LineBatch
	// Release lets go of the buffer's memory; it must not be used after.
	Release()
	// Follow says that the lines added from now on come from the output of
	// a deflate stream with trail t (nil: from a stream without one), and
	// begin at NewLine.Pos of it. It reports whether the buffer keeps the
	// stream's own compressed bytes for them rather than compress the lines
	// again. It is called when the buffer is empty.
	Follow(t *zran.Trail) bool
}

// LineBatch is lines prepared by a LineBuffer, on their way to AddLines.
type LineBatch interface {
	// Release lets go of a batch that will not be stored.
	Release()
}

// NewLine is a line as ingest hands it to the store.
type NewLine struct {
	N     int64
	Stamp forensics.Stamp // the line's time and offset; its zone is Flags.Zone, since a line that takes the previous line's time is ZoneInherited
	Flags LineFlags
	Text  []byte // valid during Add only
	Pos   int64  // where the text starts in the source's output
}

// LineFlags describes a stored line.
type LineFlags struct {
	Zone      forensics.Zone
	CR        bool // the line ended in CR LF
	Cut       bool // the line goes on in the next record, same line number
	Backwards bool // the line's time is earlier than the line before it
	Error     bool // the line looked like the format but did not parse
}

// Line is a stored line with where it came from.
type Line struct {
	SourceID int64
	Path     string
	Node     string
	N        int64
	Time     time.Time
	Offset   int32
	Flags    LineFlags
	Text     string
	Kinds    []forensics.Kind // events recognised on this line
}

// Stamp returns the line's time as a Stamp.
func (l *Line) Stamp() forensics.Stamp {
	return forensics.Stamp{Time: l.Time, Offset: l.Offset, Zone: l.Flags.Zone}
}

// Position returns where the line is on the timeline.
func (l *Line) Position() forensics.Position {
	return forensics.Position{Time: l.Time, Path: l.Path, Line: l.N}
}

// EventFilter selects events. A backend binds every value as a parameter.
type EventFilter struct {
	forensics.Query
	Run        int64    // 0: every run
	Paths      []string // source path contains any of these
	Components []string // the source was written by one of these components
	Text       string   // the line contains this
	Limit      int
	Offset     int
}

// LineFilter selects stored lines. A backend binds every value as a
// parameter or applies it in Go; nothing is pasted into SQL.
type LineFilter struct {
	Run        int64 // 0: every run
	Since      time.Time
	Until      time.Time
	Nodes      []string
	Paths      []string       // source path contains any of these
	Components []string       // the source was written by one of these components
	Text       string         // the line contains this
	Fold       bool           // Text in letters of either case (Unicode's simple folding, as (?i) in a regexp)
	Regexp     *regexp.Regexp // the line matches this
	NoKinds    bool           // Line.Kinds is left empty: the caller does not read it, and finding them costs
}

// StoredFinding is a finding with the run that produced it.
type StoredFinding struct {
	Run int64
	forensics.Finding
}

// Timeline returns the events of one run's sources (all sources when run
// is 0) as rules read them.
func Timeline(r Reader, run int64) forensics.Timeline { return runTimeline{r, run} }

type runTimeline struct {
	r   Reader
	run int64
}

func (t runTimeline) Events(ctx context.Context, q forensics.Query) iter.Seq2[*forensics.Event, error] {
	return t.r.Events(ctx, EventFilter{Query: q, Run: t.run})
}

// Reindexed is what Reindex did.
type Reindexed struct {
	Blocks int   // blocks of lines indexed now
	Total  int   // blocks of lines in the timeline
	Bytes  int64 // bytes of index written
	// Skipped counts the blocks that do not decode, left out of the
	// index (a search reads them and says why they fail); Problem is
	// the first one's error.
	Skipped int
	Problem error
}
