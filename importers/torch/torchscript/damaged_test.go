package torchscript

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
)

// weightsOnlySource is a module class without forward: importing it reads
// its weights only.
const weightsOnlySource = "class M(Module):\n  __parameters__ = [\"w\", ]\n  __buffers__ = []\n  training : bool\n"

// weightPickle is data.pkl for a __torch__.M whose attribute w is a float
// tensor of the given size and stride on storage "0" of numel elements.
func weightPickle(numel int64, size, stride []int64) string {
	var b bytes.Buffer
	num := func(v int64) {
		b.WriteString("\x8a\x08")
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("\x80\x02c__torch__\nM\n)\x81}X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpu")
	num(numel)
	b.WriteString("tQK\x00(")
	for _, s := range size {
		num(s)
	}
	b.WriteString("t(")
	for _, s := range stride {
		num(s)
	}
	b.WriteString("t\x89tRsb.")
	return b.String()
}

// readChecked reads p and returns the read's error; the inputs here once
// hung the reader, and a regression shows as a test that does not finish.
func readChecked(t *testing.T, p string) error {
	t.Helper()
	g, err := ReadFile(p, formats.ReadOptions{})
	if err == nil {
		g.Close()
	}
	return err
}

// A list that contains itself (APPEND of the list to itself) in
// constants.pkl or an attribute is refused, not followed forever.
func TestSelfReferentialList(t *testing.T) {
	for _, files := range []map[string]string{
		{"data.pkl": rootPickle, "constants.pkl": "\x80\x02]q\x00h\x00a\x85.", "code/__torch__.py": moduleSource("    return x\n")},
		{"data.pkl": "\x80\x02c__torch__\nM\n)\x81}X\x01\x00\x00\x00l]q\x00h\x00asb.", "code/__torch__.py": weightsOnlySource},
	} {
		err := readChecked(t, writeArchive(t, files, zip.Store))
		if err == nil || !strings.Contains(err.Error(), "nested more than") {
			t.Errorf("want a nesting error, got %v", err)
		}
	}
}

// sharedPickle is data.pkl for 60 levels of __torch__.M objects (or of
// lists) whose attributes a and b (items) are the same object one level
// down: a few hundred bytes with 2^60 paths through them.
func sharedPickle(lists bool) string {
	var b bytes.Buffer
	b.WriteString("\x80\x02c__torch__\nM\nq\x00")
	if lists {
		b.WriteString(")\x81}X\x01\x00\x00\x00l]q\x01")
	} else {
		b.WriteString("h\x00)\x81}bq\x01")
	}
	for i := byte(1); i < 61; i++ {
		b.WriteString("0") // POP the previous level: it stays in the memo
		if lists {
			b.WriteString("(h" + string(rune(i)) + "h" + string(rune(i)) + "lq" + string(rune(i+1)))
		} else {
			b.WriteString("h\x00)\x81}(X\x01\x00\x00\x00ah" + string(rune(i)) + "X\x01\x00\x00\x00bh" + string(rune(i)) + "ubq" + string(rune(i+1)))
		}
	}
	if lists {
		b.WriteString("sb")
	}
	b.WriteString(".")
	return b.String()
}

// Module objects and lists shared through the pickle memo are each
// converted and walked once.
func TestSharedObjectsAndLists(t *testing.T) {
	for _, lists := range []bool{false, true} {
		p := writeArchive(t, map[string]string{"data.pkl": sharedPickle(lists), "code/__torch__.py": weightsOnlySource}, zip.Store)
		if err := readChecked(t, p); err != nil {
			t.Errorf("lists=%v: %v", lists, err)
		}
	}
}

// A view whose strides add up past int64 (8 × 2^61 wraps to 0) is refused
// instead of indexing outside its storage, and a broadcast view of one
// element cannot expand a tiny file into hundreds of megabytes.
func TestHostileViews(t *testing.T) {
	cases := []struct {
		numel        int64
		size, stride []int64
		want         string
	}{
		{1, []int64{2, 2, 2, 2, 2, 2, 2, 2}, []int64{1 << 61, 1 << 61, 1 << 61, 1 << 61, 1 << 61, 1 << 61, 1 << 61, 1 << 61}, "overflow"},
		{1, []int64{1 << 13, 1 << 13}, []int64{0, 0}, "refusing"},
	}
	for _, c := range cases {
		p := writeArchive(t, map[string]string{"data.pkl": weightPickle(c.numel, c.size, c.stride), "data/0": "\x00\x00\x80\x3f", "code/__torch__.py": weightsOnlySource}, zip.Store)
		err := readChecked(t, p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("size %v stride %v: want %q, got %v", c.size, c.stride, c.want, err)
		}
	}
}

// fanOutSource is a module whose methods f1..f<levels> each call the next
// sixteen times (the last applies relu): a few kilobytes of code asking
// for 16^levels statements.
func fanOutSource(levels int) string {
	var sb strings.Builder
	sb.WriteString("class M(Module):\n  training : bool\n  def forward(self: __torch__.M, x: Tensor) -> Tensor:\n    return self.f1(x)\n")
	for l := 1; l <= levels; l++ {
		fmt.Fprintf(&sb, "  def f%d(self, x: Tensor) -> Tensor:\n", l)
		for k := 0; k < 16; k++ {
			if l == levels {
				sb.WriteString("    x = torch.relu(x)\n")
			} else {
				fmt.Fprintf(&sb, "    x = self.f%d(x)\n", l+1)
			}
		}
		sb.WriteString("    return x\n")
	}
	return sb.String()
}

// Calls that fan out run a number of statements bounded by the size of
// the source, not millions (each adding a node) from two kilobytes.
func TestCallFanOutIsBounded(t *testing.T) {
	p := writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": fanOutSource(5)}, zip.Store)
	err := readChecked(t, p)
	if err == nil || !strings.Contains(err.Error(), "bytes of code/ source") {
		t.Fatalf("want the statement limit, got %v", err)
	}
	// Three levels (4096 relus) are within the limit.
	p = writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": fanOutSource(3)}, zip.Store)
	if err := readChecked(t, p); err != nil {
		t.Fatal(err)
	}
}

// convWeightArchive has a 1x1x2x2 weight w; body follows
// forward(self, x) and can pad a convolution of w to make huge sizes.
func convWeightArchive(t *testing.T, body string) string {
	return writeArchive(t, map[string]string{
		"data.pkl":          weightPickle(4, []int64{1, 1, 2, 2}, []int64{4, 4, 2, 1}),
		"data/0":            strings.Repeat("\x00\x00\x80\x3f", 4),
		"code/__torch__.py": moduleSource(body),
	}, zip.Store)
}

// Sizes computed from hostile attributes (a convolution padded by 10^5 or
// 10^7) do not turn into hundreds of thousands of split pieces or into
// hundreds of megabytes of batch-norm constants; tens of thousands of
// outputs are named in linear time.
func TestHugeComputedSizes(t *testing.T) {
	cases := []struct{ body, want string }{
		{"    y = torch.conv2d(self.w, self.w, None, [1, 1], [100000, 0])\n    return torch.split(y, 1, 2)\n", "more than 65536 pieces"},
		{"    y = torch.conv2d(self.w, self.w, None, [1, 1], [10000000, 0])\n    return torch.batch_norm(x, None, None, torch.flatten(y), torch.flatten(y), False, 0.1, 0.00001, False)\n", "refusing"},
		{"    y = torch.conv2d(self.w, self.w, None, [1, 1], [20000, 0])\n    return torch.split(y, 1, 2)\n", ""},
	}
	for _, c := range cases {
		err := readChecked(t, convWeightArchive(t, c.body))
		if c.want == "" && err != nil {
			t.Errorf("%q: %v", c.body, err)
		}
		if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: want %q, got %v", c.body, c.want, err)
		}
	}
}

// Chains of operators, attributes, calls and subscripts nest the parsed
// tree as deeply as parentheses do, and are bounded the same way (the
// evaluator recurses through them).
func TestLongChains(t *testing.T) {
	for _, expr := range []string{
		strings.Repeat("x ** ", 1000) + "x",
		strings.Repeat("not ", 1000) + "x",
		strings.Repeat("x + ", 1000) + "x",
		"x" + strings.Repeat(".a", 1000),
		"x" + strings.Repeat("()", 1000),
		"x" + strings.Repeat("[0]", 1000),
	} {
		p := writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": moduleSource("    return " + expr + "\n")}, zip.Store)
		err := readChecked(t, p)
		if err == nil || !strings.Contains(err.Error(), "nested too deeply") {
			t.Errorf("%.20s...: want nesting refused, got %v", expr, err)
		}
	}
}
