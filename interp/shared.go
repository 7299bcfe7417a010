package interp

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/modelbridge/modelbridge/canon"
)

// Shared lets Programs of related graphs (a model and its optimized copy,
// which shares the weights the optimizer did not change) share the work
// done on their weights: constants decoded into a new buffer (converted
// data, or misaligned data where the CPU cannot read it in place) and
// weights packed for the GEMM, either operand. (Winograd-transformed
// weights are not shared: a Program makes them on its second Run, and
// verification runs each side once.) Entries are keyed by the canon
// tensor data they come from, so only identical weights are shared.
// A Shared is safe for use by several Programs.
type Shared struct {
	mu     sync.Mutex
	consts map[constKey]*tensor
	packs  map[packKey][]*packedA
	packsB map[packBKey]*packedB
	// spare holds the idle buffers of a Program that is done (see Done),
	// for the next Program to reuse.
	spare *pool
}

// NewShared returns an empty Shared.
func NewShared() *Shared {
	return &Shared{consts: map[constKey]*tensor{}, packs: map[packKey][]*packedA{}, packsB: map[packBKey]*packedB{}}
}

type constKey struct {
	data  *byte
	size  int
	dt    canon.DType
	shape string
}

type packKey struct {
	w             *float32
	size          int
	groups, m, kc int
}

func keyOf(ct *canon.Tensor) (constKey, bool) {
	if len(ct.Data) == 0 {
		return constKey{}, false
	}
	return constKey{&ct.Data[0], len(ct.Data), ct.DType, fmt.Sprint(ct.Shape)}, true
}

// constant decodes a graph constant, through p's Shared when it has one.
func (p *Program) constant(ct *canon.Tensor) (*tensor, error) {
	sh := p.shared
	key, ok := keyOf(ct)
	if sh == nil || !ok {
		return fromCanon(ct, true)
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if t, ok := sh.consts[key]; ok {
		return t, nil
	}
	t, err := fromCanon(ct, true)
	if err != nil {
		return nil, err
	}
	sh.consts[key] = t
	return t, nil
}

// sharedPacks returns the packing of w made by another Program.
func (p *Program) sharedPacks(w []float32, groups, m, kc int) []*packedA {
	if p.shared == nil || len(w) == 0 {
		return nil
	}
	p.shared.mu.Lock()
	defer p.shared.mu.Unlock()
	return p.shared.packs[packKey{&w[0], len(w), groups, m, kc}]
}

func (p *Program) storePacks(w []float32, groups, m, kc int, packed []*packedA) {
	if p.shared == nil || len(w) == 0 {
		return
	}
	p.shared.mu.Lock()
	defer p.shared.mu.Unlock()
	p.shared.packs[packKey{&w[0], len(w), groups, m, kc}] = packed
}

// packBKey names a packed right operand by the matrix it was made from.
type packBKey struct {
	b    *float32
	size int
	tb   bool
	k, n int
}

// packedBOf returns the packing of the matrix key names made by this
// Program or by another sharing its Shared, or nil.
func (p *Program) packedBOf(key packBKey) *packedB {
	if pb := p.packsB[key]; pb != nil {
		return pb
	}
	if p.shared == nil {
		return nil
	}
	p.shared.mu.Lock()
	defer p.shared.mu.Unlock()
	return p.shared.packsB[key]
}

// keepPackedB records pb, the packing of the matrix key names, for the
// Program's other steps and the Programs sharing its Shared.
func (p *Program) keepPackedB(key packBKey, pb *packedB) {
	if p.packsB == nil {
		p.packsB = map[packBKey]*packedB{}
	}
	p.packsB[key] = pb
	if p.shared == nil {
		return
	}
	p.shared.mu.Lock()
	defer p.shared.mu.Unlock()
	p.shared.packsB[key] = pb
}

// Done hands p's idle buffers to the next Program made with p's Shared, so
// its first Run does not allocate (and the OS does not fault in) its own;
// those it does not use are dropped after that Run. p keeps working, with
// buffers of its own again. Without a Shared, Done does
// nothing.
func (p *Program) Done() {
	if p.shared == nil {
		return
	}
	p.shared.mu.Lock()
	defer p.shared.mu.Unlock()
	p.shared.spare = p.pool
	p.pool = newPool()
}

// newPool returns a pool for a new Program: the spare buffers of one that
// is done, when there are some.
func (s *Shared) newPool() *pool {
	if s == nil {
		return newPool()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.spare
	s.spare = nil
	if sp == nil {
		return newPool()
	}
	return sp.handOver()
}

// Retain drops what no constant of g can use, so memory held for a graph
// that is done with is freed before the next Program is built.
func (s *Shared) Retain(g *canon.Graph) {
	keep := map[constKey]bool{}
	mark := func(ct *canon.Tensor) {
		if ct == nil {
			return
		}
		if k, ok := keyOf(ct); ok {
			keep[k] = true
		}
	}
	for _, t := range g.Initializers {
		mark(t)
	}
	for _, n := range g.Nodes {
		if c, ok := n.Op.(*canon.Constant); ok {
			mark(c.Value)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	floats := map[*float32]bool{}
	for k, t := range s.consts {
		if !keep[k] {
			delete(s.consts, k)
		} else if len(t.f) > 0 {
			floats[unsafe.SliceData(t.f)] = true
		}
	}
	for k := range s.packs {
		if !floats[k.w] {
			delete(s.packs, k)
		}
	}
	// A packing of part of a constant (a recurrent op's second direction)
	// goes too: made again if needed.
	for k := range s.packsB {
		if !floats[k.b] {
			delete(s.packsB, k)
		}
	}
}
