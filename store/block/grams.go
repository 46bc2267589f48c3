package block

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/klauspost/compress/s2"

	"forensics/store/search"
)

// The index of blocks of lines tells which blocks may hold a string, so
// that a search reads only those. Each block has a sketch: every 4 bytes
// of its lines' text (from every place of each line, with ASCII letters
// in either case) hashed to one of GramSlots slots, one bit a slot: a
// Bloom filter of its 4-grams with one hash. A string of 4 bytes or more
// can be in a block only if the slots of all its 4-grams are set.
//
// The sketches of up to SegmentBlocks blocks written together make a
// segment, kept slot by slot (bit-sliced, as BitFunnel keeps its
// signatures): the word of a slot has bit i set when block i of the
// segment has it, so a search reads, of each segment, only the words of
// its strings' slots, a part of GramsPart slots at a time.
//
// Chosen by measuring on the bench bundles (README, Performance): per-block
// trigram sets, as code search engines index, hold nearly every trigram of
// a hexadecimal id in a block of UUIDs and rule out little; the 4-grams of
// every place in 2^17 slots keep 1 to 4 blocks of about 1055 (of a MiB of
// output each) for an 8-digit id, for 12.5 MB per GiB of logs.

// Parameters of the sketches. A segment records the version it was built
// with (GramsVersion), so that a later change reads the segments it wrote
// and indexes again those it did not. Version 1 held the 4-grams at every
// other place of a line only: an 8-digit id has two or three of those, and
// a MiB block's sketch has 15% of its slots set, so 2 to 3% of blocks kept
// every id. Its segments are still read, by their own stride (strides).
const (
	GramsVersion  = 2
	gramBits      = 17
	GramSlots     = 1 << gramBits
	SegmentBlocks = 64
	GramsPart     = 256
	gramParts     = GramSlots / GramsPart
	gramLen       = 4
	gramMul       = 0x9E3779B1 // Fibonacci hashing: the high bits of g × 2^32/φ
	gramFold      = 0x20202020 // ASCII letters to lower case (and a few signs to others, alike in queries)
)

// Sketch is the set of slots of a block's 4-grams, GramSlots bits.
type Sketch []uint64

func newSketch() Sketch { return make(Sketch, GramSlots/64) }

func slot(g uint32) uint32 { return (g | gramFold) * gramMul >> (32 - gramBits) }

// strides are the places of a line each version's sketches hold the
// 4-grams of: every place, or every other place (version 1).
var strides = map[int]int{1: 2, GramsVersion: 1}

// sketcher gathers the slots of the lines of the block being built. It
// runs on every byte ingest reads, so it does as little as it can a byte:
// a byte a slot (one store a 4-gram, where a bit took a load, an or and a
// store), four 4-grams from each load of 8 bytes.
type sketcher struct {
	seen [GramSlots]byte
}

// add sets the slots of the 4-grams of a line's text.
func (s *sketcher) add(t []byte) {
	const f = gramFold<<32 | gramFold
	for len(t) >= 12 {
		x := binary.LittleEndian.Uint64(t) | f
		y := binary.LittleEndian.Uint64(t[4:]) | f
		s.seen[uint32(x)*gramMul>>(32-gramBits)] = 1
		s.seen[uint32(x>>8)*gramMul>>(32-gramBits)] = 1
		s.seen[uint32(x>>16)*gramMul>>(32-gramBits)] = 1
		s.seen[uint32(x>>24)*gramMul>>(32-gramBits)] = 1
		s.seen[uint32(y)*gramMul>>(32-gramBits)] = 1
		s.seen[uint32(y>>8)*gramMul>>(32-gramBits)] = 1
		s.seen[uint32(y>>16)*gramMul>>(32-gramBits)] = 1
		s.seen[uint32(y>>24)*gramMul>>(32-gramBits)] = 1
		t = t[8:]
	}
	for len(t) >= gramLen {
		s.seen[slot(binary.LittleEndian.Uint32(t))] = 1
		t = t[1:]
	}
}

// sketch writes the slots gathered into sk, and starts the next block.
func (s *sketcher) sketch(sk Sketch) {
	for w := range sk {
		var b uint64
		for k := range 8 {
			// Eight bytes of 0 or 1 to eight bits, in order.
			x := binary.LittleEndian.Uint64(s.seen[w*64+k*8:])
			b |= (x * 0x0102040810204080 >> 56) << (k * 8)
		}
		sk[w] = b
	}
	clear(s.seen[:])
}

// Segment is the sketches of up to SegmentBlocks blocks, slot by slot.
type Segment struct {
	words []uint64 // by slot: bit i is block i of the segment
	n     int
}

// NewSegment returns an empty segment.
func NewSegment() *Segment { return &Segment{words: make([]uint64, GramSlots)} }

// Add adds a block's sketch and returns its place in the segment.
func (s *Segment) Add(sk Sketch) int {
	i := s.n
	for w, x := range sk {
		for x != 0 {
			b := bits.TrailingZeros64(x)
			x &= x - 1
			s.words[w*64+b] |= 1 << i
		}
	}
	s.n++
	return i
}

// Len returns the number of blocks in the segment.
func (s *Segment) Len() int { return s.n }

// Full reports whether the segment has SegmentBlocks blocks.
func (s *Segment) Full() bool { return s.n == SegmentBlocks }

// Parts calls fn with each part of the segment, encoded for storage.
func (s *Segment) Parts(fn func(part int, data []byte) error) error {
	raw := make([]byte, GramsPart*8)
	var enc []byte
	for p := range gramParts {
		for i, w := range s.words[p*GramsPart : (p+1)*GramsPart] {
			binary.LittleEndian.PutUint64(raw[i*8:], w)
		}
		enc = s2.Encode(enc[:cap(enc)], raw)
		if err := fn(p, enc); err != nil {
			return err
		}
	}
	return nil
}

// Reset empties the segment for the next blocks.
func (s *Segment) Reset() {
	clear(s.words)
	s.n = 0
}

// decodePart decodes the words of a stored part into words, through raw
// (GramsPart*8 bytes).
func decodePart(words []uint64, raw, data []byte) error {
	n, err := s2.DecodedLen(data)
	if err != nil || n != GramsPart*8 {
		return fmt.Errorf("%w: a part of the index of %d bytes", ErrCorrupt, n)
	}
	if _, err := s2.Decode(raw, data); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(raw[i*8:])
	}
	return nil
}

// Grams is a search's Query as the index answers it: each string holds in
// a block when the slots of all its 4-grams do.
type Grams struct {
	root  *gramNode
	parts []int // the parts the slots are in, sorted
}

type gramNode struct {
	op    search.Op
	slots []uint32 // And: each is set; Or: one is
	sub   []*gramNode
}

// NewGrams returns the form of q that the sketches of a version answer,
// or nil when they can rule no block out: q holds no string long enough.
func NewGrams(q *search.Query, version int) *Grams {
	stride, ok := strides[version]
	if !ok {
		return nil
	}
	root := gramsOf(q, stride)
	if root.op == search.All {
		return nil
	}
	g := &Grams{root: root}
	seen := map[int]bool{}
	var walk func(n *gramNode)
	walk = func(n *gramNode) {
		for _, s := range n.slots {
			if p := int(s / GramsPart); !seen[p] {
				seen[p] = true
				g.parts = append(g.parts, p)
			}
		}
		for _, sub := range n.sub {
			walk(sub)
		}
	}
	walk(root)
	slices.Sort(g.parts)
	return g
}

func gramsOf(q *search.Query, stride int) *gramNode {
	switch q.Op {
	case search.All, search.None:
		return &gramNode{op: q.Op}
	}
	n := &gramNode{op: q.Op}
	for _, s := range q.Strs {
		g := stringGrams(s, stride)
		switch {
		case g.op == search.All && q.Op == search.Or:
			return g // a short string: any block may hold it
		case g.op == search.All:
		case g.op == search.And && q.Op == search.And:
			n.slots = append(n.slots, g.slots...)
		default:
			n.sub = append(n.sub, g)
		}
	}
	for _, sub := range q.Sub {
		g := gramsOf(sub, stride)
		switch {
		case g.op == search.All && q.Op == search.Or:
			return g
		case g.op == search.All:
		default:
			n.sub = append(n.sub, g)
		}
	}
	if len(n.slots) == 0 && len(n.sub) == 0 {
		if q.Op == search.And {
			return &gramNode{op: search.All}
		}
		return &gramNode{op: search.None}
	}
	return n
}

// stringGrams is what the sketch of a block holding s has, when it holds
// the 4-grams at every stride-th place of a line: s may start at any place,
// so one of the sets of 4-grams s has at every stride-th place from its
// start or after, each set that of one start. A set with no 4-gram says
// nothing.
func stringGrams(s string, stride int) *gramNode {
	alts := &gramNode{op: search.Or}
	for a := range stride {
		alt := &gramNode{op: search.And}
		for i := a; i+gramLen <= len(s); i += stride {
			h := slot(binary.LittleEndian.Uint32([]byte(s[i : i+gramLen])))
			if !slices.Contains(alt.slots, h) {
				alt.slots = append(alt.slots, h)
			}
		}
		if len(alt.slots) == 0 {
			return &gramNode{op: search.All}
		}
		alts.sub = append(alts.sub, alt)
	}
	if len(alts.sub) == 1 {
		return alts.sub[0]
	}
	return alts
}

// Parts returns the parts of a segment the query reads, sorted.
func (g *Grams) Parts() []int { return g.parts }

// Match returns the blocks of a segment of n blocks that may hold a match
// (bit i: block i), given the stored parts Parts names. It decodes a part
// when an answer needs it: a string rules a segment out once one of its
// 4-grams does, and the rest of its parts are not decoded.
func (g *Grams) Match(n int, stored map[int][]byte) (uint64, error) {
	all := uint64(1)<<n - 1
	if n == 64 {
		all = ^uint64(0)
	}
	var raw [GramsPart * 8]byte
	words := map[int][]uint64{}
	var err error
	m := g.eval(all, func(s uint32) uint64 {
		p := int(s / GramsPart)
		w, ok := words[p]
		if !ok {
			data, ok := stored[p]
			if !ok || err != nil {
				return all // a part not stored: any block may hold it
			}
			w = make([]uint64, GramsPart)
			if err = decodePart(w, raw[:], data); err != nil {
				return all
			}
			words[p] = w
		}
		return w[s%GramsPart]
	})
	return m, err
}

// eval returns the blocks of all that may hold a match, given the word of
// each slot.
func (g *Grams) eval(all uint64, word func(uint32) uint64) uint64 {
	var eval func(*gramNode) uint64
	eval = func(x *gramNode) uint64 {
		switch x.op {
		case search.All:
			return all
		case search.None:
			return 0
		case search.And:
			m := all
			for _, s := range x.slots {
				if m &= word(s); m == 0 {
					return 0
				}
			}
			for _, sub := range x.sub {
				if m &= eval(sub); m == 0 {
					return 0
				}
			}
			return m
		}
		var m uint64
		for _, s := range x.slots {
			if m |= word(s); m&all == all {
				return all
			}
		}
		for _, sub := range x.sub {
			if m |= eval(sub); m&all == all {
				return all
			}
		}
		return m & all
	}
	return eval(g.root)
}

// Resketcher sketches the lines of stored blocks: those a timeline holds
// from before it kept the index, which forensics timeline reindex indexes.
type Resketcher struct {
	s  sketcher
	sk Sketch
	r  Reader
}

// Sketch returns the sketch of a stored block's lines, valid until the
// next call.
func (x *Resketcher) Sketch(firstLine int64, data []byte) (Sketch, error) {
	if x.sk == nil {
		x.sk = newSketch()
	}
	err := x.r.Decode(firstLine, data, func(l *Line) error {
		x.s.add(l.Text)
		return nil
	})
	x.r.Close()
	if err != nil {
		clear(x.s.seen[:])
		return nil, err
	}
	x.s.sketch(x.sk)
	return x.sk, nil
}
