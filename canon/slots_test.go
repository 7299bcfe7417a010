package canon

import "testing"

// TestEverySlotFilledOrExplained: each registered kind fills every OpDef
// slot or says why not, and its output dtypes follow from its input dtypes
// alone.
func TestEverySlotFilledOrExplained(t *testing.T) {
	for _, g := range SlotGaps() {
		t.Error(g)
	}
}

// TestSlotGapsSeeAnEmptySlot: a kind registered without reasons is
// reported, so the check is not vacuous.
func TestSlotGapsSeeAnEmptySlot(t *testing.T) {
	d := *Lookup("Conv")
	d.Kind, d.AccumulationLength, d.Without = "TestOnlyConv", nil, Without{}
	d.New = func() Op { return &testConv{} }
	d.Example = nil
	Register(&d)
	t.Cleanup(func() { Unregister("TestOnlyConv") })
	slots := map[string]bool{}
	for _, g := range SlotGaps() {
		if g.Kind == "TestOnlyConv" {
			slots[g.Slot] = true
		}
	}
	for _, s := range []string{"AccumulationLength", "RemapAxes", "Decompose", "NoopWhen", "OutputDTypes"} {
		if !slots[s] {
			t.Errorf("slot %s of a kind without reasons was not reported", s)
		}
	}
}

type testConv struct{ Conv }

func (*testConv) Kind() string { return "TestOnlyConv" }
