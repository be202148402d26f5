// Package counter measures a counter's rate against a reference counter of known rate, for the
// arm64 boards' MeasureHz (the Board contract, kernel/board.go): on arm64 the reference is the
// generic counter, CNTVCT_EL0 at CNTFRQ_EL0 Hz (ARM ARM D11.1), whose rate the firmware or
// QEMU tells. The PC measures against the PIT instead (gmpos/drivers/pit.Measure, the same
// bracketing). Boot only; it allocates nothing.
package counter
