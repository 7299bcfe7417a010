package opmatrix

import (
	"bytes"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
)

// TestEveryOpAnswersEverySlot: every registered op fills each OpDef slot
// or gives the reason it does not, as `modelbridge ops OP` shows it.
func TestEveryOpAnswersEverySlot(t *testing.T) {
	for _, g := range canon.SlotGaps() {
		t.Error(g)
	}
	for _, d := range canon.Ops() {
		for _, s := range Slots(d) {
			if s.Detail == "" {
				t.Errorf("op %s: slot %s says nothing (filled %v)", d.Kind, s.Name, s.Filled)
			}
		}
	}
}

// TestOpsShowsSlots: the op's details list its slots.
func TestOpsShowsSlots(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteText(&buf, Columns(), "Attention"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"half unsafe:", "accumulation length:", "remap axes:", "decompose:", "output dtypes:"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("`ops Attention` lacks %q:\n%s", want, buf.String())
		}
	}
}
