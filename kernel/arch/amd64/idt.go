package amd64

import "unsafe"

// idt holds 256 interrupt-gate descriptors (SDM Vol. 3A §6.14.1, Figure 6-8). Interrupt gates clear
// IF, so the kernel always runs with interrupts off: it is a non-preemptible kernel whose handlers
// are short, and whose only waiting is done by returning to another thread or to the idle loop.
var idt [256][2]uint64

var idtPtr descPtr

// vectorStubStride is the distance between the per-vector entry stubs in trap_amd64.s.
const vectorStubStride = 16

func vectorStubs() uintptr // trap_amd64.s
func syscallEntry()        // trap_amd64.s
func syscallEntryAddr() uintptr
func reloadSegments()

// setGate makes vector vec an interrupt gate to handler, on interrupt stack ist (0: none). dpl is
// the highest privilege level (numerically) that may raise the vector with an INT instruction:
// 0 for all but #BP and #OF, which user code raises on purpose (INT3, INTO) — as Linux's
// system gates do (arch/x86/kernel/idt.c, SYSG) — so that a debugger's or the Go runtime's INT3
// is SIGTRAP, not the #GP a DPL-0 gate turns it into (SDM Vol. 3A §6.12.1.1).
func setGate(vec int, handler uintptr, ist int, dpl uint64) {
	idt[vec][0] = uint64(handler&0xffff) | uint64(KernelCS)<<16 | uint64(ist)<<32 |
		(0x8e|dpl<<5)<<40 | uint64(handler>>16&0xffff)<<48 // P, DPL, type 0xE (64-bit interrupt gate)
	idt[vec][1] = uint64(handler >> 32)
}

// loadIDT fills the IDT (once) and loads it on the calling core.
func loadIDT(first bool) {
	if first {
		base := vectorStubs()
		for v := 0; v < 256; v++ {
			ist := 0
			switch v {
			case VecDouble:
				ist = 1
			case VecNMI, VecMachine:
				ist = 2
			}
			dpl := uint64(0)
			if v == VecBreakpoint || v == VecOverflow {
				dpl = 3
			}
			setGate(v, base+uintptr(v*vectorStubStride), ist, dpl)
		}
		idtPtr.set(uintptr(unsafe.Pointer(&idt)), int(unsafe.Sizeof(idt)))
	}
	lidt(uintptr(unsafe.Pointer(&idtPtr)))
}

// Model-specific registers for SYSCALL (SDM Vol. 3A §5.8.8) and segment bases (§3.4.4).
const (
	msrEFER     = 0xc0000080
	msrSTAR     = 0xc0000081
	msrLSTAR    = 0xc0000082
	msrFMASK    = 0xc0000084
	msrAPICBase = 0x1b // IA32_APIC_BASE (§11.4.4)
)

// initSyscall programs SYSCALL: entry point, selectors, and the RFLAGS bits cleared on entry (IF so
// the entry runs with interrupts off, DF for the ABI, TF and AC for safety, and NT: user code can
// set it with POPFQ, and a kernel that ran on with it set faulted in its own IRETQ, which in
// 64-bit mode raises #GP when NT is set (SDM Vol. 2A IRET, "TASK-RETURN") — a user program could
// stop the machine. Linux clears it the same way (MSR_SYSCALL_MASK's X86_EFLAGS_NT). An
// interrupt or exception clears NT itself; the user's value comes back from the saved flags.)
func initSyscall() {
	wrmsr(msrSTAR, uint64(KernelCS)<<32|uint64(0x18)<<48)
	wrmsr(msrLSTAR, uint64(syscallEntryAddr()))
	wrmsr(msrFMASK, FlagIF|FlagDF|FlagTF|FlagAC|FlagNT)
	wrmsr(msrEFER, rdmsr(msrEFER)|1) // SCE
}
