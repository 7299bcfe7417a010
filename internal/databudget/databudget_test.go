package databudget

import "testing"

func TestBudget(t *testing.T) {
	b := ForInput(100)
	if b.Limit != 800+SlackBytes {
		t.Fatalf("limit %d", b.Limit)
	}
	if !b.Take(SlackBytes) || !b.Take(800) {
		t.Fatal("the whole limit must fit")
	}
	if b.Fits(1) || b.Take(1) || b.Used != 800+SlackBytes {
		t.Fatalf("one byte past the limit was taken (used %d)", b.Used)
	}
	if b.Fits(-1) {
		t.Fatal("a negative size (an overflowed product) must not fit")
	}
	b.AddInput(1)
	if !b.Take(8) || b.Fits(1) {
		t.Fatal("one more input byte allows exactly PerInputByte more")
	}
}
