package mxnetexport

import (
	"io"

	"github.com/modelbridge/modelbridge/canon"
)

// progressChunk is how many params-file bytes are written between two
// progress reports.
const progressChunk = 4 << 20

// tensorBytes is the size of g's weights, the total progress reports use.
func tensorBytes(g *canon.Graph) int64 {
	var n int64
	for _, t := range g.Initializers {
		n += int64(len(t.Data))
	}
	return n
}

// writeWithProgress writes data in chunks and, when progress is set, reports
// after each the share of total (the tensor bytes: the params file adds
// only small headers around them) written so far, ending at total.
func writeWithProgress(w io.Writer, data []byte, total int64, progress func(done, total int64)) error {
	if progress == nil {
		_, err := w.Write(data)
		return err
	}
	for off := 0; off < len(data); {
		end := min(off+progressChunk, len(data))
		if _, err := w.Write(data[off:end]); err != nil {
			return err
		}
		off = end
		done := total
		if off < len(data) {
			// Scale file bytes to tensor bytes; float64 avoids overflow.
			done = int64(float64(total) * float64(off) / float64(len(data)))
		}
		progress(done, total)
	}
	return nil
}
