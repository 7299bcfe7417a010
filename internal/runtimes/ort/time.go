package ort

import (
	"encoding/json"
	"fmt"
	"strings"
)

// TimeOptions are the settings of a timing.
type TimeOptions struct {
	// Level is the graph optimization level ("all" when empty).
	Level string
	// Threads is the number of intra-op threads (1 when 0: the steadiest
	// on a shared machine); inter-op threads are always 1.
	Threads int
	// Runs is the number of timed samples per model (15 when 0).
	Runs int
}

// Time times ONNX files in one process, interleaved and on the same random
// inputs (made from the first model's declared inputs, dynamic dims 1), and
// returns each file's samples in seconds. A sample is the mean of enough
// repetitions to last about 5 ms.
func (r *Runtime) Time(models []string, o TimeOptions) ([][]float64, error) {
	if o.Threads <= 0 {
		o.Threads = 1
	}
	if o.Runs <= 0 {
		o.Runs = 15
	}
	job := map[string]any{"mode": "time", "models": models, "level": o.Level, "threads": o.Threads, "runs": o.Runs}
	out, stderr, err := r.runJob(job)
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime could not time %s: %v: %s", strings.Join(models, ", "), err, lastLines(strings.TrimSpace(stderr)))
	}
	var res struct {
		Times [][]float64 `json:"times"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Times) != len(models) {
		return nil, fmt.Errorf("ONNX Runtime's timer printed %q", out)
	}
	for _, ts := range res.Times {
		for i := range ts {
			ts[i] /= 1e3 // ms to s
		}
	}
	return res.Times, nil
}
