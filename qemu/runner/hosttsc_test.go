// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"testing"
	"time"
)

func TestHostTSCHz(t *testing.T) {
	s := startTSC()
	if !hasRDTSC || !invariantTSC() {
		if s.ok || s.hostTSCHz() != 0 {
			t.Fatal("a rate without an invariant TSC")
		}
		t.Skip("no invariant TSC on this host")
	}
	if hz := s.hostTSCHz(); hz != 0 {
		t.Errorf("a rate (%d Hz) from a window shorter than %v", hz, minTSCWindow)
	}
	time.Sleep(minTSCWindow + 10*time.Millisecond)
	a := s.hostTSCHz()
	time.Sleep(minTSCWindow)
	b := s.hostTSCHz()
	if a < 1e8 || a > 1e11 {
		t.Fatalf("host TSC rate %d Hz", a)
	}
	// Two windows from one start agree within 0.1% unless the host is very busy: the pairs of
	// reads are bracketed (readTSCPair), so only a descheduling between them could widen it.
	if d := float64(max(a, b)-min(a, b)) / float64(a); d > 0.001 {
		t.Errorf("rates %d and %d Hz differ by %.3f%%", a, b, 100*d)
	}
}
