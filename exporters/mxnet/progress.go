package mxnetexport

import (
	"io"

	"github.com/modelbridge/modelbridge/canon"
)

// progressChunk is how many params-file bytes are written between two
// progress reports.
const progressChunk = 4 << 20

// tensorBytes is the size of the params file's tensors, the total progress
// reports use.
func tensorBytes(ts []*canon.Tensor) int64 {
	var n int64
	for _, t := range ts {
		n += int64(len(t.Data))
	}
	return n
}

// progressWriter passes writes through in chunks of at most progressChunk
// and reports, every progressChunk bytes, the bytes written so far capped
// at total (the tensor bytes: the params file adds only small headers and
// names around them). The caller reports total itself at the end.
type progressWriter struct {
	w        io.Writer
	done     int64
	reported int64
	total    int64
	report   func(done, total int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		n, err := p.w.Write(b[:min(len(b), progressChunk)])
		written += n
		p.done += int64(n)
		if err != nil {
			return written, err
		}
		b = b[n:]
		if p.done-p.reported >= progressChunk {
			p.reported = p.done
			p.report(min(p.done, p.total), p.total)
		}
	}
	return written, nil
}
