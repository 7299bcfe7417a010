package interp

import (
	"sync/atomic"
	"testing"
	"time"
)

// A send left over from an earlier condition (a helper's notify that came
// after the caller had seen the count reach 0 and moved on) does not end
// a later wait: the waiter checks its condition again and sleeps on.
func TestWakerIgnoresLateSend(t *testing.T) {
	w := newWaker()
	w.ch <- struct{}{} // the late send
	var ready atomic.Bool
	done := make(chan bool)
	go func() {
		w.wait(ready.Load, 0)
		done <- ready.Load()
	}()
	select {
	case <-done:
		t.Fatal("wait returned on a late send before its condition held")
	case <-time.After(50 * time.Millisecond):
	}
	ready.Store(true)
	w.notify()
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("wait returned before its condition held")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("wait did not return after its condition held and it was notified")
	}
}
