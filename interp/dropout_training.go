package interp

import (
	"fmt"
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// dropsNothing checks a Dropout's run-time training mode: with training on
// and a ratio other than 0 the node would drop elements at random, which
// no reference can reproduce.
func dropsNothing(x *exec) error {
	mode := x.in(2)
	if mode == nil {
		return nil
	}
	if mode.size() != 1 || mode.isFloating() {
		return fmt.Errorf("training_mode is %s%v, want one bool", mode.dt, mode.shape)
	}
	if mode.i[0] == 0 {
		return nil
	}
	ratio := float64(x.s.node.Op.(*canon.Dropout).Ratio)
	if r := x.in(1); r != nil {
		if r.size() != 1 || !r.dt.IsFloat() {
			return fmt.Errorf("ratio is %s%v, want one float", r.dt, r.shape)
		}
		if ratio = 0; r.dt == canon.Float64 && r.i != nil { // float64 carried by its bits
			ratio = math.Float64frombits(uint64(r.i[0]))
		} else {
			ratio = r.fl(0)
		}
	}
	if ratio != 0 {
		return fmt.Errorf("training_mode is true with ratio %g: Dropout would drop elements at random, which modelbridge does not run (a ratio of 0, or training_mode false, is the identity)", ratio)
	}
	return nil
}
