package pt2

import (
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
)

// recurrentTargets are the aten recurrent operators whose hidden-state
// results PyTorch 2.6's meta kernels record with an extra axis of size 1
// at position 1 ((layers·directions, 1, batch, hidden) for the
// (layers·directions, batch, hidden) that eager mode returns).
var recurrentTargets = []string{"torch.ops.aten.lstm.", "torch.ops.aten.gru.", "torch.ops.aten.rnn_tanh.", "torch.ops.aten.rnn_relu."}

// isRecurrentStateMeta reports whether recorded is inferred with one axis
// of size 1 inserted at position 1, for a result of a recurrent operator:
// the known mistake of the recorded metadata, not of the import, so the
// inferred (eager) shape is kept.
func isRecurrentStateMeta(target string, inferred, recorded []canon.Dim) bool {
	recurrent := false
	for _, p := range recurrentTargets {
		recurrent = recurrent || strings.HasPrefix(target, p)
	}
	if !recurrent || len(inferred) != 3 || len(recorded) != 4 {
		return false
	}
	if !recorded[1].Known() || recorded[1].Size != 1 {
		return false
	}
	for i, d := range []canon.Dim{recorded[0], recorded[2], recorded[3]} {
		if d.Known() && inferred[i].Known() && d.Size != inferred[i].Size {
			return false
		}
	}
	return true
}

// dimsText prints a shape: sizes, or the names of symbolic sizes.
func dimsText(dims []canon.Dim) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		switch {
		case d.Known():
			parts[i] = strconv.FormatInt(d.Size, 10)
		case d.Param != "":
			parts[i] = d.Param
		default:
			parts[i] = "?"
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}
