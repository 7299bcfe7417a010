package canon

import "fmt"

// PermuteTensor returns a copy of t transposed from its layout into layout
// to, for example a Conv weight from OIHW into HWIO. The axis order comes
// from the letters alone (Permutation), so no layout is special-cased. The
// result has layout to; t is not modified (its data may be a read-only
// mapping).
func PermuteTensor(t *Tensor, to Layout) (*Tensor, error) {
	if t.Layout == "" {
		return nil, fmt.Errorf("tensor %q has no layout; only weights with axis letters can be permuted", t.Name)
	}
	if len(t.Layout) != len(t.Shape) {
		return nil, fmt.Errorf("tensor %q: layout %s names %d axes but the shape %v has %d", t.Name, t.Layout, len(t.Layout), t.Shape, len(t.Shape))
	}
	perm, err := Permutation(t.Layout, to)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	if err := t.CheckData(); err != nil {
		return nil, err
	}
	rank := len(t.Shape)
	shape := make([]int64, rank)
	for i, p := range perm {
		shape[i] = t.Shape[p]
	}
	out := &Tensor{Name: t.Name, DType: t.DType, Shape: shape, Layout: to, Data: make([]byte, len(t.Data))}
	if len(t.Data) == 0 {
		return out, nil
	}
	// inStride[a] is the byte step of input axis a; walking the output in
	// row-major order, output axis i advances input axis perm[i].
	size := int64(len(t.Data)) / t.NumElements()
	inStride := make([]int64, rank)
	s := size
	for a := rank - 1; a >= 0; a-- {
		inStride[a] = s
		s *= t.Shape[a]
	}
	step := make([]int64, rank)
	for i, p := range perm {
		step[i] = inStride[p]
	}
	idx := make([]int64, rank)
	var src int64
	for dst := int64(0); dst < int64(len(out.Data)); dst += size {
		copy(out.Data[dst:dst+size], t.Data[src:src+size])
		// Advance the output index like an odometer, moving src along.
		for i := rank - 1; i >= 0; i-- {
			idx[i]++
			src += step[i]
			if idx[i] < shape[i] {
				break
			}
			src -= step[i] * shape[i]
			idx[i] = 0
		}
	}
	return out, nil
}
