package torchimport

import (
	"fmt"
	"math"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/databudget"
)

// viewKey identifies a tensor's exact view of a storage: two state-dict
// names with the same key are tied weights and share one Data slice.
type viewKey struct {
	st     *storage
	offset int64
	shape  string
	stride string
}

// materializer turns tensor records into canonical tensors, reading each
// storage once and keeping tied views tied.
type materializer struct {
	bigEndian bool
	// copies bounds the bytes strided views and big-endian swaps copy,
	// half the data budget, so that a tiny hostile file cannot ask for
	// terabytes of memory.
	copies databudget.Budget
	// data bounds the data of all tensors, ties and views of one storage
	// included (they share bytes here, but every consumer that writes the
	// graph out pays for each).
	data  databudget.Budget
	views map[viewKey]*canon.Tensor
	// Ties lists (name, first name) for tensors sharing another's data.
	Ties [][2]string
}

func newMaterializer(fileSize int64, bigEndian bool) *materializer {
	copies := databudget.Budget{Limit: databudget.PerInputByte/2*fileSize + databudget.SlackBytes}
	return &materializer{bigEndian: bigEndian, copies: copies, data: databudget.ForInput(fileSize), views: map[viewKey]*canon.Tensor{}}
}

func (mz *materializer) tensor(name string, rec *tensorRecord) (*canon.Tensor, error) {
	st := rec.Storage.Base
	if st.Type.DType == canon.Undefined {
		return nil, fmt.Errorf("tensor %q has dtype %s, which modelbridge does not support (complex and quantized tensors cannot be converted; convert it to a real dtype in PyTorch first)", name, st.Type.describe())
	}
	key := viewKey{st: st, offset: rec.Storage.Offset + rec.Offset, shape: fmt.Sprint(rec.Size), stride: fmt.Sprint(rec.Stride)}
	if first, ok := mz.views[key]; ok {
		if err := mz.charge(name, int64(len(first.Data))); err != nil {
			return nil, err
		}
		mz.Ties = append(mz.Ties, [2]string{name, first.Name})
		return &canon.Tensor{Name: name, DType: first.DType, Shape: append([]int64(nil), first.Shape...), Data: first.Data}, nil
	}
	data, err := mz.viewBytes(rec)
	if err != nil {
		return nil, fmt.Errorf("tensor %q (%s%v, stride %v, offset %d): %w", name, st.Type.DType, rec.Size, rec.Stride, rec.Offset, err)
	}
	if err := mz.charge(name, int64(len(data))); err != nil {
		return nil, err
	}
	t := &canon.Tensor{Name: name, DType: st.Type.DType, Shape: append([]int64{}, rec.Size...), Data: data}
	mz.views[key] = t
	return t, nil
}

// charge counts n bytes of tensor data against the file's budget.
func (mz *materializer) charge(name string, n int64) error {
	if !mz.data.Take(n) {
		return fmt.Errorf("tensor %q brings the tensors to %d bytes, more than %d times the file's size: the file views its storages far more often than torch.save writes them (corrupt or hostile); refusing", name, mz.data.Used+n, databudget.PerInputByte)
	}
	return nil
}

// gatherBudget counts n bytes a view copies against the file's budget.
func (mz *materializer) gatherBudget(n int64) error {
	if !mz.copies.Take(n) {
		return fmt.Errorf("strided views expand to %d bytes, far more than the file holds; refusing", mz.copies.Used+n)
	}
	return nil
}

// viewBytes returns the view's elements densely packed, little-endian: a
// slice of the storage when the view is contiguous, else a gather.
func (mz *materializer) viewBytes(rec *tensorRecord) ([]byte, error) {
	sv := rec.Storage
	es := int64(sv.Base.Type.Size)
	numel := canon.NumElements(rec.Size)
	if numel < 0 || numel > math.MaxInt64/es {
		return nil, fmt.Errorf("shape overflows")
	}
	if numel == 0 {
		return []byte{}, nil
	}
	// Highest element index the view touches, relative to the storage view.
	last := rec.Offset
	for i, d := range rec.Size {
		s := rec.Stride[i]
		if s != 0 && d-1 > (math.MaxInt64-last)/s {
			return nil, fmt.Errorf("strides overflow")
		}
		last += (d - 1) * s
	}
	if last >= sv.Numel {
		return nil, fmt.Errorf("view reaches element %d of a storage of %d elements (file corrupt)", last, sv.Numel)
	}
	raw, err := sv.Base.bytes()
	if err != nil {
		return nil, err
	}
	start := sv.Offset + rec.Offset
	if isContiguous(rec.Size, rec.Stride) {
		out := raw[start*es : (start+numel)*es : (start+numel)*es]
		if mz.bigEndian && es > 1 {
			// out is the file's (or a shared storage's) bytes: swap a copy.
			if err := mz.gatherBudget(numel * es); err != nil {
				return nil, err
			}
			out = swapBytes(out, int(es))
		}
		return out, nil
	}
	if err := mz.gatherBudget(numel * es); err != nil {
		return nil, err
	}
	out := gather(raw[start*es:], int(es), rec.Size, rec.Stride)
	if mz.bigEndian && es > 1 {
		// The gathered buffer is this view's own: swap it in place.
		swapInPlace(out, int(es))
	}
	return out, nil
}

func isContiguous(size, stride []int64) bool {
	want := int64(1)
	for i := len(size) - 1; i >= 0; i-- {
		if size[i] != 1 && stride[i] != want {
			return false
		}
		want *= size[i]
	}
	return true
}

// gather copies a strided view into a new row-major buffer; innermost runs
// with stride 1 are copied in one go.
func gather(src []byte, es int, size, stride []int64) []byte {
	rank := len(size)
	numel := canon.NumElements(size)
	out := make([]byte, 0, numel*int64(es))
	inner := int64(1)
	if rank > 0 && stride[rank-1] == 1 {
		inner = size[rank-1]
		rank--
	}
	idx := make([]int64, rank)
	for {
		off := int64(0)
		for i := 0; i < rank; i++ {
			off += idx[i] * stride[i]
		}
		if inner > 1 || (len(size) > rank) {
			out = append(out, src[off*int64(es):(off+inner)*int64(es)]...)
		} else {
			out = append(out, src[off*int64(es):(off+1)*int64(es)]...)
		}
		i := rank - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < size[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return out
		}
	}
}

// swapInPlace reverses the bytes of each es-byte element of b.
func swapInPlace(b []byte, es int) {
	for i := 0; i+es <= len(b); i += es {
		slices.Reverse(b[i : i+es])
	}
}

// swapBytes returns a copy of b with each es-byte element reversed.
func swapBytes(b []byte, es int) []byte {
	out := make([]byte, len(b))
	for i := 0; i+es <= len(b); i += es {
		for j := 0; j < es; j++ {
			out[i+j] = b[i+es-1-j]
		}
	}
	return out
}
