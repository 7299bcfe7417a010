package onnxexport

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestIndexingNodeCasesRoundTrip converts the ONNX 1.22 node cases of the
// indexing family at opsets 11 to 17 and runs them in ONNX Runtime against
// the suite's expected outputs. A refusal (an opset that cannot express
// a reduction, say) must name the opset; everything written must match.
func TestIndexingNodeCasesRoundTrip(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	runner := testfix.ORTRunner(t)
	var cases []string
	for _, pat := range []string{"test_gather_elements_*", "test_gathernd_*", "test_scatter_*", "test_scatternd*", "test_onehot_*", "test_compress_*", "test_tril*", "test_triu*"} {
		m, _ := filepath.Glob(filepath.Join(suite, pat))
		cases = append(cases, m...)
	}
	if len(cases) < 40 {
		t.Fatalf("found %d indexing cases under %s, want the suite's 46", len(cases), suite)
	}
	tmp := t.TempDir()
	var jobs []*ortJob
	refused := 0
	for _, dir := range cases {
		c := filepath.Base(dir)
		g, err := onnximport.Read(filepath.Join(dir, "model.onnx"), formats.ReadOptions{})
		if err != nil {
			t.Errorf("%s: %v", c, err)
			continue
		}
		sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
		for opset := MinOpset; opset <= MaxOpset; opset++ {
			out := filepath.Join(tmp, fmt.Sprintf("%s@%d", c, opset))
			p := filepath.Join(out, "model.onnx")
			os.MkdirAll(out, 0o755)
			if err := Write(g, p, formats.WriteOptions{Opset: opset}); err != nil {
				if isRefusal(err) && strings.Contains(err.Error(), "opset") {
					refused++
					continue
				}
				t.Errorf("%s at opset %d: %v", c, opset, err)
				continue
			}
			for _, set := range sets {
				jobs = append(jobs, &ortJob{ID: len(jobs), Model: p, Inputs: set, Out: filepath.Join(out, "out_"+filepath.Base(set)),
					label: fmt.Sprintf("%s@%d/%s", c, opset, filepath.Base(set)), want: set})
			}
		}
		g.Close()
	}
	results := runORT(t, runner, jobs)
	for _, j := range jobs {
		if r := results[j.ID]; !r.OK {
			t.Errorf("%s: ONNX Runtime: %s", j.label, r.Err)
		} else if err := sameAsExpected(j.Out, j.want); err != nil {
			t.Errorf("%s: %v", j.label, err)
		}
	}
	t.Logf("%d indexing cases, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), len(jobs), refused)
}
