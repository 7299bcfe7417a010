package interp

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The TensorScatter kernel: a copy of the cache with each batch row's
// update rows written at that row's index along the sequence axis.

func init() {
	optable.Add(&kernels, map[string]kernelEntry{
		"TensorScatter": movesF64(withOp(runTensorScatter)),
	})
}

func runTensorScatter(x *exec, op *canon.TensorScatter) error {
	past, upd, idx := x.in(0), x.in(1), x.in(2)
	r := len(past.shape)
	a, err := normAxis(op.Axis, r)
	if err != nil {
		return err
	}
	if a == 0 || len(upd.shape) != r {
		return fmt.Errorf("update %v and cache %v: the update must have the cache's rank, and axis %d must not be the batch axis", upd.shape, past.shape, op.Axis)
	}
	for i := range r {
		if i == a && upd.shape[i] > past.shape[i] || i != a && upd.shape[i] != past.shape[i] {
			return fmt.Errorf("update %v does not fit cache %v: they must match except along axis %d, where the update may be shorter", upd.shape, past.shape, a)
		}
	}
	batch := past.shape[0]
	if idx != nil && (len(idx.shape) != 1 || idx.shape[0] != batch) {
		return fmt.Errorf("write_indices has shape %v, want (%d): one per batch row", idx.shape, batch)
	}
	out := x.copyOf(past)
	maxSeq, seq := past.shape[a], upd.shape[a]
	inner := numel(past.shape[a+1:])
	perBatch := numel(past.shape[1:a]) // the axes between batch and sequence
	for b := range batch {
		start := int64(0)
		if idx != nil {
			start = idx.i[b]
		}
		for p := range perBatch {
			for s := range seq {
				pos := start + int64(s)
				if op.Circular && maxSeq > 0 {
					pos = (pos%int64(maxSeq) + int64(maxSeq)) % int64(maxSeq)
				}
				if pos < 0 || pos >= int64(maxSeq) {
					return fmt.Errorf("batch row %d writes sequence index %d, outside the cache's %d (linear mode)", b, pos, maxSeq)
				}
				src := ((b*perBatch+p)*seq + s) * inner
				dst := ((b*perBatch+p)*maxSeq + int(pos)) * inner
				switch {
				case out.isFloat():
					copy(out.f[dst:dst+inner], upd.f[src:src+inner])
				case out.isF64():
					copy(out.d[dst:dst+inner], upd.d[src:src+inner])
				default:
					copy(out.i[dst:dst+inner], upd.i[src:src+inner])
				}
			}
		}
	}
	x.set(0, out)
	return nil
}
