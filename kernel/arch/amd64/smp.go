package amd64

import (
	"sync/atomic"
	"unsafe"

	"github.com/usbarmory/tamago/amd64/lapic"
)

// Application processors (APs): every core but the bootstrap processor (BSP). The BSP starts them
// all at once with INIT-SIPI-SIPI broadcast to "all excluding self" (SDM Vol. 3A §9.4.4,
// §11.6.1); each AP runs smp_amd64.s and then apMain, takes the next CPU index and announces
// itself. The kernel learns how many cores to wait for from the board (the ACPI MADT) and counts
// who checked in (Online).
const (
	apTrampolinePA = 0x8000 // AP_TRAMPOLINE in boot_amd64.h; SIPI vector = page number
	apFarPtr       = 0x16310
	apBootStackLen = 16 << 10
)

var (
	// apNext is the next CPU index to hand out (the BSP is 0); apEntry64 takes one with LOCK XADD.
	apNext uint32 = 1
	// kernelCR3 is the page table APs switch to (the BSP's).
	kernelCR3 uint64
	// apBootStacks are the APs' stacks until they move to a guarded kernel stack (like bootStack).
	apBootStacks [MaxCPU][apBootStackLen]byte
	// apicIDs maps CPU index → local APIC ID, for IPIs.
	apicIDs [MaxCPU]uint32
	// online counts cores that reached apMain, the BSP included.
	online atomic.Int32
)

func apTrampolineAddr() uintptr
func apEntryAddrs() (e32, e64 uintptr)
func apEntry32()
func apEntry64()
func apTrampoline()

//go:linkname kernelAPMain gmpos/kernel.apMain
func kernelAPMain(cpu int)

// PrepareAPs copies the trampoline to low memory and fills in the far pointers. It must run while
// the early identity map is active (before the kernel page table is loaded): low memory is not
// mapped afterwards.
func PrepareAPs() {
	src := apTrampolineAddr()
	e32, e64 := apEntryAddrs()
	for i := uintptr(0); i < 32; i++ {
		*(*byte)(addr(apTrampolinePA + i)) = *(*byte)(addr(src + i))
	}
	*(*uint32)(addr(apTrampolinePA + 22)) = uint32(e32)
	*(*uint32)(addr(apFarPtr)) = uint32(e64)
	*(*uint16)(addr(apFarPtr + 4)) = KernelCS
	apicIDs[0] = lapicDev.ID()
	online.Store(1)
}

// StartCPUs sends the start-up sequence to every other core: INIT, a 10 ms wait, then two
// start-up IPIs 200 µs apart whose vector is the trampoline's page number (SDM Vol. 3A
// §9.4.4.1, "INIT-SIPI-SIPI"). wait(ns) waits on the kernel's clock. The cores then run the
// trampoline and check in one by one (Online); the kernel decides how long to wait for them.
func StartCPUs(wait func(ns int64)) {
	lapicDev.IPI(0, 0, lapic.ICR_DST_REST|lapic.ICR_DLV_INIT|1<<lapic.ICR_INIT)
	wait(10_000_000)
	lapicDev.IPI(0, apTrampolinePA>>12, lapic.ICR_DST_REST|lapic.ICR_DLV_SIPI|1<<lapic.ICR_INIT)
	wait(200_000)
	lapicDev.IPI(0, apTrampolinePA>>12, lapic.ICR_DST_REST|lapic.ICR_DLV_SIPI|1<<lapic.ICR_INIT)
}

// SetKernelPageTable records the page table APs load.
func SetKernelPageTable(root uintptr) { kernelCR3 = uint64(root) }

// Online is the number of cores that have started, the BSP included.
func Online() int { return int(online.Load()) }

// apMain is an AP's first Go code, on its boot stack with FS/GS set up by apEntry64.
func apMain(cpu int) {
	c := &cpus[cpu]
	c.id = uintptr(cpu)
	lo := uintptr(unsafe.Pointer(&apBootStacks[cpu][0]))
	c.setKernelStack(lo, lo+apBootStackLen)
	loadGDT(cpu)
	loadIDT(false)
	initSyscall()
	enableLAPIC()
	apicIDs[cpu] = lapicDev.ID()
	online.Add(1)
	kernelAPMain(cpu)
}

// Pause is the spin-wait hint (PAUSE; SDM Vol. 2B): it tells a hyperthreaded core, or QEMU, that
// this is a spin loop.
func Pause() { pause() }

// Fence is a full memory barrier (MFENCE; SDM Vol. 3A §9.2.2): x86 may let a load overtake an
// earlier store to another location, which is the one reordering Dekker-style hand-offs (store
// my flag, then load yours) must forbid.
func Fence() { mfence() }

// addr turns an address that is not a Go object (the early identity map, an FXSAVE area in a
// kernel table) into a pointer; the double conversion keeps go vet's unsafeptr check quiet about
// the deliberate integer → pointer cast.
func addr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }
