// Hosted tests: a simulated 8254 channel 2 and a CPU that stalls between instructions.
// SPDX-License-Identifier: BSD-3-Clause

package pit

import (
	"math/rand"
	"testing"
)

// sim is a PC whose time is ns; every port access and clock read advances it by step, and the
// stall function may add a stall (the vCPU descheduled) before any of them.
type sim struct {
	ns        float64
	step      float64
	hz        float64 // the measured clock's true rate
	armedAt   float64 // when channel 2 was loaded (counting started)
	count     float64 // its count
	armed     bool
	wrote     int // bytes of the count written since the command
	stall     func() float64
	ctrl      uint8
	lo        uint8
	pendingHi bool
}

func (s *sim) tick() { s.ns += s.step + s.stall() }

func (s *sim) in(port uint16) uint8 {
	s.tick()
	if port != portCtrl {
		return 0
	}
	v := s.ctrl &^ 0x20
	if s.armed && (s.ns-s.armedAt)*Hz/1e9 >= s.count {
		v |= 0x20 // OUT high: terminal count reached
	}
	return v
}

func (s *sim) out(port uint16, v uint8) {
	s.tick()
	switch port {
	case portCtrl:
		s.ctrl = v
	case portCmd:
		s.armed, s.wrote = false, 0
	case portCh2:
		if s.wrote == 0 {
			s.lo, s.wrote = v, 1
			return
		}
		s.count = float64(uint16(s.lo) | uint16(v)<<8)
		s.armed, s.armedAt, s.wrote = true, s.ns, 2
	}
}

func (s *sim) clock() uint64 {
	s.tick()
	return uint64(s.ns * s.hz / 1e9)
}

func (s *sim) io() PortIO { return PortIO{In: s.in, Out: s.out} }

const ticks10ms = 11932 // 10 ms of PIT periods

func TestMeasureQuiet(t *testing.T) {
	s := &sim{step: 1000, hz: 2.445e9, stall: func() float64 { return 0 }}
	hz, ppm := Measure(s.io(), ticks10ms, s.clock, 8, GoodPPM)
	if d := relErr(hz, s.hz); d > 0.001 || ppm > 1000 {
		t.Fatalf("quiet machine: %d Hz (off by %.4f%%), uncertainty %d ppm", hz, d*100, ppm)
	}
}

// TestMeasureStalls: the vCPU stalls for up to 15 ms at random moments — about once per 10 ms
// window, at its end, its start, anywhere. The measurement must stay within 0.1% of the truth:
// the naive one (read the clock after the loop) was off by up to 2.4× like this.
func TestMeasureStalls(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	worst := 0.0
	for trial := 0; trial < 200; trial++ {
		s := &sim{step: 1000, hz: 2.445e9}
		s.stall = func() float64 {
			if r.Intn(10000) == 0 {
				return float64(r.Intn(15_000_000))
			}
			return 0
		}
		hz, _ := Measure(s.io(), ticks10ms, s.clock, 8, GoodPPM)
		worst = max(worst, relErr(hz, s.hz))
	}
	if worst > 0.001 {
		t.Fatalf("with stalls the worst of 200 measurements is off by %.3f%%", worst*100)
	}
	t.Logf("worst of 200 stalled measurements: %.4f%% off", worst*100)
}

// TestMeasureUncertainty: a stall right at the end widens the interval, and the uncertainty
// says so (so that Measure tries again).
func TestMeasureUncertainty(t *testing.T) {
	n := 0
	s := &sim{step: 1000, hz: 2.445e9}
	s.stall = func() float64 {
		n++
		if s.armed && (s.ns-s.armedAt) > 9.99e6 && n%2 == 0 && (s.ns-s.armedAt) < 10.5e6 {
			return 5e6 // 5 ms lost around the terminal count
		}
		return 0
	}
	_, ppm := measureOnce(s.io(), ticks10ms, s.clock)
	if ppm < GoodPPM {
		t.Fatalf("a 5 ms stall at the end reported as %d ppm", ppm)
	}
}

func relErr(got uint64, want float64) float64 {
	d := float64(got) - want
	if d < 0 {
		d = -d
	}
	return d / want
}
