// Package simulator is a deterministic discrete-event simulator that runs
// the gmpos scheduler (package gmpos/sched) on N simulated cores in
// virtual time. It drives the very same Sched and Policy code the kernel
// calls from trap context, so a policy can be studied, compared and
// regression-tested on the host. The command go run ./sched/sim is its
// front end.
//
// # Model
//
// Virtual time is an int64 count of nanoseconds. Nothing happens between
// events: the engine pops the earliest event from a binary heap ordered by
// (time, sequence number), sets the clock to it and handles it (events.go).
// All randomness comes from math/rand/v2 PCG streams derived from
// Config.Seed, and the Sched gets the same seed for its steal order, so a
// run is a pure function of its configuration: same seed, same table, same
// trace bytes.
//
// Each core is an M bound to one P, as in the kernel ("Ms and cores" in
// sched/doc.go). The engine implements the interfaces the Sched needs
// from a machine:
//
//   - sched.Platform: Now is the virtual clock; WakeM is an IPI to a halted
//     core, which calls Schedule after WakeLatency (default 5 µs); ParkM is a
//     notification, the core halts when Schedule returns 0.
//   - sched.TimerPlatform: WakeMAt is a one-shot timer on a halted core,
//     used by the Sched to retry a steal of a runnext G that was too fresh.
//   - sched.Poller: a fake network. A G that does OpNet parks; its virtual
//     packet arrives after the op's delay and the G waits in the poller's
//     ready list until a findRunnable poll, a Tick poll (at least every
//     10 ms) or a halted core woken by the packet's interrupt picks it up.
//
// Each G draws its random durations from its own PCG stream, seeded from
// its parent's stream when it is spawned (initial Gs: from the seed). A
// G's work therefore depends on its lineage only, not on the order a
// policy happens to run Gs in: every policy in a table runs the same work.
//
// A core loops: Schedule for its P; run the chosen G; the G's Script says
// what it does next (workload.go): compute for a while, spawn a G
// (NewProc, on this P), signal or wait on a semaphore (Ready / Park),
// sleep (Park, then this core's timer Readies it), wait for the network
// (Park, then the poller), Gosched, goyield or exit. Only computing takes
// CPU time; the other ops happen at the end of the burst before them.
// Every TickPeriod (default 1 ms, phases staggered across cores) a busy
// core's timer interrupt calls Sched.Tick; if the policy says the slice is
// used up, the G is Preempted mid-burst and resumes later with the rest.
// Between a G leaving a core and the next Schedule the core spends
// SwitchCost (default 1 µs): trap entry, register save, the decision.
//
// # Hardware the model stands for
//
//   - The per-core tick is the local APIC timer in periodic mode (Intel SDM
//     Vol. 3A, APIC chapter, "APIC Timer"); halted cores are tickless, as a
//     kernel stops the timer before HLT.
//   - WakeM is a fixed IPI through the ICR ("Issuing Interprocessor
//     Interrupts"); the wake-up latency stands for IPI delivery plus leaving
//     HLT (SDM Vol. 2A, HLT: "resumes on an interrupt").
//   - A packet's interrupt goes to a halted core if there is one, like the
//     I/O APIC's lowest-priority delivery mode (SDM Vol. 3A, "Lowest
//     Priority Delivery Mode"), preferring the core blocked in the poller.
//   - A sleeping G's timer fires on the core it slept on (per-core timer
//     wheels), so the Ready happens on that core's P.
//
// # Writing a workload
//
// A Workload's Setup returns the initial Gs; each G is a Script, a
// function from its step number to an Op. For example, a G that computes
// 1 ms and sleeps 4 ms, ten times over, started on core 0:
//
//	w := simulator.Workload{Name: "blinker", Setup: func(cores int, r *rand.Rand) []simulator.Start {
//		return []simulator.Start{{Core: 0, G: simulator.GSpec{Label: "blink", Script: func(step int, r *rand.Rand) simulator.Op {
//			switch {
//			case step >= 20:
//				return simulator.Exit()
//			case step%2 == 0:
//				return simulator.Compute(simulator.Millisecond)
//			}
//			return simulator.Sleep(4 * simulator.Millisecond)
//		}}}}
//	}}
//	res, err := simulator.Run(simulator.Config{Cores: 2, Seed: 1, Workload: w, Policy: "gmp"})
//
// Draw random durations from the *rand.Rand the script is given (the G's
// own stream), never from a global source, or runs stop being
// reproducible. Semaphores (Signal/Wait) are numbered by the workload;
// giving each fork-join its own number keeps them independent. A G that
// waits on a semaphore nobody signals is reported as a deadlock.
//
// # Metrics
//
// Per run (metrics.go): makespan (time of the last exit); per-core
// utilisation (time running Gs / makespan); p50/p99 run-queue wait (from
// becoming runnable, or from packet arrival, to starting to run; one sample
// per dispatch); context switches (dispatches of a different G than the
// core ran last); steals and GRQ takes (the Sched's own counters);
// preemptions; Jain's fairness index over x_i = run_i/(run_i+wait_i).
// "Schedticks" for the GRQ test are picks that start a new slice: every
// pick except a runnext hit.
//
// # Limits: what real hardware does that this model ignores
//
//   - Caches and affinity: a G migrated by a steal runs at full speed at
//     once; real hardware pays cold caches and TLB misses, which is why
//     locality-preserving policies win more on hardware than here.
//   - Lock and cache-line contention: calls into the Sched cost no time and
//     never contend, so the global policy's single spinlock looks free. Its
//     FIFO behaviour shows; its contention does not.
//   - Schedule, steal attempts and spinning take zero time; a spinning M
//     burns no virtual CPU and is not counted as busy.
//   - Interrupt handlers (ticks, timers, packets) take no CPU from the G
//     they interrupt; timers fire exactly on time.
//   - One host thread runs everything, so the lock-free queues never race
//     here: concurrency bugs are the job of the -race stress tests in
//     package sched, not of this simulator.
//   - The blocking poll never returns Gs: Schedule cannot wait inside a
//     discrete-event step, so the poller marks the calling core and the
//     next packet's interrupt wakes it to poll afresh. The Sched's own
//     "blocking poll returned Gs" path is therefore not exercised here.
//   - Constant costs: every switch costs SwitchCost and every wake-up
//     WakeLatency, regardless of C-states, SMT siblings, NUMA or QEMU/TCG
//     speed.
//
// # Host-only code
//
// This package runs on the host only and may allocate freely; the rules of
// interrupt context apply to the Sched it drives, not to the engine. The
// engine still treats the Sched as the kernel does: each P is driven by its
// own core, calls happen one at a time per core, Ready is only called on
// a G that is parked, and a panic inside the Sched is reported as the run's
// error together with the virtual time and core.
package simulator
