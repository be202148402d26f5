// The board contract: what the kernel needs from the machine around the CPU.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/drivers/pci"
	"gmpos/kernel/mm"
)

// Board is the machine around the CPU: how it was started, what is wired to it, and how to leave
// it. There is one implementation per board — the PC (gmpos/kernel/board/pc) today, arm64's QEMU
// virt and Raspberry Pi boards next — and one file per board (board_pc.go) declares the variable
// board of that concrete type. The kernel calls the concrete type, never through this interface:
// an interface call makes the compiler assume its arguments escape, and the kernel passes stack
// buffers to ConsoleWrite in trap context, where nothing may be allocated. The interface is the
// contract, written down and checked by the compiler (var _ Board = &board).
//
// Contexts: boot-only methods say so; the others may run in trap context, under the BKL (or, for
// ConsoleWrite and Exit on the fault path, alone).
type Board interface {
	// EarlyInit brings up the console and announces the kernel (the runner's start marker and
	// "entry" record). Boot: the first thing kernelMain does.
	EarlyInit()
	// Probe reads the loader's and the firmware's hand-off (memory map, command line,
	// processors, interrupt wiring). Boot, on the early identity map. ok false: no memory map.
	Probe() (ok bool, why string)
	// MapDevices maps the registers the board itself uses before InitIRQ (console, RTC) into
	// the kernel's page table with mapDevice. Boot: after the kernel's table is built, before
	// the kernel switches to it (the PC's ports need no mapping; arm64 boards' UARTs do).
	MapDevices(mapDevice func(pa, size uintptr) bool) bool
	// RAM is the usable RAM, board reservations removed (the kernel removes its own image).
	RAM() []mm.Region
	// Cmdline is the kernel command line (docs/contract.md).
	Cmdline() []byte
	// BootModule is the loader's module i, as a physical range (size 0: none): 0 the
	// runner's arguments and environment (args_module.go), 1 the initramfs (fs_boot.go). Their
	// pages are in RAM() and are the kernel's to keep out of the frame allocator.
	BootModule(i int) (pa, size uintptr)
	// Cores is the number of processors the firmware lists, 0 if it does not say.
	Cores() int

	// ConsoleWrite sends p on a console channel: consoleStdout, consoleStderr, consoleControl.
	ConsoleWrite(ch int, p []byte)
	// Console input (console_input.go): ConsoleInputIRQ is the interrupt line of channel ch's
	// receiver (-1: none; boot); ConsoleInputEnable turns that interrupt on or off;
	// ConsoleRead takes one received byte, ok false if none waits.
	ConsoleInputIRQ(ch int) int
	ConsoleInputEnable(ch int, on bool)
	ConsoleRead(ch int) (c byte, ok bool)

	// MeasureHz returns the rate of a counter, counted over ns nanoseconds of the board's
	// reference clock, and its uncertainty in parts per million; it measures again, a few
	// times at most, while that is above goodPPM. Boot.
	MeasureHz(read func() uint64, ns int64, goodPPM uint64) (hz, ppm uint64)
	// WallClock is the time of day at boot in Unix nanoseconds (0 if unknown). Boot.
	WallClock() int64

	// InitIRQ brings up the device interrupt controller with every line masked; mapDevice
	// identity-maps device registers. Boot.
	InitIRQ(mapDevice func(pa, size uintptr) bool) bool
	// IRQLines is the number of device interrupt lines (0: none).
	IRQLines() int
	// EnableIRQ routes line to the boot core and unmasks it; DisableIRQ masks it.
	EnableIRQ(line int) bool
	DisableIRQ(line int)
	// MSILines are the interrupt lines devices raise with a message (PCI MSI/MSI-X: a memory
	// write the interrupt controller turns into the line's vector) rather than a wire:
	// [first, first+n), above the wired lines. EnableIRQ and DisableIRQ accept them: the PC
	// does nothing (such a line is masked at its device), a GIC unmasks the SPI a GICv2m frame
	// raises for it. Valid after InitIRQ.
	MSILines() (first, n int)
	// MSIMessage is the address and data the PCI function with requester ID requester
	// (bus<<8 | device<<3 | function) must write to raise MSI line, delivered to the boot core.
	// The PC and a GICv2m need no requester ID; a GICv3 ITS translates by it. ok false: not an
	// MSI line, or the boot core cannot be addressed by a message. Boot.
	MSIMessage(line int, requester uint16) (addr uint64, data uint32, ok bool)
	// The board's test interrupt source: a device a program can make interrupt, to test the
	// interrupt path end to end (the PC's RTC periodic interrupt). TestIRQ is its line;
	// StartTestIRQ starts it at about hz and returns the real rate; AckTestIRQ acknowledges one
	// interrupt in the handler and reports whether it was the source's.
	TestIRQ() int
	StartTestIRQ(hz int) int
	StopTestIRQ()
	AckTestIRQ() bool

	// PCIConfig returns the mechanism that reaches PCI configuration space (drivers/pci),
	// mapping the device memory it needs with mapDevice: ECAM where the firmware describes it,
	// else the board's own mechanism. The value lives in the board: nothing is allocated. false:
	// the board has no PCI. Boot.
	PCIConfig(mapDevice func(pa, size uintptr) bool) (pci.Config, bool)
	// PCIWindow is the bus address range where memory BARs the firmware left unassigned may be
	// placed (pci_devices.go), free of RAM and of the board's own devices. Boot, after Probe.
	PCIWindow() pci.Window

	// Exit stops the machine with status v, the program's whole exit status (the runner's exit
	// record comes first; a board whose exit device carries fewer bits truncates). Never returns.
	Exit(v uint8)
}

// Console channels (docs/contract.md: COM1, COM2, COM3 on the PC).
const (
	consoleStdout  = 1 // the program's fd 1
	consoleStderr  = 2 // the program's fd 2, and kernel fault reports
	consoleControl = 3 // one-line records for the runner: entry, log, exit, panic, trace
)
