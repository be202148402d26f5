package amd64

import (
	"unsafe"

	"gmpos/drivers/uart"
)

// kernelTrap is the portable kernel's trap handler (gmpos/kernel.trap). The arch package sits below
// the kernel in the import graph, so the two upcalls (kernelMain at boot, kernelTrap on every entry)
// are bound by symbol name.
//
//go:linkname kernelTrap gmpos/kernel.trap
func kernelTrap(f *Frame) *Frame

//go:linkname kernelMain gmpos/kernel.kernelMain
func kernelMain()

// trap is called by trapCommon on the core's kernel stack with interrupts off. It returns the frame
// to resume (nil idles the core).
func trap(f *Frame) *Frame {
	return kernelTrap(f)
}

func resume()
func enterFirst(f *Frame)
func rt0Addr() uintptr

// Current returns the calling core's CPU (read through GS base).
//
//go:nosplit
func Current() *CPU { return currentCPU() }

func currentCPU() *CPU

// ID is the core's index.
//
//go:nosplit
func (c *CPU) ID() int { return int(c.id) }

// PrepareResume records the FP save area and FS base of the thread whose frame trap() is about to
// return; resume (trap_amd64.s) loads them. fpArea must be 16-byte aligned (FXRSTOR, SDM Vol. 2A).
//
//go:nosplit
func (c *CPU) PrepareResume(fpArea, fsBase uintptr) {
	c.fpArea = fpArea
	c.userFS = fsBase
}

// Enter starts the first thread on this core and never returns. It is nosplit because it changes
// the kernel g's stack bounds while still running on the old stack.
//
//go:nosplit
func Enter(f *Frame) {
	c := Current()
	if c.nextStackHi != 0 {
		c.setKernelStack(c.nextStackLo, c.nextStackHi)
		setRSP0(int(c.id), c.nextStackHi)
	}
	enterFirst(f)
}

// UserEntry is the ELF entry of the Go program (runtime _rt0_amd64_linux).
func UserEntry() uintptr { return rt0Addr() }

// kmain is the first Go code: it runs on the boot stack, interrupts off, before the Go runtime.
func kmain() {
	c := &cpus[0]
	lo := uintptr(unsafe.Pointer(&bootStack[0]))
	c.setKernelStack(lo, lo+uintptr(len(bootStack)))
	uart.Init()
	uart.WriteString(&uart.Stdout, "\x1b]gmpos-start\x07")
	uart.WriteString(&uart.Control, "entry\n")
	initPIC()
	loadGDT(0)
	loadIDT(true)
	initSyscall()
	kernelMain()
}

// MultibootInfo returns the loader's magic number and the physical address of its information
// structure (Multiboot Specification 0.6.96 §3.3).
func MultibootInfo() (magic, info uint32) { return mbMagic, mbInfo }

// initPIC masks both legacy 8259 PICs: gmpos uses the local APIC and I/O APIC only, and a PIC left
// unmasked would deliver IRQ 0 on vector 8, which is #DF (8259A datasheet, OCW1).
func initPIC() {
	outb(0x21, 0xff)
	outb(0xa1, 0xff)
}

// Exported privileged operations for the portable kernel.

// Outb writes an I/O port.
func Outb(port uint16, v uint8) { outb(port, v) }

// Inb reads an I/O port.
func Inb(port uint16) uint8 { return inb(port) }

// TSC reads the time-stamp counter.
//
//go:nosplit
func TSC() uint64 { return rdtsc() }

// CR2 is the faulting linear address of the last #PF (SDM Vol. 3A §4.7).
func CR2() uintptr { return readCR2() }

// SetPageTable loads CR3 (flushing non-global TLB entries).
func SetPageTable(root uintptr) { writeCR3(root) }

// PageTable returns CR3.
func PageTable() uintptr { return readCR3() }

// FlushPage invalidates one TLB entry (INVLPG, SDM Vol. 3A §4.10.4.1).
func FlushPage(va uintptr) { invlpg(va) }

// FlushAll reloads CR3, flushing all non-global TLB entries.
func FlushAll() { writeCR3(readCR3()) }

// CPUID executes CPUID.
func CPUID(leaf, sub uint32) (a, b, c, d uint32) { return cpuid(leaf, sub) }

// RDMSR/WRMSR.
func ReadMSR(msr uint32) uint64     { return rdmsr(msr) }
func WriteMSR(msr uint32, v uint64) { wrmsr(msr, v) }

// Halt waits for the next interrupt (interrupts stay as they are).
func Halt() { halt() }

// Random returns a hardware random number (RDSEED, falling back to RDRAND; SDM Vol. 1 §7.3.17).
// ok is false when the CPU has neither or both kept failing.
func Random() (v uint64, ok bool) { return hwrandom() }

func hwrandom() (uint64, bool)
