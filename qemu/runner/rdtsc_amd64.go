// SPDX-License-Identifier: BSD-3-Clause

package runner

// hasRDTSC: the host has the time-stamp counter (hosttsc.go).
const hasRDTSC = true

// rdtsc reads the host's time-stamp counter (rdtsc_amd64.s). No serializing fence: the
// measurement brackets it between clock reads and spans 50 ms or more.
func rdtsc() uint64
