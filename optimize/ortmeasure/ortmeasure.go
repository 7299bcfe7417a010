// Package ortmeasure times graphs in ONNX Runtime, as the "ort" target of
// the optimizer: candidate graphs are exported to ONNX and run by ONNX
// Runtime by package ort (the runner `check --runtime ort` uses too),
// interleaved so that drift in the machine's load hits both alike. Timings are cached per machine in the user cache folder,
// keyed by the exact model bytes, the runtime version and the settings.
package ortmeasure

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/interrupt"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/optimize"
)

// Target times graphs in ONNX Runtime. It implements optimize.Target.
type Target struct {
	// Runtime is the ONNX Runtime that times the graphs.
	Runtime *ort.Runtime
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
	rt, err := ort.Find(dir)
	if err != nil {
		return nil, fmt.Errorf("%w, or use --target interp", err)
	}
	return &Target{Runtime: rt}, nil
}

// Name is "ort".
func (t *Target) Name() string { return "ort" }

// Version is the onnxruntime-node version found.
func (t *Target) Version() string { return t.Runtime.Version() }

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
	return t.Runtime.Time(files, ort.TimeOptions{Level: t.level(), Threads: threads, Runs: runs})
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
