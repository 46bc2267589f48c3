package search

import (
	"encoding/binary"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode/utf8"
)

// A DFA tells whether a regular expression matches a line, a byte at a
// time through states it builds as lines need them (a lazy DFA, as RE2
// and ripgrep run). Go's regexp simulates the NFA, or backtracks, for
// each line: a regexp with no string the index could use, read over every
// line of a timeline, ran at a few MB/s; the DFA takes one table look-up
// a byte.
//
// It runs the lines that hold no newline, where a regexp's ^ and $ are
// the line's start and end, and answers whether the regexp matches exactly
// as regexp.Match does: ASCII bytes by a table, other runes by a map. A
// line with a newline, or a DFA that has built maxStates states, answers
// "not known", and the caller
// asks Go's regexp; a regexp with \b or \B, or of more than maxInsts
// instructions, has no DFA.
type DFA struct {
	prog  *syntax.Prog
	bytes [][2]uint64 // by instruction: the ASCII bytes a rune instruction takes
	pool  sync.Pool   // of *Runner: the states built, one goroutine's at a time
}

// NewDFA returns the DFA of re, or nil when re holds what the DFA does
// not run (word boundaries).
func NewDFA(re *regexp.Regexp) *DFA {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil || len(prog.Inst) > maxInsts {
		return nil
	}
	d := &DFA{prog: prog, bytes: make([][2]uint64, len(prog.Inst))}
	for pc := range prog.Inst {
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^(syntax.EmptyBeginLine|syntax.EmptyEndLine|syntax.EmptyBeginText|syntax.EmptyEndText) != 0 {
				return nil
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			for b := range 128 {
				if runeInst(in, rune(b)) {
					d.bytes[pc][b/64] |= 1 << (b % 64)
				}
			}
		}
	}
	return d
}

func runeInst(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return in.MatchRune(r)
}

// Runner returns a runner of the DFA, for one goroutine; Release gives it
// back, with the states it built, for the next.
func (d *DFA) Runner() *Runner {
	if r, ok := d.pool.Get().(*Runner); ok {
		return r
	}
	r := &Runner{d: d, index: map[string]int32{}, runes: map[uint64]int32{}, seen: make([]uint32, len(d.prog.Inst))}
	r.reset()
	return r
}

// Release gives the runner back to its DFA.
func (r *Runner) Release() { r.d.pool.Put(r) }

// maxInsts bounds the program of a regexp the DFA runs: each state is a
// set of its instructions, built by following them.
const maxInsts = 2000

// maxStates bounds the states a runner builds (each takes 512 bytes of
// transitions); past it, it starts over.
const maxStates = 4096

// A transition to a state is its number, or one of these.
const (
	unknown = -1 // not built yet
	matched = -2 // into a state where the regexp has matched: the line matches
	giveUp  = -3 // a newline: the DFA does not run this line
)

// Runner runs a DFA, building its states as the lines need them.
type Runner struct {
	d      *DFA
	trans  []int32          // state<<7 | byte: the next state << 7, or unknown, matched or giveUp
	pcs    [][]uint32       // by state: the rune instructions its threads wait at
	atEnd  []bool           // by state: the regexp matches if the line ends there
	runes  map[uint64]int32 // state<<32 | rune beyond ASCII: the next state
	index  map[string]int32
	start  int32 // the state before a line's first byte
	begins bool  // the regexp matches at a line's start
	epoch  int   // how many times it started over: its states' numbers changed
	empty  bool  // the regexp matches an empty line

	seen  []uint32 // by instruction: the generation of the closure that reached it
	gen   uint32
	stack []uint32
	key   []byte
}

func (r *Runner) reset() {
	r.epoch++
	r.trans, r.pcs, r.atEnd = r.trans[:0], r.pcs[:0], r.atEnd[:0]
	clear(r.index)
	clear(r.runes)
	begin := syntax.EmptyBeginLine | syntax.EmptyBeginText
	end := syntax.EmptyEndLine | syntax.EmptyEndText
	pcs, m := r.closure(nil, begin)
	_, r.empty = r.closure(nil, begin|end)
	r.begins = m
	// The start state is keyed apart: its threads came through the
	// line-start assertions, which no later place of the line satisfies.
	r.start = r.add(pcs, false, 'B')
}

// Match reports whether the regexp matches text, and whether it knows:
// not for a line with a newline, nor when the runner starts over.
func (r *Runner) Match(text []byte) (match, known bool) {
	if len(text) == 0 {
		return r.empty, true
	}
	if r.begins {
		return true, true
	}
	return r.from(int(r.start)<<7, text)
}

// Match2 is Match of two lines at once. A byte's look-up waits on the one
// before it, and the processor has time for another meanwhile: two lines
// side by side take little more time than one.
func (r *Runner) Match2(a, b []byte) (matchA, knownA, matchB, knownB bool) {
	if len(a) == 0 || len(b) == 0 || r.begins {
		matchA, knownA = r.Match(a)
		matchB, knownB = r.Match(b)
		return
	}
	atA, atB := int(r.start)<<7, int(r.start)<<7
	trans := r.trans
	n := min(len(a), len(b))
	i := 0
	for ; i < n; i++ {
		ca, cb := a[i], b[i]
		if ca|cb >= utf8.RuneSelf {
			break
		}
		na, nb := trans[atA|int(ca)], trans[atB|int(cb)]
		if na|nb < 0 {
			break
		}
		atA, atB = int(na), int(nb)
	}
	// Each goes on from where it stands, on the slower road where one
	// stopped; b from its start if a's made the runner start over.
	epoch := r.epoch
	matchA, knownA = r.from(atA, a[i:])
	if r.epoch != epoch {
		matchB, knownB = r.Match(b)
		return
	}
	matchB, knownB = r.from(atB, b[i:])
	return
}

// from runs text from the state whose row of trans starts at at (its
// number << 7): a look-up a byte, each waiting on the one before, with no
// shift between.
func (r *Runner) from(at int, text []byte) (match, known bool) {
	trans := r.trans
	for i := 0; i < len(text); i++ {
		b := text[i]
		if b >= utf8.RuneSelf {
			// A rune beyond ASCII (or a byte of no rune: Go's regexp
			// reads it as utf8.RuneError), by the slower road.
			c, size := utf8.DecodeRune(text[i:])
			i += size - 1
			n := r.stepRune(int32(at>>7), c)
			if n < 0 {
				return n == matched, n == matched
			}
			at, trans = int(n)<<7, r.trans
			continue
		}
		n := trans[at|int(b)]
		if n < 0 {
			switch n {
			case matched:
				return true, true
			case giveUp:
				return false, false
			}
			if n = r.step(int32(at>>7), b); n < 0 {
				return n == matched, n == matched
			}
			n <<= 7
			trans = r.trans // grown
		}
		at = int(n)
	}
	return r.atEnd[at>>7], true
}

// step builds the transition of state s on byte b.
func (r *Runner) step(s int32, b byte) int32 {
	n := r.next(s, func(pc uint32) bool { return r.d.bytes[pc][b/64]&(1<<(b%64)) != 0 })
	switch {
	case n >= 0:
		r.trans[int(s)<<7|int(b)] = n << 7
	case n == matched:
		r.trans[int(s)<<7|int(b)] = n
	}
	return n
}

// stepRune returns the transition of state s on a rune beyond ASCII,
// built if new.
func (r *Runner) stepRune(s int32, c rune) int32 {
	key := uint64(s)<<32 | uint64(uint32(c))
	if n, ok := r.runes[key]; ok {
		return n
	}
	n := r.next(s, func(pc uint32) bool { return runeInst(&r.d.prog.Inst[pc], c) })
	if n != giveUp {
		r.runes[key] = n
	}
	return n
}

// next builds the state after s on a character that the rune
// instructions for which takes says take it.
func (r *Runner) next(s int32, takes func(pc uint32) bool) int32 {
	if len(r.pcs) >= maxStates {
		// Start over; the line is left to the regexp.
		r.reset()
		return giveUp
	}
	var next []uint32
	for _, pc := range r.pcs[s] {
		if takes(pc) {
			next = append(next, r.d.prog.Inst[pc].Out)
		}
	}
	pcs, m := r.closure(next, 0)
	if m {
		return matched
	}
	_, end := r.closure(next, syntax.EmptyEndLine|syntax.EmptyEndText)
	return r.add(pcs, end, 0)
}

// add returns the state of threads waiting at pcs, built if new.
func (r *Runner) add(pcs []uint32, atEnd bool, tag byte) int32 {
	slices.Sort(pcs)
	r.key = append(r.key[:0], tag)
	if atEnd {
		r.key = append(r.key, 1)
	} else {
		r.key = append(r.key, 0)
	}
	for _, pc := range pcs {
		r.key = binary.LittleEndian.AppendUint32(r.key, pc)
	}
	if s, ok := r.index[string(r.key)]; ok {
		return s
	}
	s := int32(len(r.pcs))
	r.index[string(r.key)] = s
	r.pcs = append(r.pcs, pcs)
	r.atEnd = append(r.atEnd, atEnd)
	for range 128 {
		r.trans = append(r.trans, unknown)
	}
	r.trans[int(s)<<7|'\n'] = giveUp
	return s
}

// closure follows the empty transitions from the threads at pcs and at the
// regexp's start (the regexp may begin a match anywhere), where the
// assertions of flags hold. It returns the rune instructions they reach,
// and whether one reaches a match.
func (r *Runner) closure(pcs []uint32, flags syntax.EmptyOp) ([]uint32, bool) {
	r.gen++
	if r.gen == 0 {
		clear(r.seen)
		r.gen = 1
	}
	prog := r.d.prog
	stack := append(r.stack[:0], pcs...)
	stack = append(stack, uint32(prog.Start))
	var out []uint32
	m := false
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if r.seen[pc] == r.gen {
			continue
		}
		r.seen[pc] = r.gen
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			m = true
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Out, in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^flags == 0 {
				stack = append(stack, in.Out)
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			out = append(out, pc)
		}
	}
	r.stack = stack
	return out, m
}
