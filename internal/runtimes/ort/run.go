package ort

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/interrupt"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
)

// Case is one model run of a batch.
type Case struct {
	// Model is the ONNX file, opened by path so that its external data is
	// found beside it.
	Model string
	// Inputs are TensorProto files, one per session input in order
	// (the graph's inputs that have no initializer).
	Inputs []string
	// InputDir, when Inputs is empty, holds input_N.pb for each session
	// input N (a conformance test's test_data_set_0, say); extra files are
	// not read.
	InputDir string
	// Out receives output_N.pb (TensorProto, named) for each output N in
	// the session's order.
	Out string
	Options
}

// Outcome is what became of one case.
type Outcome struct {
	// Err is ONNX Runtime's refusal or failure, nil when the case ran.
	Err error
	// InputNames and OutputNames are the session's, in order.
	InputNames, OutputNames []string
}

// Run runs the model on one sample (tensors in session input order) and
// returns its outputs in session output order, each named as ONNX Runtime
// names it.
func (r *Runtime) Run(model string, inputs []*canon.Tensor, o Options) ([]*canon.Tensor, error) {
	outs, err := r.RunSamples(model, [][]*canon.Tensor{inputs}, o)
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

// RunSamples runs the model on each sample in one session.
func (r *Runtime) RunSamples(model string, samples [][]*canon.Tensor, o Options) ([][]*canon.Tensor, error) {
	dir, remove, err := interrupt.TempDir("modelbridge-ort-run-")
	if err != nil {
		return nil, err
	}
	defer remove()
	cases := make([]Case, len(samples))
	for s, sample := range samples {
		c := Case{Model: model, Out: filepath.Join(dir, fmt.Sprintf("out_%d", s)), Options: o}
		for i, t := range sample {
			p := filepath.Join(dir, fmt.Sprintf("in_%d_%d.pb", s, i))
			if err := onnxtensor.WriteFile(t, p); err != nil {
				return nil, fmt.Errorf("input %q: %w", t.Name, err)
			}
			c.Inputs = append(c.Inputs, p)
		}
		cases[s] = c
	}
	outcomes, err := r.batch(cases)
	if err != nil {
		return nil, err
	}
	all := make([][]*canon.Tensor, len(cases))
	for s, oc := range outcomes {
		if oc.Err != nil {
			return nil, oc.Err
		}
		if all[s], err = ReadOutputs(cases[s].Out, len(oc.OutputNames)); err != nil {
			return nil, err
		}
	}
	return all, nil
}

// RunDir runs the model on inDir/input_N.pb (one per session input; a
// conformance test's test_data_set_0, say) and writes outDir/output_N.pb.
func (r *Runtime) RunDir(model, inDir, outDir string, o Options) error {
	outcomes, err := r.batch([]Case{{Model: model, InputDir: inDir, Out: outDir, Options: o}})
	if err != nil {
		return err
	}
	return outcomes[0].Err
}

// ReadOutputs reads dir/output_0.pb ... output_{n-1}.pb.
func ReadOutputs(dir string, n int) ([]*canon.Tensor, error) {
	outs := make([]*canon.Tensor, n)
	for i := range outs {
		t, err := onnxtensor.ReadFile(filepath.Join(dir, fmt.Sprintf("output_%d.pb", i)))
		if err != nil {
			return nil, fmt.Errorf("ONNX Runtime output %d: %w", i, err)
		}
		outs[i] = t
	}
	return outs, nil
}

// RunBatch runs many cases in workers node processes (all CPUs when
// workers <= 0), so that hundreds of small models do not each pay node's
// start-up. A case ONNX Runtime refuses, or that kills the process, gets
// its error in Outcome.Err and the others still run; the returned error is
// for a batch that could not run at all.
func (r *Runtime) RunBatch(cases []Case, workers int) ([]Outcome, error) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if workers > len(cases) {
		workers = len(cases)
	}
	if workers <= 1 {
		return r.batch(cases)
	}
	outcomes := make([]Outcome, len(cases))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		var part []Case
		var index []int
		for i := w; i < len(cases); i += workers {
			part = append(part, cases[i])
			index = append(index, i)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := r.batch(part)
			if err != nil {
				errs[w] = err
				return
			}
			for k, i := range index {
				outcomes[i] = got[k]
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return outcomes, nil
}

// caseLine is what runner.js prints for a case.
type caseLine struct {
	Case    int      `json:"case"`
	Inputs  []string `json:"inputs"`
	Outputs []string `json:"outputs"`
	Error   *string  `json:"error"`
}

// batch runs the cases in one process, restarted after a case that kills
// it (ONNX Runtime aborts on some malformed models).
func (r *Runtime) batch(cases []Case) ([]Outcome, error) {
	outcomes := make([]Outcome, len(cases))
	for start := 0; start < len(cases); {
		lines, stderr, err := r.runJob(map[string]any{"mode": "run", "cases": jobCases(cases[start:])})
		done := 0
		sc := bufio.NewScanner(bytes.NewReader(lines))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var l caseLine
			if json.Unmarshal(sc.Bytes(), &l) != nil || l.Case != done || done >= len(cases)-start {
				continue
			}
			oc := &outcomes[start+done]
			if l.Error != nil {
				oc.Err = fmt.Errorf("ONNX Runtime failed on %s: %s", cases[start+done].Model, *l.Error)
			} else {
				oc.InputNames, oc.OutputNames = l.Inputs, l.Outputs
			}
			done++
		}
		start += done
		if err == nil {
			if start < len(cases) {
				return nil, fmt.Errorf("ONNX Runtime's runner stopped after %d of %d cases without saying why", start, len(cases))
			}
			break
		}
		if start == len(cases) {
			break
		}
		// The process died on the first case without a line.
		msg := strings.TrimSpace(stderr)
		if msg == "" {
			msg = err.Error()
		}
		outcomes[start].Err = fmt.Errorf("ONNX Runtime failed on %s: %s", cases[start].Model, lastLines(msg))
		start++
	}
	return outcomes, nil
}

// jobCase is a Case as runner.js reads it.
type jobCase struct {
	Model    string   `json:"model"`
	Inputs   []string `json:"inputs,omitempty"`
	InputDir string   `json:"inputDir,omitempty"`
	Out      string   `json:"out"`
	Level    string   `json:"level,omitempty"`
	Threads  int      `json:"threads,omitempty"`
}

func jobCases(cases []Case) []jobCase {
	js := make([]jobCase, len(cases))
	for i, c := range cases {
		js[i] = jobCase{Model: c.Model, Inputs: c.Inputs, InputDir: c.InputDir, Out: c.Out, Level: c.Level, Threads: c.Threads}
		if len(c.Inputs) > 0 {
			js[i].InputDir = ""
		}
	}
	return js
}

// runJob writes the runner and the job into a scratch folder (which also
// takes ONNX Runtime's own scratch files), runs node and returns its
// standard output and error.
func (r *Runtime) runJob(job any) (stdout []byte, stderr string, err error) {
	dir, remove, err := interrupt.TempDir("modelbridge-ort-")
	if err != nil {
		return nil, "", err
	}
	defer remove()
	script := filepath.Join(dir, "runner.js")
	if err := os.WriteFile(script, []byte(runnerJS), 0o644); err != nil {
		return nil, "", err
	}
	jobPath := filepath.Join(dir, "job.json")
	b, err := json.Marshal(job)
	if err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(jobPath, b, 0o644); err != nil {
		return nil, "", err
	}
	cmd := r.install.Command(script, jobPath)
	cmd.Env = append(cmd.Env, "TMPDIR="+dir)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = interrupt.Run(cmd)
	return out.Bytes(), errOut.String(), err
}

// lastLines keeps the end of a long message.
func lastLines(msg string) string {
	if len(msg) > 2000 {
		return "..." + msg[len(msg)-2000:]
	}
	return msg
}
