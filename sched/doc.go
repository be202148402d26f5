// Package sched is gmpos's G/M/P scheduler: it decides which kernel thread
// (G) runs on which core (M) through which logical processor (P). It has no
// architecture code, so it builds and is tested on the host, and the same
// code runs in the kernel (from trap and timer-interrupt context) and in the
// host simulator (sched/sim, virtual time). Names mirror Go 1.26's
// runtime/proc.go so that the two can be read side by side.
//
// # Concepts
//
//   - G: a schedulable entity (a kernel thread of the Go program). Named by
//     a GID, an index into the fixed table Sched.allg; 0 means none. The
//     kernel keeps registers and stacks in its own table, same index.
//   - P: a logical processor, the right to run Gs. Holds the local run
//     queue (LRQ, a 256-slot lock-free ring), runnext, schedtick and the
//     current G (curg).
//   - M: a core. See "Ms and cores".
//   - GRQ: the global run queue, an unbounded intrusive FIFO under grqLock.
//   - Policy: the pluggable operations table (policy.go) that decides
//     which queue a runnable G sits on and which G a P runs next. Built-in:
//     gmp (default, Go's policy), global, local, fair. Chosen by name with
//     PolicyByName (kernel command line sched=NAME).
//   - Platform: Now, WakeM (IPI), ParkM (halt), optional WakeMAt (one-shot
//     timer); Poller: Gs whose device I/O completed (the kernel's network
//     poller, kernel/net_poller.go; the tests' fakes; the simulator's
//     network); TraceFunc: event hook (TraceEvent: Ready's Gs are "ready",
//     the Poller's "pollready").
//
// # Ms and cores
//
// The runtime has more Ms than Ps and moves Ps between Ms (startm, handoffp,
// stopm). gmpos has one M per core and binds M i to P i for good. So:
// "put P on the idle list and stop the M" is "publish P idle (pidleput) and
// return 0 from Schedule, after which the core halts"; "take an idle P and
// start an M for it" (wakep/startm) is "claim an idle P and IPI its core"
// (Platform.WakeM); and the syscall hand-off (entersyscallblock/handoffp) is
// Park: a G that blocks in the kernel gives up its P, and the same core at
// once schedules another G on it. Nothing ever waits for an M.
//
// # Ownership words
//
//   - owned by the owner P: only P i's own M (core i) writes it;
//   - owned by the holder: whoever has the G in hand (see G);
//   - protected by L: read and written only with spinlock L held;
//   - atomic: any P may read and write it with sync/atomic;
//   - immutable after Init: written by Init only.
//
// # Invariants
//
//   - A Grunnable G is on exactly one queue: one P's runnext or LRQ, the
//     GRQ, or one P's policy list (or in the middle of a steal between two
//     rings). A Grunning G is curg of exactly one P and on no queue. Gwaiting,
//     Gdead and Gidle Gs are on no run queue; Gidle Gs are on gFree; Gdead Gs
//     are between gfget and NewG/StartG or between Exit and gfput.
//   - Only the owner P writes runqtail and CASes runnext from 0 to a G.
//   - nmspinning equals the number of Ps with spinning set plus the parked
//     Ps claimed by a waker that have not resumed yet (see unpark).
//   - An idle P (bit in pidle) has an empty LRQ and runnext under gmp.
//   - No scheduler lock is held while calling Platform, Poller or trace
//     hooks, except pollLock across Poller.Poll (a try-lock: one poller
//     caller at a time, nobody ever waits for it).
//
// # Lock order
//
// Locks are spinlocks (lock.go), never sync.Mutex. A lock may be taken only
// while every lock already held has a lower rank (outermost first):
//
//	rank 1  P.lock       one at a time: never two P locks together
//	rank 2  grqLock      may be taken under P.lock
//	rank 3  gFreeLock    leaf
//
//	pollLock       (try-lock only, held across Poller.Poll; never waited on)
//
// This table is the single source of truth: TestLockOrder parses it and
// checks every lock acquisition in the package's source against it,
// including locks taken inside called functions. The built-in policies
// never nest locks at all; grqLock under P.lock is the one nesting a new
// policy may use. The LRQ, runnext, pidle,
// nmspinning and the counters are lock-free (sync/atomic only).
//
// # Contexts
//
// Every entry point may run in one of these contexts:
//
//   - boot: before the Go runtime is initialised: Init, PolicyByName.
//   - IRQ: a trap or timer interrupt on core pid, interrupts off: Tick,
//     TickNoPoll, PreemptAt, Preempt, Ready, Schedule, and the Policy methods under them.
//   - G / g0: kernel code on behalf of the running G (syscalls): NewProc,
//     Park, Gosched, GoYield, Exit, Schedule.
//
// Rules for all of them, checked by the AllocsPerRun tests: no heap
// allocation; no maps, fmt, escaping interfaces or interface type
// assertions (an assertion may fill the runtime's itab cache, which does
// not exist at boot: hence Config.Timer); no Go pointers stored
// into the queues (GIDs only, so no write barriers); fixed-size arrays;
// nothing relies on package init() (constants and statically initialised
// arrays only; PolicyByName is a switch). Init stores the Platform, Poller
// and trace hook into the Sched before the runtime's write barrier exists.
// On the kernel, every call for P pid is made on core pid with interrupts
// disabled, so a spinlock holder is never interrupted on its own core.
//
// Stack: there is no recursion and no //go:nosplit; the deepest chain is
// Schedule → findRunnable → gmp.Steal → runqsteal → runqgrab, and the
// largest frame is runqputslow's 129-GID batch (516 bytes). The kernel runs
// the scheduler on a per-CPU stack with room for that, so the stack check in
// each prologue never calls morestack.
//
// # Worker thread parking/unparking
//
// As in the runtime: we want enough spinning Ms to use idle Ps when work
// appears, but not so many that they burn CPU. A readier (NewProc, Ready,
// poller, Gosched) submits the G, then calls wakep, which wakes one idle P
// only if no M is spinning (nmspinning 0→1 by CAS). A spinning M that finds
// work stops spinning and calls wakep again (resetspinning), so wake-ups
// cascade one at a time. At most half the busy Ps may have spinning Ms.
//
// # Delicate dance
//
// A P that found nothing must not miss work submitted concurrently. It
// (1) publishes itself idle (pidleput), (2) drops spinning and decrements
// nmspinning, (3) re-checks every queue (Policy.HasWork). A submitter does
// (1) enqueue, (2) check nmspinning/pidle (wakep). With sequentially
// consistent atomics, either the submitter sees the idle P and wakes it, or
// the P's re-check sees the G. If the re-check finds work, the P takes
// itself back and spins (even past the spinning limit, as the runtime does);
// the loop is bounded (maxRecheck) because HasWork may see a G that Steal
// may not take yet. The one such G, a runnext younger than RunnextGrace, is
// covered by TimerPlatform.WakeMAt (the runtime's usleep(3) in runqgrab) or
// else by its own P. Platform.WakeM must therefore not be lost if
// it arrives before the core halts (sti; hlt on x86, SDM Vol. 2B "STI":
// interrupts are recognised only after the next instruction, so the HLT is
// entered with the IPI still pending and the IPI ends it).
//
// # Cross-reading (runtime/proc.go, Go 1.26)
//
//	sched.Sched            schedt + allg + allp (runtime2.go)
//	G, GStatus             g, _Gidle/_Grunnable/_Grunning/_Gwaiting/_Gdead
//	P                      p
//	Sched.Init             schedinit + procresize
//	Sched.NewProc          newproc / newproc1
//	Sched.Ready            goready / ready
//	Sched.Park             gopark / park_m (+ handoffp, see Ms and cores)
//	Sched.Gosched          Gosched / gosched_m / goschedImpl
//	Sched.GoYield          goyield / goyield_m
//	Sched.Preempt          gopreempt_m (after sysmon retake/preemptone)
//	Sched.Exit             goexit0 + gfput
//	Sched.Schedule         schedule (non-blocking) + execute
//	Sched.Tick             sysmon: retake + "poll network if not polled for 10ms"
//	Sched.TickNoPoll       sysmon: retake alone (a timer interrupt that may not poll)
//	Sched.PreemptAt        (no runtime equivalent: when retake could first act; Linux's hrtick)
//	findRunnable           findRunnable
//	execute                execute
//	dropg                  dropg
//	gfget / gfput          gfget / gfput (one global free list)
//	runqput                runqput
//	runqputslow            runqputslow
//	runqget                runqget
//	runqgrab               runqgrab (aged runnext instead of usleep(3))
//	runqsteal              runqsteal
//	runqempty              runqempty
//	globrunqput            globrunqput
//	globrunqget            globrunqget
//	globrunqgetbatch       globrunqgetbatch + runqputbatch
//	gmp.PickNext           findRunnable's first half (schedtick%61, runqget, GRQ)
//	gmp.Steal              stealWork (4 passes, randomOrder)
//	gmp.HasWork            findRunnable's re-check after dropping spinning
//	gmp.Tick, wokenWaits   sysmon retake's 10 ms check; + (new) wake-up preemption: a woken G in
//	                       runnext preempts a G that has run WakeGrain (Linux check_preempt_wakeup)
//	randomOrder            randomOrder / randomEnum
//	pidleput / pidleget    pidleput / pidleget (bit mask, no M)
//	pidleClear             (new) clear one P's idle bit (owner or claimer)
//	unpark                 (new) a parked P resumes; adopts a waker's spinning slot
//	wake                   wakep, or a wake-up of one named P (policy hint)
//	wakep                  wakep + startm(pp, spinning=true)
//	resetspinning          resetspinning
//	becomeSpinning         findRunnable's "mp.becomeSpinning()"
//	pollOnce               netpoll(0) / netpoll(delay) + injectglist
//	injectOne              injectglist (one G)
//	spinlock               runtime lock_spinbit.go (spin only, no futex)
//	Sched.CheckInvariants  (new) the runtime's checks, gathered in one walk
//	Stats, Sched.Total     schedstats / GODEBUG=schedtrace counters
//	Sched.AppendTrace      schedtrace (the one-line form, no locks)
//	Sched.NewProcWeight    newproc (+ a fair-policy weight: no runtime equivalent)
//	Sched.NewG             newproc1 (allocate; not runnable while the kernel sets it up)
//	Sched.StartG           newproc's runqput(pp, newg, true) + wakep
//	requeue                goschedImpl / goyield_m / gopreempt_m's common part
//	listPushBack           gQueue.pushBack
//	listPushFront          gQueue.push
//	listPop                gQueue.pop
//	listRemove             (new) unlink during a scan (fair policy)
//	global, local, fair    (no runtime equivalent: teaching alternatives)
//	Policy.Enqueue/PickNext/Steal/Tick/TickAt/HasWork/Name   see policy.go's table
//	fairPickLocked         (EEVDF pick); fairRequest: the request size
//	listLen                (P.list length under P.lock)
//	npidle                 sched.npidle
//	pWake                  (new) unpark on behalf of an interrupt on that core
//	runqlen                runqlen (minus runnext)
//	cheaprand              cheaprand (per-P xorshift); splitmix64 seeds it
//	randomOrder.start/next/done/position, gcd   randomOrder / randomEnum
//	spinlock.lock/unlock   lock2 / unlock2 (lock_spinbit.go), spin only
//	procyield              procyield (PAUSE loop)
//	throw                  throw
//	traceEv                traceEvent (trace.go), minus the buffers
//	checkList              (new) part of CheckInvariants
//	orDefault              (new) Config defaults
//	Error                  (errors as constants: no init(), no allocation)
//	Curg, Status, Info, Stat, Live, NP, Idle, NIdle, Spinning, GRQLen, RunqLen,
//	PolicyNames, Stats.Get, String
//	                       read-only accessors (the runtime's schedtrace and
//	                       debug fields); no locks except RunqLen's P.lock
//	RunqEmpty              runqempty, plus the policy's list (P.lock only when
//	                       the lock-free queues are empty)
//	KernelData             (new, generated by kernel/mkkdata.go) this package's
//	                       variables, which no system call may touch for the
//	                       program on gmpos (kernel/mm ProtectKernelData)
//
// # References
//
//   - Go 1.26 runtime/proc.go and runtime2.go; "Scalable Go Scheduler
//     Design Doc" (D. Vyukov, 2012).
//   - Linux kernel/sched/ext.c (sched_ext ops table), kernel/sched/fair.c
//     (EEVDF); Stoica, Abdel-Wahab, "Earliest Eligible Virtual Deadline
//     First", 1995.
//   - Intel SDM Vol. 2B, STI and HLT (the idle halt); Vol. 3A §11.6
//     (issuing IPIs through the local APIC ICR).
//
// See README.md for the student lab: how to add a policy.
package sched
