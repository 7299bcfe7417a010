package optable

import "testing"

func TestAddMergesAndRefusesDuplicates(t *testing.T) {
	var m map[string]int
	Add(&m, map[string]int{"Add": 1})
	Add(&m, map[string]int{"Sub": 2})
	if len(m) != 2 || m["Sub"] != 2 {
		t.Fatalf("merged table %v", m)
	}
	defer func() {
		if recover() == nil {
			t.Error("adding Add twice did not panic")
		}
	}()
	Add(&m, map[string]int{"Add": 3})
}
