//go:build !race

// Race-detector flag for scaling tests down.
// SPDX-License-Identifier: BSD-3-Clause

package sched

// raceEnabled: instrumented atomics are ~10-100x slower; heavy loops scale down.
const raceEnabled = false
