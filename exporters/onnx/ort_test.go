package onnxexport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// batchJS runs many models in one node process, each exactly as run.js
// does (inputs read in session input order, outputs written as
// TensorProto), so that ~600 sessions do not pay node's start-up each.
const batchJS = `
const fs = require('fs');
const path = require('path');
const ort = require(path.join(process.env.ORT_DIR, 'node_modules', 'onnxruntime-node'));
const { onnx } = require(path.join(process.env.ORT_DIR, 'node_modules', 'onnx-proto'));
const DT = { 1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64', 9: 'bool', 10: 'float16', 11: 'float64',
  12: 'uint32', 13: 'uint64' };
const CODE = Object.fromEntries(Object.entries(DT).map(([k, v]) => [v, +k]));
const ARR = { float32: Float32Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array, int32: Int32Array,
  uint32: Uint32Array, uint64: BigUint64Array,
  int64: BigInt64Array, bool: Uint8Array, float64: Float64Array, float16: Uint16Array };
function tensorFromPb(buf) {
  const t = onnx.TensorProto.decode(buf);
  const type = DT[t.dataType];
  if (!type) throw new Error('unsupported TensorProto data_type ' + t.dataType);
  const dims = t.dims.map(Number);
  const n = dims.reduce((x, y) => x * y, 1);
  const A = ARR[type];
  let data;
  if (t.rawData && t.rawData.length) {
    const raw = Buffer.from(t.rawData);
    const copy = new ArrayBuffer(raw.length); new Uint8Array(copy).set(raw);
    data = new A(copy, 0, n);
  } else if (type === 'float32') data = Float32Array.from(t.floatData);
  else if (type === 'float64') data = Float64Array.from(t.doubleData);
  else if (type === 'int64') data = BigInt64Array.from(t.int64Data.map((v) => BigInt(v.toString())));
  else if (type === 'uint64') data = BigUint64Array.from(t.uint64Data.map((v) => BigInt(v.toString())));
  else data = A.from(t.int32Data);
  return new ort.Tensor(type, data, dims);
}
function tensorToPb(name, t) {
  const raw = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  return onnx.TensorProto.encode({ name, dims: t.dims, dataType: CODE[t.type], rawData: raw }).finish();
}
async function one(job) {
  // A model with external data is loaded by path so ONNX Runtime finds its .data file.
  const sess = await ort.InferenceSession.create(job.ext ? job.model : fs.readFileSync(job.model),
    { graphOptimizationLevel: 'disabled', executionProviders: ['cpu'], intraOpNumThreads: 1 });
  const feeds = {};
  sess.inputNames.forEach((name, i) => { feeds[name] = tensorFromPb(fs.readFileSync(path.join(job.inputs, 'input_' + i + '.pb'))); });
  const out = await sess.run(feeds);
  fs.mkdirSync(job.out, { recursive: true });
  sess.outputNames.forEach((name, i) => fs.writeFileSync(path.join(job.out, 'output_' + i + '.pb'), tensorToPb(name, out[name])));
}
(async () => {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2]));
  for (const job of jobs) {
    try { await one(job); console.log(JSON.stringify({ id: job.id, ok: true })); }
    catch (e) { console.log(JSON.stringify({ id: job.id, ok: false, err: String(e.message || e) })); }
  }
})();
`

type ortJob struct {
	ID     int    `json:"id"`
	Model  string `json:"model"`
	Inputs string `json:"inputs"`
	Out    string `json:"out"`
	Ext    bool   `json:"ext"`

	label string
	want  string // folder of expected output_N.pb
	torch bool
}

type ortResult struct {
	ID  int    `json:"id"`
	OK  bool   `json:"ok"`
	Err string `json:"err"`
}

// runORT runs the jobs in one node process per CPU.
func runORT(t *testing.T, runner string, jobs []*ortJob) map[int]ortResult {
	dir := t.TempDir()
	script := filepath.Join(dir, "batch.js")
	if err := os.WriteFile(script, []byte(batchJS), 0o644); err != nil {
		t.Fatal(err)
	}
	workers := runtime.NumCPU()
	results := map[int]ortResult{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		var part []*ortJob
		for i := w; i < len(jobs); i += workers {
			part = append(part, jobs[i])
		}
		if len(part) == 0 {
			continue
		}
		list := filepath.Join(dir, fmt.Sprintf("jobs_%d.json", w))
		b, _ := json.Marshal(part)
		if err := os.WriteFile(list, b, 0o644); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("node", script, list)
			cmd.Env = append(os.Environ(), "ORT_DIR="+filepath.Dir(runner))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			sc := bufio.NewScanner(strings.NewReader(string(out)))
			for sc.Scan() {
				var r ortResult
				if json.Unmarshal(sc.Bytes(), &r) == nil {
					mu.Lock()
					results[r.ID] = r
					mu.Unlock()
				}
			}
			if err != nil {
				t.Errorf("ONNX Runtime batch runner failed: %v\n%s", err, stderr.String())
			}
		}()
	}
	wg.Wait()
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
	runner := testfix.ORTRunner(t)
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
			jobs = append(jobs, &ortJob{ID: id, Model: p, Inputs: data, Out: filepath.Join(tmp, fmt.Sprint(id), "out"), Ext: ext,
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

	results := runORT(t, runner, jobs)
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
