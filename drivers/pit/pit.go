// Package pit uses the 8254 Programmable Interval Timer as a reference clock to measure other
// clocks (the TSC, the local APIC timer) at boot.
//
// The PIT counts at a fixed 1.193182 MHz on every PC (Intel 8254 datasheet; the input is the
// 14.31818 MHz colour-burst crystal divided by 12), which makes it the one clock whose frequency
// the kernel knows without being told. tamago has no 8254 driver (it calibrates from the
// hypervisor's CPUID leaves instead), hence this small one. Channel 2 is used because its gate is
// software controlled (port 0x61 bit 0) and its output readable (port 0x61 bit 5), so no interrupt
// is needed.
package pit

// Hz is the PIT input clock frequency.
const Hz = 1193182

// Ports (8254 datasheet; PC/AT port map).
const (
	portCh2  = 0x42
	portCmd  = 0x43
	portCtrl = 0x61 // bit 0: ch2 gate, bit 1: speaker, bit 5: ch2 output
)

// Port I/O, supplied by the caller so that this package stays free of assembly.
type PortIO struct {
	In  func(port uint16) uint8
	Out func(port uint16, v uint8)
}

// Measure returns clock's frequency in Hz, counted against the PIT over ticks PIT periods
// (ticks < 65536, ≈ 54.9 ms), and how sure it is: the relative uncertainty in parts per million.
//
// A measurement is only as good as the moments at which the clock is read. Under an emulator the
// virtual CPU can stall for milliseconds between two instructions (its host thread descheduled,
// or a port access waiting for the emulator's lock), and a read that comes late makes the rate
// wrong by as much — measured under a loaded QEMU: 2.45 to 5.9 GHz for one 2.445 GHz TSC, so
// every sleep of the boot was off by up to 2.4×. So each end is bracketed: the count starts during
// the write that loads it, between the clock reads just before and after it; it ends between the
// clock read before the last poll that saw it running and the read after the first poll that saw
// it done. The estimate is the middle of the interval those brackets allow, and the width of the
// interval is the uncertainty. A stall in the middle of the window costs nothing (the PIT and the
// clock both go on); one that hides the end widens the interval, and the measurement is made
// again: tries times at most (at least once), keeping the surest, stopping early at one within
// goodPPM (GoodPPM for a calibration). Linux's quick_pit_calibrate bounds its error the same way
// (arch/x86/kernel/tsc.c).
func Measure(io PortIO, ticks uint16, clock func() uint64, tries int, goodPPM uint64) (hz, ppm uint64) {
	best, bestPPM := uint64(0), uint64(1<<63)
	for i := 0; i < max(tries, 1) && bestPPM > goodPPM; i++ {
		h, p := measureOnce(io, ticks, clock)
		if p < bestPPM {
			best, bestPPM = h, p
		}
	}
	return best, bestPPM
}

// GoodPPM is an uncertainty that needs no further try when calibrating a clock: 0.1% (the
// estimate, the middle of the interval, is then within 0.05%: 0.5 ms a second).
const GoodPPM = 1000

// measureOnce makes one bracketed measurement (see Measure).
func measureOnce(io PortIO, ticks uint16, clock func() uint64) (hz, ppm uint64) {
	ctrl := io.In(portCtrl)
	io.Out(portCtrl, ctrl&^0x02|0x01) // gate on, speaker off
	// Channel 2, access lobyte/hibyte, mode 0 (interrupt on terminal count), binary: OUT goes
	// low on the command and high when the count reaches zero. Counting starts once the high
	// byte is written (8254 datasheet, mode 0).
	io.Out(portCmd, 0xb0)
	io.Out(portCh2, uint8(ticks))
	s0 := clock()
	io.Out(portCh2, uint8(ticks>>8))
	s1 := clock()
	lastLow := s1 // the read before the latest poll that saw OUT low
	var end uint64
	for {
		b := clock()
		out := io.In(portCtrl) & 0x20
		a := clock()
		if out != 0 {
			end = a
			break
		}
		lastLow = b
	}
	io.Out(portCtrl, ctrl)
	if lastLow < s1 || end < s0 || end == s0 {
		return 0, 1 << 63 // a clock that went back: no measurement
	}
	lo, hi := lastLow-s1, end-s0 // the fewest and the most cycles the count can have taken
	mid := lo + (hi-lo)/2
	return mid * Hz / uint64(ticks), (hi - lo) * 1_000_000 / hi
}
