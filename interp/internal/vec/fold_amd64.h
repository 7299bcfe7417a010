// FOLD_SUM16 adds the four 4-lane float64 accumulators Y0–Y3 of SumF64's
// order into X0: (Y0 + Y1) + (Y2 + Y3), then its lanes as
// (l0 + l1) + (l2 + l3). It uses X1 and Y2 as scratch.
#define FOLD_SUM16 \
	VADDPD       Y1, Y0, Y0 \
	VADDPD       Y3, Y2, Y2 \
	VADDPD       Y2, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VHADDPD      X0, X0, X0 \
	VHADDPD      X1, X1, X1 \
	VADDSD       X1, X0, X0
