// The boot sequence: from "64-bit Go code runs" to "the Go program runs".
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"unsafe"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// bootTimes are reported by gmpos_info. Written once at boot.
var bootTimes struct {
	entryCycles uint64
	kernelEntry int64 // CLOCK_MONOTONIC at kernel entry (negative: before calibration finished)
	userEntry   int64 // CLOCK_MONOTONIC when the first user instruction ran
}

// kernelMain is the boot core's way from the architecture's start-up code to the Go program. It
// runs once, before the Go runtime exists (see doc.go for what that forbids), and never returns;
// each line is one step, in the only order that works.
//
//go:linkname kernelMain
func kernelMain() {
	bootTimes.entryCycles = arch.Cycles()
	board.EarlyInit() // console up, "entry" record
	if ok, why := board.Probe(); !ok {
		bootPanic(why) // memory map, command line, processors, interrupt wiring
	}
	parseCmdline(board.Cmdline())
	if cmd.bad {
		klog("malformed kernel command line token ignored")
	}
	if cmd.faultT.equals("boot") {
		deliberateFault(0)
	}

	protectKernelData() // no system call may touch the kernel's variables for the program
	initMemory()        // frames, the kernel's page table (W^X image, direct map), guarded stack
	checkUserFixup()    // a failed read of user memory is an error, not a kernel fault (fault.go)
	calibrateClock()    // cycle counter and wall clock against the board's clocks
	vdsoInit()          // the vDSO and its clock page, mapped for the program (vdso.go)
	reserveExecRegion() // children's memory, out of the program's mmap space (proc.go)
	profInit()          // profile=HZ: the sample store (profile.go)
	bootTimes.kernelEntry = -cyclesToNS(clock.cycles0 - bootTimes.entryCycles)
	if !arch.InitInterrupts(mapDevice) { // this core's interrupt controller
		bootPanic("cannot map the local interrupt controller")
	}
	arch.CalibrateTimer(measureTimer) // the per-core timer, against the cycle counter
	if !board.InitIRQ(mapDevice) {    // the device interrupt controller, lines masked
		bootPanic("cannot map the device interrupt controller")
	}
	irqTestInit()                   // the interrupt self-test's handler
	consoleInputInit()              // stdin and forwarded signals (console_input.go)
	fsInit()                        // the tree: initramfs, /tmp, /dev (fs_boot.go)
	pciScan()                       // the PCI functions, for the drivers below (pci_devices.go)
	nicInit()                       // the network device, if the machine has one (nic.go)
	vconsoleInit()                  // the virtio console, if any: stdout and stderr (vconsole.go)
	p9Init()                        // the shares: host directories over virtio-9p (fs9p.go)
	ipconfigInit()                  // its addresses (ip=), /etc/hosts, /etc/resolv.conf
	ncpu = startCPUs(board.Cores()) // the other cores check in and wait for smpGo
	initScheduler()                 // one P per core
	startFirstThread()              // the Go program's main thread, runnable on this core

	if cmd.klog {
		var k kbuf
		total, free := mm.FrameCounts()
		k.s("log boot: ram=").d(int64(total * mm.PageSize >> 20)).s("MiB free=").d(int64(free * mm.PageSize >> 20)).
			s("MiB cycles=").d(int64(clock.hz / 1000)).s("kHz").s(hintedTag()).s(" timer=").d(int64(arch.TimerRate() / 1000)).
			s("kHz cpus=").d(int64(ncpu)).s(" irq-lines=").d(int64(board.IRQLines())).
			s(" sched=").s(S.Policy().Name()).record()
	}
	arch.StartTimer()
	bootTimes.userEntry = nanotime()
	bklLock(0)
	smpGo.Store(true) // the other cores join the scheduler, each as soon as it gets the BKL
	f := schedule(0)
	flushPending()
	bklUnlock()
	arch.Enter(f)
}

// protectKernelData gives kernel/mm the address and size of every variable of the kernel's
// packages (the generated zkdata_<arch>.go files): they share the image's data pages with the
// program's globals, and mm.UserRange refuses any system-call buffer that overlaps one. Boot.
func protectKernelData() {
	kernelData(mm.ProtectKernelData)
	mm.KernelData(mm.ProtectKernelData)
	archKernelData(mm.ProtectKernelData)
	boardKernelData(mm.ProtectKernelData)
	sched.KernelData(mm.ProtectKernelData)
}

// initMemory hands the usable RAM to the frame allocator, builds the kernel's page table and
// switches to it, and moves traps onto a guarded kernel stack. Boot, on the early identity map.
func initMemory() {
	var segs [8]mm.Segment
	var nseg int
	nseg, imageEnd = imageSegments(segs[:])
	var ram [mm.MaxRegions]mm.Region
	nram := withoutImage(board.RAM(), imageLoad, imageEnd, ram[:])
	// The modules stay out of the allocator for good (the initramfs's files are read where
	// the loader put them: kernel/vfs), but in the direct map, through ram.
	free, nfree := ram, nram
	for i := range numModules {
		var out [mm.MaxRegions]mm.Region
		pa, n := board.BootModule(i)
		nfree = withoutImage(free[:nfree], pa, pa+n, out[:])
		free = out
	}
	if mm.Init(free[:nfree]) == 0 {
		bootPanic("no usable RAM")
	}
	mm.FlushTLB = flushPage
	mm.FlushAll = flushAllCPUs
	mm.SyncTLB = flushPendingLocked
	mm.CPU = currentCPU // the mm lock's holder (mm/lock.go); GS base / TPIDR_EL1 is set from entry on
	mm.Relax = mmRelax
	pt, e := mm.BuildKernelSpace(ram[:nram], segs[:nseg])
	if e != mm.OK {
		bootPanic("cannot build the kernel address space")
	}
	if !board.MapDevices(mapDevice) { // the console's registers, before the switch below
		bootPanic("cannot map the board's devices")
	}
	arch.PrepareCPUs() // start-up code for the other cores, in low memory still identity mapped
	arch.SetPageTable(pt.Root)
	arch.SetKernelPageTable(pt.Root)
	mm.SetPhysOffset(mm.DirectMapBase)

	// From here on traps run on a guarded kernel stack.
	top, e := mm.MapKernelStack(0)
	if e != mm.OK {
		bootPanic("cannot map the kernel stack")
	}
	arch.Current().UseKernelStack(top-mm.KernelStackSize, top)
}

// initScheduler sizes the scheduler for the cores and picks the policy (sched=NAME). Boot.
func initScheduler() {
	policy := "gmp"
	if cmd.sched.n > 0 {
		policy = unsafe.String(&cmd.arena[cmd.sched.off], cmd.sched.n)
	}
	// Timer is passed explicitly: Init must not discover it with a type assertion, which would
	// allocate before the runtime exists.
	cfg := sched.Config{NP: ncpu, PolicyName: policy, Platform: plat, Timer: plat, Poller: netPoller{}}
	if cmd.wakeGrainSet { // wakegrain=US: gmp's wake-up preemption after US µs, 0 never
		cfg.WakeGrain = int64(cmd.wakeGrainUS) * 1000
		if cfg.WakeGrain == 0 {
			cfg.WakeGrain = -1 // 0 in a sched.Config is the default
		}
	}
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
}

// startFirstThread creates the program's main thread at the runtime's entry point, on a stack
// holding argc, argv, envp and auxv (stack.go). Its tid is the process ID. Boot.
func startFirstThread() {
	t, gp := newThread(0)
	if t == nil {
		bootPanic("cannot create the first thread")
	}
	processID = t.tid
	procs[0].pid, procs[0].threads = t.tid, 1
	if ok, why := readArgsModule(); !ok {
		bootPanic(why)
	}
	sp, ok := buildUserStack()
	if !ok {
		bootPanic("cannot build the initial user stack")
	}
	procInit(sp) // /proc's files, from the process image; the working directory
	t.frame = arch.NewUserFrame(arch.UserEntry(), sp)
	arch.InitFPState(t.fpArea())
	startThread(gp, 0)
	stats.threads = 1
}

// mapDevice identity-maps device registers [pa, pa+size) for a driver (uncached, supervisor
// only) and keeps the range out of the program's mmap space (mm.MapDevice). Boot.
func mapDevice(pa, size uintptr) bool { return mm.MapDevice(pa, size) == mm.OK }

// imageSegments reads the PT_LOAD program headers of the loaded image (ELF-64 Object File Format
// §"Program header") and returns them with the end of the image.
func imageSegments(out []mm.Segment) (int, uintptr) {
	if load32(imageBase) != 0x464c457f { // "\x7fELF"
		bootPanic("no ELF header at the image base")
	}
	phoff := uintptr(load64(imageBase + 0x20))
	phentsize := uintptr(*(*uint16)(ptr(imageBase + 0x36)))
	phnum := int(*(*uint16)(ptr(imageBase + 0x38)))
	n := 0
	var end uintptr
	for i := 0; i < phnum; i++ {
		ph := imageBase + phoff + uintptr(i)*phentsize
		if load32(ph) != 1 { // PT_LOAD
			continue
		}
		s := mm.Segment{Vaddr: uintptr(load64(ph + 16)), Memsz: uintptr(load64(ph + 40)), Flags: load32(ph + 4)}
		if s.Flags&mm.PF_X != 0 {
			imageText.lo, imageText.hi = s.Vaddr, s.Vaddr+s.Memsz
		}
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

// withoutImage copies the RAM regions into out minus the loaded image [imageStart, imageEnd).
func withoutImage(ram []mm.Region, imageStart, imageEnd uintptr, out []mm.Region) int {
	n := 0
	add := func(base, end uintptr) {
		if end > base && n < len(out) {
			out[n] = mm.Region{Base: base, Len: end - base}
			n++
		}
	}
	for _, r := range ram {
		base, end := r.Base, r.Base+r.Len
		if end <= imageStart || base >= imageEnd {
			add(base, end)
			continue
		}
		add(base, imageStart)
		add(imageEnd, end)
	}
	return n
}

// bootPanic stops the machine during boot with a message on stderr and a panic record.
func bootPanic(msg string) {
	var k kbuf
	k.s("gmpos: boot failed: ").s(msg).c('\n').to(consoleStderr)
	k.s("panic boot: ").s(msg).record()
	board.Exit(kernelPanicCode)
}

// hintedTag marks, in the boot record, a cycle rate that came from the runner (calibrate.go).
func hintedTag() string {
	if clock.hinted {
		return "(tsc_hz)" // cycles=2445426kHz(tsc_hz)
	}
	return ""
}
