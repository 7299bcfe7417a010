package onnxexport

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

type ortJob struct {
	ID int
	// Model is run on Inputs/input_N.pb; its outputs go to Out.
	Model, Inputs, Out string

	label string
	want  string // folder of expected output_N.pb
	torch bool
}

type ortResult struct {
	ID  int
	OK  bool
	Err string
}

// runORT runs the jobs in ONNX Runtime, graph optimizations off and one
// intra-op thread each, in one process per CPU; results by job ID.
func runORT(t *testing.T, rt *ort.Runtime, jobs []*ortJob) map[int]ortResult {
	t.Helper()
	cases := make([]ort.Case, len(jobs))
	for i, j := range jobs {
		cases[i] = ort.Case{Model: j.Model, InputDir: j.Inputs, Out: j.Out, Options: ort.Options{Level: "disabled", Threads: 1}}
	}
	outcomes, err := rt.RunBatch(cases, 0)
	if err != nil {
		t.Fatalf("ONNX Runtime batch: %v", err)
	}
	results := map[int]ortResult{}
	for i, oc := range outcomes {
		r := ortResult{ID: jobs[i].ID, OK: oc.Err == nil}
		if oc.Err != nil {
			r.Err = oc.Err.Error()
		}
		results[r.ID] = r
	}
	return results
}

// TestORT exports every fixture that imports (at opsets 11, 13 and 17; the
// torch models also at 13 with external data) and
// the every-op graph (at each opset), runs them in ONNX Runtime and compares
// with the frameworks' stored outputs: torch models by relative error
// max|a-b| <= 1e-4 * max|ref|, ONNX node tests elementwise at rtol 1e-3,
// atol 1e-7.
func TestORT(t *testing.T) {
	models := fixtureModels(t)
	rt := testfix.ORT(t)
	tmp := t.TempDir()
	var jobs []*ortJob
	var skipped, refused int
	for _, m := range models {
		g, err := onnximport.Read(m.path, formats.ReadOptions{})
		if err != nil {
			skipped++
			continue
		}
		for _, opset := range []int{13, 11, 17, MaxOpset, -13} {
			ext := opset < 0 // opset 13 with external data
			if ext {
				if !m.torch {
					continue
				}
				opset = -opset
			}
			id := len(jobs)
			p := filepath.Join(tmp, fmt.Sprint(id), "model.onnx")
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := Write(g, p, formats.WriteOptions{Opset: opset, ExternalData: ext}); err != nil {
				if isRefusal(err) {
					refused++
					continue
				}
				t.Errorf("%s opset %d: %v", m.name, opset, err)
				continue
			}
			data := filepath.Join(filepath.Dir(m.path), "test_data_set_0")
			label := fmt.Sprintf("%s@%d", m.name, opset)
			if ext {
				label += "+external"
			}
			jobs = append(jobs, &ortJob{ID: id, Model: p, Inputs: data, Out: filepath.Join(tmp, fmt.Sprint(id), "out"),
				label: label, want: data, torch: m.torch})
		}
		g.Close()
	}
	// The every-op graph: each opset against opset 13, same random input.
	inDir := filepath.Join(tmp, "allops_in")
	os.MkdirAll(inDir, 0o755)
	if err := WriteTensorFile(randTensor("X", "", 42, 2, 3, 8, 8), filepath.Join(inDir, "input_0.pb")); err != nil {
		t.Fatal(err)
	}
	allRef := -1
	for _, opset := range allOpsets() {
		id := len(jobs)
		p := filepath.Join(tmp, fmt.Sprint(id), "model.onnx")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := Write(allOpsGraph(), p, formats.WriteOptions{Opset: opset}); err != nil {
			t.Fatalf("all-ops graph at opset %d: %v", opset, err)
		}
		if opset == 13 {
			allRef = id
		}
		jobs = append(jobs, &ortJob{ID: id, Model: p, Inputs: inDir, Out: filepath.Join(tmp, fmt.Sprint(id), "out"), label: fmt.Sprintf("all_ops@%d", opset)})
	}
	for _, j := range jobs {
		if j.want == "" {
			j.want = filepath.Join(tmp, fmt.Sprint(allRef), "out")
		}
	}

	results := runORT(t, rt, jobs)
	var passed, failed int
	var worstTorch float64
	for _, j := range jobs {
		r, ok := results[j.ID]
		if !ok || !r.OK {
			failed++
			t.Errorf("%s: ONNX Runtime: %s", j.label, r.Err)
			continue
		}
		err := compareOutputs(j, &worstTorch)
		if err != nil {
			failed++
			t.Errorf("%s: %v", j.label, err)
			continue
		}
		passed++
	}
	summary := fmt.Sprintf("ONNX Runtime: %d passed, %d failed, %d refused by opset, %d fixtures skipped (do not import); worst torch relative error %.3g",
		passed, failed, refused, skipped, worstTorch)
	t.Log(summary)
	fmt.Println(summary)
}

func compareOutputs(j *ortJob, worst *float64) error {
	wants, _ := filepath.Glob(filepath.Join(j.want, "output_*.pb"))
	if len(wants) == 0 {
		return fmt.Errorf("no expected outputs in %s", j.want)
	}
	for i := range wants {
		name := fmt.Sprintf("output_%d.pb", i)
		want, err := readTensorPB(filepath.Join(j.want, name))
		if err != nil {
			return err
		}
		got, err := readTensorPB(filepath.Join(j.Out, name))
		if err != nil {
			return err
		}
		if j.torch {
			r, err := compareRel(got, want, 1e-4)
			if r > *worst {
				*worst = r
			}
			if err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
		} else if err := compareElem(got, want, 1e-3, 1e-7); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
	}
	return nil
}
