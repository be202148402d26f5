package kernel

import (
	"unsafe"

	"gmpos/kernel/arch/amd64"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// The image is linked at 1 MiB (docs/contract.md: -T 0x101000): its first page holds the ELF and
// program headers, which the loader copied along with the rest of the file.
const imageBase = 0x100000

// tickNS is the scheduler tick while a thread runs: the policy's 10 ms slice is checked this
// often. The timer is one-shot (timer.go): timeouts fire at their own deadline, not on a tick,
// and an idle core with nothing to wait for gets no interrupts at all.
const tickNS = 1_000_000

var bootTimes struct {
	entryTSC    uint64
	kernelEntry int64 // CLOCK_MONOTONIC at kernel entry (negative: before calibration finished)
	userEntry   int64 // CLOCK_MONOTONIC when the first user instruction ran
}

// kernelMain brings the machine from "64-bit Go code runs" to "the Go program runs": memory,
// clock, timer, scheduler, the first thread. It runs once, on the bootstrap processor, before the Go
// runtime exists (see doc.go for what that forbids), and never returns.
//
//go:linkname kernelMain
func kernelMain() {
	bootTimes.entryTSC = amd64.TSC()
	magic, info := amd64.MultibootInfo()
	if !parseMultiboot(magic, info) {
		bootPanic("no multiboot memory map (was the image loaded by a multiboot loader?)")
	}
	parseCmdline(bootInfo.cmdline[:bootInfo.ncmd])
	if cmd.bad {
		klog("malformed kernel command line token ignored")
	}
	if cmd.faultT.equals("boot") {
		deliberateFault()
	}

	var segs [8]mm.Segment
	nseg, imageEnd := imageSegments(segs[:])
	var ram [mm.MaxRegions]mm.Region
	nram := usableRAM(imageBase, imageEnd, ram[:])
	if mm.Init(ram[:nram]) == 0 {
		bootPanic("no usable RAM")
	}
	mm.FlushTLB = flushPage
	mm.FlushAll = flushAllCPUs
	pt, e := mm.BuildKernelSpace(ram[:nram], segs[:nseg])
	if e != mm.OK {
		bootPanic("cannot build the kernel address space")
	}
	// The local APIC's registers, identity mapped, uncached, supervisor only; the range is also
	// reserved in the user address space so that mmap never places anything there.
	if pt.Map(amd64.LAPICBase, amd64.LAPICBase, mm.PTEWrite|mm.PTECacheDisable|mm.PTENoExec) != mm.OK ||
		mm.Space.RegisterFixed(amd64.LAPICBase, mm.PageSize, mm.PROT_NONE) != mm.OK {
		bootPanic("cannot map the local APIC")
	}
	amd64.PrepareAPs() // writes the AP trampoline to low memory, still identity mapped
	madtCPUs := countCPUs()
	amd64.SetPageTable(pt.Root)
	amd64.SetKernelPageTable(pt.Root)
	mm.SetPhysOffset(mm.DirectMapBase)

	// From here on traps run on a guarded kernel stack.
	top, e := mm.MapKernelStack(0)
	if e != mm.OK {
		bootPanic("cannot map the kernel stack")
	}
	amd64.Current().UseKernelStack(top-mm.KernelStackSize, top)

	calibrateClock()
	bootTimes.kernelEntry = -int64((clock.tsc0 - bootTimes.entryTSC) * 1e9 / clock.tscHz)
	amd64.InitLAPIC()
	amd64.CalibrateTimer()
	ncpu = startAPs(madtCPUs)

	policy := "gmp"
	if cmd.sched.n > 0 {
		policy = unsafe.String(&cmd.arena[cmd.sched.off], cmd.sched.n)
	}
	// Timer is passed explicitly: Init must not discover it with a type assertion, which would
	// allocate before the runtime exists.
	cfg := sched.Config{NP: ncpu, PolicyName: policy, Platform: plat, Timer: plat}
	if cmd.trace {
		cfg.Trace = traceSched
	}
	if err := S.Init(cfg); err != nil {
		klog("unknown scheduler policy (sched=NAME); using gmp")
		cfg.PolicyName = "gmp"
		if S.Init(cfg) != nil {
			bootPanic("scheduler initialisation failed")
		}
	}

	t, gp := newThread(0)
	if t == nil {
		bootPanic("cannot create the first thread")
	}
	processID = int64(t.tid)
	sp, ok := buildUserStack()
	if !ok {
		bootPanic("cannot build the initial user stack")
	}
	t.frame = amd64.Frame{IP: uint64(amd64.UserEntry()), CS: amd64.UserCS, SS: amd64.UserDS, SP: uint64(sp), Flags: amd64.FlagIF | 2}
	t.initFP()
	startThread(gp, 0)
	stats.threads = 1

	if cmd.klog {
		var k kbuf
		total, free := mm.FrameCounts()
		k.s("log boot: ram=").d(int64(total * mm.PageSize >> 20)).s("MiB free=").d(int64(free * mm.PageSize >> 20)).
			s("MiB tsc=").d(int64(clock.tscHz / 1000)).s("kHz apic-timer=").d(int64(amd64.TimerRate() / 1000)).
			s("kHz cpus=").d(int64(ncpu)).s(" sched=").s(S.Policy().Name()).record()
	}
	amd64.StartOneShot()
	bootTimes.userEntry = nanotime()
	bklLock(0)
	smpGo.Store(true) // the APs join the scheduler, each as soon as it gets the BKL
	f := schedule(0)
	flushPending()
	bklUnlock()
	amd64.Enter(f)
}

// imageSegments reads the PT_LOAD program headers of the loaded image (ELF-64 Object File Format
// §"Program header") and returns them with the end of the image.
func imageSegments(out []mm.Segment) (int, uintptr) {
	if peek32(imageBase) != 0x464c457f { // "\x7fELF"
		bootPanic("no ELF header at the image base")
	}
	phoff := uintptr(peek64(imageBase + 0x20))
	phentsize := uintptr(*(*uint16)(ptr(imageBase + 0x36)))
	phnum := int(*(*uint16)(ptr(imageBase + 0x38)))
	n := 0
	var end uintptr
	for i := 0; i < phnum; i++ {
		ph := imageBase + phoff + uintptr(i)*phentsize
		if peek32(ph) != 1 { // PT_LOAD
			continue
		}
		s := mm.Segment{Vaddr: uintptr(peek64(ph + 16)), Memsz: uintptr(peek64(ph + 40)), Flags: peek32(ph + 4)}
		if n < len(out) {
			out[n] = s
			n++
		}
		if e := s.Vaddr + s.Memsz; e > end {
			end = e
		}
	}
	return n, (end + mm.PageSize - 1) &^ (mm.PageSize - 1)
}

// bootPanic stops the machine during boot with a message on stderr and a panic record.
func bootPanic(msg string) {
	var k kbuf
	k.s("gmpos: boot failed: ").s(msg).c('\n').to(consolePort(2))
	k.s("panic boot: ").s(msg).record()
	debugExit(kernelPanicCode)
}

// mmMapKernelStack maps the guarded kernel stack of core cpu (bad reports failure).
func mmMapKernelStack(cpu int) (top uintptr, bad bool) {
	top, e := mm.MapKernelStack(cpu)
	return top, e != mm.OK
}

const kernelStackSize = mm.KernelStackSize
