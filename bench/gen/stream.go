package main

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"time"
)

// source yields the entries of one log in time order. An entry is one or
// more whole lines, each ending in '\n'. The text returned by next is valid
// until the following call.
type source interface {
	next() (t time.Time, text []byte, ok bool)
}

// template appends one generated entry logged at t to b.
type template func(b []byte, r *rand.Rand, t time.Time) []byte

// noise is a generated stream: entries from a template at random times
// between from and to, either spread to fill a byte budget or at a fixed
// period (stats dumps that services log every minute).
type noise struct {
	r    *rand.Rand
	gen  template
	t    time.Time
	to   time.Time
	gap  float64 // mean seconds between entries
	even bool    // a fixed period with a little jitter, not a Poisson process
	buf  []byte

	holes []span // nothing is logged in these, in time order
}

type span struct{ from, to time.Time }

// hole stops the stream over [from, to): the process that logs it is
// down. Holes are added in time order.
func (n *noise) hole(from, to time.Time) *noise {
	n.holes = append(n.holes, span{from, to})
	return n
}

// newNoise spreads about budget bytes of gen's entries over [from, to).
// The mean entry size is measured on a sample drawn from a separate
// generator, so the stream itself stays a function of its seed alone.
func newNoise(seed uint64, gen template, from, to time.Time, budget int64) *noise {
	n := &noise{r: newRand(seed), gen: gen, t: from, to: to}
	if budget <= 0 {
		n.t = to
		return n
	}
	avg := meanSize(seed, gen, from)
	count := float64(budget) / avg
	n.gap = to.Sub(from).Seconds() / math.Max(count, 1)
	return n
}

// newPeriodic logs gen's entry every period over [from, to).
func newPeriodic(seed uint64, gen template, from, to time.Time, period time.Duration) *noise {
	r := newRand(seed)
	start := from.Add(time.Duration(r.Int64N(int64(period))))
	return &noise{r: r, gen: gen, t: start, to: to, gap: period.Seconds(), even: true}
}

// periodicBytes estimates the bytes a periodic stream writes over [from, to).
func periodicBytes(seed uint64, gen template, from, to time.Time, period time.Duration) int64 {
	return int64(meanSize(seed, gen, from) * float64(to.Sub(from)/period))
}

func meanSize(seed uint64, gen template, t time.Time) float64 {
	r := newRand(seed ^ 0x5eed5eed5eed5eed)
	const samples = 2000
	var b []byte
	total := 0
	for range samples {
		b = gen(b[:0], r, t)
		total += len(b)
	}
	return float64(total) / samples
}

func (n *noise) next() (time.Time, []byte, bool) {
	for len(n.holes) > 0 && !n.t.Before(n.holes[0].from) {
		if n.t.Before(n.holes[0].to) {
			n.t = n.holes[0].to
		}
		n.holes = n.holes[1:]
	}
	if !n.t.Before(n.to) {
		return time.Time{}, nil, false
	}
	t := n.t
	n.buf = n.gen(n.buf[:0], n.r, t)
	var step float64
	if n.even {
		step = n.gap * (0.98 + 0.04*n.r.Float64())
	} else {
		step = n.r.ExpFloat64() * n.gap
	}
	// Keep time moving: two entries in the same microsecond are fine,
	// a stream that never advances is not.
	n.t = n.t.Add(max(time.Duration(step*float64(time.Second)), time.Microsecond))
	return t, n.buf, true
}

// entries is a source over entries held in memory (an incident's lines).
type entries struct {
	list []entry
	i    int
}

type entry struct {
	t    time.Time
	text []byte
}

func (e *entries) next() (time.Time, []byte, bool) {
	if e.i >= len(e.list) {
		return time.Time{}, nil, false
	}
	x := e.list[e.i]
	e.i++
	return x.t, x.text, true
}

// merge yields the entries of several sources in time order; on equal
// times the earlier source goes first, so an incident's lines, listed
// first, keep their order relative to the noise around them.
type merge struct {
	srcs    []source
	head    []entry
	live    []bool
	scratch []byte
}

func newMerge(srcs ...source) *merge {
	m := &merge{srcs: srcs, head: make([]entry, len(srcs)), live: make([]bool, len(srcs))}
	for i, s := range srcs {
		m.head[i].t, m.head[i].text, m.live[i] = s.next()
	}
	return m
}

func (m *merge) next() (time.Time, []byte, bool) {
	best := -1
	for i := range m.srcs {
		if m.live[i] && (best < 0 || m.head[i].t.Before(m.head[best].t)) {
			best = i
		}
	}
	if best < 0 {
		return time.Time{}, nil, false
	}
	// The text must outlive the refill of this source's head, which may
	// reuse its buffer: copy it aside.
	h := m.head[best]
	m.scratch = append(m.scratch[:0], h.text...)
	m.head[best].t, m.head[best].text, m.live[best] = m.srcs[best].next()
	return h.t, m.scratch, true
}

// counter counts what is written through it.
type counter struct {
	w     io.Writer
	bytes int64
	lines int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.bytes += int64(n)
	c.lines += int64(bytes.Count(p[:n], []byte{'\n'}))
	return n, err
}

// drain writes every entry of s to w.
func drain(w *bufio.Writer, s source) error {
	for {
		_, text, ok := s.next()
		if !ok {
			return nil
		}
		if _, err := w.Write(text); err != nil {
			return err
		}
	}
}

// newRand returns a generator for one stream; seeds are derived with
// mix so that streams of one run do not repeat each other.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, mix(seed, 0x9e3779b97f4a7c15)))
}

// mix derives a seed from a parent seed and a label (splitmix64 steps).
func mix(seed, label uint64) uint64 {
	z := seed + label*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// label turns a stream's name into a seed label.
func label(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
