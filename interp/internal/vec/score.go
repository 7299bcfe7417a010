package vec

// ScoreOp is what ScoreRows does to each attention score before the mask.
type ScoreOp int

const (
	ScoreKeep ScoreOp = iota // leave the score as it is
	ScoreDiv                 // divide it by the constant
	ScoreMul                 // multiply it by the constant
)

// scoreRowsRef sets each element v of s's rows of n floats to v / c or
// v * c (or v, as op says), then to that + mask[j] when mask is not nil:
// a Div or Mul by a constant, then the Add of a key mask, as the graph's
// float32 ops compute them.
func scoreRowsRef(s []float32, n int, c float32, op ScoreOp, mask []float32) {
	for o := 0; o+n <= len(s); o += n {
		row := s[o : o+n]
		for j, v := range row {
			switch op {
			case ScoreDiv:
				v = v / c
			case ScoreMul:
				v = v * c
			}
			if mask != nil {
				v = v + mask[j]
			}
			row[j] = v
		}
	}
}
