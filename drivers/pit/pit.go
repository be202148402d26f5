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

// Measure counts how many ticks of clock elapse while the PIT counts down ticks PIT periods, and
// returns the clock's frequency in Hz. ticks must be below 65536 (≈ 54.9 ms).
func Measure(io PortIO, ticks uint16, clock func() uint64) uint64 {
	ctrl := io.In(portCtrl)
	io.Out(portCtrl, ctrl&^0x02|0x01) // gate on, speaker off
	// Channel 2, access lobyte/hibyte, mode 0 (interrupt on terminal count), binary: OUT goes
	// low on the command and high when the count reaches zero.
	io.Out(portCmd, 0xb0)
	io.Out(portCh2, uint8(ticks))
	io.Out(portCh2, uint8(ticks>>8))
	t0 := clock()
	for io.In(portCtrl)&0x20 == 0 {
	}
	t1 := clock()
	io.Out(portCtrl, ctrl)
	return (t1 - t0) * Hz / uint64(ticks)
}
