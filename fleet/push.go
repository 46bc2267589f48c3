package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"forensics"
	"forensics/store"
)

// Pushed counts what Push did.
type Pushed struct {
	Runs    int `json:"runs"`    // runs copied
	Present int `json:"present"` // runs the destination already had
	Sources int `json:"sources"` // sources copied
	Reused  int `json:"reused"`  // sources the destination already had
}

// Signer is a store that tells the signature recorded for a run. The
// signature (store.Backend.Signature) is the same function of the rules
// and the sources' content keys in every backend, and a pushed source
// keeps its key, so a pushed run with its signature lets a later analysis
// of the same content with the same rules (the same forensics build)
// reuse its findings in the destination, as it would have in the origin.
type Signer interface {
	RunSignature(ctx context.Context, run int64) (string, error)
}

// eventBatch is how many events go to the writer at a time.
const eventBatch = 4096

// Push copies every run of every incident of from into to, with its
// sources, events, lines and findings. It is idempotent: a run whose
// incident in to already has a run with the same sources and the same
// findings is not copied again, and sources to already holds for the
// incident are reused, not copied.
func Push(ctx context.Context, from store.Reader, to store.Backend) (Pushed, error) {
	var p Pushed
	incs, err := from.Incidents(ctx)
	if err != nil {
		return p, err
	}
	for _, inc := range incs {
		if err := pushIncident(ctx, from, to, inc, &p); err != nil {
			return p, err
		}
	}
	return p, nil
}

// IncidentLocker is a store that can hold an incident for one client: two
// pushes of the same incident at once would both find it absent and both
// copy it.
type IncidentLocker interface {
	// LockIncident waits until no one else holds the incident, holds it,
	// and returns the function that lets it go.
	LockIncident(ctx context.Context, name string) (unlock func(), err error)
}

// pushIncident copies the runs of one incident that to does not hold,
// holding the incident in to meanwhile when to can.
func pushIncident(ctx context.Context, from store.Reader, to store.Backend, inc store.Incident, p *Pushed) error {
	if l, ok := to.(IncidentLocker); ok {
		unlock, err := l.LockIncident(ctx, inc.Name)
		if err != nil {
			return err
		}
		defer unlock()
	}
	for _, run := range inc.Runs {
		srcs, err := from.Sources(ctx, run)
		if err != nil {
			return err
		}
		fs, err := from.Findings(ctx, run)
		if err != nil {
			return err
		}
		have, err := present(ctx, to, inc.Name, srcs, fs)
		if err != nil {
			return err
		}
		if have {
			p.Present++
			continue
		}
		if err := pushRun(ctx, from, to, inc, run, srcs, fs, p); err != nil {
			return fmt.Errorf("push run %d of %q: %w", run, inc.Name, err)
		}
		p.Runs++
	}
	return nil
}

// signature of a run for Push: its source keys and finding ids.
func runShape(srcs []forensics.Source, fs []store.StoredFinding) []string {
	var out []string
	for _, s := range srcs {
		out = append(out, "s:"+s.Key)
	}
	for _, f := range fs {
		out = append(out, "f:"+f.ID)
	}
	slices.Sort(out)
	return out
}

func present(ctx context.Context, to store.Reader, incident string, srcs []forensics.Source, fs []store.StoredFinding) (bool, error) {
	want := runShape(srcs, fs)
	incs, err := to.Incidents(ctx)
	if err != nil {
		return false, err
	}
	for _, inc := range incs {
		if inc.Name != incident {
			continue
		}
		for _, run := range inc.Runs {
			s, err := to.Sources(ctx, run)
			if err != nil {
				return false, err
			}
			f, err := to.Findings(ctx, run)
			if err != nil {
				return false, err
			}
			if slices.Equal(runShape(s, f), want) {
				return true, nil
			}
		}
	}
	return false, nil
}

type copying struct {
	src    forensics.Source // as in from, with to's ID
	lines  store.LineBuffer
	events []forensics.Event
}

func pushRun(ctx context.Context, from store.Reader, to store.Backend, inc store.Incident, run int64, srcs []forensics.Source, fs []store.StoredFinding, p *Pushed) (err error) {
	w, err := to.NewRun(ctx, inc.Inputs)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			w.Discard() // the run is not left half copied; its complete sources stay for the next push to reuse
		}
	}()
	if err := w.SetIncident(inc.Name); err != nil {
		return err
	}
	byID := map[int64]*copying{}
	byPath := map[string]*copying{}
	for _, s := range srcs {
		if _, ok, err := w.Loaded(s.Key); err != nil {
			return err
		} else if ok {
			p.Reused++
			continue
		}
		c := &copying{src: s}
		c.src.ID = 0
		err := w.BeginSource(&c.src)
		if errors.Is(err, store.ErrLoaded) {
			if _, _, err := w.Loaded(s.Key); err != nil {
				return err
			}
			p.Reused++
			continue
		}
		if err != nil {
			return err
		}
		c.lines = w.LineBuffer()
		byID[s.ID] = c
		byPath[s.Path] = c
	}
	defer func() {
		for _, c := range byID {
			c.lines.Release()
		}
	}()
	for l, err := range from.Lines(ctx, store.LineFilter{Run: run}) {
		if err != nil {
			return err
		}
		c := byID[l.SourceID]
		if c == nil {
			continue
		}
		c.lines.Add(&store.NewLine{N: l.N, Stamp: l.Stamp(), Flags: l.Flags, Text: []byte(l.Text)})
		if c.lines.Full() {
			if err := w.AddLines(c.src.ID, c.lines.Batch()); err != nil {
				return err
			}
		}
	}
	for e, err := range from.Events(ctx, store.EventFilter{Run: run}) {
		if err != nil {
			return err
		}
		c := byPath[e.Path]
		if c == nil {
			continue
		}
		c.events = append(c.events, *e)
		if len(c.events) >= eventBatch {
			if err := w.AddEvents(c.src.ID, c.events); err != nil {
				return err
			}
			c.events = c.events[:0]
		}
	}
	for _, s := range srcs {
		c := byID[s.ID]
		if c == nil {
			continue
		}
		if !c.lines.Empty() {
			if err := w.AddLines(c.src.ID, c.lines.Batch()); err != nil {
				return err
			}
		}
		if len(c.events) > 0 {
			if err := w.AddEvents(c.src.ID, c.events); err != nil {
				return err
			}
		}
		err := w.EndSource(&c.src)
		if errors.Is(err, store.ErrLoaded) {
			if _, _, err := w.Loaded(c.src.Key); err != nil {
				return err
			}
			p.Reused++
			continue
		}
		if err != nil {
			return err
		}
		p.Sources++
	}
	found := make([]forensics.Finding, len(fs))
	for i, f := range fs {
		found[i] = f.Finding
	}
	if err := w.SaveFindings(found); err != nil {
		return err
	}
	if s, ok := from.(Signer); ok {
		sig, err := s.RunSignature(ctx, run)
		if err != nil {
			return err
		}
		if sig != "" {
			if err := w.SetSignature(sig); err != nil {
				return err
			}
		}
	}
	return w.Close()
}
