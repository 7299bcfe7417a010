// Package ortmeasure times graphs in ONNX Runtime, as the "ort" target of
// the optimizer: candidate graphs are exported to ONNX and run by ONNX
// Runtime's Node.js binding (onnxruntime-node, found by ortinstall),
// interleaved so that drift in the machine's load hits both alike. Timings are cached per machine in the user cache folder,
// keyed by the exact model bytes, the runtime version and the settings.
package ortmeasure

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/interrupt"
	"github.com/modelbridge/modelbridge/internal/ortinstall"
	"github.com/modelbridge/modelbridge/optimize"
)

// Target times graphs in ONNX Runtime. It implements optimize.Target.
type Target struct {
	// Install is the ONNX Runtime that times the graphs.
	Install *ortinstall.Install
	// Level is ONNX Runtime's graph optimization level: "all" (default),
	// "extended", "basic" or "disabled".
	Level string
	// Runs is the number of timed samples per graph (default 15); Threads
	// the intra-op threads (default 1, the steadiest on a shared machine).
	Runs, Threads int
	// CacheFile stores timings (default: modelbridge/ort-timings.json in
	// the user cache folder; "-" disables the cache).
	CacheFile string

	mu sync.Mutex
}

// New finds ONNX Runtime in dir (when empty, in $MODELBRIDGE_ORT_DIR or
// ortinstall.DefaultDir) and node, or says how to install them.
func New(dir string) (*Target, error) {
	in, err := ortinstall.Find(dir)
	if err != nil {
		return nil, fmt.Errorf("%w, or use --target interp", err)
	}
	return &Target{Install: in}, nil
}

// Name is "ort".
func (t *Target) Name() string { return "ort" }

// Version is the onnxruntime-node version found.
func (t *Target) Version() string { return t.Install.Version }

func (t *Target) level() string {
	if t.Level == "" {
		return "all"
	}
	return t.Level
}

// Compare exports both graphs and times them in ONNX Runtime.
func (t *Target) Compare(before, after *canon.Graph) (optimize.Comparison, error) {
	dir, remove, err := interrupt.TempDir("modelbridge-ort-")
	if err != nil {
		return optimize.Comparison{}, err
	}
	defer remove()
	pa, pb := filepath.Join(dir, "before.onnx"), filepath.Join(dir, "after.onnx")
	if err := onnxexport.Write(before, pa, formats.WriteOptions{}); err != nil {
		return optimize.Comparison{}, err
	}
	if err := onnxexport.Write(after, pb, formats.WriteOptions{}); err != nil {
		return optimize.Comparison{}, err
	}
	return t.CompareFiles(pa, pb)
}

// CompareFiles times two ONNX files (same inputs) in ONNX Runtime.
func (t *Target) CompareFiles(before, after string) (optimize.Comparison, error) {
	runs, threads := t.Runs, t.Threads
	if runs <= 0 {
		runs = 15
	}
	if threads <= 0 {
		threads = 1
	}
	key, err := t.cacheKey(before, after, runs, threads)
	if err != nil {
		return optimize.Comparison{}, err
	}
	if c, ok := t.cached(key); ok {
		c.Cached = true
		return c, nil
	}
	times, err := t.time([]string{before, after}, runs, threads)
	if err != nil {
		return optimize.Comparison{}, err
	}
	c := optimize.Judge("ort", times[0], times[1])
	if c.Faster {
		// A win is kept only if an independent second measurement (a new
		// process, new sessions) points the same way; the two runs are then
		// judged together, which halves the noise of the median.
		again, err := t.time([]string{before, after}, runs, threads)
		if err != nil {
			return optimize.Comparison{}, err
		}
		c = optimize.Judge("ort", append(times[0], again[0]...), append(times[1], again[1]...))
		if r := optimize.Judge("ort", again[0], again[1]).Ratio; !(r < 1-optimize.MinGain) {
			c.Faster = false
		}
	}
	t.store(key, c)
	return c, nil
}

// Latencies times ONNX files in one ONNX Runtime process, interleaved, and
// returns each file's samples in seconds (not cached).
func (t *Target) Latencies(files []string) ([][]float64, error) {
	runs, threads := t.Runs, t.Threads
	if runs <= 0 {
		runs = 15
	}
	if threads <= 0 {
		threads = 1
	}
	return t.time(files, runs, threads)
}

func (t *Target) time(files []string, runs, threads int) ([][]float64, error) {
	dir, remove, err := interrupt.TempDir("modelbridge-ortjs-")
	if err != nil {
		return nil, err
	}
	defer remove()
	script := filepath.Join(dir, "time.js")
	if err := os.WriteFile(script, []byte(timeJS), 0o644); err != nil {
		return nil, err
	}
	cfg, _ := json.Marshal(map[string]any{"models": files, "level": t.level(), "runs": runs, "threads": threads})
	cmd := t.Install.Command(script, string(cfg))
	var stdout bytes.Buffer
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = interrupt.Run(cmd)
	out := stdout.Bytes()
	if err != nil {
		return nil, fmt.Errorf("ONNX Runtime could not time %s: %v: %s", strings.Join(files, ", "), err, strings.TrimSpace(stderr.String()))
	}
	var res struct {
		Times [][]float64 `json:"times"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Times) != len(files) {
		return nil, fmt.Errorf("ONNX Runtime timer printed %q", out)
	}
	for _, ts := range res.Times {
		for i := range ts {
			ts[i] /= 1e3 // ms to s
		}
	}
	return res.Times, nil
}

func (t *Target) cacheKey(a, b string, runs, threads int) (string, error) {
	h := sha256.New()
	for _, p := range []string{a, b} {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		s := sha256.Sum256(data)
		h.Write(s[:])
		// External data beside the model changes what runs too.
		if d, err := os.ReadFile(p + ".data"); err == nil {
			s := sha256.Sum256(d)
			h.Write(s[:])
		}
	}
	host, _ := os.Hostname()
	fmt.Fprintf(h, "|%s|%s|%d|%d|%s|%d|%s", t.Version(), t.level(), runs, threads, host, runtime.NumCPU(), runtime.GOARCH)
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (t *Target) cachePath() string {
	if t.CacheFile == "-" {
		return ""
	}
	if t.CacheFile != "" {
		return t.CacheFile
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "modelbridge", "ort-timings.json")
}

func (t *Target) load() map[string]optimize.Comparison {
	m := map[string]optimize.Comparison{}
	if p := t.cachePath(); p != "" {
		if b, err := os.ReadFile(p); err == nil {
			_ = json.Unmarshal(b, &m) // a damaged cache is rebuilt
		}
	}
	return m
}

func (t *Target) cached(key string) (optimize.Comparison, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.load()[key]
	return c, ok
}

// store adds a timing to the cache; failing to write it only costs a
// re-measurement later.
func (t *Target) store(key string, c optimize.Comparison) {
	p := t.cachePath()
	if p == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.load()
	m[key] = c
	b, err := json.Marshal(m)
	if err != nil || os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	tmp := p + ".tmp"
	if os.WriteFile(tmp, b, 0o644) == nil {
		_ = os.Rename(tmp, p)
	}
}

// timeJS loads every model in one ONNX Runtime session each, feeds them the
// same random inputs (from the first model's declared inputs; dynamic dims
// 1), warms each up, then takes runs samples of each, round-robin in
// alternating order. A sample
// repeats the model enough times to last about 5 ms, so timer resolution
// and scheduling jitter stay small next to it; samples are per run, in ms.
const timeJS = `
const fs = require('fs');
const path = require('path');
const ort = require(path.join(process.env.ORT_DIR, 'node_modules', 'onnxruntime-node'));
const { onnx } = require(path.join(process.env.ORT_DIR, 'node_modules', 'onnx-proto'));
const cfg = JSON.parse(process.argv[2]);
const TYPES = { 1: ['float32', Float32Array], 6: ['int32', Int32Array], 7: ['int64', BigInt64Array], 9: ['bool', Uint8Array], 11: ['float64', Float64Array] };
function inputs(buf) {
  const m = onnx.ModelProto.decode(buf);
  const inits = new Set(m.graph.initializer.map((t) => t.name));
  let s = 12345;
  const r = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  const feeds = {};
  for (const vi of m.graph.input) {
    if (inits.has(vi.name)) continue;
    const tt = vi.type.tensorType;
    const dims = tt.shape.dim.map((d) => (d.dimValue && Number(d.dimValue) > 0 ? Number(d.dimValue) : 1));
    const n = dims.reduce((x, y) => x * y, 1);
    const ty = TYPES[tt.elemType];
    if (!ty) throw new Error('cannot make random input ' + vi.name + ' of ONNX type ' + tt.elemType);
    const data = new ty[1](n);
    if (ty[0] === 'float32' || ty[0] === 'float64') for (let i = 0; i < n; i++) data[i] = r() * 2 - 1;
    feeds[vi.name] = new ort.Tensor(ty[0], data, dims);
  }
  return feeds;
}
(async () => {
  const opts = { graphOptimizationLevel: cfg.level, executionProviders: ['cpu'], intraOpNumThreads: cfg.threads, interOpNumThreads: 1 };
  const sess = [];
  for (const m of cfg.models) sess.push(await ort.InferenceSession.create(fs.readFileSync(m), opts));
  const feeds = inputs(fs.readFileSync(cfg.models[0]));
  const reps = [];
  for (const s of sess) {
    for (let i = 0; i < 3; i++) await s.run(feeds);
    const t0 = process.hrtime.bigint();
    await s.run(feeds);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    reps.push(Math.max(1, Math.min(200, Math.ceil(5 / Math.max(ms, 1e-3)))));
  }
  const rep = Math.max(...reps);
  const times = sess.map(() => []);
  for (let r = 0; r < cfg.runs; r++) {
    // Alternate the order so neither model always runs first.
    const order = sess.map((_, k) => k);
    if (r % 2) order.reverse();
    for (const k of order) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < rep; i++) await sess[k].run(feeds);
      times[k].push(Number(process.hrtime.bigint() - t0) / 1e6 / rep);
    }
  }
  process.stdout.write(JSON.stringify({ times }));
})().catch((e) => { console.error(String(e.message || e)); process.exit(1); });
`
