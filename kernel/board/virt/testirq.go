// The board's test interrupt source: virt has none that runs at a chosen rate.
// SPDX-License-Identifier: BSD-3-Clause

package virt

// The PC tests its interrupt path with the RTC's periodic interrupt, which a program can run at
// up to 8 kHz (board/pc/rtc.go); the self-test (kernel/irq.go) asks for 64 interrupts at
// 1024 Hz within 2 s. Nothing wired to an SPI on virt can do that:
//
//   - the PL031 RTC interrupts when its seconds counter matches RTCMR (DDI 0224 §3.3.2): once a
//     second at best (QEMU hw/rtc/pl031.c arms a timer for whole seconds);
//   - the PL011's transmit interrupt fires as soon as a byte is written (QEMU does not pace
//     the UART), and every byte would land in the runner's console stream; QEMU 7.2's PL011
//     has no loopback mode to pace it with the receiver;
//   - the PL061 GPIO's inputs are the machine's (the power button), not the program's;
//   - the generic timer's physical timer could (CNTP_CVAL_EL0), but it is a per-core PPI, not
//     an SPI, and the timers are the CPU package's.
//
// So TestIRQ is -1: the kernel's self-test then registers nothing and answers ENODEV
// (irqTestInit, irqTestStart), and tests/testdata/irq prints "no test interrupt source".

// TestIRQ returns -1: no test source.
func (b *Board) TestIRQ() int { return -1 }

// StartTestIRQ starts nothing and returns the rate 0.
func (b *Board) StartTestIRQ(hz int) int { return 0 }

// StopTestIRQ does nothing.
func (b *Board) StopTestIRQ() {}

// AckTestIRQ reports that no interrupt is the (absent) source's.
func (b *Board) AckTestIRQ() bool { return false }
