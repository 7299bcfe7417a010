package e2e

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/interp"

	_ "github.com/modelbridge/modelbridge/exporters/safetensors"
	_ "github.com/modelbridge/modelbridge/exporters/torch"
	_ "github.com/modelbridge/modelbridge/importers/safetensors"
	_ "github.com/modelbridge/modelbridge/importers/torch"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// tiedLMScript builds a small language model whose output layer is its
// embedding (lm_head.weight is embed.weight, 1000×64) and writes: the ONNX
// torch.onnx exports with constant folding off (one initializer, read by
// the Gather and, through a Transpose, by the MatMul), the same file with
// the head reading a second name of the weight through Identity (as torch
// writes parameters it found equal), the state dict torch.save writes
// (one storage, two keys), input tokens and PyTorch's logits.
const tiedLMScript = `
import sys, torch, torch.nn as nn, numpy as np, onnx
from onnx import helper
out = sys.argv[1]
torch.manual_seed(0)
class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(1000, 64)
        self.norm = nn.LayerNorm(64)
        self.lm_head = nn.Linear(64, 1000, bias=False)
        self.lm_head.weight = self.embed.weight
    def forward(self, tokens):
        return self.lm_head(self.norm(self.embed(tokens)))
m = LM().eval()
tokens = torch.randint(0, 1000, (2, 8))
torch.onnx.export(m, tokens, out + "/lm.onnx", input_names=["tokens"], output_names=["logits"],
                  opset_version=13, do_constant_folding=False)
g = onnx.load(out + "/lm.onnx")
for n in g.graph.node:
    if n.op_type == "Transpose" and n.input[0] == "embed.weight":
        n.input[0] = "lm_head.weight"
g.graph.node.insert(0, helper.make_node("Identity", ["embed.weight"], ["lm_head.weight"], name="tie"))
onnx.checker.check_model(g)
onnx.save(g, out + "/lm_identity.onnx")
torch.save(m.state_dict(), out + "/state.pt")
np.save(out + "/tokens.npy", tokens.numpy())
with torch.no_grad():
    np.save(out + "/logits.npy", m(tokens).numpy())
`

// tiedCheckScript loads what modelbridge wrote and reports, as JSON, which
// state-dict keys share a storage, the storage sizes, whether model.py ties
// the parameters and the largest difference of its logits from PyTorch's.
const tiedCheckScript = `
import sys, json, importlib.util, torch, numpy as np
folder, pt, tokens, logits = sys.argv[1:5]
rep = {}
for name, path in (("folder", folder + "/weights.pt"), ("pt", pt)):
    sd = torch.load(path)
    ptrs = {}
    for k, v in sd.items():
        ptrs.setdefault(v.storage().data_ptr(), []).append(k)
    rep[name] = {"groups": sorted(sorted(g) for g in ptrs.values() if len(g) > 1),
                 "values": sum(len(v.storage()) for v in {v.storage().data_ptr(): v for v in sd.values()}.values())}
spec = importlib.util.spec_from_file_location("tied_model", folder + "/model.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
model = mod.Model()
model.load_state_dict(torch.load(folder + "/weights.pt"), strict=True)
live = model.state_dict(keep_vars=True)
rep["tied"] = [[k for k, p in live.items() if p is q] for q in model.parameters() if q.dim() == 2]
with torch.no_grad():
    y = model(torch.from_numpy(np.load(tokens)))
rep["maxdiff"] = float(np.abs(y.numpy() - np.load(logits)).max())
json.dump(rep, sys.stdout)
`

// TestTiedLanguageModel follows a language model whose output layer is
// tied to its embedding through ONNX, PyTorch and safetensors: each step
// stores the 1000×64 weight once, and PyTorch loads the result tied.
func TestTiedLanguageModel(t *testing.T) {
	python := testfix.Torch(t, "numpy", "onnx")
	dir := t.TempDir()
	script := filepath.Join(dir, "make.py")
	os.WriteFile(script, []byte(tiedLMScript), 0o644)
	if out, err := exec.Command(python, script, dir).CombinedOutput(); err != nil {
		t.Fatalf("building the model: %v\n%s", err, out)
	}
	tokens, err := npy.ReadFile(filepath.Join(dir, "tokens.npy"))
	if err != nil {
		t.Fatal(err)
	}
	logits, err := npy.ReadFile(filepath.Join(dir, "logits.npy"))
	if err != nil {
		t.Fatal(err)
	}
	const embedValues = 1000 * 64
	for _, src := range []string{"lm.onnx", "lm_identity.onnx"} {
		t.Run(src, func(t *testing.T) {
			out := filepath.Join(dir, strings.TrimSuffix(src, ".onnx"))
			os.MkdirAll(out, 0o755)
			g := load(t, filepath.Join(dir, src), "", formats.ReadOptions{})
			in := weightsOf(t, filepath.Join(dir, src))
			t.Logf("%s: %d values in %d tensors (%s)", src, in.values, len(in.tensors), paramsLine(g))

			// ONNX: one initializer, the same logits in ONNX Runtime when
			// it is installed, and in the interpreter.
			onnxPath := filepath.Join(out, "lm.onnx")
			write(t, g, onnxPath, "onnx")
			got := weightsOf(t, onnxPath)
			t.Logf("-> ONNX: %d values in %d tensors", got.values, len(got.tensors))
			if got.values != in.values || got.values >= 2*embedValues {
				t.Errorf("ONNX holds %d values, the source %d", got.values, in.values)
			}
			g2 := load(t, onnxPath, "", formats.ReadOptions{})
			res, err := interp.Run(g2, map[string]*canon.Tensor{g2.Inputs[0].Name: tokens})
			if err != nil {
				t.Fatal(err)
			}
			if d := maxAbsDiff(t, res[g2.Outputs[0].Name], logits); d > 1e-4 {
				t.Errorf("ONNX written: logits differ from PyTorch's by %g", d)
			}
			if rt, err := ort.Find(""); err != nil {
				t.Logf("ONNX Runtime not run: %v", err)
			} else if d := maxAbsDiff(t, runORT(t, rt, g2, map[string]*canon.Tensor{g2.Inputs[0].Name: tokens})[0], logits); d > 1e-4 {
				t.Errorf("ONNX written, in ONNX Runtime: logits differ from PyTorch's by %g", d)
			}

			// PyTorch: model.py + weights.pt, and weights alone.
			folder, pt := filepath.Join(out, "torch"), filepath.Join(out, "lm.pt")
			write(t, g, folder, "torch")
			write(t, g, pt, "torch")
			check := filepath.Join(dir, "check.py")
			os.WriteFile(check, []byte(tiedCheckScript), 0o644)
			rb, err := exec.Command(python, check, folder, pt, filepath.Join(dir, "tokens.npy"), filepath.Join(dir, "logits.npy")).CombinedOutput()
			if err != nil {
				t.Fatalf("PyTorch check: %v\n%s", err, rb)
			}
			var rep struct {
				Folder, Pt struct {
					Groups [][]string
					Values int64
				}
				Tied    [][]string
				MaxDiff float64
			}
			if err := json.Unmarshal(rb, &rep); err != nil {
				t.Fatalf("%v: %s", err, rb)
			}
			t.Logf("-> PyTorch: weights.pt %d values (shared keys %v), .pt %d values (shared keys %v), model.py parameters %v, logits max diff %g",
				rep.Folder.Values, rep.Folder.Groups, rep.Pt.Values, rep.Pt.Groups, rep.Tied, rep.MaxDiff)
			for _, v := range []int64{rep.Folder.Values, rep.Pt.Values} {
				if v >= 2*embedValues {
					t.Errorf("a PyTorch file holds %d values: the embedding is stored twice", v)
				}
			}
			if rep.MaxDiff > 1e-4 {
				t.Errorf("model.py logits differ from PyTorch's by %g", rep.MaxDiff)
			}
			wantTie := src == "lm_identity.onnx" // the file that names the head's weight
			if wantTie {
				for _, groups := range [][][]string{rep.Folder.Groups, rep.Pt.Groups} {
					if len(groups) != 1 || strings.Join(groups[0], ",") != "embed.weight,lm_head.weight" {
						t.Errorf("shared storages %v, want embed.weight and lm_head.weight in one", groups)
					}
				}
				if len(rep.Tied) != 1 || len(rep.Tied[0]) != 2 {
					t.Errorf("model.py 2-D parameters %v, want one under two names", rep.Tied)
				}
			}

			// safetensors from the .pt: one copy, the second name in the
			// metadata, read back as one tensor under both names.
			stPath := filepath.Join(out, "lm.safetensors")
			gpt := load(t, pt, "", formats.ReadOptions{})
			write(t, gpt, stPath, "safetensors")
			checkSafetensors(t, stPath, wantTie)
		})
	}

	// torch.save's own tied state dict: one storage in, one copy out.
	t.Run("state_dict", func(t *testing.T) {
		g := load(t, filepath.Join(dir, "state.pt"), "", formats.ReadOptions{})
		t.Logf("state.pt: %s", paramsLine(g))
		st := filepath.Join(dir, "state.safetensors")
		write(t, g, st, "safetensors")
		checkSafetensors(t, st, true)
		back := filepath.Join(dir, "back.pt")
		write(t, load(t, st, "", formats.ReadOptions{}), back, "torch")
		out, err := exec.Command(python, "-c", `import sys, torch
sd = torch.load(sys.argv[1])
print(sd["embed.weight"].storage().data_ptr() == sd["lm_head.weight"].storage().data_ptr(), len(sd["embed.weight"].storage()))`, back).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "True 64000" {
			t.Errorf("state.pt -> safetensors -> .pt: torch.load says %q (%v), want the two keys on one 64000-value storage", out, err)
		}
	})
}

// checkSafetensors checks that the file stores the 1000×64 weight once
// and, when tied, names lm_head.weight in its metadata; reading it back
// gives one tensor under both names.
func checkSafetensors(t *testing.T, path string, tied bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(b)
	var header map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &header); err != nil {
		t.Fatal(err)
	}
	data := int64(len(b)) - 8 - int64(n)
	tensors := len(header)
	if _, ok := header["__metadata__"]; ok {
		tensors--
	}
	t.Logf("-> safetensors %s: %d tensors, %d data bytes, metadata %s", filepath.Base(path), tensors, data, header["__metadata__"])
	if data >= 2*1000*64*4 {
		t.Errorf("%s holds %d data bytes: the embedding is stored twice", path, data)
	}
	if !tied {
		return
	}
	var meta map[string]string
	json.Unmarshal(header["__metadata__"], &meta)
	if meta["lm_head.weight"] != "embed.weight" {
		t.Errorf("metadata %v, want lm_head.weight -> embed.weight", meta)
	}
	g := load(t, path, "", formats.ReadOptions{})
	e, h := g.Initializer("embed.weight"), g.Initializer("lm_head.weight")
	if e == nil || h == nil || !canon.SameData(e, h) {
		t.Errorf("%s read back: embed.weight %v, lm_head.weight %v, want one tensor under both names", path, e != nil, h != nil)
	}
}

func paramsLine(g *canon.Graph) string {
	p := g.Params()
	return strings.TrimSpace(strings.Join([]string{
		itoa(p.Elements), "values in", itoa(int64(p.Tensors)), "tensors,", itoa(int64(p.Shared)), "shared names"}, " "))
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
