// The interrupt table: device interrupt lines and their handlers.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/arch"
	"gmpos/sched"
)

// A device driver registers a handler for its interrupt line at boot (irqRegister); the board's
// interrupt controller routes the line to a CPU vector (x86: the I/O APIC), the architecture's
// trap path reports it as arch.TrapIRQ with the line, and irqDispatch calls the handler. This is
// Linux's request_irq/handle_irq in miniature, with one handler per line.
//
// Handlers run in interrupt context (doc.go, "Contexts"): interrupts off, BKL held, on the
// kernel stack of whichever core took the interrupt (today every line goes to core 0). They must
// not allocate, block or take long: acknowledge the device, record what happened, and wake whoever
// waits for it (wakeThread or wakeToRestart — which hands the thread to the scheduler, the
// runtime's goready), nothing more. The end-of-interrupt write comes after the handler, so a
// level-triggered line that the handler has quietened is not delivered twice.
//
// Registration happens at boot only: the table holds func values, and a store of one is a pointer
// write that, once the Go runtime's garbage collector runs, would need a write barrier the kernel
// cannot execute.

// irqHandler handles one interrupt on line, on core cpu.
type irqHandler func(line int, cpu int)

// irqTable is indexed by line. handler and name are written at boot only; count is protected by
// the BKL.
var irqTable [arch.MaxIRQLines]struct {
	handler irqHandler
	name    string
	count   uint64 // interrupts handled
}

// irqRegister installs h for line and enables the line at the board's interrupt controller.
// Boot only. false if the line does not exist or is taken.
func irqRegister(line int, name string, h irqHandler) bool {
	if line < 0 || line >= len(irqTable) || !irqLineExists(line) || irqTable[line].handler != nil {
		return false
	}
	irqTable[line].handler, irqTable[line].name = h, name
	return board.EnableIRQ(line)
}

// irqLineExists reports whether line is one of the board's wired lines or one of its MSI lines.
func irqLineExists(line int) bool {
	first, n := board.MSILines()
	return line < board.IRQLines() || line >= first && line < first+n
}

// Message-signalled interrupts (PCI MSI/MSI-X) need no wire: the board reserves the lines above
// its wired ones (Board.MSILines), and a driver takes the next free one with irqAllocMSI and
// programs the returned message (address, data) into its device — for MSI-X, with
// pci.MSIX.SetVector. The line is then like any other: the handler runs in interrupt context,
// with the end of interrupt after it; masking is the driver's business, at the device.

// irqAllocMSI takes the lowest free MSI line, installs h for it and returns the line and the
// message that the PCI function with requester ID requester writes to raise it. Boot only. false: no MSI line is free, or the board cannot address the
// boot core with a message.
func irqAllocMSI(name string, requester uint16, h irqHandler) (line int, addr uint64, data uint32, ok bool) {
	first, n := board.MSILines()
	for line = first; line < first+n && line < len(irqTable); line++ {
		if irqTable[line].handler != nil {
			continue
		}
		if addr, data, ok = board.MSIMessage(line, requester); !ok || !irqRegister(line, name, h) {
			return -1, 0, 0, false
		}
		return line, addr, data, true
	}
	return -1, 0, 0, false
}

// irqDispatch handles device interrupt line (trap.go): the handler, then end of interrupt.
func irqDispatch(f *arch.Frame, line int, cpu int) {
	if line < len(irqTable) && irqTable[line].handler != nil {
		irqTable[line].count++
		cpus[cpu].irqs++
		irqTable[line].handler(line, cpu)
	} else {
		klogOnce(&unexpectedIRQ, "interrupt on a line without a handler")
	}
	arch.EOI(f)
}

var unexpectedIRQ bool // logged once; BKL

// The interrupt self-test: gmpos_info(infoIRQTest) lets a program exercise the whole path — the
// board's interrupt controller, the vector, this table, a handler, and a thread woken from
// interrupt context — with the board's test interrupt source (the PC's RTC). The calling thread
// blocks (waitIRQ) until the handler has seen n interrupts; the result is the count, or
// -ETIMEDOUT if they did not all arrive within the deadline. One test at a time. BKL.
var irqTest struct {
	line    int       // the source's line, -1 if the board has none
	waiter  sched.GID // the thread waiting (0: no test running)
	want    int
	seen    int
	rate    int   // the rate the source really runs at (Hz)
	started int64 // nanotime when the source was started
	elapsed int64 // nanotime from start to the last interrupt of the last test
}

// irqTestInit registers the self-test's handler on the board's test line. Boot.
func irqTestInit() {
	irqTest.line = -1
	if line := board.TestIRQ(); irqRegister(line, "test", irqTestHandler) {
		irqTest.line = line
	}
}

// irqTestStart starts the source at hz and blocks t until n interrupts have arrived or timeoutNS
// has passed; the waker stores the result.
func irqTestStart(t *Thread, gp sched.GID, cpu int, n, hz int, timeoutNS int64) int64 {
	if irqTest.line < 0 {
		return -ENODEV
	}
	if irqTest.waiter != 0 {
		return -EAGAIN
	}
	if n <= 0 || hz <= 0 {
		return -EINVAL
	}
	irqTest.waiter, irqTest.want, irqTest.seen = gp, n, 0
	irqTest.started = nanotime()
	t.waitObj = uintptr(irqTest.line)
	irqTest.rate = board.StartTestIRQ(hz) // interrupts are off: none arrives before the wait begins
	block(t, gp, cpu, waitIRQ, irqTest.started+timeoutNS)
	return 0
}

// irqTestHandler is the test line's handler. Interrupt context.
func irqTestHandler(line int, cpu int) {
	if !board.AckTestIRQ() || irqTest.waiter == 0 {
		return
	}
	irqTest.seen++
	if irqTest.seen == irqTest.want {
		irqTest.elapsed = nanotime() - irqTest.started
		wakeThread(irqTest.waiter, int64(irqTest.seen), cpu) // unblock ends the test (irqTestEnd)
	}
}

// irqTestTimeout ends a self-test whose interrupts did not all arrive (wait.go, on the deadline).
func irqTestTimeout(gp sched.GID, cpu int) { wakeThread(gp, -ETIMEDOUT, cpu) }

// irqTestEnd stops the source and forgets the waiter, whatever ended its wait (unblock: the
// handler, the timeout, or a signal). A test interrupted by a signal used to stay registered, and
// its last interrupt then "completed" whatever its thread was blocked in next.
func irqTestEnd(gp sched.GID) {
	if irqTest.waiter == gp {
		board.StopTestIRQ()
		irqTest.waiter = 0
	}
}
