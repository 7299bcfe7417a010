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

// TestConvertNodeCasesRoundTrip converts the ONNX 1.22 node cases of the
// convert family that modelbridge reads (Cast, CastLike, Where, Expand,
// Tile, Size, the comparisons) at opsets 11 to 17 and runs them in ONNX
// Runtime against the suite's expected outputs. Cases the importer refuses
// (IR 13 files, strings, float8, ops of other families) are skipped; a
// refusal at export must name the opset.
func TestConvertNodeCasesRoundTrip(t *testing.T) {
	suite := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	runner := testfix.ORTRunner(t)
	var cases []string
	for _, pat := range []string{"test_cast_*", "test_castlike_*", "test_where_*", "test_expand_*", "test_tile*", "test_size*",
		"test_equal*", "test_less*", "test_greater*"} {
		m, _ := filepath.Glob(filepath.Join(suite, pat))
		cases = append(cases, m...)
	}
	tmp := t.TempDir()
	var jobs []*ortJob
	refused, read := 0, 0
	for _, dir := range cases {
		c := filepath.Base(dir)
		g, err := onnximport.Read(filepath.Join(dir, "model.onnx"), formats.ReadOptions{})
		if err != nil {
			continue
		}
		read++
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
	if read < 40 {
		t.Fatalf("read %d convert-family cases under %s, want at least 40", read, suite)
	}
	results := runORT(t, runner, jobs)
	for _, j := range jobs {
		if r := results[j.ID]; !r.OK {
			t.Errorf("%s: ONNX Runtime: %s", j.label, r.Err)
		} else if err := sameAsExpected(j.Out, j.want); err != nil {
			t.Errorf("%s: %v", j.label, err)
		}
	}
	t.Logf("%d convert-family cases read, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", read, len(jobs), refused)
}
